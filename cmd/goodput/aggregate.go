package main

import (
	"context"
	"fmt"
	"io"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/run"
	"github.com/goodput-dev/goodput/scorecard"
)

// runAggregate implements `goodput aggregate DIR...`: one flat CSV row per
// run (every scorecard field a column) and the Pareto frontier over (cost
// per 1M tokens, Wh per token, TTFT P99) among the runs that meet their
// SLO. The CSV goes to -o FILE, or to stdout; the frontier table goes to
// stdout with -o, else to stderr (so that `goodput aggregate results/ >
// scorecard-aggregate.csv` keeps the CSV clean).
func runAggregate(ctx context.Context, e *cli.Env, args []string) error {
	fs := cli.NewFlagSet("aggregate", "aggregate [flags] DIR|FILE...", e.Stdout)
	out := fs.StringP("output", "o", "", "write the CSV to this file instead of stdout (overwritten: it is derived data)")
	sloSpec := fs.String("slo", "", "judge every run against this SLO instead of its own, e.g. ttft_p99=500ms,itl_p95=50ms (ttft_p99, itl_p95 and error_rate can be judged)")
	quiet := fs.Bool("no-table", false, "print no frontier table")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return cli.Usagef("give a results directory (or scorecard files), e.g. goodput aggregate results/")
	}
	var judge scorecard.Judge
	note := "each run's own SLO"
	if *sloSpec != "" {
		spec, err := scorecard.ParseJudgeSpec(*sloSpec)
		if err != nil {
			return cli.Usagef("--slo: %v", err)
		}
		judge.Spec = spec
		note = "--slo " + spec.String()
	}
	entries, warns, err := scorecard.Collect(fs.Args())
	for _, w := range warns {
		fmt.Fprintf(e.Stderr, "goodput aggregate: %s\n", w)
	}
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return fmt.Errorf("no scorecard-*.json or report found under %v", fs.Args())
	}
	if ctx.Err() != nil {
		return run.ErrInterrupted
	}
	verdicts := scorecard.Frontier(entries, judge)
	table := e.Stderr
	if *out != "" {
		if err := run.WriteFileAtomic(*out, func(w io.Writer) error { return scorecard.WriteCSV(w, entries, verdicts) }); err != nil {
			return err
		}
		table = e.Stdout
	} else if err := scorecard.WriteCSV(e.Stdout, entries, verdicts); err != nil {
		return fmt.Errorf("writing CSV: %w", err)
	}
	if !*quiet {
		if err := scorecard.WriteFrontier(table, entries, verdicts, note); err != nil {
			return err
		}
	}
	if *out != "" {
		fmt.Fprintf(e.Stderr, "wrote %s (%d runs)\n", *out, len(entries))
	}
	return nil
}
