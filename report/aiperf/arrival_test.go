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
