package scorecard

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// TestFrontierArticle is the golden test of the issue: the article's five
// configurations (testdata/article, hand-written scorecards in the
// article's layout, two with numbers written as strings). Under TTFT P99
// ≤ 500 ms and ITL P95 ≤ 50 ms the frontier is {C, D}: E breaks the SLO
// on both objectives, C dominates B and A on all three axes (so does D for
// A: 1.31 ≤ 1.64, 0.00056 ≤ 0.00074, 294 ≤ 498; B dominates A too, but only
// frontier runs are named), and D stays on the frontier by its TTFT
// (294 ms against C's 421 ms).
func TestFrontierArticle(t *testing.T) {
	entries, warns, err := Collect([]string{"testdata/article"})
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Errorf("warnings: %q", warns)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
	}
	if !reflect.DeepEqual(names, []string{"A", "B", "C", "D", "E"}) {
		t.Fatalf("entries %v, want A..E", names)
	}
	// The lenient reader: A's goodput "1,890" and D's CPM "1.31" are strings.
	if g := entries[0].Row.Performance.GoodputTokS; !g.Valid || g.V != 1890 {
		t.Errorf("A goodput %+v, want 1890", g)
	}
	if c := entries[3].Row.Cost.CPMEUR1M; !c.Valid || c.V != 1.31 {
		t.Errorf("D CPM %+v, want 1.31", c)
	}
	spec, err := ParseJudgeSpec("ttft_p99=500ms,itl_p95=50ms")
	if err != nil {
		t.Fatal(err)
	}
	want := []Verdict{
		{Status: StatusDominated, DominatedBy: []string{"C", "D"}, SLO: "pass",
			Reason: "dominated by C, D (C: EUR/1M 0.88 ≤ 1.64, Wh/tok 0.00041 ≤ 0.00074, TTFT P99 421 ≤ 498 ms; D: EUR/1M 1.31 ≤ 1.64, Wh/tok 0.00056 ≤ 0.00074, TTFT P99 294 ≤ 498 ms)"},
		{Status: StatusDominated, DominatedBy: []string{"C"}, SLO: "pass",
			Reason: "dominated by C (C: EUR/1M 0.88 ≤ 0.97, Wh/tok 0.00041 ≤ 0.00044, TTFT P99 421 ≤ 487 ms)"},
		{Status: StatusFrontier, Reason: "on the frontier", SLO: "pass"},
		{Status: StatusFrontier, Reason: "on the frontier", SLO: "pass"},
		{Status: StatusBreaksSLO, SLO: "fail", Reason: "breaks the SLO: TTFT P99 721 > 500 ms, ITL P95 55 > 50 ms"},
	}
	for _, judge := range []struct {
		name string
		j    Judge
	}{{"--slo", Judge{Spec: spec}}, {"own metadata thresholds", Judge{}}} {
		got := Frontier(entries, judge.j)
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("%s: %s: got %+v\nwant %+v", judge.name, entries[i].Name, got[i], want[i])
			}
		}
	}
	// A stricter SLO (the article's "if the use case demands TTFT < 300 ms")
	// leaves D alone on the frontier.
	strict, err := ParseJudgeSpec("ttft_p99=300ms,itl_p95=50ms")
	if err != nil {
		t.Fatal(err)
	}
	got := Frontier(entries, Judge{Spec: strict})
	for i, st := range []string{StatusBreaksSLO, StatusBreaksSLO, StatusBreaksSLO, StatusFrontier, StatusBreaksSLO} {
		if got[i].Status != st {
			t.Errorf("ttft_p99=300ms: %s is %s (%s), want %s", entries[i].Name, got[i].Status, got[i].Reason, st)
		}
	}
	var b strings.Builder
	if err := WriteFrontier(&b, entries, Frontier(entries, Judge{Spec: spec}), "--slo "+spec.String()); err != nil {
		t.Fatal(err)
	}
	table := b.String()
	for _, s := range []string{"frontier: {C, D}", "dominated by C", "breaks the SLO: TTFT P99 721 > 500 ms, ITL P95 55 > 50 ms"} {
		if !strings.Contains(table, s) {
			t.Errorf("table lacks %q:\n%s", s, table)
		}
	}
	// Frontier rows are listed first.
	if i, j := strings.Index(table, "\nC "), strings.Index(table, "\nA "); i < 0 || j < 0 || i > j {
		t.Errorf("frontier runs are not listed first:\n%s", table)
	}
}

