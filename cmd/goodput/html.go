package main

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/goodput-dev/goodput/htmlreport"
	"github.com/goodput-dev/goodput/report"
)

// writeHTML writes reps as one self-contained HTML page (package
// htmlreport) to path, through a temporary file and a rename.
func writeHTML(path string, reps []*report.Report, opts htmlreport.Options) error {
	return writeFileAtomic(path, func(w io.Writer) error { return htmlreport.Render(w, reps, opts) })
}

// htmlPath is where a run writes its HTML report: report.html in the run
// directory, or <stem>.html beside --output-path FILE.json.
func (rf *runFiles) htmlPath() string {
	if rf.json == "" || filepath.Base(rf.json) == "benchmarks.json" {
		return filepath.Join(rf.dir, "report.html")
	}
	return strings.TrimSuffix(rf.json, filepath.Ext(rf.json)) + ".html"
}

// writeRunHTML writes a finished run's HTML report (--outputs html) to
// rf.htmlPath(). With withRecords (the run wrote its records file, flushed
// by now), "requests over time" is drawn from rf.jsonl per time bin.
func writeRunHTML(rf *runFiles, rep *report.Report, withRecords bool) error {
	opts := htmlreport.Options{Names: []string{rf.runID}}
	if withRecords && rf.jsonl != "" {
		opts.Records = []htmlreport.RecordSource{htmlreport.RecordsFile(rf.jsonl)}
	}
	return writeHTML(rf.htmlPath(), []*report.Report{rep}, opts)
}

// htmlOptions are the options for `goodput report FILE… --html OUT`: each
// report named by its run id, or by its file when it has none (GuideLLM
// reports); and drawn with its per-request records: records (--records,
// one input only) or those findRecords finds beside the file.
func htmlOptions(files []string, reps []*report.Report, records string) htmlreport.Options {
	var opts htmlreport.Options
	for i, f := range files {
		name := ""
		if rep := reps[i]; rep.Goodput == nil || rep.Goodput.RunID == "" {
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
