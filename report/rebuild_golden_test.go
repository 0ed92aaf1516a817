package report_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/accum"
	"github.com/goodput-dev/goodput/report/aiperf"
	"github.com/goodput-dev/goodput/report/console"
	"github.com/goodput-dev/goodput/slo"
	"github.com/goodput-dev/goodput/sweep"
)

var updateRebuild = flag.Bool("update-rebuild", false, "rewrite testdata/rebuild's expected outputs")

// TestRebuildGolden rebuilds a two-round run (concurrency 2 and 8 against
// the mock, 24 requests each, recorded as requests.jsonl) into the report
// JSON, the CSV, the console summary and both AIPerf exports, and compares
// each byte for byte with what the code wrote when the fixture was made.
// It pins every output across refactors of the packages that build them.
func TestRebuildGolden(t *testing.T) {
	dir := filepath.Join("testdata", "rebuild")
	recs := readRecords(t, filepath.Join(dir, "requests.jsonl"))
	spec, err := slo.Parse("ttft_p99=500ms,itl_p95=50ms,error_rate=1%")
	if err != nil {
		t.Fatal(err)
	}
	streams := []int{2, 8}
	var benches []*report.Benchmark
	var rounds []sweep.Round
	for i, n := range streams {
		b := rebuildBenchmark(t, i, n, recs[i], spec)
		benches = append(benches, b)
		rounds = append(rounds, sweep.Round{Benchmark: b})
	}
	sc, err := report.NewScenario(report.SpecInput{
		Backend:     report.Backend{Target: "http://127.0.0.1:8000", Model: "goodput-mock", Stream: true},
		Profile:     report.Profile{Kind: "concurrent", Streams: streams},
		Constraints: []report.Constraint{{Kind: report.ConstraintMaxRequests, Count: 24}},
		Data:        []report.SyntheticText{{PromptTokens: 64, OutputTokens: 16}},
		Seed:        42,
		Outputs:     []report.Output{{Kind: "json", Path: "benchmarks.json"}, {Kind: "console"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	rep := report.NewReport("golden", sc, benches...)
	rep.Run = &report.RunExtras{
		Version: report.ExtrasVersion, RunID: "golden-run", SLO: spec.Report(), Knee: sweep.ListKnee(rounds),
	}

	var js, csv, con bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteCSV(&csv, rep); err != nil {
		t.Fatal(err)
	}
	if err := console.WriteWidth(&con, rep, 0); err != nil { // --wide
		t.Fatal(err)
	}
	compareGolden(t, filepath.Join(dir, "benchmarks.json"), js.Bytes())
	compareGolden(t, filepath.Join(dir, "benchmarks.csv"), csv.Bytes())
	compareGolden(t, filepath.Join(dir, "console.txt"), con.Bytes())

	slos, err := slo.ParseAIPerfGoodput("time_to_first_token:500 inter_token_latency:50")
	if err != nil {
		t.Fatal(err)
	}
	for i := range rep.Benchmarks {
		f, err := os.Open(filepath.Join(dir, "requests.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		x, err := aiperf.FromJSONL(rep, i, f, "requests.jsonl", aiperf.Options{GoodputVersion: "golden", SLOs: slos})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		var aj, ac bytes.Buffer
		if err := x.WriteJSON(&aj); err != nil {
			t.Fatal(err)
		}
		if err := x.WriteCSV(&ac); err != nil {
			t.Fatal(err)
		}
		compareGolden(t, filepath.Join(dir, fmt.Sprintf("aiperf_%d.json", i)), aj.Bytes())
		compareGolden(t, filepath.Join(dir, fmt.Sprintf("aiperf_%d.csv", i)), ac.Bytes())
	}
}

// rebuildBenchmark accumulates one round's records the way the runner
// does: its span is the records' own (first intended send to last end).
func rebuildBenchmark(t *testing.T, index, streams int, recs []*record.Record, spec slo.Spec) *report.Benchmark {
	t.Helper()
	start, end := recs[0].Intended, recs[0].End
	for _, r := range recs {
		start, end = min(start, r.Intended), max(end, r.End)
	}
	acc, err := accum.New(accum.Config{
		Start: start, Seed: uint64(index + 1), SLO: spec,
		Constraints: []report.Constraint{{Kind: report.ConstraintMaxRequests, Count: len(recs)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		acc.Add(r)
	}
	return acc.Finish(accum.BenchmarkInfo{
		RunID: "golden-run", RunIndex: index,
		Strategy: report.Strategy{Type: report.StrategyConcurrent, Streams: streams},
		Start:    start, End: end, StopTime: end, QueuingEnd: end, ProcessingEnd: end,
		StopReason: report.ConstraintMaxRequests, Workers: streams,
		Scheduler: accum.SchedulerCounts{Created: len(recs), Processed: len(recs), Successful: len(recs)},
	})
}

// readRecords groups a JSON Lines file's records by benchmark index.
func readRecords(t *testing.T, path string) map[int][]*record.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[int][]*record.Record{}
	dec := record.NewDecoder(f, path)
	for {
		r := record.New()
		if err := dec.Decode(r); errors.Is(err, io.EOF) {
			return out
		} else if err != nil {
			t.Fatal(err)
		}
		out[r.Benchmark] = append(out[r.Benchmark], r)
	}
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *updateRebuild {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(got, want) {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(i-120, 0)
	t.Errorf("%s differs at byte %d:\ngot:  %q\nwant: %q", path, i, got[lo:min(i+120, len(got))], want[lo:min(i+120, len(want))])
}
