package sweep

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/slo"
)

// steep is a server whose TTFT P99 is 100 ms × (1 + (load/30)⁴): it meets
// TTFT P99 ≤ 500 ms up to 30·√2 ≈ 42.4 and passes 4× the threshold
// (2000 ms) above 30·19^¼ ≈ 62.7.
func steep(s loadgen.Strategy) outcome {
	c := float64(s.Streams)
	return outcome{ttftP99: 100 * (1 + math.Pow(c/30, 4)), itlP95: 20, rps: c, tokS: 100 * c}
}

func TestKneeSearchConcurrency(t *testing.T) {
	spec := slo.Default()
	k := KneeSearch{}
	rounds := simulate(t, k, spec, steep)
	// Ramp 1…32 pass; 64 breaks wide (2171 ms > 2000 ms): no confirmation
	// round, bisect: 48 (755 ms) fails, 40 (416 ms) holds, 44 (560 ms)
	// fails, 42 (484 ms) holds; [42, 44] is within 5% of 42.
	want := []float64{1, 2, 4, 8, 16, 32, 64, 48, 40, 44, 42}
	if got := loads(rounds); !slices.Equal(got, want) {
		t.Fatalf("loads %v, want %v", got, want)
	}
	kn := FindKnee(k, rounds, 10000)
	if !kn.Found || kn.Mode != ModeKneeConcurrency || kn.Index != 10 || kn.Above != 9 || kn.Below != 8 || kn.Streams != 42 ||
		kn.TTFTP99Ms != report.Float(100*(1+math.Pow(42.0/30, 4))) || kn.ITLP95Ms != 20 || kn.Limit != "" {
		t.Errorf("knee %+v", kn)
	}
	// Goodput 4200 tok/s at the knee: ceil(10000 / 4200) = 3 replicas.
	if kn.GoodputOutputTokS != 4200 || kn.ThroughputOutputTokS != 4200 || kn.Replicas != 3 || kn.TargetLoadTokS != 10000 {
		t.Errorf("goodput %+v", kn)
	}
	if !strings.Contains(kn.Reason, "holds at concurrency 42 (benchmark 10) with 99.3 % confidence and breaks at concurrency 44 (benchmark 9) with 100 %") {
		t.Errorf("reason %q", kn.Reason)
	}
	if rounds[0].Strategy.Kind != loadgen.Concurrent {
		t.Errorf("strategy %+v", rounds[0].Strategy)
	}
	p := k.Profile(rounds)
	if p.Kind != "concurrent" || !slices.Equal(p.Streams, []int{1, 2, 4, 8, 16, 32, 64, 48, 40, 44, 42}) {
		t.Errorf("profile %+v", p)
	}
	if p := k.Profile(nil); !slices.Equal(p.Streams, []int{1}) {
		t.Errorf("profile before the run %+v", p)
	}
	if Planned(k) != 0 {
		t.Error("a knee search has no planned count")
	}
}

func TestKneeSearchConfirmsMarginalBreak(t *testing.T) {
	// TTFT P99 = 100 ms × (1 + (load/30)²): holds up to 60, stays under
	// the wide margin (2000 ms) up to 30·√19 ≈ 130.8.
	gentle := func(s loadgen.Strategy) outcome {
		c := float64(s.Streams)
		return outcome{ttftP99: 100 * (1 + c*c/900), itlP95: 20, rps: c, tokS: 100 * c}
	}
	rounds := simulate(t, KneeSearch{}, slo.Default(), gentle)
	// 64 breaks marginally (555 ms): 128 confirms it (1920 ms, marginal
	// too); bisect [32, 64]: 48 (356) holds, 56 (448) holds, 60 (500)
	// holds; [60, 64] is within 5%? 4 > 3: 62 (527) breaks; [60, 62] is.
	want := []float64{1, 2, 4, 8, 16, 32, 64, 128, 48, 56, 60, 62}
	if got := loads(rounds); !slices.Equal(got, want) {
		t.Fatalf("loads %v, want %v", got, want)
	}
	kn := FindKnee(KneeSearch{}, rounds, 0)
	if !kn.Found || kn.Streams != 60 || kn.Above != 11 || kn.Replicas != 0 {
		t.Errorf("knee %+v", kn)
	}
}

