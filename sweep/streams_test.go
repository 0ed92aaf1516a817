package sweep

import (
	"testing"

	"github.com/goodput-dev/goodput/loadgen"
)

func TestMaxStreams(t *testing.T) {
	list := List{
		{Kind: loadgen.Concurrent, Streams: 64},
		{Kind: loadgen.Constant, Rate: 10, MaxConcurrency: 200},
		{Kind: loadgen.Poisson, Rate: 10},
	}
	for name, c := range map[string]struct {
		p    Planner
		want int
	}{
		"list":                {list, 200},
		"open loop, no cap":   {List{{Kind: loadgen.Constant, Rate: 5}}, 0},
		"synchronous":         {List{{Kind: loadgen.Synchronous}}, 1},
		"concurrency search":  {KneeSearch{Axis: AxisConcurrency, Start: 1}, DefaultKneeMaxConcurrency},
		"capped search":       {KneeSearch{Axis: AxisConcurrency, Start: 1, MaxConcurrency: 50000}, 50000},
		"rate search":         {KneeSearch{Axis: AxisRate, Start: 1}, 0},
		"guidellm sweep":      {GuideLLMSweep{}, DefaultSweepMaxConcurrency},
		"wrapped in stop":     {StopOn(list, loadgen.StopMaxErrors), 200},
		"repeated":            {Repeat(list, 3), 200},
		"throughput-knee fit": {&KneePlanner{Inner: list}, 200},
	} {
		if got := MaxStreams(c.p); got != c.want {
			t.Errorf("%s: %d, want %d", name, got, c.want)
		}
	}
}

// fixedPlanner is a planner from outside the package's list: it says its
// rounds and streams through the optional methods alone.
type fixedPlanner struct{ List }

func (f fixedPlanner) Rounds() int     { return 7 }
func (f fixedPlanner) MaxStreams() int { return 33 }

// A new planner is read through its methods, also behind the wrappers;
// one without them is unknown ahead (0).
func TestPlannerMethods(t *testing.T) {
	f := fixedPlanner{List{{Kind: loadgen.Synchronous}}}
	for name, p := range map[string]Planner{"bare": f, "stop": StopOn(f, loadgen.StopMaxErrors), "knee fit": &KneePlanner{Inner: f}} {
		if got := MaxStreams(p); got != 33 {
			t.Errorf("%s: MaxStreams %d, want 33", name, got)
		}
	}
	if got := Planned(StopOn(f, loadgen.StopMaxErrors)); got != 7 {
		t.Errorf("Planned %d, want 7", got)
	}
	if got := Planned(Repeat(f, 2)); got != 14 {
		t.Errorf("Planned of two repetitions %d, want 14", got)
	}
	type bare struct{ Planner }
	if MaxStreams(bare{f}) != 0 || Planned(bare{f}) != 0 || Repetition(bare{f}, 3) != 0 {
		t.Error("a planner without the methods is known ahead")
	}
}