func TestDominates(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b axes
		want bool
	}{
		{"better on all", axes{1, 1, 1}, axes{2, 2, 2}, true},
		{"better on one, equal on two", axes{1, 2, 2}, axes{2, 2, 2}, true},
		{"equal", axes{2, 2, 2}, axes{2, 2, 2}, false},
		{"trade-off", axes{1, 3, 2}, axes{2, 2, 2}, false},
		{"worse", axes{3, 3, 3}, axes{2, 2, 2}, false},
	} {
		if got := dominates(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: dominates(%v, %v) = %v, want %v", tc.name, tc.a, tc.b, got, tc.want)
		}
	}
}

func row(name string, cpm, wh, ttft float64, currency string) Entry {
	r := Row{RunID: name, Performance: &Performance{TTFTP99Ms: N(ttft)}, Cost: &Cost{CPMEUR1M: N(cpm), Currency: currency}, Energy: &Energy{WhPerToken: N(wh)}}
	return Entry{Name: name, Row: r}
}

func TestFrontierEdgeCases(t *testing.T) {
	pass, fail := true, false
	tied := []Entry{row("x", 1, 1, 1, ""), row("y", 1, 1, 1, "EUR")}
	noEnergy := row("z", 0.5, math.NaN(), 1, "")
	noEnergy.Row.Energy = nil
	usd := row("u", 0.1, 0.1, 0.1, "USD")
	own := row("own-fail", 0.01, 0.01, 1, "")
	own.Row.Performance.SLOPass = &fail
	own.Row.Performance.SLOFailures = []string{"attainment 80% < 93.5%"}
	okRun := row("own-pass", 2, 2, 2, "")
	okRun.Row.Performance.SLOPass = &pass
	entries := append(tied, noEnergy, usd, own, okRun)
	got := Frontier(entries, Judge{})
	want := []struct{ status, reason string }{
		{StatusFrontier, "on the frontier"}, // equal points dominate neither
		{StatusFrontier, "on the frontier"},
		{StatusUnranked, "not ranked: no energy.wh_per_token"},
		{StatusUnranked, "not ranked: its cost is in USD, the other runs' in EUR (goodput converts no currency)"},
		{StatusBreaksSLO, "breaks the SLO: attainment 80% < 93.5%"},
		{StatusDominated, "dominated by x, y (x: EUR/1M 1 ≤ 2, Wh/tok 1 ≤ 2, TTFT P99 1 ≤ 2 ms; y: EUR/1M 1 ≤ 2, Wh/tok 1 ≤ 2, TTFT P99 1 ≤ 2 ms)"},
	}
	for i, w := range want {
		if got[i].Status != w.status || got[i].Reason != w.reason {
			t.Errorf("%s: %s %q, want %s %q", entries[i].Name, got[i].Status, got[i].Reason, w.status, w.reason)
		}
	}
	if got[0].SLO != "none" || got[5].SLO != "pass" {
		t.Errorf("SLO verdicts %q, %q; want none, pass", got[0].SLO, got[5].SLO)
	}
	// A row without the value an objective needs breaks it.
	spec, err := ParseJudgeSpec("itl_p95=50ms,error_rate=1%")
	if err != nil {
		t.Fatal(err)
	}
	r := row("r", 1, 1, 1, "")
	r.Row.Performance.ErrorRate = N(0.02)
	v := Frontier([]Entry{r}, Judge{Spec: spec})[0]
	if v.Status != StatusBreaksSLO || v.Reason != "breaks the SLO: ITL P95 has no value to judge, error rate 2% > 1%" {
		t.Errorf("got %s %q", v.Status, v.Reason)
	}
}

func TestParseJudgeSpec(t *testing.T) {
	for _, tc := range []struct{ in, err string }{
		{"ttft_p99=500ms,itl_p95=50ms,error_rate=0.5%", ""},
		{"ttft_p95=500ms", "objective ttft_p95 cannot be judged from a scorecard row"},
		{"e2e_p99=2s", "objective e2e_p99 cannot be judged"},
		{"bogus", "bogus"},
	} {
		_, err := ParseJudgeSpec(tc.in)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: error %v, want one containing %q", tc.in, err, tc.err)
		}
	}
}