func TestKneeSearchNoise(t *testing.T) {
	// A marginal failure at 8 (noise); the confirmation round at 16
	// holds, so the ramp goes on; the server breaks wide above 40.
	noisy := func(s loadgen.Strategy) outcome {
		c := float64(s.Streams)
		switch {
		case c == 8:
			return outcome{ttftP99: 510, itlP95: 20, rps: c}
		case c > 40:
			return outcome{ttftP99: 5000, itlP95: 20, rps: c}
		}
		return outcome{ttftP99: 100, itlP95: 20, rps: c}
	}
	rounds := simulate(t, KneeSearch{}, slo.Default(), noisy)
	want := []float64{1, 2, 4, 8, 16, 32, 64, 48, 40, 44, 42}
	if got := loads(rounds); !slices.Equal(got, want) {
		t.Fatalf("loads %v, want %v", got, want)
	}
	kn := FindKnee(KneeSearch{}, rounds, 0)
	if !kn.Found || kn.Streams != 40 || !strings.Contains(kn.Reason, "Benchmark 3 (concurrency 8) failed at or below the knee's load") {
		t.Errorf("knee %+v", kn)
	}
}

func TestKneeSearchRate(t *testing.T) {
	// TTFT P99 = 100 ms × (1 + (rate/10)⁴): holds up to 14.14 req/s.
	server := func(s loadgen.Strategy) outcome {
		return outcome{ttftP99: 100 * (1 + math.Pow(s.Rate/10, 4)), itlP95: 20, rps: s.Rate, tokS: 50 * s.Rate}
	}
	k := KneeSearch{Axis: AxisRate, Kind: loadgen.Poisson, Seed: 9, MaxConcurrency: 256, Rampup: time.Second}
	rounds := simulate(t, k, slo.Default(), server)
	// 16 breaks marginally (755 ms), 32 confirms it (wide); bisect [8, 16]:
	// 12 holds, 14 holds, 15 breaks, 14.5 breaks; [14, 14.5] is within 5%.
	want := []float64{1, 2, 4, 8, 16, 32, 12, 14, 15, 14.5}
	if got := loads(rounds); !slices.Equal(got, want) {
		t.Fatalf("loads %v, want %v", got, want)
	}
	s := rounds[0].Strategy
	if s.Kind != loadgen.Poisson || s.Seed != 9 || s.MaxConcurrency != 256 || s.Rampup != 0 {
		t.Errorf("poisson strategy %+v (no rampup: only constant rounds ramp)", s)
	}
	kn := FindKnee(k, rounds, 0)
	if !kn.Found || kn.Mode != ModeKneeRate || kn.Rate != 14 || kn.Streams != 0 {
		t.Errorf("knee %+v", kn)
	}
	p := k.Profile(rounds)
	if p.Kind != "poisson" || !slices.Equal(p.Rate, want) || p.MaxConcurrency != 256 {
		t.Errorf("profile %+v", p)
	}
	// Constant rounds carry the rampup.
	c := KneeSearch{Axis: AxisRate, Rampup: time.Second}
	if s, _, _ := c.Next(nil); s.Kind != loadgen.Constant || s.Rampup != time.Second || s.Rate != 1 {
		t.Errorf("constant strategy %+v", s)
	}
}

