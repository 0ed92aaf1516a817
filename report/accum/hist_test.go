package accum

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/goodput-dev/goodput/metric"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/stats"
)

// TestMergeHistograms: two shards' serialised histograms, merged, equal
// one histogram fed every sample (same counts in every bucket).
func TestMergeHistograms(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	all, a, b := stats.NewHistogram(), stats.NewHistogram(), stats.NewHistogram()
	for i := 0; i < 20000; i++ {
		v := int64(rng.ExpFloat64() * 20e6) // ~20 ms, long tail
		if i%2 == 0 {
			_ = a.RecordValue(v)
		} else {
			_ = b.RecordValue(v)
		}
		_ = all.RecordValue(v)
	}
	ea, err := stats.EncodeHistogram(a)
	if err != nil {
		t.Fatal(err)
	}
	eb, err := stats.EncodeHistogram(b)
	if err != nil {
		t.Fatal(err)
	}
	merged, err := stats.MergeHistograms(ea, "", eb)
	if err != nil {
		t.Fatal(err)
	}
	if !merged.Equals(all) {
		t.Fatal("merged histogram differs from the histogram of all samples")
	}
	sm, sa := stats.HistogramSummary(merged, 1e6), stats.HistogramSummary(all, 1e6)
	if sm.Mean != sa.Mean || *sm.Percentiles.P50 != *sa.Percentiles.P50 || sm.Percentiles.P999 != sa.Percentiles.P999 || sm.Count != 20000 {
		t.Errorf("re-percentiled summaries differ: %+v vs %+v", sm, sa)
	}
	if _, err := stats.MergeHistograms("not base64!"); err == nil {
		t.Error("a corrupt histogram must be an error")
	}
}

// TestReportHistogramsMerge: the histograms written in two reports (two
// shards of one run) merge into the histogram of a single accumulator fed
// both shards' records.
func TestReportHistogramsMerge(t *testing.T) {
	specs := windowRecords()
	one := runGolden(t, Config{Start: base}, specs, BenchmarkInfo{RunID: "x", Start: base})
	s1 := runGolden(t, Config{Start: base}, specs[:5], BenchmarkInfo{RunID: "x", Start: base})
	s2 := runGolden(t, Config{Start: base}, specs[5:], BenchmarkInfo{RunID: "x", Start: base})
	set, err := stats.MergeHistogramSets(s1.Extras.Histograms, s2.Extras.Histograms)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{report.HistITLPerGap, metric.TTFT.Hist, metric.E2E.Hist, metric.TPOT.Hist} {
		got, err := stats.DecodeHistogram(set.Metrics[name].Successful)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := stats.DecodeHistogram(one.Extras.Histograms.Metrics[name].Successful)
		if !got.Equals(want) {
			t.Errorf("%s: merged set differs from the single-run histogram", name)
		}
	}
	bad := *s1.Extras.Histograms
	bad.SignificantDigits = 2
	if _, err := stats.MergeHistogramSets(&bad); err == nil {
		t.Error("a set with another geometry must be rejected")
	}
	for _, name := range []string{report.HistITLPerGap, metric.TTFT.Hist, metric.E2E.Hist, metric.TPOT.Hist} {
		m, err := stats.MergeHistograms(s1.Extras.Histograms.Metrics[name].Successful, s2.Extras.Histograms.Metrics[name].Successful)
		if err != nil {
			t.Fatal(err)
		}
		want, err := stats.DecodeHistogram(one.Extras.Histograms.Metrics[name].Successful)
		if err != nil {
			t.Fatal(err)
		}
		if !m.Equals(want) {
			t.Errorf("%s: merged shard histograms differ from the single-run histogram", name)
		}
	}
}

func TestHDRAccSummary(t *testing.T) {
	// Values 1..1000 ns: all below 2048, so the histogram is exact and the
	// summary equals the exact one.
	acc := stats.NewHistAcc()
	var ss []stats.Sample
	for v := int64(1000); v >= 1; v-- {
		acc.Record(v, 1)
		ss = append(ss, stats.Sample{Value: float64(v), Weight: 1})
	}
	got, exact := acc.Summary(1), stats.FromValues(ss)
	if got.Mean != exact.Mean || got.Count != exact.Count || got.Percentiles.P99 != exact.Percentiles.P99 ||
		*got.Percentiles.P50 != *exact.Percentiles.P50 || math.Abs(float64(got.Variance-exact.Variance)) > 1e-6 {
		t.Errorf("hdr summary %+v\nexact %+v", got, exact)
	}
	// Negative values are clamped into the histogram and counted.
	acc.Record(-5, 1)
	if acc.Clamped != 1 || acc.Min != -5 {
		t.Errorf("clamped %d min %d", acc.Clamped, acc.Min)
	}
}

