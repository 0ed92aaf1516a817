package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/goodput-dev/goodput/run"
)

// Env is what a command may touch besides its flags.
type Env struct {
	Stdout, Stderr io.Writer
	Stdin          io.Reader
	Getenv         func(string) string
	Build          run.Build // the binary's version and commit, for the report
}

// Exit codes of every command, mapped from errors by cmd/goodput.
const (
	ExitOK        = 0
	ExitFailure   = 1 // the run failed, or a gate (compare) did not pass
	ExitUsage     = 2 // bad flags or input
	ExitErrorRate = 3 // a benchmark's error rate exceeded --fail-on-error-rate
	ExitNoSuccess = 4 // a benchmark had no successful request, or the server went away (not with --allow-all-errors)
	ExitUndecided = 5 // compare: a threshold crossing the samples are too small to judge
	ExitLost      = 6 // outputs incomplete: a write failed (a full disk); the summary printed
	ExitInterrupt = 130
)

// UsageError marks bad input: exit code 2 and a one-line message.
type UsageError struct{ Msg string }

func (e UsageError) Error() string { return e.Msg }

// Usagef is a UsageError.
func Usagef(format string, args ...any) error { return UsageError{fmt.Sprintf(format, args...)} }

// ErrHelp is returned when --help was asked for (exit 0).
var ErrHelp = errors.New("help")

// ErrErrorRate is returned after a run whose error rate exceeded
// --fail-on-error-rate.
var ErrErrorRate = errors.New("error rate above --fail-on-error-rate")

// ExitCode prints err's message for command name on w and returns the
// command's exit code.
func ExitCode(w io.Writer, name string, err error) int {
	var ue UsageError
	var re run.UsageError
	var ns *run.NoSuccessError
	var lost *run.OutputsLostError
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, ErrHelp):
		return ExitOK
	case errors.Is(err, run.ErrInterrupted):
		fmt.Fprintf(w, "goodput %s: interrupted; partial results were written\n", name)
		return ExitInterrupt
	case errors.As(err, &ue):
		fmt.Fprintf(w, "goodput %s: %s\n", name, ue.Msg)
		return ExitUsage
	case errors.As(err, &re):
		fmt.Fprintf(w, "goodput %s: %s\n", name, re.Msg)
		return ExitUsage
	case errors.Is(err, ErrGateFailed):
		return ExitFailure
	case errors.Is(err, ErrGateUndecided):
		return ExitUndecided
	case errors.Is(err, ErrErrorRate):
		return ExitErrorRate
	case errors.As(err, &ns):
		PrintNoSuccess(w, ns)
		return ExitNoSuccess
	case errors.As(err, &lost):
		for _, l := range lost.Lines {
			fmt.Fprintf(w, "goodput %s: %s\n", name, l)
		}
		fmt.Fprintf(w, "goodput %s: outputs incomplete; what was written is valid (exit %d)\n", name, ExitLost)
		return ExitLost
	}
	fmt.Fprintf(w, "goodput %s: %v\n", name, err)
	return ExitFailure
}

// ErrGateFailed is returned by gates (compare) after printing their verdict.
var ErrGateFailed = errors.New("gate failed")

// ErrGateUndecided is returned by compare after printing a verdict with no
// regression but a crossing its samples could not judge.
var ErrGateUndecided = errors.New("gate undecided")
