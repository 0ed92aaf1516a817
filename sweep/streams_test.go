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
