package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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

func TestRunHTMLPath(t *testing.T) {
	for _, tc := range []struct {
		rf   runFiles
		want string
	}{
		{runFiles{dir: "/r/20260616T120000-3f2a9c", json: "/r/20260616T120000-3f2a9c/benchmarks.json"}, "/r/20260616T120000-3f2a9c/report.html"},
		{runFiles{dir: "/results", json: "/results/llama.json"}, "/results/llama.html"},
		{runFiles{dir: "/r/x"}, "/r/x/report.html"},
	} {
		if got := tc.rf.htmlPath(); got != tc.want {
			t.Errorf("htmlPath(%+v) = %s, want %s", tc.rf, got, tc.want)
		}
	}
}

// --outputs html: the page lands beside the other outputs, drawn from the
// run's records when it wrote them, and no temporary file is left.
func TestWriteRunHTML(t *testing.T) {
	dir := t.TempDir()
	rf := &runFiles{dir: dir, json: filepath.Join(dir, "benchmarks.json"), jsonl: filepath.Join(dir, "requests.jsonl"), runID: "run-1"}
	writeTestRecords(t, rf.jsonl)
	if err := writeRunHTML(rf, oneRoundReport("run-1"), true); err != nil {
		t.Fatal(err)
	}
	page := readFile(t, filepath.Join(dir, "report.html"))
	if !strings.HasPrefix(page, "<!DOCTYPE html>") || !strings.Contains(page, "Run run-1") {
		t.Errorf("report.html is not the run's page: %.200q", page)
	}
	if !strings.Contains(page, "From 2 per-request records in "+rf.jsonl) {
		t.Error("requests over time should come from the run's records")
	}
	if err := writeRunHTML(rf, oneRoundReport("run-1"), false); err != nil {
		t.Fatal(err)
	}
	if page := readFile(t, filepath.Join(dir, "report.html")); !strings.Contains(page, "No per-request records were given") {
		t.Error("without --outputs jsonl, requests over time should come from the report")
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}
