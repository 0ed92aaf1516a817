// Command goodput is a load generator and reproducible benchmark harness for
// OpenAI-compatible LLM servers. Run "goodput help" for the commands.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/goodput-dev/goodput/metadata"
	"github.com/goodput-dev/goodput/run"
)

// Set at build time with -ldflags "-X main.version=… -X main.commit=…".
var (
	version = "dev"
	commit  = "unknown"
)

// Exit codes.
const (
	exitOK        = 0
	exitFailure   = 1 // the run failed, or a gate (compare) did not pass
	exitUsage     = 2 // bad flags or input
	exitErrorRate = 3 // a benchmark's error rate exceeded --fail-on-error-rate
	exitNoSuccess = 4 // a benchmark had no successful request, or the server went away (not with --allow-all-errors)
	exitUndecided = 5 // compare: a threshold crossing the samples are too small to judge
	exitLost      = 6 // outputs incomplete: a write failed (a full disk); the summary printed
	exitInterrupt = 130
)

// usageError marks bad input: exit code 2 and a one-line message.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// errInterrupted is returned when a run stopped on SIGINT/SIGTERM after
// writing its partial report.
var errInterrupted = run.ErrInterrupted

type command struct {
	name    string
	aliases []string
	summary string
	run     func(ctx context.Context, env *env, args []string) error
}

// env is what a command may touch besides its flags.
type env struct {
	stdout, stderr io.Writer
	stdin          io.Reader
	getenv         func(string) string
}

func commands() []command {
	return []command{
		{name: "benchmark", aliases: []string{"run"}, summary: "run benchmarks against a server (GuideLLM's flags)", run: runBenchmark},
		{name: "aggregate", summary: "one CSV row per run's scorecard, and the Pareto frontier of cost, energy and TTFT", run: runAggregate},
		{name: "merge", summary: "merge the shard reports of a multi-pod run into one report", run: runMerge},
		{name: "profile", summary: "run benchmarks with AIPerf's flags; writes AIPerf's exports too", run: runProfile},
		{name: "report", summary: "re-render reports (goodput or GuideLLM): console, CSV, JSON, AIPerf exports, HTML", run: runReport},
		{name: "compare", summary: "compare two reports; exit 1 on a regression beyond thresholds and noise (CI gate)", run: runCompare},
		{name: "dataset", summary: "inspect a --data source (columns, token lengths, first requests) or convert it to JSON Lines", run: runDataset},
		{name: "tokenize", summary: "count tokens (and ids) with a model's tokenizer, offline", run: runTokenize},
		{name: "mock", summary: "serve the built-in mock OpenAI-compatible server", run: runMock},
		{name: "version", summary: "print the version", run: runVersion},
	}
}

func main() {
	os.Exit(realMain(os.Args[1:], &env{stdout: os.Stdout, stderr: os.Stderr, stdin: os.Stdin, getenv: os.Getenv}))
}

func realMain(args []string, e *env) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printHelp(e.stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	if args[0] == "--version" {
		args[0] = "version"
	}
	var cmd *command
	for _, c := range commands() {
		if c.name == args[0] || contains(c.aliases, args[0]) {
			cmd = &c
			break
		}
	}
	if cmd == nil {
		fmt.Fprintf(e.stderr, "goodput: unknown command %q (run 'goodput help' for the list)\n", args[0])
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := cmd.run(ctx, e, args[1:])
	return exitCode(e.stderr, cmd.name, err)
}

func exitCode(w io.Writer, name string, err error) int {
	var ue usageError
	var re run.UsageError
	var ns *run.NoSuccessError
	var lost *run.OutputsLostError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errHelp):
		return exitOK
	case errors.Is(err, errInterrupted):
		fmt.Fprintf(w, "goodput %s: interrupted; partial results were written\n", name)
		return exitInterrupt
	case errors.As(err, &ue):
		fmt.Fprintf(w, "goodput %s: %s\n", name, ue.msg)
		return exitUsage
	case errors.As(err, &re):
		fmt.Fprintf(w, "goodput %s: %s\n", name, re.Msg)
		return exitUsage
	case errors.Is(err, errGateFailed):
		return exitFailure
	case errors.Is(err, errGateUndecided):
		return exitUndecided
	case errors.Is(err, errErrorRate):
		return exitErrorRate
	case errors.As(err, &ns):
		printNoSuccess(w, ns)
		return exitNoSuccess
	case errors.As(err, &lost):
		for _, l := range lost.Lines {
			fmt.Fprintf(w, "goodput %s: %s\n", name, l)
		}
		fmt.Fprintf(w, "goodput %s: outputs incomplete; what was written is valid (exit %d)\n", name, exitLost)
		return exitLost
	}
	fmt.Fprintf(w, "goodput %s: %v\n", name, err)
	return exitFailure
}

// errGateFailed is returned by gates (compare) after printing their verdict.
var errGateFailed = errors.New("gate failed")

// errGateUndecided is returned by compare after printing a verdict with no
// regression but a crossing its samples could not judge.
var errGateUndecided = errors.New("gate undecided")

func printHelp(w io.Writer) {
	fmt.Fprintf(w, "goodput %s: load generator and benchmark harness for OpenAI-compatible LLM servers\n\nUsage: goodput <command> [flags]\n\nCommands:\n", version)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun 'goodput <command> --help' for a command's flags.\n")
}

func runVersion(_ context.Context, e *env, args []string) error {
	if len(args) > 0 {
		return usagef("version takes no arguments")
	}
	c := commit
	if c == "unknown" {
		// A plain `go build` in a checkout: Go's build information.
		if rev := metadata.BuildRevision(); rev != "" {
			c = rev
		}
	}
	fmt.Fprintf(e.stdout, "goodput %s (commit %s)\n", version, c)
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
