package sweep

import "github.com/goodput-dev/goodput/loadgen"

// MaxStreams is the most connections a round of p holds at once as far
// as the plan says ahead (StreamLimiter): a closed-loop round's streams,
// an open-loop round's explicit in-flight cap, a concurrency search's
// limit. 0 when no round says (open-loop rounds under the default cap, a
// rate search).
func MaxStreams(p Planner) int {
	if l, ok := p.(StreamLimiter); ok {
		return l.MaxStreams()
	}
	return 0
}

// MaxStreams is the concurrency search's limit, the rate search's
// explicit cap.
func (k KneeSearch) MaxStreams() int {
	if k.Axis == AxisConcurrency {
		return k.withDefaults().MaxConcurrency
	}
	return k.MaxConcurrency
}

// MaxStreams is the sweep's in-flight cap.
func (g GuideLLMSweep) MaxStreams() int {
	if g.MaxConcurrency > 0 {
		return g.MaxConcurrency
	}
	return DefaultSweepMaxConcurrency
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
