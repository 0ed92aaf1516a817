package sweep

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
)

// KneeDetection is GuideLLM's --knee-detection on a concurrent profile:
// fit where the output token throughput stops rising with concurrency and,
// when Adaptive, run a grid of up to 2·PointsEachSide+1 integer
// concurrencies around that knee (steps of at most MaxStep, measured ones
// skipped) and fit again.
type KneeDetection struct {
	Adaptive       bool
	PointsEachSide int
	MaxStep        int
}

// DefaultKneeDetection is GuideLLM's default.
func DefaultKneeDetection() KneeDetection {
	return KneeDetection{Adaptive: true, PointsEachSide: 5, MaxStep: 5}
}

// kneeDetectionForm is the accepted form, quoted in errors.
const kneeDetectionForm = "enabled=true[,adaptive=true|false,points_each_side=N,max_step=N] (GuideLLM's keys), or true"

// ParseKneeDetection reads GuideLLM's --knee-detection value; nil when
// it is disabled ("", false, enabled=false).
func ParseKneeDetection(s string) (*KneeDetection, error) {
	k := DefaultKneeDetection()
	s = strings.TrimSpace(s)
	switch s {
	case "", "false":
		return nil, nil
	case "true":
		return &k, nil
	}
	enabled := true
	for _, item := range strings.Split(s, ",") {
		key, v, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return nil, fmt.Errorf("knee detection item %q: want %s", item, kneeDetectionForm)
		}
		switch key {
		case "enabled", "adaptive":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return nil, fmt.Errorf("knee detection %s=%q: want true or false", key, v)
			}
			if key == "enabled" {
				enabled = b
			} else {
				k.Adaptive = b
			}
		case "points_each_side", "max_step":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 1000 {
				return nil, fmt.Errorf("knee detection %s=%q: want a whole number from 1 to 1000", key, v)
			}
			if key == "max_step" {
				k.MaxStep = n
			} else {
				k.PointsEachSide = n
			}
		default:
			return nil, fmt.Errorf("knee detection: unknown key %q: want %s", key, kneeDetectionForm)
		}
	}
	if !enabled {
		return nil, nil
	}
	return &k, nil
}

// Acceptance rules of a two-segment fit (GuideLLM's).
const (
	kneeMinPoints      = 5
	kneeMaxTailRatio   = 0.25 // tail slope ≤ this × rising slope
	kneeMinReduction   = 0.5  // squared error at least halved
	kneeMinPeakShare   = 0.85 // breakpoint throughput ≥ this × peak
	kneeMinSegmentSize = 2
)

// kneePoints are the concurrent rounds' successful output tokens/s by
// stream count, sorted, repeated counts averaged.
func kneePoints(rounds []Round) []report.KneePoint {
	sum := map[int]float64{}
	n := map[int]int{}
	for _, r := range rounds {
		if r.Strategy.Kind != loadgen.Concurrent || r.Benchmark == nil || r.Excluded {
			continue
		}
		d := r.Benchmark.Metrics.OutputTokensPerSecond
		if d == nil || d.Successful == nil {
			continue
		}
		sum[r.Strategy.Streams] += float64(d.Successful.Mean)
		n[r.Strategy.Streams]++
	}
	var pts []report.KneePoint
	for c, s := range sum {
		pts = append(pts, report.KneePoint{Concurrency: report.Float(c), OutputTokS: report.Float(s / float64(n[c]))})
	}
	slices.SortFunc(pts, func(a, b report.KneePoint) int { return int(a.Concurrency - b.Concurrency) })
	return pts
}

// line is a least-squares line y = a + b·x and its squared error.
type line struct{ a, b, sse float64 }

func fitLine(x, y []float64) line {
	n := float64(len(x))
	var sx, sy, sxx, sxy float64
	for i := range x {
		sx += x[i]
		sy += y[i]
		sxx += x[i] * x[i]
		sxy += x[i] * y[i]
	}
	den := n*sxx - sx*sx
	var l line
	if den != 0 {
		l.b = (n*sxy - sx*sy) / den
	}
	l.a = (sy - l.b*sx) / n
	for i := range x {
		e := y[i] - l.a - l.b*x[i]
		l.sse += e * e
	}
	return l
}

