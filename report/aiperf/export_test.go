package aiperf

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/accum"
	"github.com/goodput-dev/goodput/slo"
)

// apT0 is the start of the AIPerf golden benchmark (Unix ns).
const apT0 = int64(1_700_000_000) * 1_000_000_000

func apMs(v float64) int64 { return apT0 + int64(math.Round(v*1e6)) }

// apStream builds a successful streamed request: dispatched at start ms,
// token-bearing chunks at the given ms after dispatch, the response ending
// endAfter ms after dispatch, with usage counts.
func apStream(id uint64, start float64, chunks []float64, endAfter float64, prompt, out, requested int) *record.Record {
	r := record.New()
	r.ID, r.Status, r.HTTPStatus = id, record.StatusSuccessful, 200
	r.Intended, r.Dispatched = apMs(start), apMs(start)
	for _, c := range chunks {
		r.ChunkTimes = append(r.ChunkTimes, apMs(start+c))
	}
	r.FirstChunk, r.FirstToken, r.FirstOutputToken = r.ChunkTimes[0], r.ChunkTimes[0], r.ChunkTimes[0]
	r.LastToken = r.ChunkTimes[len(r.ChunkTimes)-1]
	r.End = apMs(start + endAfter)
	r.Iterations = len(chunks) + 2
	r.PromptTokens, r.ServerPromptTokens = prompt, prompt
	r.OutputTokens, r.ServerOutputTokens, r.OutputSource = out, out, record.TokensUsage
	r.RequestedPromptTokens, r.RequestedOutputTokens = prompt, requested
	return r
}

// apGoldenRecords is the hand-computed record set of the AIPerf golden
// test (benchmark 0), plus a record of benchmark 1 and a request never
// sent, which the export must skip.
//
//	R1: dispatched at 0 ms, chunks at +100, +120, +140, +160 ms, 4 output
//	    tokens (4 asked), 100 prompt tokens: latency 160 ms (last chunk),
//	    TTFT 100, TTST 20, ITL (160−100)/(4−1) = 20 ms.
//	R2: dispatched at 10 ms, 6 chunks at +200 … +450 ms every 50 ms
//	    carrying 11 tokens (10 asked), 200 prompt tokens: latency 450,
//	    TTFT 200, TTST 50, ITL (450−200)/(11−1) = 25 ms (per token, not per
//	    chunk), OSL mismatch +10 %.
//	R3: dispatched at 170 ms, chunks at +150, +180 ms, 2 tokens, 100
//	    prompt tokens: latency 180, TTFT 150, TTST 30, ITL 30 ms.
//	R4: HTTP 503 at 470 ms, 150 prompt tokens (the client's count).
func apGoldenRecords() []*record.Record {
	r1 := apStream(1, 0, []float64{100, 120, 140, 160}, 170, 100, 4, 4)
	r2 := apStream(2, 10, []float64{200, 250, 300, 350, 400, 450}, 460, 200, 11, 10)
	r3 := apStream(3, 170, []float64{150, 180}, 185, 100, 2, 2)
	r4 := record.New()
	r4.ID, r4.Status, r4.ErrorClass, r4.HTTPStatus, r4.Error = 4, record.StatusErrored, record.ErrHTTPStatus, 503, "HTTP 503: overloaded"
	r4.Intended, r4.Dispatched, r4.Headers, r4.End = apMs(470), apMs(470), apMs(474), apMs(475)
	r4.PromptTokens, r4.ClientPromptTokens = 150, 150
	other := apStream(5, 0, []float64{1, 2}, 3, 7, 2, 2)
	other.Benchmark = 1
	never := record.New()
	never.ID, never.Status, never.ErrorClass = 6, record.StatusIncomplete, record.ErrCancelled
	never.Intended, never.End = apMs(480), apMs(480)
	return []*record.Record{r1, r2, other, r3, r4, never}
}

