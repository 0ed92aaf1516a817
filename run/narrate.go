package run

import (
	"fmt"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/sweep"
)

// narratedPlanner passes a multi-round plan's state to the progress
// display as each round is planned: for a knee search, the bracket as it
// narrows ("SLO holds at concurrent@8, breaks at concurrent@16"). It wraps
// the planner for the runner only; everything that inspects the planner's
// kind (the knee, the profile) gets the planner itself.
type narratedPlanner struct {
	sweep.Planner
	live *liveStats
}

func (n narratedPlanner) Next(done []sweep.Round) (loadgen.Strategy, bool, error) {
	s, ok, err := n.Planner.Next(done)
	if ok && err == nil {
		n.live.setNote(kneeBracket(n.Planner, done))
	}
	return s, ok, err
}

// Scale passes the planner's longer rounds (a knee search's extensions)
// through to the runner.
func (n narratedPlanner) Scale(done []sweep.Round, next loadgen.Strategy) float64 {
	return sweep.ScaleOf(n.Planner, done, next)
}

// kneeBracket describes where the knee stands after the rounds done so
// far, "" when nothing is known yet or the plan is not a search.
func kneeBracket(p sweep.Planner, done []sweep.Round) string {
	if _, ok := p.(sweep.KneeSearch); !ok || len(done) == 0 {
		return ""
	}
	k := sweep.FindKnee(p, done, 0)
	if k == nil {
		return ""
	}
	label := func(i int) string { return done[i].Strategy.String() }
	switch {
	case k.Index >= 0 && k.Above >= 0:
		return fmt.Sprintf("knee between %s (SLO holds) and %s (breaks)", label(int(k.Index)), label(int(k.Above)))
	case k.Index >= 0:
		return fmt.Sprintf("SLO holds up to %s so far", label(int(k.Index)))
	case k.Above >= 0:
		return fmt.Sprintf("SLO breaks already at %s", label(int(k.Above)))
	}
	return ""
}
