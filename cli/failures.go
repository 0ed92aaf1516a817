package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/console"
	"github.com/goodput-dev/goodput/run"
	"github.com/goodput-dev/goodput/slo"
)

// failureOptions are the flags of what a run does when its server fails
// it: benchmark's and profile's alike.
type failureOptions struct {
	allowAllErrors     bool
	maxConnectFailures int
	failOnErrorRate    string
}

// failureFlags registers --allow-all-errors, --max-connect-failures and
// --fail-on-error-rate.
func failureFlags(o *failureOptions, fs *pflag.FlagSet) {
	fs.BoolVar(&o.allowAllErrors, "allow-all-errors", false, fmt.Sprintf("exit 0 although a benchmark had no successful request or the server went away, as GuideLLM does (default: exit %d naming the most common error)", ExitNoSuccess))
	fs.IntVar(&o.maxConnectFailures, "max-connect-failures", run.DefaultMaxConnectFailures, "stop the run when this many requests in a row could not reach the server (refused, or reset before a response): it went away; 0: never")
	fs.StringVar(&o.failOnErrorRate, "fail-on-error-rate", "", fmt.Sprintf("exit %d when a benchmark's error rate (errored ÷ requests in its window) exceeds this: a fraction 0 ≤ x ≤ 1 or a percentage (5%%) (for CI; 0: any error)", ExitErrorRate))
}

// WideFlag registers --wide (benchmark and profile): the console's tables
// whole instead of cut to console.Columns.
func WideFlag(wide *bool, fs *pflag.FlagSet) {
	fs.BoolVar(wide, "wide", false, fmt.Sprintf("print the console's tables whole, as wide as they are (default: cut to fit %d columns)", console.Columns))
}

// apply puts the options into the draft.
func (o *failureOptions) apply(fs *pflag.FlagSet, p *draft) error {
	if o.maxConnectFailures < 0 {
		return Usagef("--max-connect-failures %d: want a number of requests ≥ 1 (0: never stop)", o.maxConnectFailures)
	}
	p.Plan.Constraints.MaxConnectFailures, p.AllowAllErrors = o.maxConnectFailures, o.allowAllErrors
	var err error
	p.maxErrorRate, err = errorRateGate(fs, "fail-on-error-rate", o.failOnErrorRate)
	return err
}

// errorRateGate reads --fail-on-error-rate (slo's fractions: 0.05 or 5%):
// nil when not given.
func errorRateGate(fs *pflag.FlagSet, name string, v string) (*float64, error) {
	if fs == nil || !fs.Changed(name) {
		return nil, nil
	}
	f, err := slo.ParseFraction(v)
	if err != nil {
		return nil, Usagef("--%s %s (0: fail on any error)", name, err)
	}
	return &f, nil
}

// checkErrorRate returns ErrErrorRate, after naming each benchmark on w,
// when a benchmark's error rate exceeds max; nil when max is nil.
func checkErrorRate(w io.Writer, rep *report.Report, max *float64) error {
	if max == nil || rep == nil {
		return nil
	}
	failed := false
	for i, b := range rep.Benchmarks {
		if rate, ok := errorRate(b); ok && rate > *max {
			fmt.Fprintf(w, "goodput: benchmark %d (%s): error rate %.1f%% exceeds --fail-on-error-rate %g\n", i, b.Label(), 100*rate, *max)
			failed = true
		}
	}
	if failed {
		return ErrErrorRate
	}
	return nil
}

// afterRun is a run's verdict once its outputs are written: the error
// rate gate (--fail-on-error-rate) first, as the user asked for it, then
// a run that measured no working server (run.NoSuccessError), whose
// diagnosis is printed in either case.
func afterRun(w io.Writer, rep *report.Report, runErr error, max *float64) error {
	var ns *run.NoSuccessError
	if runErr != nil && !errors.As(runErr, &ns) {
		return runErr
	}
	if err := checkErrorRate(w, rep, max); err != nil {
		if ns != nil {
			PrintNoSuccess(w, ns)
		}
		return err
	}
	return runErr
}

// PrintNoSuccess writes a NoSuccessError's diagnosis, one line a
// benchmark.
func PrintNoSuccess(w io.Writer, ns *run.NoSuccessError) {
	for _, l := range ns.Lines {
		fmt.Fprintf(w, "goodput: %s\n", l)
	}
	fmt.Fprintf(w, "goodput: no working server was measured (exit %d; --allow-all-errors exits 0)\n", ExitNoSuccess)
}