func TestKneeSearchLimits(t *testing.T) {
	spec := slo.Default()
	easy := func(s loadgen.Strategy) outcome {
		return outcome{ttftP99: 100, itlP95: 20, rps: float64(s.Streams) + s.Rate, tokS: 10}
	}
	// Never breaks: the ramp stops at the client's cap and says so.
	k := KneeSearch{MaxConcurrency: 100}
	rounds := simulate(t, k, spec, easy)
	if got := loads(rounds); !slices.Equal(got, []float64{1, 2, 4, 8, 16, 32, 64, 100}) {
		t.Fatalf("loads %v", got)
	}
	kn := FindKnee(k, rounds, 25)
	if kn.Found || kn.Limit != "max concurrency 100" || kn.Index != 7 || kn.Above != -1 || kn.Replicas != 3 ||
		!strings.Contains(kn.Reason, "held at every load up to the client's limit, max concurrency 100") {
		t.Errorf("knee %+v", kn)
	}
	// The same for a rate search.
	kr := KneeSearch{Axis: AxisRate, Start: 2, MaxRate: 20}
	rounds = simulate(t, kr, spec, easy)
	if got := loads(rounds); !slices.Equal(got, []float64{2, 4, 8, 16, 20}) {
		t.Fatalf("loads %v", got)
	}
	if kn := FindKnee(kr, rounds, 0); kn.Found || kn.Limit != "max rate 20 req/s" {
		t.Errorf("knee %+v", kn)
	}
	// Max rounds before any break.
	k = KneeSearch{MaxRounds: 5}
	rounds = simulate(t, k, spec, steep)
	if got := loads(rounds); !slices.Equal(got, []float64{1, 2, 4, 8, 16}) {
		t.Fatalf("loads %v", got)
	}
	if kn := FindKnee(k, rounds, 0); kn.Found || kn.Limit != "max rounds 5" || kn.Index != 4 {
		t.Errorf("knee %+v", kn)
	}
	// Max rounds with the knee bracketed but not yet within tolerance.
	k = KneeSearch{MaxRounds: 9}
	rounds = simulate(t, k, spec, steep)
	if got := loads(rounds); !slices.Equal(got, []float64{1, 2, 4, 8, 16, 32, 64, 48, 40}) {
		t.Fatalf("loads %v", got)
	}
	if kn := FindKnee(k, rounds, 0); !kn.Found || kn.Streams != 40 || kn.Above != 7 ||
		!strings.Contains(kn.Reason, "limit of 9 rounds with the knee between concurrency 40 (benchmark 8) and concurrency 48 (benchmark 7)") {
		t.Errorf("knee %+v", kn)
	}
	// The first load fails: the search steps down and goes on from the
	// load that holds. 64 breaks wide; 32 holds; bisect [32, 64].
	k = KneeSearch{Start: 64}
	rounds = simulate(t, k, spec, steep)
	if got := loads(rounds); !slices.Equal(got, []float64{64, 32, 48, 40, 44, 42}) {
		t.Fatalf("loads %v", got)
	}
	if kn := FindKnee(k, rounds, 0); !kn.Found || kn.Streams != 42 {
		t.Errorf("knee %+v", kn)
	}
	// Nothing holds: three steps down at most, or down to one stream.
	never := func(s loadgen.Strategy) outcome { return outcome{ttftP99: 900, itlP95: 20, rps: 1} }
	for _, tc := range []struct {
		k     KneeSearch
		loads []float64
		why   string
	}{
		{KneeSearch{Start: 64}, []float64{64, 32, 16, 8}, "The SLO fails at every load measured, down to concurrency 8 (benchmark 3): start lower."},
		{KneeSearch{Start: 3}, []float64{3, 1}, "The SLO fails at every load measured, down to concurrency 1 (benchmark 1)."},
		{KneeSearch{}, []float64{1}, "The SLO fails at every load measured, down to concurrency 1 (benchmark 0)."},
		{KneeSearch{Axis: AxisRate, Start: 2}, []float64{2, 1, 0.5, 0.25}, "down to 0.25 req/s (benchmark 3): start lower."},
		{KneeSearch{Start: 64, MaxRounds: 2}, []float64{64, 32}, "down to concurrency 32 (benchmark 1)"},
	} {
		rounds = simulate(t, tc.k, spec, never)
		if got := loads(rounds); !slices.Equal(got, tc.loads) {
			t.Errorf("%+v: loads %v, want %v", tc.k, got, tc.loads)
			continue
		}
		kn := FindKnee(tc.k, rounds, 0)
		if kn.Found || kn.Index != -1 || int(kn.Above) != len(rounds)-1 || !strings.Contains(kn.Reason, tc.why) {
			t.Errorf("%+v: knee %+v", tc.k, kn)
		}
	}
}

