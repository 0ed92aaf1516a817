package sweep

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/slo"
)

func TestSweepRates(t *testing.T) {
	tests := []struct {
		sync, tput float64
		size       int
		want       []float64
	}{
		// GuideLLM's example: sync 2 rps, throughput 18 rps, size 10.
		{2, 18, 10, []float64{4, 6, 8, 10, 12, 14, 16, 18}},
		{2, 18, 3, []float64{18}},
		{2, 18, 2, nil},
		{1, 2, 5, []float64{1.3333333333333333, 1.6666666666666665, 2}},
		{3, 3, 4, []float64{3, 3}},
		// A throughput rate below the synchronous one gives falling rates,
		// down to 0.
		{5, 0, 6, []float64{3.75, 2.5, 1.25, 0}},
	}
	for _, tc := range tests {
		got := SweepRates(tc.sync, tc.tput, tc.size)
		if !slices.Equal(got, tc.want) {
			t.Errorf("SweepRates(%v, %v, %d) = %v, want %v", tc.sync, tc.tput, tc.size, got, tc.want)
		}
	}
	// numpy.linspace(0.7, 9.3, 9)[1:]: start + i·step in float64 (step =
	// 8.600000000000001 / 8), the last exactly 9.3 (values from Python).
	want := []float64{1.7750000000000001, 2.8500000000000005, 3.9250000000000007, 5.000000000000001,
		6.075000000000001, 7.150000000000001, 8.225000000000001, 9.3}
	if got := SweepRates(0.7, 9.3, 10); !slices.Equal(got, want) {
		t.Errorf("SweepRates(0.7, 9.3, 10) = %v, want %v", got, want)
	}
}

func TestGuideLLMSweepRounds(t *testing.T) {
	spec := slo.Default()
	// Synchronous measures 2 req/s, throughput 18 req/s.
	server := func(s loadgen.Strategy) outcome {
		switch s.Kind {
		case loadgen.Synchronous:
			return outcome{ttftP99: 50, itlP95: 10, rps: 2}
		case loadgen.Throughput:
			return outcome{ttftP99: 3000, itlP95: 80, rps: 18}
		}
		return outcome{ttftP99: 40 * s.Rate, itlP95: 10, rps: s.Rate}
	}
	g := GuideLLMSweep{Rampup: 5 * time.Second, Seed: 7}
	rounds := simulate(t, g, spec, server)
	want := []loadgen.Strategy{
		{Kind: loadgen.Synchronous},
		{Kind: loadgen.Throughput, Streams: 512, Rampup: 5 * time.Second},
	}
	for r := 4.0; r <= 18; r += 2 {
		want = append(want, loadgen.Strategy{Kind: loadgen.Constant, Rate: r, MaxConcurrency: 512, Seed: 7})
	}
	if len(rounds) != len(want) {
		t.Fatalf("%d rounds, want %d", len(rounds), len(want))
	}
	for i, r := range rounds {
		if !strategyEqual(r.Strategy, want[i]) {
			t.Errorf("round %d: %+v, want %+v", i, r.Strategy, want[i])
		}
	}
	if Planned(g) != 10 {
		t.Errorf("Planned = %d", Planned(g))
	}
	p := g.Profile()
	if p.Kind != "sweep" || p.SweepSize != 10 || p.StrategyType != "constant" || p.MaxConcurrency != 512 || p.RampupDuration != 5 {
		t.Errorf("profile %+v", p)
	}
	// TTFT P99 = 40 ms × rate: 12 req/s (480 ms) holds, 14 (560 ms) breaks.
	k := FindKnee(g, rounds, 20000)
	if !k.Found || k.Mode != ModeSweep || k.Index != 6 || k.Above != 7 || k.Below != 5 || k.Rate != 12 {
		t.Errorf("knee %+v", k)
	}

	// Poisson rounds with the seed, a custom size and cap.
	g = GuideLLMSweep{Size: 4, Kind: loadgen.Poisson, MaxConcurrency: 64, Seed: 3}
	rounds = simulate(t, g, spec, server)
	if got := loads(rounds[2:]); !slices.Equal(got, []float64{10, 18}) || rounds[2].Strategy.Kind != loadgen.Poisson ||
		rounds[2].Strategy.Seed != 3 || rounds[2].Strategy.MaxConcurrency != 64 || rounds[1].Strategy.Streams != 64 {
		t.Errorf("poisson sweep: %v %+v", got, rounds[2].Strategy)
	}
	// Size 2: synchronous and throughput only.
	if rounds := simulate(t, GuideLLMSweep{Size: 2}, spec, server); len(rounds) != 2 {
		t.Errorf("size 2: %d rounds", len(rounds))
	}
}

