package htmlreport

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/accum"
)

// sweepSpec describes a synthetic constant-rate sweep built through the
// real accumulator (so the report has real histograms and distributions).
type sweepSpec struct {
	rounds    int     // rates 2, 4, … 2×rounds req/s
	seconds   float64 // per round
	chunks    int     // output tokens (one per chunk) per request
	kneeAt    int     // round index of the knee; -1 for none
	telemetry bool
	label     string // run id and model suffix
}

// sweepStart is the synthetic run's start: 2026-06-16 12:00:00 UTC.
const sweepStart = int64(1781611200) * 1e9

// buildSweep builds the report, and the records when keep is set. Latency
// grows with the rate and breaks past 2×(kneeAt+1) req/s; the top rounds
// have some HTTP 503s.
func buildSweep(tb testing.TB, sp sweepSpec, keep bool) (*report.Report, []*record.Record) {
	tb.Helper()
	var benches []*report.Benchmark
	var kept []*record.Record
	t := sweepStart
	id := uint64(0)
	capRate := 2 * float64(sp.kneeAt+1)
	if sp.kneeAt < 0 {
		capRate = math.Inf(1)
	}
	for k := 0; k < sp.rounds; k++ {
		rate := 2 * float64(k+1)
		acc, err := accum.New(accum.Config{Start: t, SampleSize: 5, Seed: 1,
			Constraints: []report.Constraint{{Kind: report.ConstraintMaxDuration, Seconds: sp.seconds}}})
		if err != nil {
			tb.Fatal(err)
		}
		n := int(rate * sp.seconds)
		x := uint64(k)*0x9e3779b97f4a7c15 + 7
		rnd := func() float64 { // xorshift, uniform [0, 1)
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			return float64(x%1_000_000) / 1e6
		}
		over := math.Max(0, rate-capRate)
		var last int64
		for i := 0; i < n; i++ {
			r := record.New()
			r.ID = id
			id++
			r.Benchmark = k
			r.Status = record.StatusSuccessful
			r.Intended = t + int64(float64(i)/rate*1e9)
			r.Dispatched = r.Intended + int64(rnd()*2e5)
			r.Sent = r.Dispatched + 50_000
			r.Headers = r.Sent + 1_000_000
			ttftMs := 60 + 8*rate + over*over*120*(0.5+rnd()) + 40*rnd()
			if rnd() < 0.02 {
				ttftMs *= 1.8 // a tail, within the SLO below the knee
			}
			r.FirstChunk = r.Dispatched + int64(ttftMs*1e6)
			r.FirstToken, r.FirstOutputToken = r.FirstChunk, r.FirstChunk
			ct := r.FirstChunk
			for c := 0; c < sp.chunks; c++ {
				if c > 0 {
					ct += int64((12 + 0.8*rate + over*6 + 6*rnd()) * 1e6)
				}
				r.ChunkTimes = append(r.ChunkTimes, ct)
			}
			r.LastToken = ct
			r.End = ct + 300_000
			r.Iterations = sp.chunks + 2
			r.PromptTokens, r.OutputTokens = 256, sp.chunks
			r.OutputSource = record.TokensUsage
			r.ServerPromptTokens, r.ServerOutputTokens = 256, sp.chunks
			r.ClientOutputTokens = sp.chunks
			if over > 0 && rnd() < 0.03*over {
				r.Status, r.ErrorClass, r.HTTPStatus, r.Error = record.StatusErrored, record.ErrHTTPStatus, 503, "HTTP 503: server overloaded"
				r.End = r.Headers + 1_000_000
				r.ChunkTimes, r.FirstChunk, r.FirstToken, r.FirstOutputToken, r.LastToken = r.ChunkTimes[:0], 0, 0, 0, 0
				r.OutputTokens, r.ServerOutputTokens, r.ClientOutputTokens = 0, 0, 0
			}
			acc.Add(r)
			last = max(last, r.End)
			if keep {
				kept = append(kept, r)
			}
		}
		end := t + int64(sp.seconds*1e9)
		b := acc.Finish(accum.BenchmarkInfo{RunID: "sweep-" + sp.label, RunIndex: k, Strategy: report.Strategy{Type: report.StrategyConstant, Rate: rate},
			Start: t, End: max(end, last), StopTime: end, StopReason: "max_duration"})
		benches = append(benches, b)
		t = max(end, last) + 2e9
	}
	rep := report.NewReport("v0.test", nil, benches...)
	rep.Run = &report.RunExtras{Version: report.ExtrasVersion, RunID: "sweep-" + sp.label,
		SLO: &report.SLOSpec{Spec: "ttft_p99=500ms,itl_p95=50ms,error_rate=0.5%"},
		Metadata: &report.RunMetadata{Engine: "vllm", EngineVersion: "0.9.1", Model: "llama-3-70b-" + sp.label, Precision: "fp8",
			Hardware: "4×H100-SXM-80GB", ISLTokens: 256, OSLTokens: report.Float(sp.chunks), GoodputVersion: "v0.test", RunID: "sweep-" + sp.label,
			SLO: "ttft_p99=500ms,itl_p95=50ms,error_rate=0.5%", Warmup: "0s", MaxConcurrency: 64,
			Sources: map[string]string{"engine": "GET /version"}, Missing: []string{"model_revision", "tokenizer_hash"}}}
	for _, b := range benches {
		judge(b, 500, 50, 0.005)
	}
	if sp.kneeAt >= 0 {
		kb := benches[sp.kneeAt]
		rep.Run.Knee = &report.Knee{Found: true, Mode: "sweep", Index: report.Int(sp.kneeAt), Below: report.Int(sp.kneeAt - 1), Above: report.Int(sp.kneeAt + 1),
			Rate: report.Float(kb.Config.Strategy.Rate), GoodputOutputTokS: kb.Extras.SLO.GoodputOutputTokS, ThroughputOutputTokS: kb.Extras.SLO.ThroughputOutputTokS,
			TTFTP99Ms: kb.Extras.Metrics.TimeToFirstTokenMs.Successful.Percentiles.P99, ITLP95Ms: kb.Extras.Metrics.InterTokenLatencyMs.Successful.Percentiles.P95,
			TargetLoadTokS: 10000, Replicas: report.Int(math.Ceil(10000 / float64(kb.Extras.SLO.GoodputOutputTokS))),
			Reason: "the SLO held up to round " + itoa(sp.kneeAt) + " and failed above it"}
	}
	if sp.telemetry {
		for k, b := range benches {
			addTelemetry(b, k)
		}
	}
	return rep, kept
}