func TestKneeSearchClientLimits(t *testing.T) {
	spec := slo.Default()
	// A rate search whose in-flight cap binds at 8 req/s while the SLO
	// holds: the load was not offered, so no knee is claimed. A round
	// that left a request unsent without reaching the cap (the stop fell
	// between a due time and its dispatch) is no limit.
	capped := func(s loadgen.Strategy) outcome {
		o := outcome{ttftP99: 100, itlP95: 20, rps: math.Min(s.Rate, 6), notSent: 1, peak: 3}
		if s.Rate >= 8 {
			o.notSent, o.peak = 40, 16
		}
		return o
	}
	k := KneeSearch{Axis: AxisRate, MaxConcurrency: 16}
	rounds := simulate(t, k, spec, capped)
	if got := loads(rounds); !slices.Equal(got, []float64{1, 2, 4, 8}) {
		t.Fatalf("loads %v", got)
	}
	kn := FindKnee(k, rounds, 0)
	if kn.Found || kn.Limit != "client" || kn.Index != 2 ||
		!strings.Contains(kn.Reason, "the in-flight cap of 16 requests was reached at 8 req/s (benchmark 3; 40 due requests left unsent at its end)") {
		t.Errorf("knee %+v", kn)
	}
	// A saturated client does not stop the search; the knee warns.
	sat := func(s loadgen.Strategy) outcome {
		o := steep(s)
		o.saturated = s.Streams == 64 || s.Streams == 40
		return o
	}
	rounds = simulate(t, KneeSearch{}, spec, sat)
	if got := loads(rounds); !slices.Equal(got, []float64{1, 2, 4, 8, 16, 32, 64, 48, 40, 44, 42}) {
		t.Fatalf("loads %v", got)
	}
	kn = FindKnee(KneeSearch{}, rounds, 0)
	if !kn.Found || kn.Streams != 42 || !strings.Contains(kn.Reason, "Warning: the load generator was saturated during benchmark 6 (concurrency 64), 8 (concurrency 40)") {
		t.Errorf("knee %+v", kn)
	}
	// A failing open-loop round with requests unsent is an ordinary break.
	over := func(s loadgen.Strategy) outcome {
		o := outcome{ttftP99: 100, itlP95: 20, rps: s.Rate}
		if s.Rate > 10 {
			o = outcome{ttftP99: 9000, itlP95: 20, rps: 10, notSent: 500, peak: 10240}
		}
		return o
	}
	rounds = simulate(t, KneeSearch{Axis: AxisRate}, spec, over)
	if kn := FindKnee(KneeSearch{Axis: AxisRate}, rounds, 0); !kn.Found || kn.Rate < 9.5 || kn.Rate > 10 {
		t.Errorf("knee %+v", kn)
	}
}

func TestKneeSearchCutShort(t *testing.T) {
	spec := slo.Default()
	rounds := simulate(t, StopOn(KneeSearch{}, loadgen.StopMaxErrors), spec, func(s loadgen.Strategy) outcome {
		o := steep(s)
		if s.Streams >= 16 {
			o.stop = loadgen.StopMaxErrors
		}
		return o
	})
	if got := loads(rounds); !slices.Equal(got, []float64{1, 2, 4, 8, 16}) {
		t.Fatalf("loads %v", got)
	}
	kn := FindKnee(StopOn(KneeSearch{}, loadgen.StopMaxErrors), rounds, 0)
	if kn.Found || !strings.Contains(kn.Reason, "cut short after 5 rounds") {
		t.Errorf("knee %+v", kn)
	}
}

func TestKneeSearchErrors(t *testing.T) {
	for _, tc := range []struct {
		k    KneeSearch
		want string
	}{
		{KneeSearch{Axis: "latency"}, `knee axis "latency": want concurrency or rate`},
		{KneeSearch{Start: -1}, "knee start -1: want a load > 0"},
		{KneeSearch{Start: 1.5}, "knee start 1.5: concurrency must be a whole number"},
		{KneeSearch{Start: 2048}, "knee start 2048 is above the search's limit (max concurrency 1024)"},
		{KneeSearch{Axis: AxisRate, Start: 2000}, "knee start 2000 is above the search's limit (max rate 1024 req/s)"},
		{KneeSearch{Factor: 1}, "knee factor 1: want a number > 1"},
		{KneeSearch{Factor: math.NaN()}, "knee factor NaN"},
		{KneeSearch{Tolerance: 1}, "knee tolerance 1: want a fraction 0 < x < 1"},
		{KneeSearch{Tolerance: -0.1}, "knee tolerance -0.1"},
		{KneeSearch{MaxRounds: -2}, "knee max rounds -2: want at least 1"},
		{KneeSearch{MaxConcurrency: -2}, "knee max concurrency -2"},
		{KneeSearch{MaxRate: math.Inf(1)}, "knee max rate +Inf"},
		{KneeSearch{Axis: AxisRate, Kind: loadgen.Throughput}, `knee strategy "throughput": want constant or poisson`},
		{KneeSearch{WideLatency: 0.5}, "wide margins must be factors > 1"},
		{KneeSearch{Rampup: -time.Second}, "rampup must not be negative"},
	} {
		_, _, err := tc.k.Next(nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.k, err, tc.want)
		}
	}
	// A round without an SLO verdict cannot be judged.
	r := fakeRound(t, 0, loadgen.Strategy{Kind: loadgen.Concurrent, Streams: 1}, steep(loadgen.Strategy{Streams: 1}), slo.Default())
	r.Benchmark.Extras.SLO = nil
	if _, _, err := (KneeSearch{}).Next([]Round{r}); err == nil || !strings.Contains(err.Error(), "round 0 (concurrent@1) was not judged against an SLO") {
		t.Errorf("unjudged round: %v", err)
	}
	if FindKnee(KneeSearch{}, []Round{r}, 0) != nil {
		t.Error("a knee from unjudged rounds")
	}
}

