package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/console"
	"github.com/goodput-dev/goodput/report/merge"
	"github.com/goodput-dev/goodput/run"
)

// runMerge implements "goodput merge SHARD.json… -o RUN.json": the shard
// reports of a multi-pod run become the run's report. With every shard's
// request records (found beside each report, or given with --records) each
// round is rebuilt exactly from the records; otherwise from the reports'
// histograms (the merged report says which, and what is approximate). A
// missing, duplicate, foreign or late shard is refused (exit 2).
func runMerge(ctx context.Context, e *cli.Env, args []string) error {
	fs := cli.NewFlagSet("merge", "merge SHARD.json… -o RUN.json [flags]", e.Stdout)
	out := fs.StringP("output", "o", "", "merged report file, .json (required)")
	records := fs.StringArray("records", nil, "a shard's request records (JSON Lines), once per shard report in the same order (default: FILE.jsonl beside FILE.json, or requests.jsonl in its run directory)")
	noRecords := fs.Bool("no-records", false, "merge from the reports' histograms even when the records are available")
	tol := fs.Duration("tolerance", merge.DefaultTolerance, "how far a shard's first request of a round may be from its scheduled start")
	force := fs.Bool("force", false, "overwrite the output file")
	quiet := fs.Bool("disable-console", false, "print no summary table")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	paths := fs.Args()
	switch {
	case len(paths) == 0:
		return cli.Usagef("give the shard reports: goodput merge SHARD.json… -o RUN.json")
	case *out == "":
		return cli.Usagef("--output is required, e.g. -o run.json")
	case filepath.Ext(*out) != ".json":
		return cli.Usagef("--output %q: want a .json file", *out)
	case *tol <= 0:
		return cli.Usagef("--tolerance %v: want a positive duration, e.g. 1s", *tol)
	case *noRecords && len(*records) > 0:
		return cli.Usagef("--records and --no-records exclude each other")
	case len(*records) > 0 && len(*records) != len(paths):
		return cli.Usagef("--records given %d times for %d shard reports: give one per report, in the same order", len(*records), len(paths))
	}
	if _, err := os.Stat(*out); err == nil && !*force {
		return cli.Usagef("--output: %s exists (use another name, or --force)", *out)
	}
	for i, p := range paths {
		for _, q := range paths[:i] {
			if filepath.Clean(p) == filepath.Clean(q) {
				return cli.Usagef("%s: given twice", p)
			}
		}
		if filepath.Clean(p) == filepath.Clean(*out) {
			return cli.Usagef("--output %s is one of the shard reports", *out)
		}
	}
	shards := make([]merge.File, len(paths))
	var lacking []string
	for i, p := range paths {
		rep, err := report.Read(p)
		if err != nil {
			return cli.Usagef("%v", err)
		}
		shards[i] = merge.File{Name: p, Report: rep}
		if *noRecords {
			continue
		}
		rp := ""
		if len(*records) > 0 {
			rp = (*records)[i]
			if _, err := os.Stat(rp); err != nil {
				return cli.Usagef("--records %s: %v", rp, err)
			}
		} else {
			rp = besideRecords(p, paths)
		}
		if rp == "" {
			lacking = append(lacking, p)
			continue
		}
		shards[i].RecordsName = rp
		shards[i].Records = func() (io.ReadCloser, error) { return os.Open(rp) }
	}
	opt := merge.Options{Tolerance: *tol, GoodputVersion: version}
	switch {
	case *noRecords:
		opt.NoRecordsReason = "--no-records was given"
	case len(lacking) > 0:
		opt.NoRecordsReason = "no request records beside " + strings.Join(lacking, ", ") + " (looked for the same stem with .jsonl and for requests.jsonl in its directory; or give --records)"
	}
	rep, err := merge.Shards(ctx, shards, opt)
	var refusal *merge.Refusal
	if errors.As(err, &refusal) {
		return cli.Usagef("%s", refusal.Error())
	}
	if errors.Is(err, context.Canceled) {
		return errors.New("interrupted: the merged report was not written")
	}
	if err != nil {
		return err
	}
	if err := run.WriteFileAtomic(*out, rep.WriteJSON); err != nil {
		return err
	}
	mi := rep.Run.Merge
	how := "from the request records (exact)"
	if mi.Path == merge.PathHistograms {
		how = "from the reports' histograms (" + mi.Reason + ")"
	} else if !mi.Exact {
		how = "from the request records (see goodput.inexact_reasons)"
	}
	if !*quiet {
		if err := console.Write(e.Stdout, rep); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.Stderr, "merged %d shards, %d benchmarks %s into %s\n", mi.Shards, len(rep.Benchmarks), how, *out)
	return nil
}

// besideRecords finds a shard report's records: FILE.jsonl beside
// FILE.json (--output-path runs), else requests.jsonl in the report's
// directory when no other given report lives there (run directories).
func besideRecords(path string, all []string) string {
	stem := strings.TrimSuffix(path, filepath.Ext(path)) + ".jsonl"
	if st, err := os.Stat(stem); err == nil && st.Mode().IsRegular() {
		return stem
	}
	dir := filepath.Dir(path)
	for _, q := range all {
		if q != path && filepath.Dir(q) == dir {
			return ""
		}
	}
	rp := filepath.Join(dir, "requests.jsonl")
	if st, err := os.Stat(rp); err == nil && st.Mode().IsRegular() {
		return rp
	}
	return ""
}
