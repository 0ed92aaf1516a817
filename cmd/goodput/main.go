// Command goodput is a load generator and reproducible benchmark harness for
// OpenAI-compatible LLM servers. Run "goodput help" for the commands.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/goodput-dev/goodput/cli"

	"github.com/goodput-dev/goodput/metadata"
	"github.com/goodput-dev/goodput/run"
)

// Set at build time with -ldflags "-X main.version=… -X main.commit=…".
var (
	version = "dev"
	commit  = "unknown"
)

type command struct {
	name    string
	aliases []string
	summary string
	run     func(ctx context.Context, env *cli.Env, args []string) error
}

func commands() []command {
	return []command{
		{name: "benchmark", aliases: []string{"run"}, summary: "run benchmarks against a server (GuideLLM's flags)", run: cli.Benchmark},
		{name: "aggregate", summary: "one CSV row per run's scorecard, and the Pareto frontier of cost, energy and TTFT", run: runAggregate},
		{name: "merge", summary: "merge the shard reports of a multi-pod run into one report", run: runMerge},
		{name: "profile", summary: "run benchmarks with AIPerf's flags; writes AIPerf's exports too", run: cli.Profile},
		{name: "report", summary: "re-render reports (goodput or GuideLLM): console, CSV, JSON, AIPerf exports, HTML", run: runReport},
		{name: "compare", summary: "compare two reports; exit 1 on a regression beyond thresholds and noise (CI gate)", run: runCompare},
		{name: "dataset", summary: "inspect a --data source (columns, token lengths, first requests) or convert it to JSON Lines", run: runDataset},
		{name: "tokenize", summary: "count tokens (and ids) with a model's tokenizer, offline", run: runTokenize},
		{name: "mock", summary: "serve the built-in mock OpenAI-compatible server", run: runMock},
		{name: "version", summary: "print the version", run: runVersion},
	}
}

func main() {
	os.Exit(realMain(os.Args[1:], &cli.Env{Stdout: os.Stdout, Stderr: os.Stderr, Stdin: os.Stdin, Getenv: os.Getenv}))
}

func realMain(args []string, e *cli.Env) int {
	if e.Build == (run.Build{}) {
		e.Build = run.Build{Version: version, Commit: commit}
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printHelp(e.Stdout)
		if len(args) == 0 {
			return cli.ExitUsage
		}
		return cli.ExitOK
	}
	if args[0] == "--version" {
		args[0] = "version"
	}
	var cmd *command
	for _, c := range commands() {
		if c.name == args[0] || slices.Contains(c.aliases, args[0]) {
			cmd = &c
			break
		}
	}
	if cmd == nil {
		fmt.Fprintf(e.Stderr, "goodput: unknown command %q (run 'goodput help' for the list)\n", args[0])
		return cli.ExitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := cmd.run(ctx, e, args[1:])
	return cli.ExitCode(e.Stderr, cmd.name, err)
}

func printHelp(w io.Writer) {
	fmt.Fprintf(w, "goodput %s: load generator and benchmark harness for OpenAI-compatible LLM servers\n\nUsage: goodput <command> [flags]\n\nCommands:\n", version)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun 'goodput <command> --help' for a command's flags.\n")
}

func runVersion(_ context.Context, e *cli.Env, args []string) error {
	if len(args) > 0 {
		return cli.Usagef("version takes no arguments")
	}
	c := commit
	if c == "unknown" {
		// A plain `go build` in a checkout: Go's build information.
		if rev := metadata.BuildRevision(); rev != "" {
			c = rev
		}
	}
	fmt.Fprintf(e.Stdout, "goodput %s (commit %s)\n", version, c)
	return nil
}