func TestListKnee(t *testing.T) {
	spec := slo.Default()
	run := func(list List, server func(loadgen.Strategy) outcome) []Round { return simulate(t, list, spec, server) }
	conc := func(ns ...int) List {
		var l List
		for _, n := range ns {
			l = append(l, loadgen.Strategy{Kind: loadgen.Concurrent, Streams: n})
		}
		return l
	}
	// Out of order: the load axis decides, not the round order.
	rounds := run(conc(64, 8, 32, 16, 48), steep)
	k := FindKnee(conc(), rounds, 0)
	if !k.Found || k.Mode != ModeList || k.Index != 2 || k.Above != 4 || k.Below != 3 || k.Streams != 32 {
		t.Errorf("knee %+v", k)
	}
	// Never breaks.
	rounds = run(conc(1, 2), steep)
	k = FindKnee(conc(), rounds, 0)
	if k.Found || k.Index != 1 || k.Limit != "the list's highest load" || !strings.Contains(k.Reason, "add higher loads") {
		t.Errorf("knee %+v", k)
	}
	// Rates, with a noisy failure below the knee.
	rates := List{{Kind: loadgen.Constant, Rate: 2}, {Kind: loadgen.Constant, Rate: 4}, {Kind: loadgen.Poisson, Rate: 8}, {Kind: loadgen.Constant, Rate: 16}}
	rounds = run(rates, func(s loadgen.Strategy) outcome {
		if s.Rate == 4 || s.Rate == 16 {
			return outcome{ttftP99: 600, itlP95: 20, rps: s.Rate}
		}
		return outcome{ttftP99: 100, itlP95: 20, rps: s.Rate}
	})
	k = FindKnee(rates, rounds, 0)
	if !k.Found || k.Rate != 8 || k.Above != 3 || !strings.Contains(k.Reason, "Benchmark 1 (4 req/s) failed at or below the knee's load") {
		t.Errorf("knee %+v", k)
	}
	// Mixed strategies: the measured rate is the axis.
	mixed := List{{Kind: loadgen.Synchronous}, {Kind: loadgen.Concurrent, Streams: 8}, {Kind: loadgen.Constant, Rate: 20}}
	rounds = run(mixed, func(s loadgen.Strategy) outcome {
		switch s.Kind {
		case loadgen.Synchronous:
			return outcome{ttftP99: 50, itlP95: 20, rps: 1}
		case loadgen.Concurrent:
			return outcome{ttftP99: 900, itlP95: 20, rps: 9}
		}
		return outcome{ttftP99: 100, itlP95: 20, rps: 5}
	})
	k = FindKnee(mixed, rounds, 0)
	if !k.Found || k.Index != 2 || k.Rate != 20 || k.Above != 1 {
		t.Errorf("mixed knee %+v", k)
	}
	// One round: no knee.
	if FindKnee(conc(8), run(conc(8), steep), 0) != nil {
		t.Error("a knee from one round")
	}
}

