package sweep

import "github.com/goodput-dev/goodput/loadgen"

// MaxStreams is the most connections a round of p holds at once as far
// as the plan says ahead: a closed-loop round's streams, an open-loop
// round's explicit in-flight cap, a concurrency search's limit. 0 when
// no round says (open-loop rounds under the default cap, a rate search).
func MaxStreams(p Planner) int {
	switch x := p.(type) {
	case List:
		n := 0
		for _, s := range x {
			n = max(n, strategyStreams(s))
		}
		return n
	case KneeSearch:
		if x.Axis == AxisConcurrency {
			return x.withDefaults().MaxConcurrency
		}
		return x.MaxConcurrency
	case GuideLLMSweep:
		if x.MaxConcurrency > 0 {
			return x.MaxConcurrency
		}
		return DefaultSweepMaxConcurrency
	case stopOn:
		return MaxStreams(x.p)
	case *repeat:
		return MaxStreams(x.p)
	case *KneePlanner:
		return MaxStreams(x.Inner)
	}
	return 0
}

func strategyStreams(s loadgen.Strategy) int {
	switch s.Kind {
	case loadgen.Concurrent, loadgen.Throughput, loadgen.UserCentric:
		return max(s.Streams, s.MaxConcurrency)
	case loadgen.Synchronous:
		return 1
	}
	return s.MaxConcurrency
}
