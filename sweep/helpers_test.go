package sweep

import (
	"math"
	"testing"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/slo"
)

// outcome is what a fake server does at one load.
type outcome struct {
	ttftP99, itlP95, errRate float64 // ms, ms, fraction
	rps, tokS                float64 // measured request rate, output tokens/s
	notSent                  int64
	peak                     float64 // peak requests in flight (request_concurrency max)
	saturated                bool
	stop                     loadgen.StopReason
	// completed successful requests and their mean latency (s), when
	// the server's completion rate matters; 0: not reported.
	completed, latencyS float64
}

func ds(v float64) *report.StatusDistributionSummary {
	d := &report.DistributionSummary{Mean: report.Float(v), Median: report.Float(v), Max: report.Float(v), Count: 100}
	p := report.Float(v)
	d.Percentiles = report.Percentiles{P001: p, P01: p, P05: p, P10: p, P25: p, P75: p, P90: p, P95: p, P99: p, P999: p}
	return &report.StatusDistributionSummary{Successful: d}
}

// fakeRound builds a round judged against spec as a real run would be.
func fakeRound(t *testing.T, i int, s loadgen.Strategy, o outcome, spec slo.Spec) Round {
	t.Helper()
	dur := report.Float(10)
	b := &report.Benchmark{Duration: &dur}
	b.Config.RunIndex = report.Int(i)
	b.Metrics.RequestsPerSecond = ds(o.rps)
	b.Metrics.RequestConcurrency = ds(float64(s.Streams))
	b.Metrics.RequestConcurrency.Total = &report.DistributionSummary{Max: report.Float(max(o.peak, float64(s.Streams)))}
	b.Metrics.RequestConcurrency.Total = &report.DistributionSummary{Max: report.Float(max(o.peak, float64(s.Streams)))}
	b.Extras = &report.Extras{Errors: report.ErrorCounts{ErrorRate: report.Float(o.errRate)}}
	b.Extras.Metrics.TimeToFirstTokenMs = ds(o.ttftP99)
	b.Extras.Metrics.InterTokenLatencyMs = ds(o.itlP95)
	if o.completed > 0 {
		b.Metrics.RequestTotals = &report.StatusCounts{Successful: report.Int(math.Round(o.completed)), Total: report.Int(math.Round(o.completed))}
		b.Metrics.RequestLatency = ds(o.latencyS)
	}
	tok := int64(o.tokS * 10)
	c := report.GoodputCounts{InWindow: 1000, Judged: 1000, Good: 1000, GoodOutputTokens: tok, SuccessfulOutputTokens: tok, WindowSeconds: 10}
	// Requests over the thresholds are not good: a coarse stand-in for
	// the per-request verdicts (enough for the attainment floor).
	if o.ttftP99 > 500 || o.itlP95 > 50 || o.errRate > 0.005 {
		c.Good = 500
		c.GoodOutputTokens = tok / 2
	}
	b.Extras.SLO = spec.Judge(b, c)
	res := loadgen.Result{NotSent: o.notSent, StopReason: o.stop}
	if res.StopReason == "" {
		res.StopReason = loadgen.StopMaxDuration
	}
	res.Client.Saturated = o.saturated
	if o.saturated {
		res.Client.Reason = "scheduler lag"
	}
	return Round{Strategy: s, Result: res, Benchmark: b}
}

// simulate runs a planner against a fake server until it stops (at most
// 100 rounds).
func simulate(t *testing.T, p Planner, spec slo.Spec, server func(s loadgen.Strategy) outcome) []Round {
	t.Helper()
	var rounds []Round
	for i := 0; i < 100; i++ {
		s, ok, err := p.Next(rounds)
		if err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		if !ok {
			return rounds
		}
		rounds = append(rounds, fakeRound(t, i, s, server(s), spec))
	}
	t.Fatal("the planner did not stop after 100 rounds")
	return nil
}

// loads lists the rounds' streams (concurrent) or rates.
func loads(rounds []Round) []float64 {
	out := make([]float64, len(rounds))
	for i, r := range rounds {
		if r.Strategy.Kind == loadgen.Concurrent {
			out[i] = float64(r.Strategy.Streams)
		} else {
			out[i] = r.Strategy.Rate
		}
	}
	return out
}
