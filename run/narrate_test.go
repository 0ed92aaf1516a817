package run

import (
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/sweep"
)

// A knee search's progress note narrows with its rounds.
func TestKneeBracketNarrows(t *testing.T) {
	round := func(streams int, pass bool) sweep.Round {
		b := &report.Benchmark{Extras: &report.Extras{SLO: &report.SLOResult{Pass: pass}}}
		return sweep.Round{Strategy: loadgen.Strategy{Kind: loadgen.Concurrent, Streams: streams}, Benchmark: b}
	}
	k := sweep.KneeSearch{}
	cases := []struct {
		done []sweep.Round
		want string
	}{
		{nil, ""},
		{[]sweep.Round{round(1, true), round(2, true)}, "SLO holds up to concurrent@2 so far"},
		{[]sweep.Round{round(1, true), round(2, true), round(4, false)}, "knee between concurrent@2 (SLO holds) and concurrent@4 (breaks)"},
		{[]sweep.Round{round(1, true), round(2, true), round(4, false), round(3, true)}, "knee between concurrent@3 (SLO holds) and concurrent@4 (breaks)"},
		{[]sweep.Round{round(1, false)}, "SLO breaks already at concurrent@1"},
	}
	for _, c := range cases {
		if got := kneeBracket(k, c.done); got != c.want {
			t.Errorf("after %d rounds: %q, want %q", len(c.done), got, c.want)
		}
	}
	if got := kneeBracket(sweep.List{{Kind: loadgen.Synchronous}}, []sweep.Round{round(1, true)}); got != "" {
		t.Errorf("a list has no bracket, got %q", got)
	}
}

// The runner sees the knee search's longer extension rounds through the
// progress wrapper: an undecided load measured again runs twice as long.
func TestNarratedPlannerKeepsTheScale(t *testing.T) {
	undecided := func(streams int, decision string) sweep.Round {
		b := &report.Benchmark{Extras: &report.Extras{SLO: &report.SLOResult{Pass: true, Decision: decision, Confidence: 0.5}}}
		return sweep.Round{Strategy: loadgen.Strategy{Kind: loadgen.Concurrent, Streams: streams}, Benchmark: b}
	}
	n := narratedPlanner{Planner: sweep.KneeSearch{Start: 8}, live: &liveStats{}}
	done := []sweep.Round{undecided(8, report.DecisionIndeterminate)}
	next := loadgen.Strategy{Kind: loadgen.Concurrent, Streams: 8}
	if got := sweep.ScaleOf(n, done, next); got != 2 {
		t.Errorf("scale %g, want 2", got)
	}
}

func TestOpenFilesWarning(t *testing.T) {
	if w := openFilesWarning(1024, 960, ""); w != "" {
		t.Errorf("960 streams under 1024 files: %q", w)
	}
	if w := openFilesWarning(1024, 1000, ""); w == "" || !strings.Contains(w, "1024") || !strings.Contains(w, "1000 connections") {
		t.Errorf("1000 streams under 1024 files: %q", w)
	}
	if openFilesWarning(0, 50000, "") != "" || openFilesWarning(1024, 0, "") != "" {
		t.Error("a warning although the limit or the streams are unknown")
	}
}