// binnedRecords is a 400-request open-loop run at 20 req/s: request i is
// sent at i·50 ms, has a TTFT of 80 + (i·37 mod 50) ms, then 16 chunks
// 10 + (i mod 5) ms apart; every 13th fails with HTTP 500.
func binnedRecords(n int) []recSpec {
	var out []recSpec
	for i := 0; i < n; i++ {
		t0 := float64(i) * 50
		ttft := 80 + float64(i*37%50)
		gap := 10 + float64(i%5)
		var chunks []float64
		for k := 0; k < 16; k++ {
			chunks = append(chunks, t0+ttft+float64(k)*gap)
		}
		sp := recSpec{id: uint64(i), status: record.StatusSuccessful, intended: t0, dispatched: t0 + 0.2, chunks: chunks,
			firstOut: -1, end: chunks[15] + 1, iterations: 18, prompt: 100 + i%7, output: 16, source: record.TokensUsage,
			srv: 16, cli: 16 + i%2}
		if i%13 == 0 {
			sp.status, sp.errClass, sp.httpStatus = record.StatusErrored, record.ErrHTTPStatus, 500
		}
		out = append(out, sp)
	}
	return out
}

// TestBeyondExactCap: with the exact cap below the request count, the
// report says it is approximate, and its figures stay close to the exact
// ones: means, counts, min and max exactly (they come from exact running
// sums), percentiles within the histograms' 0.1% (plus one sample's
// spacing).
func TestBeyondExactCap(t *testing.T) {
	specs := binnedRecords(400)
	cfg := Config{Start: base, Constraints: []report.Constraint{{Kind: report.ConstraintMaxDuration, Seconds: 20}}}
	info := BenchmarkInfo{RunID: "x", Start: base, StopTime: ms(20000)}
	exact := runGolden(t, cfg, specs, info)
	cfg.ExactCap = 100
	approx := runGolden(t, cfg, specs, info)
	if approx.Extras.Exact || len(approx.Extras.InexactReasons) == 0 || exact.Extras.Exact != true {
		t.Fatalf("exact flags: approx %v %v, exact %v", approx.Extras.Exact, approx.Extras.InexactReasons, exact.Extras.Exact)
	}
	rel := func(name string, g, e, tol float64) {
		t.Helper()
		if math.Abs(g-e) > tol*math.Max(math.Abs(e), 1e-9) {
			t.Errorf("%s: approx %v, exact %v", name, g, e)
		}
	}
	pairs := []struct {
		name string
		a, e *report.StatusDistributionSummary
	}{
		{"latency", approx.Metrics.RequestLatency, exact.Metrics.RequestLatency},
		{"ttft", approx.Metrics.TimeToFirstTokenMs, exact.Metrics.TimeToFirstTokenMs},
		{"tpot", approx.Metrics.TimePerOutputTokenMs, exact.Metrics.TimePerOutputTokenMs},
		{"itl", approx.Metrics.InterTokenLatencyMs, exact.Metrics.InterTokenLatencyMs},
		{"prompt", approx.Metrics.PromptTokenCount, exact.Metrics.PromptTokenCount},
		{"extra ttft", approx.Extras.Metrics.TimeToFirstTokenMs, exact.Extras.Metrics.TimeToFirstTokenMs},
	}
	for _, p := range pairs {
		for _, st := range []struct {
			n    string
			a, e *report.DistributionSummary
		}{{"ok", p.a.Successful, p.e.Successful}, {"total", p.a.Total, p.e.Total}} {
			rel(p.name+" "+st.n+" mean", float64(st.a.Mean), float64(st.e.Mean), 1e-9)
			rel(p.name+" "+st.n+" max", float64(st.a.Max), float64(st.e.Max), 1e-9)
			if st.a.Count != st.e.Count {
				t.Errorf("%s %s count %d vs %d", p.name, st.n, st.a.Count, st.e.Count)
			}
			rel(p.name+" "+st.n+" p95", float64(st.a.Percentiles.P95), float64(st.e.Percentiles.P95), 0.02)
		}
	}
	// Rates from time bins: the mean (events / window) stays close.
	rel("rps mean", float64(approx.Metrics.RequestsPerSecond.Total.Mean), float64(exact.Metrics.RequestsPerSecond.Total.Mean), 0.01)
	rel("concurrency mean", float64(approx.Metrics.RequestConcurrency.Total.Mean), float64(exact.Metrics.RequestConcurrency.Total.Mean), 0.01)
	rel("output tps mean", float64(approx.Metrics.OutputTokensPerSecond.Total.Mean), float64(exact.Metrics.OutputTokensPerSecond.Total.Mean), 0.01)
	if approx.Metrics.RequestTotals.Total != exact.Metrics.RequestTotals.Total ||
		approx.Extras.Errors.ByHTTPStatus["500"] != exact.Extras.Errors.ByHTTPStatus["500"] ||
		approx.Extras.TokenMismatch.ClientHigher != exact.Extras.TokenMismatch.ClientHigher {
		t.Errorf("counts differ: %+v vs %+v", approx.Extras.Errors, exact.Extras.Errors)
	}
}

