package report

import "testing"

func TestBenchmarkLabel(t *testing.T) {
	b := &Benchmark{}
	b.Config.Strategy = Strategy{Type: StrategyConstant, Rate: 4}
	if got := b.Label(); got != "constant 4.00/s" {
		t.Errorf("without an arrival shape: %q", got)
	}
	b.Extras = &Extras{Arrival: &Arrival{Process: "user_centric", Users: 2, TurnGapS: 0.5}}
	if got := b.Label(); got != "user_centric 4.00/s, 2 users" {
		t.Errorf("user-centric: %q", got)
	}
	b.Config.Strategy.Type = StrategyPoisson
	b.Extras.Arrival = &Arrival{Process: "gamma", Burstiness: 0.5}
	if got := b.Label(); got != "gamma 4.00/s" {
		t.Errorf("gamma: %q", got)
	}
}