func strategyEqual(a, b loadgen.Strategy) bool {
	return a.Kind == b.Kind && a.Streams == b.Streams && a.Rate == b.Rate && a.MaxConcurrency == b.MaxConcurrency &&
		a.Seed == b.Seed && a.Rampup == b.Rampup
}

func TestGuideLLMSweepStops(t *testing.T) {
	spec := slo.Default()
	// Both rates 0: GuideLLM aborts.
	none := func(loadgen.Strategy) outcome { return outcome{errRate: 1} }
	g := GuideLLMSweep{}
	var rounds []Round
	for i := 0; i < 2; i++ {
		s, ok, err := g.Next(rounds)
		if err != nil || !ok {
			t.Fatalf("round %d: %v %v", i, ok, err)
		}
		rounds = append(rounds, fakeRound(t, i, s, none(s), spec))
	}
	_, _, err := g.Next(rounds)
	if err == nil || !strings.Contains(err.Error(), "invalid rates in sweep; aborting") {
		t.Errorf("both rates 0: %v", err)
	}
	// A throughput rate of 0 below a synchronous 5 req/s: the rates fall
	// to 0, which ends the sweep (GuideLLM: a rate ≤ 0 stops).
	fall := func(s loadgen.Strategy) outcome {
		if s.Kind == loadgen.Synchronous {
			return outcome{rps: 5}
		}
		return outcome{rps: 0}
	}
	rounds = simulate(t, GuideLLMSweep{Size: 6}, spec, fall)
	if got := loads(rounds[2:]); !slices.Equal(got, []float64{3.75, 2.5, 1.25}) {
		t.Errorf("falling rates: %v", got)
	}
	// stopping_scope=all: a constant round ended by max_errors ends the
	// sweep; the throughput round is exempt.
	errs := func(s loadgen.Strategy) outcome {
		switch s.Kind {
		case loadgen.Synchronous:
			return outcome{rps: 2}
		case loadgen.Throughput:
			return outcome{rps: 18, stop: loadgen.StopMaxErrors}
		}
		if s.Rate >= 8 {
			return outcome{rps: s.Rate, stop: loadgen.StopMaxErrors}
		}
		return outcome{rps: s.Rate}
	}
	rounds = simulate(t, StopOn(GuideLLMSweep{}, loadgen.StopMaxErrors, loadgen.StopMaxErrorRate), spec, errs)
	if got := loads(rounds[2:]); !slices.Equal(got, []float64{4, 6, 8}) {
		t.Errorf("stopping scope all: %v", got)
	}
	if Planned(StopOn(GuideLLMSweep{}, loadgen.StopMaxErrors)) != 10 {
		t.Error("StopOn hides the planned rounds")
	}
	if _, ok := StopOn(List{}).(List); !ok {
		t.Error("StopOn without reasons must return the planner")
	}
}

func TestGuideLLMSweepValidate(t *testing.T) {
	for _, tc := range []struct {
		g    GuideLLMSweep
		want string
	}{
		{GuideLLMSweep{Size: 1}, "sweep size 1: want at least 2 rounds"},
		{GuideLLMSweep{Size: -3}, "sweep size -3"},
		{GuideLLMSweep{MaxConcurrency: -1}, "sweep max concurrency -1"},
		{GuideLLMSweep{Kind: loadgen.Concurrent}, `sweep strategy "concurrent": want constant or poisson`},
		{GuideLLMSweep{Rampup: -1}, "rampup must not be negative"},
	} {
		_, _, err := tc.g.Next(nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.g, err, tc.want)
		}
	}
}