// FitThroughputKnee fits GuideLLM's two-segment knee to points sorted by
// concurrency: both axes are divided by their maximum; for every measured
// breakpoint with at least two points on each side (the breakpoint in
// both), a line is fitted to each side; the split with the least total
// squared error is kept, and accepted by the rules of report.KneeFit.
func FitThroughputKnee(pts []report.KneePoint) *report.KneeFit {
	f := &report.KneeFit{Points: pts}
	if len(pts) < kneeMinPoints {
		f.Reason = fmt.Sprintf("%d distinct concurrencies: knee detection needs at least %d", len(pts), kneeMinPoints)
		return f
	}
	maxX, maxY := 0.0, 0.0
	for _, p := range pts {
		maxX, maxY = max(maxX, float64(p.Concurrency)), max(maxY, float64(p.OutputTokS))
	}
	f.PeakOutputTokS = report.Float(maxY)
	if maxY <= 0 || maxX <= 0 {
		f.Reason = "no output throughput was measured"
		return f
	}
	x, y := make([]float64, len(pts)), make([]float64, len(pts))
	for i, p := range pts {
		x[i], y[i] = float64(p.Concurrency)/maxX, float64(p.OutputTokS)/maxY
	}
	one := fitLine(x, y)
	best, bestSSE := -1, math.Inf(1)
	var left, right line
	for b := kneeMinSegmentSize - 1; b <= len(x)-kneeMinSegmentSize; b++ {
		l, r := fitLine(x[:b+1], y[:b+1]), fitLine(x[b:], y[b:])
		if sse := l.sse + r.sse; sse < bestSSE {
			best, bestSSE, left, right = b, sse, l, r
		}
	}
	f.RisingSlope, f.TailSlope = report.Float(left.b), report.Float(right.b)
	if one.sse > 0 {
		f.ErrorReduction = report.Float(1 - bestSSE/one.sse)
	}
	f.BreakpointConcurrency = report.FloatPtr(float64(pts[best].Concurrency))
	f.BreakpointOutputTokS = pts[best].OutputTokS
	knee := x[best]
	if left.b != right.b {
		if k := (right.a - left.a) / (left.b - right.b); k >= x[best-1] && k <= x[best+1] {
			knee = k
		}
	}
	switch {
	case left.b <= 0:
		f.Reason = "the throughput does not rise with concurrency"
	case right.b > kneeMaxTailRatio*left.b:
		f.Reason = fmt.Sprintf("the throughput still rises past every breakpoint (tail slope %.2f of the rising one, at most %.2f)", right.b/left.b, kneeMaxTailRatio)
	case one.sse <= 0 || 1-bestSSE/one.sse < kneeMinReduction:
		f.Reason = fmt.Sprintf("two segments explain the curve little better than one line (squared error reduced %.0f %%, at least %.0f %% needed)", 100*float64(f.ErrorReduction), 100*kneeMinReduction)
	case y[best] < kneeMinPeakShare:
		f.Reason = fmt.Sprintf("the throughput at the breakpoint is %.0f %% of the peak (at least %.0f %% needed)", 100*y[best], 100*kneeMinPeakShare)
	default:
		f.Found = true
		f.KneeConcurrency = report.FloatPtr(knee * maxX)
		for _, p := range pts {
			if float64(p.Concurrency) >= knee*maxX*(1-1e-9) {
				f.SaturationConcurrency = report.FloatPtr(float64(p.Concurrency))
				break
			}
		}
	}
	return f
}

