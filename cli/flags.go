package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/run"
)

// NewFlagSet returns a flag set that reports errors instead of exiting.
func NewFlagSet(name, usage string, out io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	fs.Usage = func() {
		fmt.Fprintf(out, "Usage: goodput %s\n\nFlags:\n%s", usage, fs.FlagUsages())
	}
	return fs
}

// ParseFlags parses args, turning pflag's errors into one-line usage errors
// that name the flag and point at --help.
func ParseFlags(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return ErrHelp // pflag has printed the usage
		}
		msg := strings.ReplaceAll(err.Error(), "\n", " ")
		return Usagef("%s (see 'goodput %s --help')", msg, fs.Name())
	}
	return nil
}

// oneLineErr flattens an error to one line.
func oneLineErr(err error) string { return run.OneLine(err) }
