package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/htmlreport"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
)

// oneRoundReport is a goodput report with one concurrent round from Unix
// second 1000 to 1010.
func oneRoundReport(runID string) *report.Report {
	start, end, dur := report.Float(1000), report.Float(1010), report.Float(10)
	b := &report.Benchmark{StartTime: &start, EndTime: &end, Duration: &dur}
	b.Config.Strategy = report.Strategy{Type: report.StrategyConcurrent, Streams: 4}
	rep := report.NewReport("test", nil, b)
	rep.Run = &report.RunExtras{Version: report.ExtrasVersion, RunID: runID}
	return rep
}

// writeTestRecords writes two successful records inside 1000..1010 s.
func writeTestRecords(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	enc := record.NewEncoder(f)
	for i := range 2 {
		r := record.New()
		r.ID, r.Status = uint64(i), record.StatusSuccessful
		r.Dispatched, r.End = int64(1001+i)*1e9, int64(1002+i)*1e9
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// goodput report FILE… --html OUT: several reports on one page, goodput's
// named by run id, GuideLLM's by file, records found beside goodput's.
func TestHTMLOptionsAndWrite(t *testing.T) {
	dir := t.TempDir()
	runDir := filepath.Join(dir, "run-a")
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		t.Fatal(err)
	}
	goodputFile := filepath.Join(runDir, "benchmarks.json")
	f, err := os.Create(goodputFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := oneRoundReport("run-a").WriteJSON(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	writeTestRecords(t, filepath.Join(runDir, "requests.jsonl"))
	guideFile := filepath.Join("..", "..", "report", "testdata", "benchmarks_stripped_legacy_v0.3.json")

	files := []string{goodputFile, guideFile}
	reps := make([]*report.Report, len(files))
	for i, p := range files {
		if reps[i], err = report.Read(p); err != nil {
			t.Fatal(err)
		}
	}
	opts := htmlOptions(files, reps, "")
	if got := opts.Names; len(got) != 2 || got[0] != "" || got[1] != "benchmarks_stripped_legacy_v0.3.json" {
		t.Errorf("names %q, want [\"\" (the run id) \"benchmarks_stripped_legacy_v0.3.json\"]", got)
	}
	if len(opts.Records) != 2 || opts.Records[0] == nil || opts.Records[0].Name() != filepath.Join(runDir, "requests.jsonl") || opts.Records[1] != nil {
		t.Errorf("records %v, want requests.jsonl for the goodput report only", opts.Records)
	}
	out := filepath.Join(dir, "both.html")
	if err := writeHTML(out, reps, opts); err != nil {
		t.Fatal(err)
	}
	page := readFile(t, out)
	for _, want := range []string{"Run run-a", "Run benchmarks_stripped_legacy_v0.3.json", "Comparison of the runs", "From 2 per-request records"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// --records names the file for a single input.
	opts = htmlOptions(files[:1], reps[:1], "/elsewhere/requests.jsonl")
	if opts.Records[0] == nil || opts.Records[0].Name() != "/elsewhere/requests.jsonl" {
		t.Errorf("--records not used: %v", opts.Records)
	}
	// A records file that cannot be read fails the page, naming it.
	err = writeHTML(filepath.Join(dir, "bad.html"), reps[:1], htmlreport.Options{Records: []htmlreport.RecordSource{htmlreport.RecordsFile(filepath.Join(dir, "none.jsonl"))}})
	if err == nil || !strings.Contains(err.Error(), "none.jsonl") {
		t.Errorf("missing records: error %v, want one naming none.jsonl", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.html")); err == nil {
		t.Error("a failed page must not be left behind")
	}
}