// TestTokenEventCap: above the token event cap the token rate
// distributions come from time bins (flagged); their means stay close.
func TestTokenEventCap(t *testing.T) {
	specs := binnedRecords(200)
	cfg := Config{Start: base}
	info := BenchmarkInfo{RunID: "x", Start: base}
	exact := runGolden(t, cfg, specs, info)
	cfg.TokenEventCap = 1000 // 200 requests × 16 events
	binned := runGolden(t, cfg, specs, info)
	if binned.Extras.Exact || exact.Extras.Exact != true {
		t.Fatalf("exact flags %v %v", binned.Extras.Exact, exact.Extras.Exact)
	}
	for _, p := range []struct {
		n    string
		a, e *report.DistributionSummary
	}{
		{"output tps", binned.Metrics.OutputTokensPerSecond.Total, exact.Metrics.OutputTokensPerSecond.Total},
		{"tps", binned.Metrics.TokensPerSecond.Total, exact.Metrics.TokensPerSecond.Total},
	} {
		if math.Abs(float64(p.a.Mean-p.e.Mean)) > 0.01*float64(p.e.Mean) || p.a.Count != p.e.Count {
			t.Errorf("%s: binned mean %v count %d, exact %v %d", p.n, p.a.Mean, p.a.Count, p.e.Mean, p.e.Count)
		}
	}
	// Everything else is unaffected.
	if binned.Metrics.RequestLatency.Total.Mean != exact.Metrics.RequestLatency.Total.Mean {
		t.Error("latency changed")
	}
}

func TestSamplingIsSeededAndBounded(t *testing.T) {
	specs := binnedRecords(300)
	ids := func(seed uint64) []string {
		b := runGolden(t, Config{Start: base, Seed: seed, SampleSize: 5}, specs, BenchmarkInfo{RunID: "x", Start: base})
		var out []string
		for _, r := range b.Requests.Successful {
			out = append(out, r.RequestID)
		}
		if len(out) != 5 || len(b.Requests.Errored) != 5 {
			t.Fatalf("sample sizes %d %d, want 5 5", len(out), len(b.Requests.Errored))
		}
		return out
	}
	a, b, c := ids(1), ids(1), ids(2)
	if !equalStrings(a, b) {
		t.Errorf("same seed, different samples: %v %v", a, b)
	}
	if equalStrings(a, c) {
		t.Errorf("different seeds gave the same sample %v", a)
	}
	none := runGolden(t, Config{Start: base, SampleSize: -1}, specs, BenchmarkInfo{RunID: "x", Start: base})
	if len(none.Requests.Successful) != 0 || *none.Config.SampleSize != 0 {
		t.Error("SampleSize < 0 must keep no records")
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestDisconnectNotFiledUnderStatus: a request that got a 200 and then
// lost its connection (or stalled) is an error of its class, not of HTTP
// status 200; only http_status errors are counted by status, on the exact
// path and beyond the exact cap alike.
func TestDisconnectNotFiledUnderStatus(t *testing.T) {
	specs := binnedRecords(40)
	for i := range specs {
		switch i % 10 {
		case 1:
			specs[i].status, specs[i].errClass, specs[i].httpStatus = record.StatusErrored, record.ErrDisconnect, 200
		case 2:
			specs[i].status, specs[i].errClass, specs[i].httpStatus = record.StatusErrored, record.ErrStall, 200
		}
	}
	cfg := Config{Start: base, Constraints: []report.Constraint{{Kind: report.ConstraintMaxDuration, Seconds: 20}}}
	info := BenchmarkInfo{RunID: "x", Start: base, StopTime: ms(20000)}
	for _, exactCap := range []int{0, 10} {
		cfg.ExactCap = exactCap
		e := runGolden(t, cfg, specs, info).Extras.Errors
		// binnedRecords makes i%13 == 0 an HTTP 500: 0, 13, 26, 39.
		if e.ByClass["disconnect"] != 4 || e.ByClass["stall"] != 4 || e.ByClass["http_status"] != 4 ||
			e.ByHTTPStatus["500"] != 4 || len(e.ByHTTPStatus) != 1 {
			t.Errorf("exact cap %d: errors %+v; want 4 disconnects and 4 stalls by class only, and 4 × HTTP 500", exactCap, e)
		}
	}
}
