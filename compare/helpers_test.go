package compare

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/accum"
)

// synth describes a synthetic benchmark: n requests with lognormal TTFT
// and per-request ITL, built through report's Accumulator so that the
// report carries real summaries and histograms.
type synth struct {
	seed       uint64
	n          int
	ttftMs     float64 // median TTFT
	ttftSigma  float64 // lognormal shape
	itlMs      float64 // median per-request mean ITL
	itlSigma   float64
	outTokens  int
	errored    int // of the n requests
	strategy   report.Strategy
	goodput    float64 // SLO goodput (0: no SLO result)
	throughput float64 // SLO window throughput
	slo        string
}

const t0 = int64(1_700_000_000) * 1e9

func (s synth) benchmark(t *testing.T) *report.Benchmark {
	t.Helper()
	acc, err := accum.New(accum.Config{Start: t0, SampleSize: -1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(s.seed, 7))
	out := s.outTokens
	if out == 0 {
		out = 16
	}
	var r record.Record
	end := t0
	for i := 0; i < s.n; i++ {
		r.Reset()
		r.ID = uint64(i + 1)
		start := t0 + int64(i)*int64(5e6)
		r.Intended, r.Dispatched, r.Sent = start, start, start
		r.PromptTokens, r.ServerPromptTokens = 100, 100
		r.ClientOutputTokens, r.ClientPromptTokens = -1, -1
		r.CachedTokens = -1
		if i < s.errored {
			r.Status, r.ErrorClass, r.HTTPStatus = record.StatusErrored, record.ErrHTTPStatus, 503
			r.End = start + int64(2e6)
			r.Iterations = 1
			r.ServerOutputTokens = -1
		} else {
			ttft := s.ttftMs * math.Exp(s.ttftSigma*rng.NormFloat64())
			itl := s.itlMs * math.Exp(s.itlSigma*rng.NormFloat64())
			first := start + int64(ttft*1e6)
			r.Status = record.StatusSuccessful
			r.Headers, r.FirstChunk, r.FirstToken, r.FirstOutputToken = first, first, first, first
			for k := 0; k < out; k++ {
				r.ChunkTimes = append(r.ChunkTimes, first+int64(float64(k)*itl*1e6))
			}
			r.LastToken = r.ChunkTimes[len(r.ChunkTimes)-1]
			r.End = r.LastToken + int64(1e5)
			r.Iterations = out + 1
			r.OutputTokens, r.ServerOutputTokens, r.OutputSource = out, out, record.TokensUsage
			r.FinishReason = "length"
		}
		end = max(end, r.End)
		acc.Add(&r)
	}
	st := s.strategy
	if st.Type == "" {
		st = report.Strategy{Type: report.StrategyConcurrent, Streams: 8}
	}
	b := acc.Finish(accum.BenchmarkInfo{RunID: "run", Strategy: st, Start: t0, End: end, StopReason: "max_requests"})
	if s.goodput > 0 || s.throughput > 0 {
		slo := s.slo
		if slo == "" {
			slo = "ttft_p99=500ms,itl_p95=50ms"
		}
		b.Extras.SLO = &report.SLOResult{Spec: slo, Pass: true,
			GoodputOutputTokS: report.Float(s.goodput), ThroughputOutputTokS: report.Float(s.throughput)}
	}
	return b
}

func reportOf(runID string, benches ...*report.Benchmark) *report.Report {
	r := report.NewReport("test", nil, benches...)
	r.Run = &report.RunExtras{Version: 1, RunID: runID}
	return r
}

// rowOf finds a row by metric.
func rowOf(t *testing.T, rows []Row, metric string) Row {
	t.Helper()
	for _, r := range rows {
		if r.Metric == metric {
			return r
		}
	}
	t.Fatalf("no row %s", metric)
	return Row{}
}
