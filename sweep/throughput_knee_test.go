package sweep

import (
	"math"
	"testing"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
)

// piecewise is 100 tok/s per stream up to 20 streams, then 5 more per
// stream.
func piecewise(c float64) float64 {
	if c <= 20 {
		return 100 * c
	}
	return 2000 + 5*(c-20)
}

func points(f func(float64) float64, cs ...float64) []report.KneePoint {
	var pts []report.KneePoint
	for _, c := range cs {
		pts = append(pts, report.KneePoint{Concurrency: report.Float(c), OutputTokS: report.Float(f(c))})
	}
	return pts
}

func TestFitThroughputKneeFindsBreak(t *testing.T) {
	// measured at the break: both segments exact, the knee is 20.
	f := FitThroughputKnee(points(piecewise, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40))
	if !f.Found || f.KneeConcurrency == nil || math.Abs(float64(*f.KneeConcurrency)-20) > 1e-9 || *f.SaturationConcurrency != 20 || *f.BreakpointConcurrency != 20 {
		t.Fatalf("fit %+v", f)
	}
	if f.ErrorReduction < 0.99 || f.TailSlope > 0.06*f.RisingSlope {
		t.Errorf("fit quality: reduction %v, slopes %v / %v", f.ErrorReduction, f.RisingSlope, f.TailSlope)
	}
	// off the grid, measured at 18 and 24: the lines meet between the
	// breakpoint's neighbours, within 1.5 streams of 20 (the breakpoint sits
	// in both segments and pulls the tail line down).
	f = FitThroughputKnee(points(piecewise, 3, 6, 9, 12, 15, 18, 24, 30, 36, 42))
	if !f.Found || math.Abs(float64(*f.KneeConcurrency)-20) > 1.5 || *f.SaturationConcurrency != 24 {
		t.Errorf("off-grid sweep: knee %v, saturation %v (%s)", deref(f.KneeConcurrency), deref(f.SaturationConcurrency), f.Reason)
	}
	// a doubling sweep breaks at 16, 72 % of the peak: GuideLLM's rule
	// refuses it (the adaptive grid then measures around it).
	f = FitThroughputKnee(points(piecewise, 1, 2, 4, 8, 16, 32, 64))
	if f.Found || *f.BreakpointConcurrency != 16 || !contains(f.Reason, "of the peak") {
		t.Errorf("doubling sweep: %+v", f)
	}
}

func deref(p *report.Float) float64 {
	if p == nil {
		return math.NaN()
	}
	return float64(*p)
}

func TestFitThroughputKneeRefuses(t *testing.T) {
	for name, c := range map[string]struct {
		pts  []report.KneePoint
		want string
	}{
		"linear":     {points(func(c float64) float64 { return 50 * c }, 1, 2, 4, 8, 16, 32), "still rises"},
		"too few":    {points(piecewise, 4, 8, 20, 40), "at least 5"},
		"falling":    {points(func(c float64) float64 { return 1000 - c }, 1, 2, 3, 4, 5, 6), "does not rise"},
		"collapsing": {points(func(c float64) float64 { return 1000 * math.Min(c, 10) / 10 * math.Exp(-math.Max(0, c-10)/3) }, 2, 4, 6, 8, 10, 12, 14, 16, 18), ""},
	} {
		f := FitThroughputKnee(c.pts)
		if c.want == "" {
			continue // only must not panic
		}
		if f.Found || f.KneeConcurrency != nil {
			t.Errorf("%s: found a knee at %v", name, deref(f.KneeConcurrency))
		}
		if !contains(f.Reason, c.want) {
			t.Errorf("%s: reason %q, want it to say %q", name, f.Reason, c.want)
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// round is a finished concurrent round with the given throughput.
func kneeRound(c int, tokS float64) Round {
	m := report.Float(tokS)
	return Round{Strategy: loadgen.Strategy{Kind: loadgen.Concurrent, Streams: c},
		Benchmark: &report.Benchmark{Metrics: report.Metrics{OutputTokensPerSecond: &report.StatusDistributionSummary{
			Successful: &report.DistributionSummary{Mean: m}}}}}
}

func TestKneePlannerAdaptive(t *testing.T) {
	inner := List{}
	for _, c := range []int{1, 2, 4, 8, 16, 32, 64} {
		inner = append(inner, loadgen.Strategy{Kind: loadgen.Concurrent, Streams: c})
	}
	kp := &KneePlanner{Inner: inner, Detection: DefaultKneeDetection()}
	var done []Round
	var extra []int
	for {
		s, ok, err := kp.Next(done)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		if len(done) >= len(inner) {
			extra = append(extra, s.Streams)
		}
		done = append(done, kneeRound(s.Streams, piecewise(float64(s.Streams))))
	}
	// around a knee near 20, steps of at most 5, 16 and 32 skipped.
	if len(extra) == 0 || len(extra) > 11 {
		t.Fatalf("adaptive plan %v", extra)
	}
	for _, c := range extra {
		if c < 20-5*5 || c > 20+5*5 || c == 16 || c == 32 {
			t.Errorf("adaptive plan %v: %d out of place", extra, c)
		}
	}
	tk := ThroughputKnee(&kp.Detection, kp, done)
	if tk == nil || len(tk.AdaptivePlan) != len(extra) || !tk.Final.Found {
		t.Fatalf("throughput knee %+v", tk)
	}
	// the doubling sweep alone finds no knee (see above); refined, the
	// fit lands on it.
	if tk.Initial.Found || math.Abs(deref(tk.Final.KneeConcurrency)-20) > 1 {
		t.Errorf("initial %+v, final knee %v", tk.Initial, deref(tk.Final.KneeConcurrency))
	}
	if len(tk.Final.Points) != len(inner)+len(extra) {
		t.Errorf("final fit on %d points", len(tk.Final.Points))
	}
}

func TestParseKneeDetection(t *testing.T) {
	k, err := ParseKneeDetection("enabled=true,adaptive=false,points_each_side=3,max_step=2")
	if err != nil || k == nil || k.Adaptive || k.PointsEachSide != 3 || k.MaxStep != 2 {
		t.Errorf("%+v %v", k, err)
	}
	if k, err := ParseKneeDetection("enabled=false"); k != nil || err != nil {
		t.Errorf("disabled: %+v %v", k, err)
	}
	if k, err := ParseKneeDetection("true"); err != nil || *k != DefaultKneeDetection() {
		t.Errorf("true: %+v %v", k, err)
	}
	for _, bad := range []string{"enabled=maybe", "max_step=0", "speed=1", "adaptive"} {
		if _, err := ParseKneeDetection(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
