package sweep

import (
	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
)

// Repeat plays a planner's plan n times in a row (AIPerf's
// --num-profile-runs): each repetition starts the inner planner afresh,
// seeing only its own rounds, so an adaptive search is repeated whole.
// The SLO knee is the inner planner's over the first repetition; Trials
// summarises the spread across repetitions.
func Repeat(p Planner, n int) Planner {
	if n <= 1 {
		return p
	}
	return &repeat{p: p, n: n}
}

type repeat struct {
	p      Planner
	n      int
	rep    int   // current repetition, 0-based
	starts []int // index of each repetition's first round
}

// Next implements Planner.
func (r *repeat) Next(done []Round) (loadgen.Strategy, bool, error) {
	if len(r.starts) == 0 {
		r.starts = []int{0}
	}
	for {
		s, ok, err := r.p.Next(done[r.starts[r.rep]:])
		if err != nil || ok {
			return s, ok, err
		}
		if r.rep+1 >= r.n || len(done) == r.starts[r.rep] || done[len(done)-1].Result.Interrupted {
			return loadgen.Strategy{}, false, nil
		}
		r.rep++
		r.starts = append(r.starts, len(done))
	}
}

// Scale is the inner planner's factor over the current repetition's
// rounds.
func (r *repeat) Scale(done []Round, next loadgen.Strategy) float64 {
	from := 0
	if len(r.starts) > 0 {
		from = r.starts[r.rep]
	}
	return ScaleOf(r.p, done[from:], next)
}

// Knee is the inner planner's knee over the first repetition.
func (r *repeat) Knee(rounds []Round) *report.Knee {
	end := len(rounds)
	if len(r.starts) > 1 {
		end = r.starts[1]
	}
	return kneeOf(r.p, rounds[:end])
}

// Rounds is n times the inner planner's rounds, 0 when not known.
func (r *repeat) Rounds() int { return r.n * Planned(r.p) }

// MaxStreams is the inner planner's.
func (r *repeat) MaxStreams() int { return MaxStreams(r.p) }

// Repetition is the 0-based repetition of round i (0 without Repeat).
func Repetition(p Planner, i int) int {
	if r, ok := p.(Repeater); ok {
		return r.Repetition(i)
	}
	return 0
}

// Repetition implements Repeater. The repeat gives no AdaptivePlan: a
// knee detection's grid is per repetition, not over the whole run.
func (r *repeat) Repetition(i int) int {
	k := 0
	for j, s := range r.starts {
		if i >= s {
			k = j
		}
	}
	return k
}
