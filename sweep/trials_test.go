package sweep

import (
	"math"
	"testing"

	"github.com/goodput-dev/goodput/loadgen"
)

func TestTrialMetricByHand(t *testing.T) {
	// 10, 12, 14: mean 12, sample sd 2, cv 1/6, se 2/√3, t(0.975, 2) =
	// 4.3027, interval 12 ± 4.3027·2/√3 = 12 ± 4.9683.
	m := trialMetric("x", []float64{10, 12, 14}, 0.95, 0.1)
	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-3 }
	if !near(float64(m.Mean), 12) || !near(float64(m.Std), 2) || !near(float64(m.CV), 1.0/6) || !near(float64(m.SE), 2/math.Sqrt(3)) ||
		!near(float64(m.TCritical), 4.3027) || m.CILow == nil || !near(float64(*m.CILow), 12-4.9683) || !near(float64(*m.CIHigh), 12+4.9683) {
		t.Errorf("%+v", m)
	}
	if !m.Exceeds {
		t.Error("cv 0.167 > 0.1 not flagged")
	}
	if m := trialMetric("x", []float64{100, 101, 99}, 0.95, 0.1); m.Exceeds {
		t.Errorf("cv %v flagged", m.CV)
	}
}

// Repeat replays an adaptive planner from scratch each time: the knee
// search's probes come out the same in every run.
func TestRepeatPlansEachRunAfresh(t *testing.T) {
	inner := List{{Kind: loadgen.Concurrent, Streams: 1}, {Kind: loadgen.Concurrent, Streams: 2}}
	p := Repeat(inner, 3)
	var done []Round
	for {
		s, ok, err := p.Next(done)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		done = append(done, kneeRound(s.Streams, 100*float64(s.Streams)))
	}
	if len(done) != 6 || Planned(p) != 6 {
		t.Fatalf("%d rounds, %d planned", len(done), Planned(p))
	}
	for i, r := range done {
		if r.Strategy.Streams != i%2+1 || Repetition(p, i) != i/2 {
			t.Errorf("round %d: streams %d, run %d", i, r.Strategy.Streams, Repetition(p, i))
		}
	}
	tr := Trials(3, done, 0.95, 0.1)
	if tr == nil || len(tr.Points) != 2 || len(tr.Points[0].Benchmarks) != 3 || tr.Points[0].Benchmarks[1] != 2 {
		t.Fatalf("trials %+v", tr)
	}
	if Repeat(inner, 1) == nil || Trials(1, done, 0.95, 0.1) != nil {
		t.Error("one run is not left alone")
	}
}
