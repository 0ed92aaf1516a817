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
	"github.com/goodput-dev/goodput/htmlreport"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/aiperf"
	"github.com/goodput-dev/goodput/report/console"
	"github.com/goodput-dev/goodput/run"
)

// `goodput report FILE… [--console] [--csv OUT] [--json OUT] [--aiperf DIR]
// [--records FILE]` re-renders reports goodput reads (goodput's own,
// GuideLLM v2, and GuideLLM's older layouts): the console tables, the CSV,
// goodput's JSON written again and the AIPerf exports. Without an output
// flag it prints the console tables. --json writes report v2 as GuideLLM
// v0.7 loads it: a GuideLLM v0.2–v0.3 report is converted
// (report.Report.AsV2); one that cannot be converted honestly, and any
// GuideLLM v0.4–v0.6 report, is refused with one line and exit status 2
// before anything is written.
//
// Several files are rendered each in turn: the console tables one report
// after the other, each under a "== FILE ==" line; --csv and --json then
// name a directory receiving <stem>.csv and <stem>.json per input, and
// --aiperf DIR gets one subdirectory per input, DIR/<stem>/. All inputs
// are read before anything is written, so a bad file writes nothing.
//
// --aiperf computes each benchmark's export from the run's per-request
// records when they are found: --records FILE (one input only), else
// FILE's stem + ".jsonl" beside a goodput report, or requests.jsonl beside
// a benchmarks.json. Without records the export is approximated from the
// report's distributions (goodput_export.source "report") and a note says
// so on stderr.

type reportCmdOptions struct {
	console           bool
	wide              bool
	csv, json, aiperf string
	records           string
	html              string
}

func runReport(_ context.Context, e *cli.Env, args []string) error {
	var o reportCmdOptions
	fs := cli.NewFlagSet("report", "report FILE… [--console] [--csv OUT] [--json OUT] [--aiperf DIR] [--html OUT] [--records FILE]", e.Stdout)
	fs.BoolVar(&o.console, "console", false, "print the console tables (the default when no other output is asked for)")
	cli.WideFlag(&o.wide, fs)
	fs.StringVar(&o.csv, "csv", "", "write GuideLLM's CSV layout to OUT (a directory with several inputs)")
	fs.StringVar(&o.json, "json", "", "write the report as goodput's JSON (GuideLLM report v2) to OUT (a directory with several inputs)")
	fs.StringVar(&o.aiperf, "aiperf", "", "write AIPerf's profile_export_aiperf.json and .csv per benchmark under DIR")
	fs.StringVar(&o.records, "records", "", "the run's per-request records (JSON Lines) for exact AIPerf exports and the HTML timeline (one input only; found beside the report otherwise)")
	fs.StringVar(&o.html, "html", "", "write one self-contained HTML report of all the input reports to OUT (several runs: a comparison with the Pareto chart)")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	files := fs.Args()
	if len(files) == 0 {
		return cli.Usagef("give at least one report file, e.g. goodput report results/run/benchmarks.json")
	}
	if !o.console && o.csv == "" && o.json == "" && o.aiperf == "" && o.html == "" {
		o.console = true
	}
	if o.records != "" && (len(files) > 1 || (o.aiperf == "" && o.html == "")) {
		return cli.Usagef("--records goes with --aiperf or --html and a single report file")
	}
	multi := len(files) > 1
	reps := make([]*report.Report, len(files))
	stems := map[string]string{}
	for i, f := range files {
		rep, err := report.Read(f)
		if err != nil {
			return cli.Usagef("%s", strings.ReplaceAll(err.Error(), "\n", " "))
		}
		if o.json != "" {
			if _, err := rep.AsV2(); err != nil {
				return cli.Usagef("%s: --json: %s", f, strings.ReplaceAll(err.Error(), "\n", " "))
			}
		}
		reps[i] = rep
		st := reportStem(f)
		if prev, dup := stems[st]; dup && multi && (o.csv != "" || o.json != "" || o.aiperf != "") {
			return cli.Usagef("%s and %s have the same name %q: their outputs would overwrite each other (render them separately)", prev, f, st)
		}
		stems[st] = f
	}
	var written []string
	for i, rep := range reps {
		f := files[i]
		stem := reportStem(f)
		if o.console {
			if multi {
				if i > 0 {
					fmt.Fprintln(e.Stdout)
				}
				fmt.Fprintf(e.Stdout, "== %s ==\n", f)
			}
			cols := console.Columns
			if o.wide {
				cols = 0
			}
			if err := console.WriteWidth(e.Stdout, rep, cols); err != nil {
				return err
			}
		}
		if o.csv != "" {
			path, err := reportOutPath(o.csv, "--csv", stem, ".csv", multi)
			if err != nil {
				return err
			}
			if err := run.WriteFileAtomic(path, func(w io.Writer) error { return report.WriteCSV(w, rep) }); err != nil {
				return err
			}
			written = append(written, path)
		}
		if o.json != "" {
			path, err := reportOutPath(o.json, "--json", stem, ".json", multi)
			if err != nil {
				return err
			}
			if err := run.WriteFileAtomic(path, rep.WriteJSON); err != nil {
				return err
			}
			written = append(written, path)
		}
		if o.aiperf != "" {
			dir := o.aiperf
			if multi {
				dir = filepath.Join(dir, stem)
			}
			records := o.records
			if records == "" {
				records = findRecords(f, rep)
			}
			paths, approx, err := run.WriteAIPerf(rep, records, run.AIPerfTarget{Dir: dir, Base: "profile_export_aiperf.json"},
				aiperf.Options{GoodputVersion: version})
			var bad run.AIPerfInputError
			if errors.As(err, &bad) {
				return cli.Usagef("%s", strings.ReplaceAll(bad.Error(), "\n", " "))
			}
			if err != nil {
				return err
			}
			if approx {
				fmt.Fprintf(e.Stderr, "note: %s: no per-request records found (%s); its AIPerf export is approximated from the report's distributions (goodput_export.source \"report\")\n",
					f, recordsHint(f))
			}
			written = append(written, paths...)
		}
	}
	for _, out := range reportSetOutputs(&o, files, reps) {
		if err := run.WriteFileAtomic(out.path, out.write); err != nil {
			return err
		}
		written = append(written, out.path)
	}
	if len(written) > 0 {
		fmt.Fprintf(e.Stderr, "wrote %s\n", strings.Join(written, ", "))
	}
	return nil
}

