package sweep

import (
	"slices"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
)

// StopOn applies GuideLLM's stopping_scope=all rule to a planner: once a
// round ended for one of the reasons (for example loadgen.StopMaxErrors
// or StopMaxErrorRate from a constraint declared with scope all), the run
// ends and the remaining rounds are skipped. A throughput round is exempt:
// it is meant to overload. Without reasons it returns p unchanged. The
// wrapper keeps p's knee and round count.
func StopOn(p Planner, reasons ...loadgen.StopReason) Planner {
	if len(reasons) == 0 {
		return p
	}
	return stopOn{p: p, reasons: slices.Clone(reasons)}
}

type stopOn struct {
	p       Planner
	reasons []loadgen.StopReason
}

func (s stopOn) Next(done []Round) (loadgen.Strategy, bool, error) {
	if n := len(done); n > 0 {
		last := done[n-1]
		if last.Strategy.Kind != loadgen.Throughput && slices.Contains(s.reasons, last.Result.StopReason) {
			return loadgen.Strategy{}, false, nil
		}
	}
	return s.p.Next(done)
}

// Scale delegates to the wrapped planner.
func (s stopOn) Scale(done []Round, next loadgen.Strategy) float64 { return ScaleOf(s.p, done, next) }

// Knee delegates to the wrapped planner.
func (s stopOn) Knee(rounds []Round) *report.Knee { return kneeOf(s.p, rounds) }

// Rounds delegates to the wrapped planner.
func (s stopOn) Rounds() int { return Planned(s.p) }

// MaxStreams delegates to the wrapped planner.
func (s stopOn) MaxStreams() int { return MaxStreams(s.p) }

// Repetition delegates to the wrapped planner.
func (s stopOn) Repetition(i int) int { return Repetition(s.p, i) }

// AdaptivePlan delegates to the wrapped planner.
func (s stopOn) AdaptivePlan() (int, []int, bool) {
	if a, ok := s.p.(AdaptivePlanner); ok {
		return a.AdaptivePlan()
	}
	return 0, nil, false
}