func TestSweepKnee(t *testing.T) {
	spec := slo.Default()
	// Every constant rate holds and the throughput round breaks: the
	// knee lies between the highest rate and the throughput round.
	easy := func(s loadgen.Strategy) outcome {
		if s.Kind == loadgen.Synchronous {
			return outcome{ttftP99: 50, itlP95: 10, rps: 2, tokS: 200}
		}
		if s.Kind == loadgen.Throughput {
			return outcome{ttftP99: 900, itlP95: 10, rps: 18, tokS: 1800}
		}
		return outcome{ttftP99: 100, itlP95: 10, rps: s.Rate, tokS: 100 * s.Rate}
	}
	rounds := simulate(t, GuideLLMSweep{}, spec, easy)
	k := FindKnee(GuideLLMSweep{}, rounds, 7200)
	if !k.Found || k.Index != 9 || k.Above != 1 || !strings.Contains(k.Limit, "throughput round (18 req/s at max concurrency 512), which broke the SLO") {
		t.Errorf("knee %+v", k)
	}
	// The throughput round holds too: no break was seen; the limit is
	// the throughput round's rate.
	easier := func(s loadgen.Strategy) outcome {
		o := easy(s)
		o.ttftP99 = min(o.ttftP99, 100)
		return o
	}
	k2 := FindKnee(GuideLLMSweep{}, simulate(t, GuideLLMSweep{}, spec, easier), 0)
	if k2.Found || k2.Index != 9 || k2.Above != -1 || !strings.Contains(k2.Limit, "throughput round's 18 req/s at max concurrency 512") {
		t.Errorf("knee %+v", k2)
	}
	// Goodput at the highest passing round: 18 req/s × 100 tokens.
	if k.GoodputOutputTokS != 1800 || k.Replicas != 4 || k.TargetLoadTokS != 7200 {
		t.Errorf("replicas: %+v", k)
	}
	// The synchronous round failing: the SLO fails everywhere.
	hard := func(s loadgen.Strategy) outcome { return outcome{ttftP99: 900, itlP95: 10, rps: 2} }
	rounds = simulate(t, GuideLLMSweep{Size: 4}, spec, hard)
	k = FindKnee(GuideLLMSweep{Size: 4}, rounds, 0)
	if k.Found || k.Index != -1 || k.Above != 0 || !strings.Contains(k.Reason, "fails at every load measured") {
		t.Errorf("knee %+v", k)
	}
	if math.IsNaN(float64(k.Rate)) {
		t.Error("NaN rate")
	}
}

// TestMeasuredRateOfSessions: a round of conversations measures its rate
// in sessions per second, what an open-loop round of sessions is given.
func TestMeasuredRateOfSessions(t *testing.T) {
	b := &report.Benchmark{Metrics: report.Metrics{RequestsPerSecond: &report.StatusDistributionSummary{Successful: &report.DistributionSummary{Mean: 12}}}}
	if got := measuredRate(Round{Benchmark: b}); got != 12 {
		t.Errorf("requests: %v, want 12", got)
	}
	b.Extras = &report.Extras{Sessions: &report.SessionExtras{TurnsPerSession: report.DistributionSummary{Mean: 4}}}
	if got := measuredRate(Round{Benchmark: b}); got != 3 {
		t.Errorf("sessions: %v, want 3 (12 turns/s over 4 turns a session)", got)
	}
}

// A sweep's and a knee search's rounds each take the prefill cap.
func TestPlannersPrefillCap(t *testing.T) {
	spec := slo.Default()
	server := func(s loadgen.Strategy) outcome {
		if s.Kind == loadgen.Throughput {
			return outcome{ttftP99: 3000, itlP95: 80, rps: 18}
		}
		return outcome{ttftP99: 50, itlP95: 10, rps: max(2, s.Rate)}
	}
	for _, r := range simulate(t, GuideLLMSweep{Size: 4, MaxPrefill: 3}, spec, server) {
		if r.Strategy.MaxPrefill != 3 {
			t.Errorf("sweep round %+v: max prefill %d, want 3", r.Strategy, r.Strategy.MaxPrefill)
		}
	}
	for _, axis := range []Axis{AxisConcurrency, AxisRate} {
		if s := (KneeSearch{Axis: axis, Kind: loadgen.Constant, MaxPrefill: 2}).strategy(4); s.MaxPrefill != 2 {
			t.Errorf("knee %s round %+v: max prefill %d, want 2", axis, s, s.MaxPrefill)
		}
	}
}