// TestKneeSearchRateShortfall: a server whose latencies meet the SLO at
// every rate but that completes at most 20.5 req/s (its queue grows above
// that) is not named as holding a rate it fell behind: a round whose
// completion rate is under 95 % of the offered rate counts as a break,
// and the knee shows the rate achieved.
func TestKneeSearchRateShortfall(t *testing.T) {
	// 10 s rounds, 0.5 s mean latency: requests sent in the last 0.5 s
	// are still running at the end, so 9.5 s of completions.
	server := func(s loadgen.Strategy) outcome {
		achieved := min(s.Rate, 20.5)
		return outcome{ttftP99: 100, itlP95: 20, rps: achieved, tokS: 50 * achieved, completed: achieved * 9.5, latencyS: 0.5}
	}
	k := KneeSearch{Axis: AxisRate}
	rounds := simulate(t, k, slo.Default(), server)
	kn := FindKnee(k, rounds, 0)
	if kn == nil || !kn.Found {
		t.Fatalf("knee %+v; want one found", kn)
	}
	// Held: rates the server completed at 95 % or more, up to
	// 20.5 / 0.95 = 21.58 req/s; the rate above it breaks.
	if r := float64(kn.Rate); r > 20.5/AchievedShare || r < 20 {
		t.Errorf("knee at %v req/s; want the highest rate completed at 95 %% (20 to 21.58)", r)
	}
	if a := float64(kn.AchievedRate); math.Abs(a-math.Min(float64(kn.Rate), 20.5)) > 0.1 { // completions are whole
		t.Errorf("knee's achieved rate %v; want min(%v, 20.5)", a, kn.Rate)
	}
	above := rounds[kn.Above].Strategy.Rate
	if above*AchievedShare <= 20.5 {
		t.Errorf("the round above the knee offered %v req/s, which the server kept up with", above)
	}
	if !strings.Contains(kn.Reason, "completed only 20.5 req/s") || !strings.Contains(kn.Reason, "short of 95% of the offered rate") {
		t.Errorf("reason %q; want the rounds that fell behind named", kn.Reason)
	}
	t.Logf("loads %v; %s", loads(rounds), kn.Reason)
}

// TestKneeSearchStopsOnBusyRepeats: when every round at a load starts on
// a busy server (the drain's bound shorter than the backlog), the search
// measures it again once, then stops and says why, instead of repeating
// the load until it runs out of rounds.
func TestKneeSearchStopsOnBusyRepeats(t *testing.T) {
	spec := slo.Default()
	k := KneeSearch{}
	var rounds []Round
	for i := 0; i < 30; i++ {
		s, ok, err := k.Next(rounds)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		r := fakeRound(t, i, s, steep(s), spec)
		r.Excluded = s.Streams >= 32 // the drain ran out before each
		rounds = append(rounds, r)
	}
	if got, want := loads(rounds), []float64{1, 2, 4, 8, 16, 32, 32}; !slices.Equal(got, want) {
		t.Fatalf("loads %v, want %v", got, want)
	}
	kn := FindKnee(k, rounds, 0)
	if kn.Found || kn.Index != 4 || !strings.Contains(kn.Reason, "benchmarks 5, 6 at concurrent@32 all started on a busy server") ||
		!strings.Contains(kn.Reason, "raise --max-drain") {
		t.Errorf("knee %+v; want no knee, 16 the highest load held, and the busy rounds named", kn)
	}
}

// TestKneeSearchRemeasuresUndecidedLowest: a failing round at concurrency
// 1 whose SLO decision is indeterminate is measured again (longer) before
// the search says the SLO fails at every load; the second, decided
// holding, lets the search go on.
func TestKneeSearchRemeasuresUndecidedLowest(t *testing.T) {
	spec := slo.Default()
	k := KneeSearch{MaxConcurrency: 4}
	var rounds []Round
	for i := 0; i < 30; i++ {
		s, ok, err := k.Next(rounds)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		o := steep(s)
		if i == 0 { // the first round fails, undecided
			o.ttftP99 = 600
		}
		r := fakeRound(t, i, s, o, spec)
		if i == 0 {
			r.Benchmark.Extras.SLO.Decision = report.DecisionIndeterminate
		}
		rounds = append(rounds, r)
	}
	if got := loads(rounds); len(got) < 3 || got[0] != 1 || got[1] != 1 || got[2] != 2 {
		t.Fatalf("loads %v; want concurrency 1 measured again, then the ramp", got)
	}
	if f := k.Scale(rounds[:1], rounds[1].Strategy); f <= 1 {
		t.Errorf("the second round at concurrency 1 scaled %v; want longer", f)
	}
	if kn := FindKnee(k, rounds, 0); strings.Contains(kn.Reason, "fails at every load") {
		t.Errorf("knee %+v", kn)
	}
}
