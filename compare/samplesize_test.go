package compare

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/accum"
)

// ttftBench is a benchmark of one request per TTFT (ms), built through the
// Accumulator so that its percentiles and histograms agree.
func ttftBench(t *testing.T, ttfts []float64) *report.Benchmark {
	t.Helper()
	acc, err := accum.New(accum.Config{Start: t0, SampleSize: -1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var r record.Record
	end := t0
	for i, ttft := range ttfts {
		r.Reset()
		r.ID = uint64(i + 1)
		start := t0 + int64(i)*int64(5e6)
		r.Intended, r.Dispatched, r.Sent = start, start, start
		r.PromptTokens, r.ServerPromptTokens = 100, 100
		r.ClientOutputTokens, r.ClientPromptTokens, r.CachedTokens = -1, -1, -1
		first := start + int64(ttft*1e6)
		r.Status = record.StatusSuccessful
		r.Headers, r.FirstChunk, r.FirstToken, r.FirstOutputToken = first, first, first, first
		for k := range 8 {
			r.ChunkTimes = append(r.ChunkTimes, first+int64(k)*int64(10e6))
		}
		r.LastToken = r.ChunkTimes[len(r.ChunkTimes)-1]
		r.End = r.LastToken + int64(1e5)
		r.Iterations = 9
		r.OutputTokens, r.ServerOutputTokens, r.OutputSource = 8, 8, record.TokensUsage
		r.FinishReason = "length"
		end = max(end, r.End)
		acc.Add(&r)
	}
	return acc.Finish(accum.BenchmarkInfo{RunID: "run", Strategy: report.Strategy{Type: report.StrategyConstant, Rate: 10},
		Start: t0, End: end, StopReason: "max_requests"})
}

// lognormal draws n TTFTs with the given median (ms) and shape.
func lognormal(seed uint64, n int, median, sigma float64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([]float64, n)
	for i := range out {
		out[i] = median * math.Exp(sigma*rng.NormFloat64())
	}
	return out
}

func compareText(t *testing.T, res *Result) string {
	t.Helper()
	var b bytes.Buffer
	if err := res.WriteTextWidth(&b, 0); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Issue 33's case: 200 requests on each side, the current server's TTFT
// tripled (P50 about 20 → 60 ms, P99 about 67 → 101 ms). The location
// and the tail the samples bound (P50, P90) fail the gate; the P99, which
// 200 requests cannot bound above, is undecidable rather than "within
// noise".
func TestGateTripledTTFTAt200(t *testing.T) {
	t.Parallel()
	base := reportOf("base", ttftBench(t, lognormal(1, 200, 20, 0.52)))
	cur := reportOf("cur", ttftBench(t, lognormal(2, 200, 60, 0.22)))
	res, err := Compare(base, cur, "base.json", "cur.json", Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := compareText(t, res)
	rows := res.Pairs[0].Rows
	if res.Pass || res.Regressions < 2 {
		t.Fatalf("pass %v with %d regressions; want a failing gate\n%s", res.Pass, res.Regressions, out)
	}
	for _, m := range []string{MetricTTFTP50, MetricTTFTP90} {
		if r := rowOf(t, rows, m); r.Status != StatusRegression {
			t.Errorf("%s: %s, want a regression\n%s", m, r.Status, out)
		}
	}
	p99 := rowOf(t, rows, MetricTTFTP99)
	if p99.Status != StatusUndecided || p99.DecidingRequests != 368 || !p99.Noise.Baseline.HighOpen {
		t.Errorf("TTFT p99: %s, deciding requests %d; want undecided, 368 (0.99^368 ≤ 2.5%%)\n%s", p99.Status, p99.DecidingRequests, out)
	}
	if b, c := *rowOf(t, rows, MetricTTFTP50).Baseline, *rowOf(t, rows, MetricTTFTP50).Current; b < 17 || b > 24 || c < 55 || c > 65 {
		t.Errorf("TTFT p50 %.1f → %.1f ms; want about 20 → 60", b, c)
	}
}

// The same 200 requests on both sides pass, every gated row ok.
func TestGateUnchangedAt200(t *testing.T) {
	t.Parallel()
	ttfts := lognormal(1, 200, 20, 0.52)
	res, err := Compare(reportOf("base", ttftBench(t, ttfts)), reportOf("cur", ttftBench(t, ttfts)), "base.json", "cur.json", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Pass || res.Regressions+res.WithinNoise+res.Undecided != 0 {
		t.Fatalf("an unchanged pair: pass %v\n%s", res.Pass, compareText(t, res))
	}
	for _, r := range res.Pairs[0].Rows {
		if r.Status != StatusOK && r.Status != StatusNotGated && r.Status != StatusNA {
			t.Errorf("%s: %s, want ok", r.Metric, r.Status)
		}
	}
}

// Only the P99 moves: 4 requests of 200 at 60 ms become 100 ms (P50 and
// P90 stay 20 ms). A P99 of 200 requests has no upper bound at 95 %, so
// the crossing is undecidable: the gate does not pass and says that 368
// requests per run would decide it, unless --allow-undecided; with 500
// requests (10 slow ones) the same change is decided.
func TestGateUndecidedTail(t *testing.T) {
	t.Parallel()
	run := func(n, slow int, slowMs float64) *report.Report {
		ttfts := make([]float64, n)
		for i := range ttfts {
			ttfts[i] = 20
			if i%(n/slow) == 0 {
				ttfts[i] = slowMs
			}
		}
		return reportOf("r", ttftBench(t, ttfts))
	}
	res, err := Compare(run(200, 4, 60), run(200, 4, 100), "base.json", "cur.json", Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := compareText(t, res)
	if res.Pass || res.Regressions != 0 || res.Undecided != 1 || res.DecidingRequests != 368 {
		t.Fatalf("pass %v, %d regressions, %d undecided (%d requests); want not passing on 1 undecided row that 368 decide\n%s",
			res.Pass, res.Regressions, res.Undecided, res.DecidingRequests, out)
	}
	for m, st := range map[string]Status{MetricTTFTP50: StatusOK, MetricTTFTP90: StatusOK, MetricTTFTP99: StatusUndecided} {
		if r := rowOf(t, res.Pairs[0].Rows, m); r.Status != st {
			t.Errorf("%s: %s, want %s", m, r.Status, st)
		}
	}
	for _, want := range []string{"UNDECIDED [", "] TTFT p99 (ms): undecidable at this sample size: 200 and 200 requests; 368 per run would bound it",
		"Verdict: UNDECIDED: 0 regressions, 0 threshold crossings within noise, 1 crossing undecidable at this sample size (368 requests per run would decide; --allow-undecided passes it)"} {
		if !bytes.Contains([]byte(out), []byte(want)) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	res, err = Compare(run(200, 4, 60), run(200, 4, 100), "base.json", "cur.json", Options{AllowUndecided: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Pass || res.Undecided != 1 {
		t.Errorf("--allow-undecided: pass %v with %d undecided; want a pass that still reports it", res.Pass, res.Undecided)
	}
	res, err = Compare(run(500, 10, 60), run(500, 10, 100), "base.json", "cur.json", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := rowOf(t, res.Pairs[0].Rows, MetricTTFTP99); r.Status == StatusUndecided || r.Noise.Baseline.HighOpen {
		t.Errorf("500 requests: TTFT p99 %s (baseline interval %+v); want it decided", r.Status, r.Noise.Baseline)
	}
}

// boundingSize is the fewest requests n with q^n ≤ α.
func TestBoundingSize(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		q    float64
		want int
	}{{0.99, 368}, {0.95, 72}, {0.90, 36}, {0.5, 6}} {
		if got := boundingSize(c.q, 0.025); got != c.want {
			t.Errorf("boundingSize(%v) = %d, want %d", c.q, got, c.want)
		}
	}
}