// apGoldenReport is the goodput report of benchmark 0 of the golden
// records (concurrent, 2 streams, no warmup).
func apGoldenReport(t *testing.T) *report.Report {
	t.Helper()
	acc, err := accum.New(accum.Config{Start: apT0, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range apGoldenRecords() {
		if r.Benchmark == 0 {
			acc.Add(r)
		}
	}
	b := acc.Finish(accum.BenchmarkInfo{RunID: "golden-run", RunIndex: 0, Strategy: report.Strategy{Type: report.StrategyConcurrent, Streams: 2},
		Start: apT0, End: apMs(500), StopReason: "max_requests"})
	sc, err := report.NewScenario(report.SpecInput{
		Backend:     report.Backend{Target: "http://127.0.0.1:8000", Model: "m", Stream: true, APIKeySet: true, ExtraHeaders: []string{"X-Team"}},
		Profile:     report.Profile{Kind: "concurrent", Streams: []int{2}},
		Constraints: []report.Constraint{{Kind: report.ConstraintMaxRequests, Count: 4}},
		Data:        []report.SyntheticText{{PromptTokens: 128, OutputTokens: 4}},
		Seed:        42,
	})
	if err != nil {
		t.Fatal(err)
	}
	return report.NewReport("test", sc, b)
}

func apRecordsSource(recs []*record.Record) func(*record.Record) error {
	i := 0
	return func(r *record.Record) error {
		if i == len(recs) {
			return io.EOF
		}
		// Round-trip through the JSON Lines codec, as a records file would.
		line := record.AppendJSON(nil, recs[i])
		i++
		return record.UnmarshalLine(line, r)
	}
}

func apGoldenExport(t *testing.T, opts Options) *Export {
	t.Helper()
	opts.GoodputVersion = "test"
	x, err := FromRecords(apGoldenReport(t), 0, apRecordsSource(apGoldenRecords()), opts)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestAIPerfGoldenStatistics checks every figure of the golden export
// against values computed by hand (see apGoldenRecords).
func TestAIPerfGoldenStatistics(t *testing.T) {
	x := apGoldenExport(t, Options{SLOs: []slo.AIPerfThreshold{{Tag: "time_to_first_token", Threshold: 160}, {Tag: "inter_token_latency", Threshold: 26}}})
	type dist struct {
		tag                     string
		avg, sum, min, max, std float64
		p                       [9]float64
		count                   int64
		unit                    string
	}
	// Percentiles: numpy's linear interpolation at (n−1)·p/100. With three
	// values a ≤ b ≤ c: p1 = a + 0.02(b−a), p25 = (a+b)/2, p50 = b,
	// p75 = (b+c)/2, p99 = c − 0.02(c−b). std is the population standard
	// deviation (numpy.std, ddof=0), as AIPerf computes it.
	cases := []dist{
		{tag: "request_latency", unit: "ms", avg: 790.0 / 3, sum: 790, min: 160, max: 450, count: 3,
			std: math.Sqrt(((160-790.0/3)*(160-790.0/3) + (180-790.0/3)*(180-790.0/3) + (450-790.0/3)*(450-790.0/3)) / 3),
			p:   [9]float64{160.4, 162, 164, 170, 180, 315, 396, 423, 444.6}},
		{tag: "time_to_first_token", unit: "ms", avg: 150, sum: 450, min: 100, max: 200, count: 3,
			std: math.Sqrt(5000.0 / 3), p: [9]float64{101, 105, 110, 125, 150, 175, 190, 195, 199}},
		{tag: "time_to_second_token", unit: "ms", avg: 100.0 / 3, sum: 100, min: 20, max: 50, count: 3,
			std: math.Sqrt(((20-100.0/3)*(20-100.0/3) + (30-100.0/3)*(30-100.0/3) + (50-100.0/3)*(50-100.0/3)) / 3),
			p:   [9]float64{20.2, 21, 22, 25, 30, 40, 46, 48, 49.6}},
		// ITL per request: 20, 25, 30 ms; mean 25 (GuideLLM's token-weighted
		// mean would be (3·20 + 10·25 + 1·30)/14 = 24.29); population std
		// √(50/3) = 4.08 (the sample std would be 5).
		{tag: "inter_token_latency", unit: "ms", avg: 25, sum: 75, min: 20, max: 30, count: 3,
			std: math.Sqrt(50.0 / 3), p: [9]float64{20.1, 20.5, 21, 22.5, 25, 27.5, 29, 29.5, 29.9}},
		// Every gap between chunks: 20, 20, 20, 50×5, 30.
		{tag: "inter_chunk_latency", unit: "ms", avg: 340.0 / 9, sum: 340, min: 20, max: 50, count: 9,
			std: math.Sqrt((3*(20-340.0/9)*(20-340.0/9) + (30-340.0/9)*(30-340.0/9) + 5*(50-340.0/9)*(50-340.0/9)) / 9),
			p:   [9]float64{20, 20, 20, 20, 50, 50, 50, 50, 50}},
		// 1/ITL in seconds: 50, 40, 33.3 tokens/s/user.
		{tag: "output_token_throughput_per_user", unit: "tokens/sec/user", avg: (50 + 40 + 100.0/3) / 3, sum: 50 + 40 + 100.0/3,
			min: 100.0 / 3, max: 50, count: 3,
			std: math.Sqrt(((50-370.0/9)*(50-370.0/9) + (40-370.0/9)*(40-370.0/9) + (100.0/3-370.0/9)*(100.0/3-370.0/9)) / 3),
			p:   [9]float64{100.0/3 + 0.02*(40-100.0/3), 100.0/3 + 0.1*(40-100.0/3), 100.0/3 + 0.2*(40-100.0/3), 40 - 0.5*(40-100.0/3), 40, 45, 48, 49, 49.8}},
		{tag: "output_sequence_length", unit: "tokens", avg: 17.0 / 3, sum: 17, min: 2, max: 11, count: 3,
			std: math.Sqrt(((2-17.0/3)*(2-17.0/3) + (4-17.0/3)*(4-17.0/3) + (11-17.0/3)*(11-17.0/3)) / 3),
			p:   [9]float64{2.04, 2.2, 2.4, 3, 4, 7.5, 9.6, 10.3, 10.86}},
		{tag: "input_sequence_length", unit: "tokens", avg: 400.0 / 3, sum: 400, min: 100, max: 200, count: 3,
			std: math.Sqrt(20000.0 / 9), p: [9]float64{100, 100, 100, 100, 100, 150, 180, 190, 198}},
		{tag: "osl_mismatch_diff_pct", unit: "%", avg: 10.0 / 3, sum: 10, min: 0, max: 10, count: 3,
			std: math.Sqrt(200.0 / 9), p: [9]float64{0, 0, 0, 0, 0, 5, 8, 9, 9.8}},
		{tag: "error_isl", unit: "tokens", avg: 150, sum: 150, min: 150, max: 150, count: 1, p: [9]float64{150, 150, 150, 150, 150, 150, 150, 150, 150}},
	}
	for _, c := range cases {
		m := x.Metric(c.tag)
		if m == nil {
			t.Errorf("%s: missing", c.tag)
			continue
		}
		if m.Unit != c.unit {
			t.Errorf("%s: unit %q, want %q", c.tag, m.Unit, c.unit)
		}
		check := func(name string, got *float64, want float64) {
			if got == nil || !near(*got, want) {
				t.Errorf("%s.%s = %v, want %v", c.tag, name, deref(got), want)
			}
		}
		check("avg", m.Avg, c.avg)
		check("sum", m.Sum, c.sum)
		check("min", m.Min, c.min)
		check("max", m.Max, c.max)
		check("std", m.Std, c.std)
		for i, p := range Percentiles {
			check("p"+strconv.Itoa(p), m.P[i], c.p[i])
		}
		if m.Count == nil || *m.Count != c.count {
			t.Errorf("%s.count = %v, want %d", c.tag, m.Count, c.count)
		}
	}
	// e2e: OSL / latency in seconds: 4/0.16 = 25, 11/0.45, 2/0.18.
	if m := x.Metric("e2e_output_token_throughput"); m == nil || !near(*m.Max, 25) || !near(*m.Min, 2/0.18) || !near(*m.P[4], 11/0.45) {
		t.Errorf("e2e_output_token_throughput = %+v", m)
	}
	// prefill: ISL / TTFT in seconds: 1000, 1000, 666.7.
	if m := x.Metric("prefill_throughput_per_user"); m == nil || !near(*m.Min, 100/0.15) || !near(*m.Max, 1000) {
		t.Errorf("prefill_throughput_per_user = %+v", m)
	}
	if m := x.Metric("time_to_first_output_token"); m == nil || !near(*m.Avg, 150) {
		t.Errorf("time_to_first_output_token = %+v", m)
	}
	if x.Metric("reasoning_token_count") != nil || x.Metric("total_reasoning_tokens") != nil {
		t.Error("reasoning metrics written without reasoning tokens")
	}
	// Derived: the successful requests ran from 0 ms (R1's start) to 460 ms
	// (R2's last chunk).
	scalars := map[string]float64{
		"request_count": 3, "error_request_count": 1, "benchmark_duration": 0.46,
		"request_throughput": 3 / 0.46, "total_isl": 400, "total_osl": 17, "total_output_tokens": 17,
		"output_token_throughput": 17 / 0.46, "total_token_throughput": 417 / 0.46, "total_error_isl": 150,
		"osl_mismatch_count": 1,
		// TTFT ≤ 160 ms and ITL ≤ 26 ms: R1 only (R2's TTFT is 200, R3's ITL 30).
		"good_request_count": 1, "goodput": 1 / 0.46,
	}
	for tag, want := range scalars {
		m := x.Metric(tag)
		if m == nil || m.Avg == nil || !near(*m.Avg, want) {
			t.Errorf("%s = %+v, want %v", tag, m, want)
			continue
		}
		if m.HasDistribution() || m.Count != nil || m.Sum != nil {
			t.Errorf("%s: a derived metric has only unit and avg", tag)
		}
	}
	if len(x.ErrorSummary) != 1 || x.ErrorSummary[0].Count != 1 || *x.ErrorSummary[0].Details.Code != 503 ||
		x.ErrorSummary[0].Details.Type != "HTTPError" || x.ErrorSummary[0].Details.Message != "HTTP 503: overloaded" {
		t.Errorf("error_summary = %+v", x.ErrorSummary)
	}
	g := x.Goodput
	if g == nil || g.Source != "records" || !g.Exact || g.InWindow != 4 || g.OutsideWindow != 0 || g.NotDispatched != 1 || g.Label != "concurrency_2" {
		t.Errorf("goodput block = %+v", g)
	}
	if x.AIPerfVersion != "test" || x.SchemaVersion != SchemaVersion || x.StartTime != "2023-11-14T22:13:20.000000" {
		t.Errorf("provenance: %q %q %q", x.AIPerfVersion, x.SchemaVersion, x.StartTime)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestAIPerfSLOLargerIsBetter: a throughput threshold is a floor.
func TestAIPerfSLOLargerIsBetter(t *testing.T) {
	x := apGoldenExport(t, Options{SLOs: []slo.AIPerfThreshold{{Tag: "output_token_throughput_per_user", Threshold: 45}}})
	if m := x.Metric("good_request_count"); m == nil || *m.Avg != 1 { // R1 (50 tokens/s); R2 40, R3 33.3
		t.Fatalf("good_request_count = %+v", m)
	}
	x = apGoldenExport(t, Options{SLOs: []slo.AIPerfThreshold{{Tag: "time_to_second_token", Threshold: 30}}})
	if m := x.Metric("good_request_count"); m == nil || *m.Avg != 2 { // R1 (20 ms) and R3 (30 ms, the bound is inclusive)
		t.Fatalf("good_request_count = %+v", m)
	}
	x = apGoldenExport(t, Options{})
	if x.Metric("good_request_count") != nil || x.Metric("goodput") != nil {
		t.Fatal("goodput metrics without an SLO")
	}
}

// TestAIPerfGoldenFiles pins the exact bytes of the golden JSON and CSV.
func TestAIPerfGoldenFiles(t *testing.T) {
	x := apGoldenExport(t, Options{SLOs: []slo.AIPerfThreshold{{Tag: "time_to_first_token", Threshold: 160}, {Tag: "inter_token_latency", Threshold: 26}},
		CLICommand: "goodput profile -m m --concurrency 2", ArtifactDir: "artifacts/x", Tokenizer: "builtin"})
	var j, c bytes.Buffer
	if err := x.WriteJSON(&j); err != nil {
		t.Fatal(err)
	}
	if err := x.WriteCSV(&c); err != nil {
		t.Fatal(err)
	}
	golden(t, "aiperf_small.json", j.Bytes())
	golden(t, "aiperf_small.csv", c.Bytes())
	csvText := c.String()
	for _, want := range []string{
		"Metric,avg,sum,min,max,p1,p5,p10,p25,p50,p75,p90,p95,p99,std\r\n",
		"Inter Token Latency (ms),25.00,75.00,20.00,30.00,20.10,20.50,21.00,22.50,25.00,27.50,29.00,29.50,29.90,4.08\r\n",
		"Request Latency (ms),263.33,790.00,160.00,450.00,160.40,162.00,164.00,170.00,180.00,315.00,396.00,423.00,444.60,132.25\r\n",
		"\r\n\r\nMetric,Value\r\n",
		"Request Count,3.00\r\n", // unit "requests" is not repeated in the name
		"Benchmark Duration (sec),0.46\r\n",
		"Request Throughput (requests/sec),6.52\r\n",
	} {
		if !strings.Contains(csvText, want) {
			t.Errorf("CSV lacks %q:\n%s", want, csvText)
		}
	}
	// Rows are sorted by tag within each table.
	lines := strings.Split(csvText, "\r\n")
	if lines[1] != "E2E Output Token Throughput (tokens/sec/user),20.19,60.56,11.11,25.00,11.38,12.44,13.78,17.78,24.44,24.72,24.89,24.94,24.99,6.42" {
		t.Errorf("first row %q", lines[1])
	}
}

// TestAIPerfShapeMatchesFixture checks the export key by key against the
// real AIPerf export in shared/fixtures: every key the fixture has for a
// metric goodput also writes is there with the same JSON type, and the
// top-level provenance keys have AIPerf's types.
func TestAIPerfShapeMatchesFixture(t *testing.T) {
	fix := readFixture(t)
	var fixture map[string]json.RawMessage
	if err := json.Unmarshal(fix, &fixture); err != nil {
		t.Fatal(err)
	}
	x := apGoldenExport(t, Options{})
	var buf bytes.Buffer
	if err := x.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var ours map[string]json.RawMessage
	if err := json.Unmarshal(buf.Bytes(), &ours); err != nil {
		t.Fatal(err)
	}
	kind := func(b json.RawMessage) string {
		k := report.JSONKind(b)
		if k == "null" {
			return "null"
		}
		return k
	}
	matched := 0
	for key, fv := range fixture {
		ov, ok := ours[key]
		if !ok {
			continue
		}
		matched++
		if kind(fv) != kind(ov) {
			t.Errorf("key %q: fixture has %s, goodput writes %s", key, kind(fv), kind(ov))
			continue
		}
		if kind(fv) != "an object" || key == "input_config" {
			continue
		}
		var fm, om map[string]json.RawMessage
		_ = json.Unmarshal(fv, &fm)
		_ = json.Unmarshal(ov, &om)
		for k, v := range fm {
			if string(v) == "null" {
				continue // older writers' null percentiles on scalar metrics
			}
			w, ok := om[k]
			if !ok {
				t.Errorf("metric %q: key %q missing", key, k)
			} else if kind(v) != kind(w) {
				t.Errorf("metric %q key %q: fixture has %s, goodput writes %s", key, k, kind(v), kind(w))
			}
		}
		if _, isRecord := fm["p50"]; isRecord && string(fm["p50"]) != "null" {
			for _, k := range []string{"count", "sum"} { // schema 1.1
				if _, ok := om[k]; !ok {
					t.Errorf("record metric %q lacks %q", key, k)
				}
			}
		}
	}
	for _, k := range []string{"schema_version", "aiperf_version", "benchmark_id", "start_time", "end_time", "was_cancelled",
		"error_summary", "input_config", "request_latency", "time_to_first_token", "inter_token_latency", "request_throughput",
		"output_token_throughput", "output_sequence_length", "input_sequence_length", "inter_chunk_latency", "benchmark_duration",
		"total_isl", "total_osl", "error_request_count", "error_isl", "total_error_isl", "time_to_first_output_token",
		"e2e_output_token_throughput", "osl_mismatch_diff_pct", "prefill_throughput_per_user", "osl_mismatch_count",
		"total_token_throughput", "time_to_second_token", "output_token_throughput_per_user", "output_token_count", "total_output_tokens"} {
		if _, ok := ours[k]; !ok {
			t.Errorf("goodput does not write %q (the fixture has it)", k)
		}
	}
	if matched < 30 {
		t.Errorf("only %d keys in common with the fixture", matched)
	}
	// error_summary entries: {error_details: {…, message, type}, count}.
	var fes, oes []map[string]json.RawMessage
	_ = json.Unmarshal(fixture["error_summary"], &fes)
	_ = json.Unmarshal(ours["error_summary"], &oes)
	if len(oes) == 0 || kind(oes[0]["count"]) != kind(fes[0]["count"]) || kind(oes[0]["error_details"]) != "an object" {
		t.Errorf("error_summary shape %s vs %s", ours["error_summary"], fixture["error_summary"])
	}
	// input_config: the sections goodput writes have the fixture's types.
	var fic, oic map[string]json.RawMessage
	_ = json.Unmarshal(fixture["input_config"], &fic)
	if err := json.Unmarshal(ours["input_config"], &oic); err != nil {
		t.Fatalf("input_config: %v", err)
	}
	for sec, ov := range oic {
		fv, ok := fic[sec]
		if !ok {
			continue
		}
		if kind(fv) != kind(ov) {
			t.Errorf("input_config.%s: fixture %s, goodput %s", sec, kind(fv), kind(ov))
			continue
		}
		var fm, om map[string]json.RawMessage
		if kind(fv) == "an array" { // datasets, phases: compare the first entries
			var fa, oa []map[string]json.RawMessage
			_ = json.Unmarshal(fv, &fa)
			_ = json.Unmarshal(ov, &oa)
			fm, om = fa[0], oa[len(oa)-1]
		} else {
			_ = json.Unmarshal(fv, &fm)
			_ = json.Unmarshal(ov, &om)
		}
		for k, v := range om {
			if f, ok := fm[k]; ok && kind(f) != kind(v) {
				t.Errorf("input_config.%s.%s: fixture %s, goodput %s", sec, k, kind(f), kind(v))
			}
		}
	}
	for _, sec := range []string{"models", "endpoint", "datasets", "phases"} {
		if _, ok := oic[sec]; !ok {
			t.Errorf("input_config lacks %s: %s", sec, ours["input_config"])
		}
	}
}

func readFixture(t *testing.T) []byte {
	t.Helper()
	// A real AIPerf export (AIPerf's own output, kept as a fixture).
	b, err := os.ReadFile(filepath.Join("testdata", "aiperf", "profile_export_aiperf.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReadAIPerfFixture: the real AIPerf export parses, with its values.
func TestReadAIPerfFixture(t *testing.T) {
	x, err := Read(bytes.NewReader(readFixture(t)), "fixture.json")
	if err != nil {
		t.Fatal(err)
	}
	if x.SchemaVersion != "1.0" || x.AIPerfVersion != "0.8.0" || x.BenchmarkID != "6478f6aac7c34ceb8b9fd97abd63d5b3" ||
		x.StartTime != "2026-05-01T05:29:24.409521" || x.WasCancelled {
		t.Errorf("provenance: %+v", x)
	}
	rl := x.Metric("request_latency")
	if rl == nil || *rl.Avg != 17785.016842910754 || *rl.P[8] != 54340.43933500999 || rl.Count != nil || rl.Header != "Request Latency" {
		t.Errorf("request_latency: %+v", rl)
	}
	if m := x.Metric("osl_mismatch_count"); m == nil || *m.Avg != 481414 || m.HasDistribution() || m.Min != nil {
		t.Errorf("null percentiles must read as absent: %+v", m)
	}
	if len(x.ErrorSummary) != 1 || x.ErrorSummary[0].Count != 18586 || x.ErrorSummary[0].Details.Type != "ClientConnectorError" ||
		len(x.ErrorSummary[0].Details.CauseChain) != 2 {
		t.Errorf("error_summary: %+v", x.ErrorSummary)
	}
	if len(x.Metrics) != 25 || len(x.InputConfig) == 0 {
		t.Errorf("%d metrics, input_config %d bytes", len(x.Metrics), len(x.InputConfig))
	}
	// Written again, it reads back the same.
	var buf bytes.Buffer
	if err := x.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	y, err := Read(&buf, "again.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(y.Metrics) != len(x.Metrics) || *y.Metric("time_to_first_token").P[0] != *x.Metric("time_to_first_token").P[0] {
		t.Error("round trip changed the metrics")
	}
	var c bytes.Buffer
	if err := x.WriteCSV(&c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.String(), "Request Latency (ms),17785.02,,1.77,119465.65,126.25,") {
		t.Errorf("CSV of the fixture:\n%s", c.String())
	}
}

func TestReadAIPerfErrors(t *testing.T) {
	fix := readFixture(t)
	cases := []struct {
		name, data, want string
	}{
		{"empty", "", "empty file"},
		{"truncated", string(fix[:len(fix)/2]), "truncated JSON"},
		{"array", "[1]", "want an object"},
		{"foreign", `{"benchmarks": []}`, "not an AIPerf profile export"},
		{"bad stat", `{"schema_version": "1.0", "request_latency": {"unit": "ms", "avg": "x"}}`, `key "request_latency": statistic "avg"`},
		{"bad count", `{"request_latency": {"unit": "ms", "count": 1.5}}`, `"count": want an integer`},
		{"bad type", `{"schema_version": 3}`, `key "schema_version": want a string`},
		{"invalid", `{"a": tru}`, "invalid JSON at byte"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(c.data), "x.json")
			if err == nil || !strings.HasPrefix(err.Error(), "x.json: ") || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want one line naming x.json with %q", err, c.want)
			}
		})
	}
	// The pre-#343 layout: metrics under "records", with tag and header.
	old := `{"records": {"ttft": {"tag": "ttft", "header": "Time To First Token", "unit": "ms", "avg": 12.5, "p50": 11.0}}}`
	x, err := Read(strings.NewReader(old), "old.json")
	if err != nil {
		t.Fatal(err)
	}
	if m := x.Metric("ttft"); m == nil || m.Header != "Time To First Token" || *m.P[4] != 11 {
		t.Fatalf("old layout: %+v", x.Metrics)
	}
}

// TestAIPerfRecordsMustMatchReport: records of another run are refused.
func TestAIPerfRecordsMustMatchReport(t *testing.T) {
	recs := apGoldenRecords()
	recs[0].End += 1_000_000 // a sampled request that ends elsewhere
	_, err := FromRecords(apGoldenReport(t), 0, apRecordsSource(recs), Options{})
	if err == nil || !strings.Contains(err.Error(), "does not belong to this report") {
		t.Fatalf("error %v", err)
	}
	bad := func(*record.Record) error { return io.ErrUnexpectedEOF }
	if _, err := FromRecords(apGoldenReport(t), 0, bad, Options{}); err == nil {
		t.Fatal("a decoding error must be returned")
	}
	if _, err := FromRecords(apGoldenReport(t), 3, apRecordsSource(recs), Options{}); err == nil {
		t.Fatal("an index out of range must fail")
	}
}

// TestAIPerfWindowExcludesWarmup: with a warmup the export keeps the
// report's measurement window.
func TestAIPerfWindowExcludesWarmup(t *testing.T) {
	warm, err := report.ParseTransientPhase("1r")
	if err != nil {
		t.Fatal(err)
	}
	acc, err := accum.New(accum.Config{Start: apT0, Seed: 1, Warmup: warm, Constraints: []report.Constraint{{Kind: report.ConstraintMaxRequests, Count: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	// Sequential requests, 100 ms each: the first is the warmup.
	var recs []*record.Record
	for i := range 4 {
		recs = append(recs, apStream(uint64(i+1), float64(i)*100, []float64{50, 90}, 95, 10, 2, 2))
	}
	for _, r := range recs {
		acc.Add(r)
	}
	b := acc.Finish(accum.BenchmarkInfo{RunID: "w", Strategy: report.Strategy{Type: report.StrategySynchronous}, Start: apT0, StopReason: "max_requests"})
	rep := report.NewReport("test", nil, b)
	x, err := FromRecords(rep, 0, apRecordsSource(recs), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g := x.Goodput; g.InWindow != int64(b.Extras.Requests.InWindow) || g.OutsideWindow != 1 || !g.Exact {
		t.Fatalf("window: %+v (report in window %d)", g, b.Extras.Requests.InWindow)
	}
	if m := x.Metric("request_count"); *m.Avg != 3 {
		t.Fatalf("request_count %v", *m.Avg)
	}
	// The input config records the warmup as AIPerf's warmup phase.
	if !bytes.Contains(x.InputConfig, []byte(`{"name":"warmup","type":"concurrency","exclude_from_results":true,"requests":1}`)) ||
		!bytes.Contains(x.InputConfig, []byte(`"name":"profiling","type":"concurrency","exclude_from_results":false,"requests":3`)) {
		t.Fatalf("phases: %s", x.InputConfig)
	}
}

// TestAIPerfLabels: benchmarks are named like AIPerf's sweep variations.
func TestAIPerfLabels(t *testing.T) {
	rep := &report.Report{Benchmarks: []*report.Benchmark{
		{Config: report.BenchmarkConfig{Strategy: report.Strategy{Type: report.StrategyConcurrent, Streams: 4}}},
		{Config: report.BenchmarkConfig{Strategy: report.Strategy{Type: report.StrategyConstant, Rate: 2.5}}},
		{Config: report.BenchmarkConfig{Strategy: report.Strategy{Type: report.StrategyConcurrent, Streams: 4}}},
		{Config: report.BenchmarkConfig{Strategy: report.Strategy{Type: report.StrategySynchronous}}},
		{},
	}}
	want := []string{"concurrency_4", "request_rate_2.5", "concurrency_4_2", "concurrency_1", "benchmark_4"}
	if got := Labels(rep); !slices.Equal(got, want) {
		t.Fatalf("labels %v, want %v", got, want)
	}
}

// TestAIPerfScalarTags: every derived tag the builders write is in the
// catalogue (so its CSV row has AIPerf's name).
func TestAIPerfScalarTags(t *testing.T) {
	x := apGoldenExport(t, Options{SLOs: []slo.AIPerfThreshold{{Tag: "request_latency", Threshold: 1000}}})
	for _, m := range x.Metrics {
		if m.Header == "" || m.Unit == "" {
			t.Errorf("%s: header %q unit %q", m.Tag, m.Header, m.Unit)
		}
	}
}

// TestAIPerfFromReportApproximates: without records, the export is built
// from the report's distributions and says so.
func TestAIPerfFromReportApproximates(t *testing.T) {
	rep := apGoldenReport(t)
	x, err := FromReport(rep, 0, Options{GoodputVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	g := x.Goodput
	if g.Source != "report" || g.Exact || len(g.InexactReasons) < 2 {
		t.Fatalf("provenance %+v", g)
	}
	// Exact figures carry over: means, min, max and counts of goodput's
	// distributions. request_latency here ends at the response end: 170,
	// 460 and 185 ms.
	if m := x.Metric("request_latency"); m == nil || !near(*m.Avg, 815.0/3) || !near(*m.Max, 460) || *m.Count != 3 {
		t.Fatalf("request_latency %+v", m)
	}
	if m := x.Metric("time_to_first_token"); m == nil || !near(*m.Avg, 150) || !near(*m.Min, 100) {
		t.Fatalf("time_to_first_token %+v", m)
	}
	// ITL is GuideLLM's token-weighted mean, marked as such.
	if m := x.Metric("inter_token_latency"); m == nil || !near(*m.Avg, 340.0/14) || *m.Count != 3 {
		t.Fatalf("inter_token_latency %+v", m)
	}
	if m := x.Metric("inter_chunk_latency"); m == nil || !near(*m.Avg, 340.0/9) || *m.Count != 9 {
		t.Fatalf("inter_chunk_latency %+v", m)
	}
	if m := x.Metric("request_count"); m == nil || *m.Avg != 3 {
		t.Fatalf("request_count %+v", m)
	}
	if m := x.Metric("error_request_count"); m == nil || *m.Avg != 1 {
		t.Fatalf("error_request_count %+v", m)
	}
	if x.Metric("output_token_throughput_per_user") != nil || x.Metric("time_to_second_token") != nil {
		t.Fatal("metrics that need records must be left out")
	}
	if len(x.ErrorSummary) != 1 || *x.ErrorSummary[0].Details.Code != 503 {
		t.Fatalf("error_summary %+v", x.ErrorSummary)
	}
	var buf bytes.Buffer
	if err := x.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if err := x.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
}

// TestAIPerfFromLegacyReport: GuideLLM's oldest layout still gives an
// (approximate) export, without zero-filled metrics nobody measured.
func TestAIPerfFromLegacyReport(t *testing.T) {
	rep, err := report.Read(filepath.Join("..", "testdata", "benchmarks_stripped_legacy_v0.3.json"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range rep.Benchmarks {
		x, err := FromReport(rep, i, Options{GoodputVersion: "test"})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := x.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(&buf, "legacy.json"); err != nil {
			t.Fatal(err)
		}
		if x.Metric("request_count") == nil {
			t.Fatal("request_count missing")
		}
	}
}

// TestAIPerfFromJSONL: the records file path gives the same export as the
// record stream, skips other benchmarks' lines, and names a bad line.
func TestAIPerfFromJSONL(t *testing.T) {
	var file bytes.Buffer
	enc := record.NewEncoder(&file)
	for _, r := range apGoldenRecords() {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	opts := Options{GoodputVersion: "test"}
	x, err := FromJSONL(apGoldenReport(t), 0, bytes.NewReader(file.Bytes()), "requests.jsonl", opts)
	if err != nil {
		t.Fatal(err)
	}
	y := apGoldenExport(t, Options{})
	var a, b bytes.Buffer
	if err := x.WriteJSON(&a); err != nil {
		t.Fatal(err)
	}
	if err := y.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("the JSON Lines path differs from the record stream")
	}
	bad := append(append([]byte{}, file.Bytes()...), []byte("{\"id\":9,\"benchmark\":0,\"status\":\"nope\"}\n")...)
	_, err = FromJSONL(apGoldenReport(t), 0, bytes.NewReader(bad), "requests.jsonl", opts)
	if err == nil || !strings.HasPrefix(err.Error(), "requests.jsonl:7: ") {
		t.Fatalf("error %v, want one naming line 7", err)
	}
	// A bad line of another benchmark is skipped unread.
	other := append(append([]byte{}, file.Bytes()...), []byte("{\"id\":9,\"benchmark\":3,\"status\":\"nope\"}\n")...)
	if _, err := FromJSONL(apGoldenReport(t), 0, bytes.NewReader(other), "requests.jsonl", opts); err != nil {
		t.Fatal(err)
	}
}

func TestLineBenchmark(t *testing.T) {
	r := record.New()
	r.ID, r.Benchmark, r.Status = 12345, 17, record.StatusSuccessful
	if n, ok := lineBenchmark(record.AppendJSON(nil, r)); !ok || n != 17 {
		t.Fatalf("got %d %v", n, ok)
	}
	for _, s := range []string{`{"benchmark":1,"id":2}`, `{"id":,"benchmark":1}`, `{"id":1,"benchmark":x}`, `{"id":1,"benchmark":1`, `{"id":1,"benchmark":12345678901,}`, ``} {
		if _, ok := lineBenchmark([]byte(s)); ok {
			t.Errorf("%q: accepted", s)
		}
	}
}

// TestAIPerfTokenCounts: whose counts make ISL and OSL.
func TestAIPerfTokenCounts(t *testing.T) {
	r := apStream(1, 0, []float64{10, 20}, 25, 120, 10, 10)
	r.ClientPromptTokens, r.ClientOutputTokens = 100, 12
	for _, c := range []struct {
		counts   TokenCounts
		isl, osl int
	}{
		{TokensDefault, 100, 10}, // the prompt goodput built; the server's usage
		{TokensClient, 100, 12},  // AIPerf's default: its tokenizer on both
		{TokensServer, 120, 10},  // --use-server-token-count
	} {
		isl, _ := aiperfISL(r, c.counts)
		osl, _ := aiperfOSL(r, c.counts)
		if isl != c.isl || osl != c.osl {
			t.Errorf("counts %d: isl %d osl %d, want %d %d", c.counts, isl, osl, c.isl, c.osl)
		}
	}
	u := record.New()
	if _, ok := aiperfISL(u, TokensDefault); ok {
		t.Error("an unknown prompt count must be absent")
	}
	if _, ok := aiperfOSL(u, TokensClient); ok {
		t.Error("an unknown output count must be absent")
	}
}

// golden compares got with testdata/golden/name; go test -update rewrites
// the file.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with UPDATE_GOLDEN=1 to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (UPDATE_GOLDEN=1 to accept):\n%s", name, got)
	}
}

// TestGoodputTagsHaveMetrics: every tag slo accepts for AIPerf's --goodput
// is a record metric the export can judge.
func TestGoodputTagsHaveMetrics(t *testing.T) {
	for _, tag := range slo.AIPerfGoodputTags {
		if i, ok := aiperfSLODef(tag); !ok || aiperfRecordDefs[i].tag != tag {
			t.Errorf("--goodput accepts %q, which the export has no record metric for", tag)
		}
	}
	if _, ok := aiperfSLODef("inter_chunk_latency"); ok {
		t.Error("the export judges inter_chunk_latency, which --goodput does not accept")
	}
}
