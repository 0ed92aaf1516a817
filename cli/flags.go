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
		if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
			if near := nearFlags(fs, name); len(near) > 0 {
				return Usagef("unknown flag: --%s: did you mean --%s? (see 'goodput %s --help')", name, strings.Join(near, " or --"), fs.Name())
			}
		}
		return Usagef("%s (see 'goodput %s --help')", msg, fs.Name())
	}
	return nil
}

// nearFlags are the flags of fs an unknown --name most likely meant: the
// ones at the smallest edit distance, at most one in a name shorter than
// 8 letters and two in a longer one (--concurency); none when more than
// three are as near.
func nearFlags(fs *pflag.FlagSet, name string) []string {
	maxD := 1
	if len(name) >= 8 {
		maxD = 2
	}
	var near []string
	bestD := maxD + 1
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		switch d := editDistance(name, f.Name); {
		case d < bestD:
			near, bestD = []string{f.Name}, d
		case d == bestD && d <= maxD:
			near = append(near, f.Name)
		}
	})
	if len(near) > 3 {
		return nil
	}
	return near
}

// editDistance is the Levenshtein distance of a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// oneLineErr flattens an error to one line.
func oneLineErr(err error) string { return run.OneLine(err) }
