package sweep

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
)

// Kneer is a planner that names the knee of the rounds it planned.
type Kneer interface {
	Knee(rounds []Round) *report.Knee
}

// Knee modes (report.Knee.Mode).
const (
	ModeSweep           = "sweep"
	ModeKneeConcurrency = "knee-concurrency"
	ModeKneeRate        = "knee-rate"
	ModeList            = "list"
)

// FindKnee names the knee of a run: the planner's own (the knee search and
// the GuideLLM sweep know their limits), else the knee of a list of
// rounds (ListKnee). With targetTokS > 0 it also fills the replicas
// needed for that output token rate: ceil(target ÷ goodput at the knee),
// computed from the highest passing round even when no break was seen
// above it (the capacity is then a lower bound, the replicas an upper
// bound). nil for a run of fewer than two rounds of a plain list.
func FindKnee(p Planner, rounds []Round, targetTokS float64) *report.Knee {
	k := kneeOf(p, rounds)
	if k == nil {
		return nil
	}
	if targetTokS > 0 {
		k.TargetLoadTokS = report.Float(targetTokS)
		if k.Index >= 0 && k.GoodputOutputTokS > 0 {
			k.Replicas = report.Int(math.Ceil(targetTokS / float64(k.GoodputOutputTokS)))
		}
	}
	return k
}

func kneeOf(p Planner, rounds []Round) *report.Knee {
	if k, ok := p.(Kneer); ok {
		return k.Knee(rounds)
	}
	return ListKnee(rounds)
}

// Planned is the number of rounds a planner plans (RoundCounter), 0 when
// not known in advance (a knee search).
func Planned(p Planner) int {
	if c, ok := p.(RoundCounter); ok {
		return c.Rounds()
	}
	return 0
}

// point is one round on the load axis of a knee.
type point struct {
	idx   int     // round index
	load  float64 // configured streams or rate, or the measured rate
	pass  bool    // the round holds the SLO
	wide  bool    // it breaks it by a wide margin
	limit string  // the client limited the round (its in-flight cap bound while the SLO held), else ""
	// saturated: the load generator was CPU-starved during the round,
	// which inflates the latencies it measured.
	saturated bool
	// decision and conf are the round's SLO decision at the run's
	// confidence and how sure it is ("" and 0 in older reports).
	decision string
	conf     report.Float
	tries    int // rounds measured at this load (extensions included)
	// short is the achieved rate of an open-loop round that held the SLO
	// but whose server completed less than AchievedShare of the offered
	// rate: judged a break; 0 otherwise.
	short float64
}

// AchievedShare is the least share of an open-loop round's offered rate
// its server must complete for the round to count as holding the SLO: a
// server that falls behind builds a queue the round's latencies do not yet
// show.
const AchievedShare = 0.95

// achievedRate is the rate at which the server completed an open-loop
// round's requests: its successful requests over the time in which a
// request sent could complete (the round's duration less the mean
// successful latency: those sent later were still running at its end). 0
// when unknown.
func achievedRate(r Round) float64 {
	b := r.Benchmark
	if b == nil || b.Duration == nil || b.Metrics.RequestTotals == nil || b.Metrics.RequestLatency == nil || b.Metrics.RequestLatency.Successful == nil {
		return 0
	}
	n := float64(b.Metrics.RequestTotals.Successful)
	window := float64(*b.Duration) - float64(b.Metrics.RequestLatency.Successful.Mean)
	if n < 2 || window <= 0 || math.IsNaN(window) {
		return 0
	}
	return n / window
}