// kneeGrid is the adaptive plan around a fit: integer concurrencies
// centred on the knee (or, without one, the breakpoint), at most
// PointsEachSide either side, steps of at most MaxStep spanning the
// breakpoint's neighbours, measured ones left out.
func (k KneeDetection) kneeGrid(f *report.KneeFit) []int {
	if f.BreakpointConcurrency == nil {
		return nil
	}
	centre := float64(*f.BreakpointConcurrency)
	if f.KneeConcurrency != nil {
		centre = float64(*f.KneeConcurrency)
	}
	i := slices.IndexFunc(f.Points, func(p report.KneePoint) bool { return p.Concurrency == *f.BreakpointConcurrency })
	lo, hi := float64(f.Points[max(i-1, 0)].Concurrency), float64(f.Points[min(i+1, len(f.Points)-1)].Concurrency)
	step := int(math.Ceil((hi - lo) / float64(2*k.PointsEachSide)))
	step = min(max(step, 1), k.MaxStep)
	c := int(math.Round(centre))
	measured := map[int]bool{}
	for _, p := range f.Points {
		measured[int(p.Concurrency)] = true
	}
	var grid []int
	for j := -k.PointsEachSide; j <= k.PointsEachSide; j++ {
		if v := c + j*step; v >= 1 && !measured[v] {
			grid = append(grid, v)
		}
	}
	return grid
}

// KneePlanner runs Inner's rounds, then, for adaptive knee detection,
// the grid around the knee its rounds show.
type KneePlanner struct {
	Inner     Planner
	Detection KneeDetection
	initial   int   // rounds of Inner
	grid      []int // the adaptive plan, once made
	planned   bool
}

// Scale is Inner's factor while Inner plans, 1 on the adaptive grid.
func (k *KneePlanner) Scale(done []Round, next loadgen.Strategy) float64 {
	if k.planned {
		return 1
	}
	return ScaleOf(k.Inner, done, next)
}

// Next implements Planner.
func (k *KneePlanner) Next(done []Round) (loadgen.Strategy, bool, error) {
	if !k.planned {
		s, ok, err := k.Inner.Next(done)
		if err != nil || ok {
			return s, ok, err
		}
		k.planned, k.initial = true, len(done)
		if k.Detection.Adaptive {
			k.grid = k.Detection.kneeGrid(FitThroughputKnee(kneePoints(done)))
		}
	}
	i := len(done) - k.initial
	if i >= len(k.grid) {
		return loadgen.Strategy{}, false, nil
	}
	if len(done) == 0 || done[len(done)-1].Result.Interrupted {
		return loadgen.Strategy{}, false, nil
	}
	last := done[k.initial-1].Strategy
	last.Streams = k.grid[i]
	return last, true, nil
}

// Knee is the SLO knee of the inner planner's kind over every round.
func (k *KneePlanner) Knee(rounds []Round) *report.Knee { return kneeOf(k.Inner, rounds) }

// MaxStreams is Inner's: the grid is made during the run.
func (k *KneePlanner) MaxStreams() int { return MaxStreams(k.Inner) }

// AdaptivePlan implements AdaptivePlanner: Inner's rounds and the grid,
// once Inner has finished.
func (k *KneePlanner) AdaptivePlan() (int, []int, bool) { return k.initial, k.grid, k.planned }

// ThroughputKnee is the knee detection's result over a run's rounds: the
// initial fit on the rounds before the adaptive grid (all of them when p
// has no AdaptivePlan), the grid, and the final fit; nil without
// detection.
func ThroughputKnee(d *KneeDetection, p Planner, rounds []Round) *report.ThroughputKnee {
	if d == nil {
		return nil
	}
	initial := len(rounds)
	plan := []report.Int{}
	if a, ok := p.(AdaptivePlanner); ok {
		if n, grid, ok := a.AdaptivePlan(); ok {
			initial = min(n, len(rounds))
			for _, c := range grid {
				plan = append(plan, report.Int(c))
			}
		}
	}
	t := &report.ThroughputKnee{Initial: FitThroughputKnee(kneePoints(rounds[:initial])), AdaptivePlan: plan}
	t.Final = t.Initial
	if initial < len(rounds) {
		t.Final = FitThroughputKnee(kneePoints(rounds))
	}
	return t
}