// setOutput is one file rendered from every input report together.
type setOutput struct {
	path  string
	write func(io.Writer) error
}

// reportSetOutputs lists the outputs of `goodput report` that render all
// input reports (files[i] read into reps[i]) into one file: the HTML
// report. Each is written atomically after the per-report outputs.
func reportSetOutputs(o *reportCmdOptions, files []string, reps []*report.Report) []setOutput {
	var outs []setOutput
	if o.html != "" {
		opts := htmlOptions(files, reps, o.records)
		outs = append(outs, setOutput{o.html, func(w io.Writer) error { return htmlreport.Render(w, reps, opts) }})
	}
	return outs
}

// reportStem is a report file's name without directory and extension.
func reportStem(path string) string {
	b := filepath.Base(path)
	return strings.TrimSuffix(b, filepath.Ext(b))
}

// reportOutPath resolves --csv/--json OUT for one input: OUT itself for a
// single input (OUT/<stem><ext> when OUT is a directory), OUT/<stem><ext>
// with several inputs (OUT must then be a directory; it is created).
func reportOutPath(out, flag, stem, ext string, multi bool) (string, error) {
	st, err := os.Stat(out)
	isDir := strings.HasSuffix(out, "/") || (err == nil && st.IsDir())
	if multi && !isDir {
		if err == nil {
			return "", cli.Usagef("%s %s: with several reports, want a directory (each report gets <name>%s there)", flag, out, ext)
		}
		isDir = true
	}
	if !isDir {
		if dir := filepath.Dir(out); dir != "." {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return "", fmt.Errorf("%s: %w", flag, err)
			}
		}
		return out, nil
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", fmt.Errorf("%s: %w", flag, err)
	}
	return filepath.Join(out, stem+ext), nil
}

// findRecords looks for the JSON Lines records beside a goodput report:
// <stem>.jsonl (benchmark --output-path X.json, profile's goodput.json),
// then requests.jsonl beside benchmarks.json (a run directory).
func findRecords(path string, rep *report.Report) string {
	if rep.Layout != report.LayoutGoodput {
		return ""
	}
	cands := []string{strings.TrimSuffix(path, filepath.Ext(path)) + ".jsonl"}
	if filepath.Base(path) == "benchmarks.json" {
		cands = append(cands, filepath.Join(filepath.Dir(path), "requests.jsonl"))
	}
	for _, c := range cands {
		if st, err := os.Stat(c); err == nil && st.Mode().IsRegular() {
			return c
		}
	}
	return ""
}

func recordsHint(path string) string {
	stem := strings.TrimSuffix(path, filepath.Ext(path)) + ".jsonl"
	if filepath.Base(path) == "benchmarks.json" {
		return "looked for " + stem + " and " + filepath.Join(filepath.Dir(path), "requests.jsonl") + "; name one with --records"
	}
	return "looked for " + stem + "; name one with --records"
}

// writeHTML writes reps as one self-contained HTML page (package
// htmlreport) to path, through a temporary file and a rename.
func writeHTML(path string, reps []*report.Report, opts htmlreport.Options) error {
	return run.WriteFileAtomic(path, func(w io.Writer) error { return htmlreport.Render(w, reps, opts) })
}

// htmlOptions are the options for `goodput report FILE… --html OUT`: each
// report named by its run id, or by its file when it has none (GuideLLM
// reports); and drawn with its per-request records: records (--records,
// one input only) or those findRecords finds beside the file.
func htmlOptions(files []string, reps []*report.Report, records string) htmlreport.Options {
	var opts htmlreport.Options
	for i, f := range files {
		name := ""
		if rep := reps[i]; rep.Run == nil || rep.Run.RunID == "" {
			name = filepath.Base(f)
			if name == "benchmarks.json" {
				name = filepath.Join(filepath.Base(filepath.Dir(f)), name)
			}
		}
		opts.Names = append(opts.Names, name)
		rec := records
		if rec == "" || len(files) > 1 {
			rec = findRecords(f, reps[i])
		}
		var src htmlreport.RecordSource
		if rec != "" {
			src = htmlreport.RecordsFile(rec)
		}
		opts.Records = append(opts.Records, src)
	}
	return opts
}