// shortNote says which open-loop rounds were judged breaks because the
// server fell behind the offered rate, "" when none.
func shortNote(pts []point, label func(float64) string) string {
	var parts []string
	for _, p := range pts {
		if p.short > 0 {
			parts = append(parts, fmt.Sprintf("%s (benchmark %d) completed only %.3g req/s (%.0f%%)", label(p.load), p.idx, p.short, 100*p.short/p.load))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("Counted as breaking the SLO, whatever its latencies: %s, short of %.0f%% of the offered rate (the server fell behind).", strings.Join(parts, "; "), 100*AchievedShare)
}

// sides says how sure the knee's two rounds are, for the search's
// reason: " with 97.1 % confidence", " with 99 %", or "" without
// decisions.
func sides(lo, hi point) (string, string) {
	if lo.decision == "" || hi.decision == "" {
		return "", ""
	}
	bs := " with " + pct(hi.conf)
	if hi.short > 0 {
		bs = fmt.Sprintf(", completing only %.3g req/s", hi.short)
	}
	return " with " + pct(lo.conf) + " confidence", bs
}

// bracket is the knee's place among the points: lo is the highest passing
// load, hi the lowest failing load above it, below the highest load under
// lo; -1 when absent (indexes into the points).
type bracket struct {
	lo, hi, below int
	noise         []int // failing points below lo
}

func findBracket(pts []point) bracket {
	b := bracket{lo: -1, hi: -1, below: -1}
	for i, p := range pts {
		if p.pass && (b.lo < 0 || p.load > pts[b.lo].load || p.load == pts[b.lo].load && p.idx > pts[b.lo].idx) {
			b.lo = i
		}
	}
	for i, p := range pts {
		above := b.lo < 0 || p.load > pts[b.lo].load
		if !p.pass && above && (b.hi < 0 || p.load < pts[b.hi].load) {
			b.hi = i
		}
	}
	if b.lo >= 0 {
		for i, p := range pts {
			if p.load < pts[b.lo].load && (b.below < 0 || p.load > pts[b.below].load) {
				b.below = i
			}
			if !p.pass && p.load <= pts[b.lo].load {
				b.noise = append(b.noise, i)
			}
		}
	}
	return b
}

// judged returns a round's SLO verdict.
func judged(r Round, i int) (*report.SLOResult, error) {
	if r.Benchmark == nil || r.Benchmark.Extras == nil || r.Benchmark.Extras.SLO == nil {
		return nil, fmt.Errorf("round %d (%s) was not judged against an SLO: set the runner's Report.SLO", i, r.Strategy)
	}
	return r.Benchmark.Extras.SLO, nil
}

// newKnee builds a knee from the points and their bracket: Found when a
// failing round was seen above the highest passing one.
func newKnee(mode string, rounds []Round, pts []point, b bracket, label func(float64) string) *report.Knee {
	k := &report.Knee{Mode: mode, Index: -1, Below: -1, Above: -1}
	if b.lo >= 0 {
		lo := pts[b.lo]
		k.Index = report.Int(lo.idx)
		fillKnee(k, rounds[lo.idx])
		if b.below >= 0 {
			k.Below = report.Int(pts[b.below].idx)
		}
	}
	if b.hi >= 0 {
		k.Above = report.Int(pts[b.hi].idx)
	}
	k.Found = b.lo >= 0 && b.hi >= 0
	if k.Found {
		decideKnee(k, rounds[pts[b.lo].idx], rounds[pts[b.hi].idx], pts[b.hi].short > 0)
	}
	switch {
	case k.Indeterminate:
		k.Reason = fmt.Sprintf("The knee is indeterminate: %s (benchmark %d) %s and %s (benchmark %d) %s, short of the confidence asked; run longer rounds (--max-seconds, --max-requests) to decide.",
			label(pts[b.lo].load), pts[b.lo].idx, sideText("holds", k.HoldsConfidence, rounds[pts[b.lo].idx]),
			label(pts[b.hi].load), pts[b.hi].idx, sideText("breaks", k.BreaksConfidence, rounds[pts[b.hi].idx]))
	case k.Found && k.HoldsConfidence > 0:
		k.Reason = fmt.Sprintf("The SLO holds up to %s (benchmark %d) with %s confidence and breaks at %s (benchmark %d) with %s.",
			label(pts[b.lo].load), pts[b.lo].idx, pct(k.HoldsConfidence), label(pts[b.hi].load), pts[b.hi].idx, pct(k.BreaksConfidence))
	case k.Found:
		k.Reason = fmt.Sprintf("The SLO holds up to %s (benchmark %d) and breaks at %s (benchmark %d).",
			label(pts[b.lo].load), pts[b.lo].idx, label(pts[b.hi].load), pts[b.hi].idx)
	case b.lo < 0 && b.hi >= 0:
		k.Reason = fmt.Sprintf("The SLO fails at every load measured, down to %s (benchmark %d).", label(pts[b.hi].load), pts[b.hi].idx)
	case b.lo < 0:
		k.Reason = "No round measured a load to judge."
	}
	return k
}

// decideKnee sets the knee's confidences from the SLO decisions of the
// knee round (lo) and the round above (hi), and marks the knee
// indeterminate (not found) when either side is not decided at the run's
// confidence. Rounds without decisions (older reports) leave it as is.
func decideKnee(k *report.Knee, lo, hi Round, hiShort bool) {
	sl, sh := lo.Benchmark.Extras.SLO, hi.Benchmark.Extras.SLO
	if sl.Decision == "" || sh.Decision == "" {
		return
	}
	k.HoldsConfidence, k.BreaksConfidence = sl.Confidence, sh.Confidence
	hiDecision := sh.Decision
	if hiShort { // the server fell behind: a break, whatever the latencies say
		hiDecision, k.BreaksConfidence = report.DecisionBreaks, 0
	}
	if sl.Decision != report.DecisionHolds || hiDecision != report.DecisionBreaks {
		k.Indeterminate, k.Found = true, false
	}
}

// sideText says how sure a round is of its side: "holds with 97.1 %
// confidence", or "only 61 % sure it holds" when undecided.
func sideText(side string, conf report.Float, r Round) string {
	if d := r.Benchmark.Extras.SLO.Decision; d == report.DecisionHolds || d == report.DecisionBreaks {
		return fmt.Sprintf("%s with %s confidence", d, pct(conf))
	}
	return fmt.Sprintf("%s with only %s confidence", side, pct(conf))
}

// pct writes a confidence as a percentage rounded down to 0.1.
func pct(c report.Float) string {
	return strconv.FormatFloat(math.Floor(float64(c)*1000)/10, 'f', -1, 64) + " %"
}

// noiseNote names the failing rounds at or below the knee's load.
func noiseNote(pts []point, b bracket, label func(float64) string) string {
	if len(b.noise) == 0 {
		return ""
	}
	var s []string
	for _, i := range b.noise {
		s = append(s, fmt.Sprintf("%d (%s)", pts[i].idx, label(pts[i].load)))
	}
	return fmt.Sprintf("Benchmark %s failed at or below the knee's load while a higher load passed: noise or an unstable server.",
		strings.Join(s, ", "))
}

// saturationNote names the rounds whose load generator was saturated.
func saturationNote(pts []point, label func(float64) string) string {
	var s []string
	for _, p := range pts {
		if p.saturated {
			s = append(s, fmt.Sprintf("%d (%s)", p.idx, label(p.load)))
		}
	}
	if len(s) == 0 {
		return ""
	}
	return fmt.Sprintf("Warning: the load generator was saturated during benchmark %s: the latencies it measured there are inflated by the client, so the SLO may have failed early and the knee may lie higher.",
		strings.Join(s, ", "))
}

// excludedNote names the rounds left out because they started on a busy
// server.
func excludedNote(rounds []Round) string {
	var s []string
	for i, r := range rounds {
		if r.Excluded {
			s = append(s, fmt.Sprintf("%d (%s)", i, r.Strategy))
		}
	}
	if len(s) == 0 {
		return ""
	}
	return fmt.Sprintf("Benchmark %s started on a busy server (earlier rounds had not drained when the wait ran out) and is left out of the verdict.",
		strings.Join(s, ", "))
}

// joinReasons joins non-empty sentences.
func joinReasons(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " ")
}

// fillKnee copies the knee round's figures.
func fillKnee(k *report.Knee, r Round) {
	s := r.Strategy
	k.Rate = report.Float(measuredRate(r))
	switch s.Kind {
	case loadgen.Constant, loadgen.Poisson:
		k.Rate = report.Float(s.Rate)
		k.AchievedRate = report.Float(achievedRate(r))
	case loadgen.Concurrent, loadgen.Throughput:
		k.Streams = report.Int(s.Streams)
	case loadgen.Synchronous:
		k.Streams = 1
	}
	b := r.Benchmark
	if b == nil {
		return
	}
	if c := b.Metrics.RequestConcurrency; c != nil && c.Successful != nil {
		k.Concurrency = c.Successful.Mean
	}
	if g := b.Extras; g != nil {
		if s := g.SLO; s != nil {
			k.GoodputOutputTokS, k.ThroughputOutputTokS = s.GoodputOutputTokS, s.ThroughputOutputTokS
		}
		if d := g.Metrics.TimeToFirstTokenMs; d != nil && d.Successful != nil {
			k.TTFTP99Ms = d.Successful.Percentiles.P99
		}
		if d := g.Metrics.InterTokenLatencyMs; d != nil && d.Successful != nil {
			k.ITLP95Ms = d.Successful.Percentiles.P95
		}
	}
}

// ListKnee names the knee of a plain list of rounds: the highest load that
// holds the SLO, found when a failing round was measured above it. The
// load axis is the streams when every round is concurrent or synchronous
// (1 stream), the configured rate when every round is constant or
// poisson, else each round's measured requests_per_second.successful.mean.
// A round holds the SLO when its SLOResult passes (every objective,
// including the attainment floor: goodput matches throughput within the
// SLO's allowance). Failing rounds below the knee's load are named in the
// reason (noise or an unstable server). Rounds that started on a busy
// server (Round.Excluded) are left out, and named. nil for fewer than two
// rounds or rounds that were not judged.
func ListKnee(rounds []Round) *report.Knee {
	if len(rounds) < 2 {
		return nil
	}
	streams, rates := true, true
	for _, r := range rounds {
		switch r.Strategy.Kind {
		case loadgen.Concurrent, loadgen.Synchronous:
			rates = false
		case loadgen.Constant, loadgen.Poisson:
			streams = false
		default:
			streams, rates = false, false
		}
	}
	load := func(r Round) float64 { return measuredRate(r) }
	label := rateLabel
	switch {
	case streams:
		load = func(r Round) float64 { return float64(r.Strategy.Workers()) }
		label = streamsLabel
	case rates:
		load = func(r Round) float64 { return r.Strategy.Rate }
	}
	pts := make([]point, 0, len(rounds))
	for i, r := range rounds {
		if r.Excluded {
			continue
		}
		s, err := judged(r, i)
		if err != nil {
			return nil
		}
		pts = append(pts, point{idx: i, load: load(r), pass: s.Pass, saturated: r.Result.Client.Saturated})
	}
	b := findBracket(pts)
	k := newKnee(ModeList, rounds, pts, b, label)
	if b.lo >= 0 && b.hi < 0 {
		k.Limit = "the list's highest load"
		k.Reason = fmt.Sprintf("The SLO held at every load measured, up to %s (benchmark %d): no break was seen, so this is a lower bound of the capacity; add higher loads.",
			label(pts[b.lo].load), pts[b.lo].idx)
	}
	k.Reason = joinReasons(k.Reason, noiseNote(pts, b, label), saturationNote(pts, label), excludedNote(rounds))
	return k
}

func streamsLabel(v float64) string { return fmt.Sprintf("concurrency %g", v) }

func rateLabel(v float64) string { return fmt.Sprintf("%.4g req/s", v) }

// Knee names the sweep's knee on the rate axis: the synchronous round at
// its measured rate, the constant or poisson rounds at their configured
// rates; the throughput round, an overload probe rather than a load level,
// is not a candidate. When every rate held the SLO the sweep saw no break:
// it never probes above the throughput round's measured rate (GuideLLM's
// design), which the result names as the limit.
func (g GuideLLMSweep) Knee(rounds []Round) *report.Knee {
	if len(rounds) < 2 {
		return nil
	}
	var pts []point
	for i, r := range rounds {
		if r.Excluded {
			continue
		}
		s, err := judged(r, i)
		if err != nil {
			return nil
		}
		p := point{idx: i, load: r.Strategy.Rate, pass: s.Pass, saturated: r.Result.Client.Saturated}
		switch r.Strategy.Kind {
		case loadgen.Throughput:
			continue
		case loadgen.Synchronous:
			p.load = measuredRate(r)
		}
		pts = append(pts, p)
	}
	b := findBracket(pts)
	k := newKnee(ModeSweep, rounds, pts, b, rateLabel)
	if b.lo >= 0 && b.hi < 0 {
		top := measuredRate(rounds[1])
		if tp, err := judged(rounds[1], 1); err == nil && !tp.Pass && !rounds[1].Excluded {
			// The throughput round broke the SLO: the break was seen,
			// between the highest constant rate and that round's rate.
			k.Found, k.Above = true, 1
			k.Limit = fmt.Sprintf("between the sweep's highest rate and its throughput round (%.4g req/s at max concurrency %d), which broke the SLO", top, g.maxConcurrency())
			k.Reason = fmt.Sprintf("The SLO held at every rate of the sweep, up to %s (benchmark %d), and broke in the throughput round (benchmark 1, %.4g req/s with %d streams): the knee lies between them; search that bracket with --rate-type knee --knee-axis rate.",
				rateLabel(pts[b.lo].load), pts[b.lo].idx, top, g.maxConcurrency())
			k.Reason = joinReasons(k.Reason, noiseNote(pts, b, rateLabel), saturationNote(pts, rateLabel), excludedNote(rounds))
			return k
		}
		k.Limit = fmt.Sprintf("the sweep's highest rate: the throughput round's %.4g req/s at max concurrency %d", top, g.maxConcurrency())
		k.Reason = fmt.Sprintf("The SLO held at every rate of the sweep, up to %s (benchmark %d): no break was seen, so this is a lower bound of the capacity; a sweep never probes above its throughput round's rate (%.4g req/s with %d streams): raise its max concurrency or search with the knee profile.",
			rateLabel(pts[b.lo].load), pts[b.lo].idx, top, g.maxConcurrency())
	}
	k.Reason = joinReasons(k.Reason, noiseNote(pts, b, rateLabel), saturationNote(pts, rateLabel), excludedNote(rounds))
	return k
}
