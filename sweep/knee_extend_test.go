package sweep

import (
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
)

func decidedRound(streams int, pass bool, decision string, conf float64) Round {
	b := &report.Benchmark{Extras: &report.Extras{SLO: &report.SLOResult{Pass: pass, Decision: decision, Confidence: report.Float(conf)}}}
	return Round{Strategy: loadgen.Strategy{Kind: loadgen.Concurrent, Streams: streams}, Benchmark: b}
}

// TestKneeExtendsUndecidedSide: a bracketed knee whose breaking side is
// undecided at the confidence is measured again with twice, then four
// times the round; decided, the knee is named with both confidences;
// still undecided after Extend tries, it is indeterminate.
func TestKneeExtendsUndecidedSide(t *testing.T) {
	k := KneeSearch{Start: 8}
	rounds := []Round{
		decidedRound(8, true, report.DecisionHolds, 0.999),
		decidedRound(16, false, report.DecisionBreaks, 0.999),
		decidedRound(12, true, report.DecisionHolds, 0.99),
		decidedRound(14, false, report.DecisionBreaks, 0.99),
		decidedRound(13, false, report.DecisionIndeterminate, 0.7),
	}
	for try, scale := range []float64{2, 4} {
		s, ok, err := k.Next(rounds)
		if err != nil || !ok || s.Streams != 13 {
			t.Fatalf("try %d: next %+v, %v, %v; want concurrency 13 again", try, s, ok, err)
		}
		if got := k.Scale(rounds, s); got != scale {
			t.Errorf("try %d: scale %g, want %g", try, got, scale)
		}
		if try == 0 {
			rounds = append(rounds, decidedRound(13, false, report.DecisionIndeterminate, 0.8))
		} else {
			rounds = append(rounds, decidedRound(13, false, report.DecisionIndeterminate, 0.9))
		}
	}
	if _, ok, _ := k.Next(rounds); ok {
		t.Fatal("the search went on after Extend tries")
	}
	kn := k.Knee(rounds)
	if kn.Found || !kn.Indeterminate || kn.Index != 2 || kn.Above != 6 || !strings.Contains(kn.Reason, "indeterminate") {
		t.Errorf("knee %+v", kn)
	}
	// The last extension decides: the knee is 12, with both sides stated.
	rounds[6] = decidedRound(13, false, report.DecisionBreaks, 0.97)
	kn = k.Knee(rounds)
	if !kn.Found || kn.Indeterminate || kn.Index != 2 || kn.Above != 6 || kn.HoldsConfidence != 0.99 || kn.BreaksConfidence != 0.97 ||
		!strings.Contains(kn.Reason, "holds at concurrency 12 (benchmark 2) with 99 % confidence and breaks at concurrency 13 (benchmark 6) with 97 %") {
		t.Errorf("knee %+v", kn)
	}
}

// TestWrappersKeepTheScale: the planners that wrap a knee search (a stop
// rule, repeated runs, the throughput-knee grid) pass its longer
// extension rounds on to the runner; repeated runs count only the current
// repetition's rounds.
func TestWrappersKeepTheScale(t *testing.T) {
	k := KneeSearch{Start: 8}
	rounds := []Round{
		decidedRound(8, true, report.DecisionHolds, 0.999),
		decidedRound(13, false, report.DecisionIndeterminate, 0.7),
	}
	next := loadgen.Strategy{Kind: loadgen.Concurrent, Streams: 13}
	for name, p := range map[string]Planner{
		"stop":       StopOn(k, loadgen.StopMaxErrors),
		"repeat":     Repeat(k, 2),
		"knee grid":  &KneePlanner{Inner: k},
		"bare":       k,
		"stop twice": StopOn(StopOn(k, loadgen.StopMaxErrors), loadgen.StopOverSaturation),
	} {
		if got := ScaleOf(p, rounds, next); got != 2 {
			t.Errorf("%s: scale %g, want 2", name, got)
		}
	}
	if got := ScaleOf(List{next}, rounds, next); got != 1 {
		t.Errorf("a list: scale %g, want 1", got)
	}
	r := Repeat(k, 2).(*repeat)
	r.starts, r.rep = []int{0, 2}, 1
	if got := ScaleOf(r, append(rounds, decidedRound(8, true, report.DecisionHolds, 0.999)), next); got != 1 {
		t.Errorf("second repetition: scale %g, want 1 (its own rounds have no 13 yet)", got)
	}
}