func itoa(i int) string { return fmtInt(int64(i)) }

// judge fills a benchmark's SLO verdict by hand from its distributions
// (what package slo computes; the page only reads it).
func judge(b *report.Benchmark, ttftMs, itlMs, errRate float64) {
	x := b.Extras
	ttft := float64(x.Metrics.TimeToFirstTokenMs.Successful.Percentiles.P99)
	itl := float64(x.Metrics.InterTokenLatencyMs.Successful.Percentiles.P95)
	er := float64(x.Errors.ErrorRate)
	objs := []report.ObjectiveResult{
		{Key: "ttft_p99", Metric: "ttft", Percentile: 99, Unit: "ms", Threshold: report.Float(ttftMs), Measured: report.Float(ttft), Pass: ttft <= ttftMs},
		{Key: "itl_p95", Metric: "itl", Percentile: 95, Unit: "ms", Threshold: report.Float(itlMs), Measured: report.Float(itl), Pass: itl <= itlMs},
		{Key: "error_rate", Metric: "error_rate", Unit: "fraction", Threshold: report.Float(errRate), Measured: report.Float(er), Pass: er <= errRate},
	}
	pass := objs[0].Pass && objs[1].Pass && objs[2].Pass
	thr := float64(b.Metrics.OutputTokensPerSecond.Successful.Mean)
	att := 1.0
	if !pass {
		att = 0.6
	}
	x.SLO = &report.SLOResult{Spec: "ttft_p99=500ms,itl_p95=50ms,error_rate=0.5%", Pass: pass, Objectives: objs, Attainment: report.Float(att),
		GoodputOutputTokS: report.Float(thr * att), ThroughputOutputTokS: report.Float(thr)}
}

// addTelemetry gives round k energy and cost figures: power rises with the
// round, the price is 10 EUR/h.
func addTelemetry(b *report.Benchmark, k int) {
	f := func(v float64) *report.Float { x := report.Float(v); return &x }
	dur := float64(*b.Duration)
	mean := 300 + 40*float64(k)
	out := float64(b.Metrics.OutputTokensPerSecond.Successful.Mean) * dur
	wh := mean * dur / 3600
	good := float64(b.Extras.SLO.GoodputOutputTokS)
	start := float64(*b.SchedulerMetrics.MeasureStartTime)
	var series []report.PowerPoint
	for i := 0; i <= 4; i++ { // sampled power around the mean
		series = append(series, report.PowerPoint{T: report.Float(start + dur*float64(i)/4), W: report.Float(mean + 20*float64(i%2))})
	}
	b.Extras.Telemetry = &report.BenchmarkTelemetry{
		Window: report.TelemetryWindow{Start: *b.SchedulerMetrics.MeasureStartTime, End: *b.SchedulerMetrics.MeasureEndTime, DurationS: report.Float(dur), Basis: "measurement"},
		Tokens: report.WindowTokens{Output: report.Float(out), OutputTokS: report.Float(out / dur)},
		Energy: &report.EnergyTelemetry{Source: "nvml", Method: "counter", EnergyJ: f(wh * 3600), EnergyWh: f(wh), MeanPowerW: f(mean), PeakPowerW: f(mean + 60), PowerSeries: series,
			GPUs: 4, GPUModel: "NVIDIA H100", Derived: &report.EnergyDerived{WhPerOutputToken: f(wh / out), JPerOutputToken: f(wh * 3600 / out), WhPerToken: f(wh / (out * 3))}},
		Cost: &report.CostTelemetry{Source: "--gpu-cost-per-hour 2.5 × 4 GPUs", Currency: "EUR", CostPerHour: 10, WindowCost: report.Float(10 * dur / 3600),
			CPM: f(10 * 1e6 / (good * 3600)), CPMBasis: "goodput"},
	}
}

// writeRecords writes records as a requests.jsonl in dir.
func writeRecords(tb testing.TB, dir string, recs []*record.Record) string {
	tb.Helper()
	var buf bytes.Buffer
	enc := record.NewEncoder(&buf)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			tb.Fatal(err)
		}
	}
	if err := enc.Flush(); err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(dir, "requests.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}
