package accum

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/metric"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/console"
	"github.com/goodput-dev/goodput/slo"
)

func TestRequestThresholdsJudge(t *testing.T) {
	// R1 of goldenRecords: sent 0, chunks 100..130 (4 tokens), end 140:
	// TTFT 100, ITL 10, TPOT 130/4 = 32.5, latency 140 ms.
	ok := goldenRecords[0]
	oneTok := recSpec{id: 9, status: record.StatusSuccessful, intended: 0, dispatched: 0, chunks: []float64{80}, firstOut: -1,
		end: 90, prompt: 5, output: 1, source: record.TokensUsage, srv: 1, cli: 1}
	noStream := recSpec{id: 10, status: record.StatusSuccessful, intended: 0, dispatched: 0, firstOut: -2,
		end: 300, prompt: 5, output: 20, source: record.TokensUsage, srv: 20, cli: 20}
	// Cancelled at 350 ms after a first token at 100 ms (sent at 200).
	cancelled := goldenRecords[3]
	// Cancelled at 400 ms without any token (sent at 0).
	cancelledEmpty := recSpec{id: 11, status: record.StatusIncomplete, intended: 0, dispatched: 0, firstOut: -2, end: 400,
		source: record.TokensUnknown, srv: -1, cli: -1, errClass: record.ErrCancelled}
	notSent := goldenRecords[4]
	tests := []struct {
		name string
		t    slo.RequestThresholds
		rec  recSpec
		want slo.Verdict
	}{
		{"within every threshold", ths(limits{metric.TTFT: 100, metric.ITL: 10, metric.TPOT: 32.5, metric.E2E: 140}), ok, slo.VerdictGood},
		{"no thresholds", slo.RequestThresholds{}, ok, slo.VerdictGood},
		{"ttft over", ths(limits{metric.TTFT: 99.9}), ok, slo.VerdictBad},
		{"itl over", ths(limits{metric.ITL: 9.99}), ok, slo.VerdictBad},
		{"tpot over (it includes the ttft)", ths(limits{metric.TPOT: 32.4}), ok, slo.VerdictBad},
		{"latency over", ths(limits{metric.E2E: 139}), ok, slo.VerdictBad},
		{"errored", slo.RequestThresholds{}, goldenRecords[2], slo.VerdictBad},
		{"errored within the thresholds", ths(limits{metric.E2E: 1e6}), goldenRecords[2], slo.VerdictBad},
		{"one token has no inter-token gap", ths(limits{metric.ITL: 1}), oneTok, slo.VerdictGood},
		{"non-streaming: no ttft to judge", ths(limits{metric.TTFT: 1000}), noStream, slo.VerdictUndetermined},
		{"non-streaming: no itl to judge", ths(limits{metric.ITL: 1000}), noStream, slo.VerdictUndetermined},
		{"non-streaming: a bad latency is still bad", ths(limits{metric.TTFT: 1000, metric.E2E: 100}), noStream, slo.VerdictBad},
		{"non-streaming: latency and tpot", ths(limits{metric.TPOT: 15, metric.E2E: 300}), noStream, slo.VerdictGood},
		{"cancelled, nothing broken yet", ths(limits{metric.TTFT: 100, metric.E2E: 150}), cancelled, slo.VerdictUndetermined},
		{"cancelled after a late first token", ths(limits{metric.TTFT: 99}), cancelled, slo.VerdictBad},
		{"cancelled after the latency threshold", ths(limits{metric.E2E: 149}), cancelled, slo.VerdictBad},
		{"cancelled, itl unknown", ths(limits{metric.ITL: 1}), cancelled, slo.VerdictUndetermined},
		{"cancelled without a token past the ttft threshold", ths(limits{metric.TTFT: 399}), cancelledEmpty, slo.VerdictBad},
		{"cancelled without a token within the ttft threshold", ths(limits{metric.TTFT: 400}), cancelledEmpty, slo.VerdictUndetermined},
		{"never sent", ths(limits{metric.TTFT: 1, metric.E2E: 1}), notSent, slo.VerdictUndetermined},
	}
	r := record.New()
	for _, tc := range tests {
		tc.rec.fill(r)
		if got := judgeRecord(tc.t, r); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	r.Reset()
	if got := judgeRecord(slo.RequestThresholds{}, r); got != slo.VerdictUndetermined {
		t.Errorf("invalid record: %v", got)
	}
	if !(slo.RequestThresholds{}).IsZero() || (ths(limits{metric.ITL: 1})).IsZero() {
		t.Error("IsZero")
	}
}

// fakeSLO judges like a spec "ttft_p99=<ttft>,error_rate=10%": enough to
// check what the accumulator hands to an SLO and how the outputs show it.
type fakeSLO struct {
	t   slo.RequestThresholds
	got *report.GoodputCounts
}

func (f fakeSLO) Thresholds() slo.RequestThresholds { return f.t }

func (f fakeSLO) Judge(b *report.Benchmark, c report.GoodputCounts) *report.SLOResult {
	if f.got != nil {
		*f.got = c
	}
	r := &report.SLOResult{Spec: fmt.Sprintf("ttft_p99=%vms,error_rate=10%%", f.t.Ms[metric.TTFT.Slot]), GoodRequests: report.Int(c.Good)}
	if c.Judged > 0 {
		r.Attainment = report.Float(float64(c.Good) / float64(c.Judged))
	}
	r.GoodputRPS = report.Float(float64(c.Good) / c.WindowSeconds)
	r.GoodputOutputTokS = report.Float(float64(c.GoodOutputTokens) / c.WindowSeconds)
	r.ThroughputOutputTokS = report.Float(float64(c.SuccessfulOutputTokens) / c.WindowSeconds)
	p99 := b.Extras.Metrics.TimeToFirstTokenMs.Successful.Percentiles.P99
	er := b.Extras.Errors.ErrorRate
	r.Objectives = []report.ObjectiveResult{
		{Key: "ttft_p99", Metric: "ttft", Percentile: 99, Unit: "ms", Threshold: report.Float(f.t.Ms[metric.TTFT.Slot]), Measured: p99, Pass: float64(p99) <= f.t.Ms[metric.TTFT.Slot]},
		{Key: "error_rate", Metric: "error_rate", Unit: "fraction", Threshold: 0.1, Measured: er, Pass: er <= 0.1},
		{Key: "attainment", Metric: "attainment", Unit: "fraction", Threshold: 0.5, Measured: r.Attainment, Pass: r.Attainment >= 0.5},
	}
	r.Pass = r.Objectives[0].Pass && r.Objectives[1].Pass && r.Objectives[2].Pass
	return r
}

func TestAccumulatorGoodputCounts(t *testing.T) {
	// goldenRecords with TTFT ≤ 150 ms and ITL ≤ 15 ms: R1 good (TTFT 100,
	// ITL 10, 4 tokens), R2 bad (TTFT 200), R3 errored, R4 cancelled with
	// nothing broken yet (undetermined), R5 never sent (not in the window).
	// Window [0, 400] ms.
	var got report.GoodputCounts
	b := runGolden(t, Config{Start: base, Seed: 1, SLO: fakeSLO{t: ths(limits{metric.TTFT: 150, metric.ITL: 15}), got: &got}},
		goldenRecords, BenchmarkInfo{RunID: "g", Start: base})
	want := report.GoodputCounts{InWindow: 4, Judged: 3, Good: 1, GoodOutputTokens: 4, SuccessfulOutputTokens: 9, WindowSeconds: 0.4, Confidence: 0.95}
	if got != want {
		t.Errorf("counts %+v, want %+v", got, want)
	}
	s := b.Extras.SLO
	if s == nil || s.GoodRequests != 1 || s.GoodputOutputTokS != 10 || s.ThroughputOutputTokS != 22.5 || s.Pass {
		t.Errorf("SLO result %+v", s)
	}
	// TTFT ≤ 90 ms: R4's first token (100 ms) already broke it.
	runGolden(t, Config{Start: base, Seed: 1, SLO: fakeSLO{t: ths(limits{metric.TTFT: 90}), got: &got}},
		goldenRecords, BenchmarkInfo{RunID: "g", Start: base})
	if got.Judged != 4 || got.Good != 0 {
		t.Errorf("ttft 90: %+v", got)
	}
	// Without an SLO nothing is judged.
	if b := runGolden(t, Config{Start: base, Seed: 1}, goldenRecords, BenchmarkInfo{RunID: "g", Start: base}); b.Extras.SLO != nil {
		t.Error("SLO result without an SLO")
	}
}

func TestAccumulatorGoodputWindow(t *testing.T) {
	// windowRecords: 10 requests 1 s apart, 500 ms each except request 1
	// (1200 ms). Warmup 2 s and cooldown 1 s of 10 s leave 9 requests in
	// [2 s, 9 s] (request 0 ends at 0.5 s). A 1 s latency threshold fails
	// request 1 only. Beyond an exact cap of 3 the requests are counted by
	// the online decision, which is exact for phases in seconds.
	cons := []report.Constraint{{Kind: report.ConstraintMaxDuration, Seconds: 10}}
	want := report.GoodputCounts{InWindow: 9, Judged: 9, Good: 8, GoodOutputTokens: 24, SuccessfulOutputTokens: 27, WindowSeconds: 7, Confidence: 0.95}
	for _, exactCap := range []int{0, 3} {
		var got report.GoodputCounts
		cfg := Config{Start: base, Constraints: cons, Warmup: mustPhase(t, "2"), Cooldown: mustPhase(t, "0.1"), ExactCap: exactCap,
			SLO: fakeSLO{t: ths(limits{metric.E2E: 1000}), got: &got}}
		b := runGolden(t, cfg, windowRecords(), BenchmarkInfo{RunID: "w", Start: base, StopTime: ms(10000)})
		w := want
		w.Approximate = exactCap > 0
		if got != w {
			t.Errorf("exact cap %d: counts %+v, want %+v", exactCap, got, w)
		}
		reasons := strings.Join(b.Extras.InexactReasons, "|")
		if strings.Contains(reasons, "good-request counts") != (exactCap > 0) {
			t.Errorf("exact cap %d: inexact reasons %q", exactCap, reasons)
		}
	}
}

// sloReport is goldenReport's two benchmarks judged by fakeSLO (TTFT P99
// ≤ 150 ms, ITL ≤ 15 ms per request), with a knee in the run extras.
func sloReport(t *testing.T) *report.Report {
	t.Helper()
	cons := []report.Constraint{{Kind: report.ConstraintMaxDuration, Seconds: 10}}
	slo := fakeSLO{t: ths(limits{metric.TTFT: 150, metric.ITL: 15})}
	b1 := runGolden(t, Config{Start: base, Constraints: cons, Seed: 1, SLO: slo}, goldenRecords, BenchmarkInfo{
		RunID: "run-1", RunIndex: 0, Strategy: report.Strategy{Type: report.StrategyConcurrent, Streams: 16},
		Start: base, End: ms(10000), StopTime: ms(10000), StopReason: report.ConstraintMaxDuration})
	b2 := runGolden(t, Config{Start: base, Constraints: cons, Warmup: mustPhase(t, "2"), Cooldown: mustPhase(t, "1s"), Seed: 2, SLO: slo},
		windowRecords(), BenchmarkInfo{RunID: "run-1", RunIndex: 1, Strategy: report.Strategy{Type: report.StrategyConcurrent, Streams: 8},
			Start: base, End: ms(10000), StopTime: ms(10000), StopReason: report.ConstraintMaxDuration})
	r := report.NewReport("test", nil, b1, b2)
	k := &report.Knee{Found: true, Mode: "list", Index: 1, Below: -1, Above: 0, Streams: 8, Reason: "The SLO holds up to 8 streams and breaks at 16.",
		TargetLoadTokS: 100, Replicas: 30}
	s := b2.Extras.SLO
	k.GoodputOutputTokS, k.ThroughputOutputTokS = s.GoodputOutputTokS, s.ThroughputOutputTokS
	k.Rate = b2.Metrics.RequestsPerSecond.Successful.Mean
	k.Concurrency = b2.Metrics.RequestConcurrency.Successful.Mean
	k.TTFTP99Ms = b2.Extras.Metrics.TimeToFirstTokenMs.Successful.Percentiles.P99
	k.ITLP95Ms = b2.Extras.Metrics.InterTokenLatencyMs.Successful.Percentiles.P95
	r.Run = &report.RunExtras{Version: report.ExtrasVersion, RunID: "run-1", SLO: &report.SLOSpec{Spec: s.Spec}, Knee: k}
	return r
}

func TestConsoleAndCSVGoldenSLO(t *testing.T) {
	r := sloReport(t)
	// Hand check of the second benchmark: 9 requests in a 7 s window, each
	// with TTFT 100 ms (within 150 ms) but ITL (300 − 100) / 2 = 100 ms
	// (over 15 ms): every request is bad; 27 output tokens over 7 s.
	s := r.Benchmarks[1].Extras.SLO
	if s.GoodRequests != 0 || s.Attainment != 0 || s.ThroughputOutputTokS != report.Float(27.0/7) {
		t.Errorf("benchmark 1: %+v", s)
	}
	var con, csvb bytes.Buffer
	if err := console.WriteWidth(&con, r, 0); err != nil { // --wide
		t.Fatal(err)
	}
	if err := report.WriteCSV(&csvb, r); err != nil {
		t.Fatal(err)
	}
	golden(t, "slo.console.txt", con.Bytes())
	golden(t, "slo.csv", csvb.Bytes())
	consoleWidthGolden(t, "slo", r)
}

// BenchmarkAddSLO is BenchmarkAdd with a per-request SLO judgement: the
// difference is the cost of judging each request in Add.
func BenchmarkAddSLO(b *testing.B) {
	start := int64(1_700_000_000_000_000_000)
	a, err := New(Config{Start: start, SLO: fakeSLO{t: ths(limits{metric.TTFT: 500, metric.ITL: 50, metric.TPOT: 60, metric.E2E: 10_000})}})
	if err != nil {
		b.Fatal(err)
	}
	recs := make([]*record.Record, 1024)
	for i := range recs {
		recs[i] = record.New()
		synthFill(recs[i], start, i, 128)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a.Add(recs[i%len(recs)])
	}
}

func TestSLORoundTrip(t *testing.T) {
	first := writeJSON(t, sloReport(t))
	back, err := report.Decode(bytes.NewReader(first), "slo.json")
	if err != nil {
		t.Fatal(err)
	}
	if s := back.Benchmarks[0].Extras.SLO; s == nil || s.Spec != "ttft_p99=150ms,error_rate=10%" || len(s.Objectives) != 3 || back.Run.Knee.Replicas != 30 {
		t.Fatalf("read back: %+v", s)
	}
	if again := writeJSON(t, back); !bytes.Equal(first, again) {
		t.Error("a report with SLO results written, read and written again differs")
	}
}

// judgeRecord classifies one record as Add does; an invalid record (no
// status or no timestamp) is undetermined.
func judgeRecord(t slo.RequestThresholds, r *record.Record) slo.Verdict {
	s, ok := Summarize(r)
	if !ok {
		return slo.VerdictUndetermined
	}
	switch r.Status {
	case record.StatusSuccessful:
		s.status = report.StatusSuccessful
	case record.StatusErrored:
		s.status = report.StatusErrored
	case record.StatusIncomplete:
		s.status = report.StatusIncomplete
	default:
		return slo.VerdictUndetermined
	}
	return judge(&t, &s, r.ChunkTimes, nil)
}

// limits are latency thresholds in milliseconds by metric.
type limits map[*metric.Latency]float64

// ths are the per-request thresholds m.
func ths(m limits) slo.RequestThresholds {
	var t slo.RequestThresholds
	for l, v := range m {
		t.Ms[l.Slot] = v
	}
	return t
}
