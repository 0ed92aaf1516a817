package aiperf

import (
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

// A gamma schedule (goodput's arrival extras) is AIPerf's gamma pattern
// with its smoothness; plain poisson stays poisson.
func TestAIPerfPhaseArrivalPattern(t *testing.T) {
	b := &report.Benchmark{Config: report.BenchmarkConfig{Strategy: report.Strategy{Type: report.StrategyPoisson, Rate: 4}}}
	for _, c := range []struct {
		arrival *report.Arrival
		want    string
	}{
		{nil, `"arrival_pattern":"poisson"}`},
		{&report.Arrival{Process: "gamma", Burstiness: 0.5}, `"arrival_pattern":"gamma","arrival_smoothness":0.5}`},
	} {
		b.Extras = &report.Extras{Arrival: c.arrival}
		phases, err := aiperfPhases(b)
		if err != nil || len(phases) != 1 || !strings.HasSuffix(string(phases[0]), c.want) {
			t.Errorf("%+v: %s (%v), want it to end with %s", c.arrival, phases, err, c.want)
		}
	}
}

// A user-centric benchmark (constant at its rate in GuideLLM's strategy,
// the users in goodput's arrival extras) is AIPerf's user_centric phase.
func TestAIPerfPhaseUserCentric(t *testing.T) {
	b := &report.Benchmark{Config: report.BenchmarkConfig{Strategy: report.Strategy{Type: report.StrategyConstant, Rate: 2, MaxConcurrency: 8}},
		Extras: &report.Extras{Arrival: &report.Arrival{Process: report.StrategyUserCentric, Users: 8, TurnGapS: 4}}}
	phases, err := aiperfPhases(b)
	want := `{"name":"profiling","type":"user_centric","exclude_from_results":false,"users":8,"request_rate":2.0}`
	if err != nil || len(phases) != 1 || string(phases[0]) != want {
		t.Errorf("%s (%v), want %s", phases, err, want)
	}
}
