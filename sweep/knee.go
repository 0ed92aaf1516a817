package sweep

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
)

// Axis is the load a knee search varies.
type Axis string

// Knee search axes.
const (
	// AxisConcurrency varies the streams of a closed loop (concurrent
	// rounds). It is the default: every concurrency settles into a steady
	// state, whereas an open-loop rate above capacity grows a backlog
	// that the round's length, not the server, decides.
	AxisConcurrency Axis = "concurrency"
	// AxisRate varies the request rate of an open loop (constant or
	// poisson rounds): the arrival process of an online service.
	AxisRate Axis = "rate"
)

// Knee search defaults.
const (
	DefaultKneeFactor         = 2
	DefaultKneeTolerance      = 0.05
	DefaultKneeMaxRounds      = 20
	DefaultKneeMaxConcurrency = 1024
	DefaultKneeMaxRate        = 1024.0
	// DefaultWideLatency and DefaultWideErrors say when a round breaks
	// the SLO by a wide margin: a latency objective over 4× its
	// threshold, or an error rate over 10× its budget.
	DefaultWideLatency = 4.0
	DefaultWideErrors  = 10.0
	// wideErrorFloor is the budget a zero error budget is widened from.
	wideErrorFloor = 0.001
)

// KneeSearch plans a search for the knee: the highest load that holds the
// SLO (every objective of its SLOResult passes).
//
//  1. Ramp: start at Start and multiply the load by Factor while rounds
//     pass.
//  2. A failing round brackets the knee between the highest passing load
//     and the lowest failing load above it. A marginal failure (no
//     objective beyond the wide margin) may be noise: unless a higher
//     load was already measured, the ramp takes one more step to confirm
//     it. A round that breaks the SLO by a wide margin (a latency
//     objective over WideLatency × its threshold, the error rate over
//     WideErrors × its budget, or an objective with nothing to measure)
//     ends the ramp at once: there is no point going further up. When the
//     confirmation round passes, the marginal failure below it was noise
//     and the ramp goes on from there.
//  3. Bisect the bracket (midpoint; concurrency rounded down) until its
//     width is within Tolerance of the passing load, or, for concurrency,
//     the two loads are adjacent. The knee is the highest passing load,
//     and the failing load just above it is always a measured round.
//  4. Decide at the run's confidence: a side of the bracket whose SLO
//     decision is indeterminate is measured again with twice, then four
//     times the round (Extend, Scale); the knee is named with each side's
//     confidence, or is indeterminate (not found) when a side stays
//     undecided.
//
// When the first round fails, the search steps down (÷ Factor; for
// concurrency at least one stream less) up to three times, looking for a
// load that holds the SLO, then goes on as above. It ends without a knee,
// saying why, when no load down there holds it (or concurrency 1 fails),
// when the SLO held up to the client's limit (MaxConcurrency streams or
// MaxRate), when an open-loop round's requests in flight reached its cap
// while the SLO held (the load was not really offered: a pass there would
// be the client's throttling, not the server's), or when MaxRounds rounds
// ran without a break. A round whose load generator was CPU-starved
// (loadgen.Result.Client.Saturated) is still judged, and the knee's reason
// warns that its latencies are inflated by the client. A round that
// started on a busy server (Round.Excluded) is no evidence: the search
// measures its load again, within MaxRounds. Every round is a full
// benchmark in the report.
type KneeSearch struct {
	// Axis is AxisConcurrency (the default when empty) or AxisRate.
	Axis Axis
	// Start is the first load: streams (default 1) or req/s (default 1).
	Start float64
	// Factor multiplies the load during the ramp (default 2, > 1).
	Factor float64
	// Tolerance is the bracket width, relative to the passing load, at
	// which bisection stops (default 0.05).
	Tolerance float64
	// MaxRounds bounds the rounds (default 20).
	MaxRounds int
	// MaxConcurrency is the highest concurrency of a concurrency search
	// (default DefaultKneeMaxConcurrency), and the in-flight cap of a
	// rate search's open-loop rounds (0: loadgen.DefaultMaxConcurrency).
	MaxConcurrency int
	// MaxRate is the highest rate of a rate search (default
	// DefaultKneeMaxRate req/s).
	MaxRate float64
	// Kind is the open-loop strategy of a rate search: loadgen.Constant
	// (the default when empty) or loadgen.Poisson.
	Kind loadgen.Kind
	// Seed seeds poisson rounds.
	Seed uint64
	// Burstiness is the gamma shape of poisson rounds' gaps (0 or 1:
	// poisson; see loadgen.Strategy).
	Burstiness float64
	// MaxPrefill caps every round's requests waiting for their first
	// token (loadgen.Strategy.MaxPrefill); 0: no cap.
	MaxPrefill int
	// Rampup staggers the streams of concurrent rounds, or ramps the rate
	// of constant rounds.
	Rampup time.Duration
	// WideLatency and WideErrors set the wide margin (defaults
	// DefaultWideLatency and DefaultWideErrors).
	WideLatency, WideErrors float64
	// Extend is how many times a load on either side of the bracketed
	// knee whose SLO decision is indeterminate at the run's confidence is
	// measured again, each time with twice the round's duration and
	// requests (Scale), the later round replacing the earlier (default
	// DefaultKneeExtend; negative: never). A side still undecided after
	// that leaves the knee indeterminate.
	Extend int
}

// DefaultKneeExtend is KneeSearch.Extend's default.
const DefaultKneeExtend = 2

// withDefaults fills the zero fields.
func (k KneeSearch) withDefaults() KneeSearch {
	if k.Axis == "" {
		k.Axis = AxisConcurrency
	}
	if k.Start == 0 {
		k.Start = 1
	}
	if k.Factor == 0 {
		k.Factor = DefaultKneeFactor
	}
	if k.Tolerance == 0 {
		k.Tolerance = DefaultKneeTolerance
	}
	if k.MaxRounds == 0 {
		k.MaxRounds = DefaultKneeMaxRounds
	}
	if k.Axis == AxisConcurrency && k.MaxConcurrency == 0 {
		k.MaxConcurrency = DefaultKneeMaxConcurrency
	}
	if k.MaxRate == 0 {
		k.MaxRate = DefaultKneeMaxRate
	}
	if k.Kind == "" {
		k.Kind = loadgen.Constant
	}
	if k.WideLatency == 0 {
		k.WideLatency = DefaultWideLatency
	}
	if k.WideErrors == 0 {
		k.WideErrors = DefaultWideErrors
	}
	if k.Extend == 0 {
		k.Extend = DefaultKneeExtend
	}
	return k
}

// Scale implements RoundScaler: a round that measures a load again (an
// extension) runs 2^k times as long, k the earlier rounds at that load.
func (k KneeSearch) Scale(done []Round, s loadgen.Strategy) float64 {
	n := 0
	for _, r := range done {
		if !r.Excluded && r.Strategy.Streams == s.Streams && r.Strategy.Rate == s.Rate {
			n++
		}
	}
	return math.Pow(2, float64(n))
}

// Validate checks the settings (after defaults).
func (k KneeSearch) Validate() error {
	k = k.withDefaults()
	bad := func(v any) bool {
		f, ok := v.(float64)
		return ok && (math.IsNaN(f) || math.IsInf(f, 0))
	}
	switch {
	case k.Axis != AxisConcurrency && k.Axis != AxisRate:
		return fmt.Errorf("knee axis %q: want concurrency or rate", k.Axis)
	case bad(k.Start) || k.Start <= 0:
		return fmt.Errorf("knee start %v: want a load > 0", k.Start)
	case k.Axis == AxisConcurrency && k.Start != math.Trunc(k.Start):
		return fmt.Errorf("knee start %v: concurrency must be a whole number ≥ 1", k.Start)
	case bad(k.Factor) || k.Factor <= 1:
		return fmt.Errorf("knee factor %v: want a number > 1, e.g. 2", k.Factor)
	case bad(k.Tolerance) || k.Tolerance <= 0 || k.Tolerance >= 1:
		return fmt.Errorf("knee tolerance %v: want a fraction 0 < x < 1, e.g. 0.05", k.Tolerance)
	case k.MaxRounds < 1:
		return fmt.Errorf("knee max rounds %d: want at least 1", k.MaxRounds)
	case k.MaxConcurrency < 0:
		return fmt.Errorf("knee max concurrency %d: want a positive count", k.MaxConcurrency)
	case bad(k.MaxRate) || k.MaxRate <= 0:
		return fmt.Errorf("knee max rate %v: want req/s > 0", k.MaxRate)
	case k.Axis == AxisRate && k.Kind != loadgen.Constant && k.Kind != loadgen.Poisson:
		return fmt.Errorf("knee strategy %q: want constant or poisson", k.Kind)
	case bad(k.WideLatency) || k.WideLatency <= 1 || bad(k.WideErrors) || k.WideErrors <= 1:
		return errors.New("knee wide margins must be factors > 1")
	case k.Rampup < 0:
		return errors.New("knee rampup must not be negative")
	case k.Burstiness != 0 && (k.Axis != AxisRate || k.Kind != loadgen.Poisson || bad(k.Burstiness) || k.Burstiness < 0):
		return fmt.Errorf("knee burstiness %v: want a gamma shape > 0 on a poisson rate search", k.Burstiness)
	}
	if c := k.limitLoad(); k.Start > c {
		return fmt.Errorf("knee start %v is above the search's limit (%s)", k.Start, k.limitName())
	}
	return nil
}

// limitLoad is the highest load the search may try.
func (k KneeSearch) limitLoad() float64 {
	if k.Axis == AxisRate {
		return k.MaxRate
	}
	return float64(k.MaxConcurrency)
}

func (k KneeSearch) limitName() string {
	if k.Axis == AxisRate {
		return fmt.Sprintf("max rate %g req/s", k.MaxRate)
	}
	return fmt.Sprintf("max concurrency %d", k.MaxConcurrency)
}

func (k KneeSearch) label(v float64) string {
	if k.Axis == AxisRate {
		return rateLabel(v)
	}
	return streamsLabel(v)
}

func (k KneeSearch) mode() string {
	if k.Axis == AxisRate {
		return ModeKneeRate
	}
	return ModeKneeConcurrency
}

// Profile describes the search in the report's scenario, in GuideLLM's
// terms (it has no knee profile): a concurrent profile with the streams
// run, or a constant/poisson profile with the rates run, in order. Before
// the first round it names the start load.
func (k KneeSearch) Profile(rounds []Round) report.Profile {
	k = k.withDefaults()
	if k.Axis == AxisRate {
		p := report.Profile{Kind: string(k.Kind), MaxConcurrency: k.MaxConcurrency, RampupDuration: k.Rampup.Seconds()}
		for _, r := range rounds {
			p.Rate = append(p.Rate, r.Strategy.Rate)
		}
		if len(p.Rate) == 0 {
			p.Rate = []float64{k.Start}
		}
		return p
	}
	p := report.Profile{Kind: string(loadgen.Concurrent), RampupDuration: k.Rampup.Seconds()}
	for _, r := range rounds {
		p.Streams = append(p.Streams, r.Strategy.Streams)
	}
	if len(p.Streams) == 0 {
		p.Streams = []int{int(k.Start)}
	}
	return p
}

// strategy is the round at a load.
func (k KneeSearch) strategy(load float64) loadgen.Strategy {
	if k.Axis == AxisRate {
		s := loadgen.Strategy{Kind: k.Kind, Rate: load, MaxConcurrency: k.MaxConcurrency, Seed: k.Seed, MaxPrefill: k.MaxPrefill}
		if k.Kind == loadgen.Poisson {
			s.Burstiness = k.Burstiness
		}
		if k.Kind == loadgen.Constant {
			s.Rampup = k.Rampup
		}
		return s
	}
	return loadgen.Strategy{Kind: loadgen.Concurrent, Streams: int(load), Rampup: k.Rampup, MaxPrefill: k.MaxPrefill}
}

// points turns rounds into points on the search's axis.
func (k KneeSearch) points(rounds []Round) ([]point, error) {
	pts := make([]point, 0, len(rounds))
	for i, r := range rounds {
		if r.Excluded {
			continue // no evidence: the search measures that load again
		}
		s, err := judged(r, i)
		if err != nil {
			return nil, err
		}
		p := point{idx: i, pass: s.Pass, wide: k.wide(s), decision: s.Decision, conf: s.Confidence}
		if k.Axis == AxisRate {
			p.load = r.Strategy.Rate
		} else {
			p.load = float64(r.Strategy.Streams)
		}
		p.saturated = r.Result.Client.Saturated
		if k.Axis == AxisRate && p.pass && capReached(r) {
			p.limit = fmt.Sprintf("the in-flight cap of %d requests was reached at %s (benchmark %d; %d due requests left unsent at its end): requests waited for the client, so the rate was not really offered and the SLO held only because the client throttled it",
				r.Strategy.Workers(), k.label(p.load), i, r.Result.NotSent)
		}
		if k.Axis == AxisRate && p.pass && p.limit == "" {
			if a := achievedRate(r); a > 0 && a < AchievedShare*p.load {
				p.pass, p.decision, p.short = false, report.DecisionBreaks, a
			}
		}
		p.tries = 1
		for j := range pts { // a later round at a load (an extension) replaces the earlier
			if pts[j].load == p.load {
				p.tries += pts[j].tries
				pts = append(pts[:j], pts[j+1:]...)
				break
			}
		}
		pts = append(pts, p)
	}
	return pts, nil
}

// capReached reports whether an open-loop round's requests in flight
// reached its cap (the peak of request_concurrency): from then on due
// requests waited for a free slot in the client.
func capReached(r Round) bool {
	if !r.Strategy.OpenLoop() || r.Benchmark == nil {
		return false
	}
	c := r.Benchmark.Metrics.RequestConcurrency
	return c != nil && c.Total != nil && float64(c.Total.Max) >= float64(r.Strategy.Workers())
}

// wide reports whether a verdict breaks the SLO by a wide margin.
func (k KneeSearch) wide(s *report.SLOResult) bool {
	for _, o := range s.Objectives {
		if o.Pass {
			continue
		}
		switch {
		case o.Missing:
			return true
		case o.Unit == "ms" && float64(o.Measured) > k.WideLatency*float64(o.Threshold):
			return true
		case o.Metric == "error_rate" && float64(o.Measured) > k.WideErrors*math.Max(float64(o.Threshold), wideErrorFloor):
			return true
		}
	}
	return false
}

// decision is the search's state after some rounds: the next load, or
// why it stopped.
type decision struct {
	next    float64
	extend  bool // next measures a load of the bracket again (KneeSearch.Extend)
	stop    bool
	found   bool   // a knee is bracketed
	reason  string // why the search stopped
	limit   string // the limit that ended it without a knee
	pts     []point
	bracket bracket // over pts
}

// decide plans from the points so far.
func (k KneeSearch) decide(all []point) decision {
	if len(all) == 0 {
		return decision{next: k.Start}
	}
	// A round the client limited stops the search; it is no evidence
	// either way, so the knee is named from the other rounds.
	pts := all
	limited := ""
	for i, p := range all {
		if p.limit != "" {
			limited = p.limit
			pts = append(slices.Clone(all[:i]), all[i+1:]...)
			break
		}
	}
	b := findBracket(pts)
	d := decision{pts: pts, bracket: b, found: b.lo >= 0 && b.hi >= 0}
	if limited != "" {
		d.stop, d.limit = true, "client"
		d.reason = "The search stopped because " + limited + "."
		return d
	}
	top := k.limitLoad()
	switch {
	case b.lo < 0:
		// Nothing passed yet: step down from the lowest load, a few times.
		low, steps := pts[0], 0
		for _, p := range pts {
			if p.load < low.load {
				low = p
			}
			if p.load < k.Start {
				steps++
			}
		}
		next := k.down(low.load)
		stop := next <= 0 || steps >= maxDownSteps || len(all) >= k.MaxRounds
		if stop && len(all) < k.MaxRounds && k.Extend >= 0 && low.decision == report.DecisionIndeterminate && low.tries <= k.Extend {
			// The lowest load failed undecided: measure it again, longer,
			// before saying the SLO fails everywhere.
			d.next, d.extend = low.load, true
			break
		}
		if stop {
			d.stop = true
			d.reason = fmt.Sprintf("The SLO fails at every load measured, down to %s (benchmark %d).", k.label(low.load), low.idx)
			if next > 0 {
				d.reason = strings.TrimSuffix(d.reason, ".") + ": start lower."
			}
			return d
		}
		d.next = next
	case b.hi < 0:
		lo := pts[b.lo].load
		if lo >= top {
			d.stop, d.limit = true, k.limitName()
			d.reason = fmt.Sprintf("The SLO held at every load up to the client's limit, %s (benchmark %d): no knee was seen below it, so this is a lower bound of the capacity; raise the limit.",
				k.limitName(), pts[b.lo].idx)
			return d
		}
		d.next = k.up(lo)
	default:
		lo, hi := pts[b.lo].load, pts[b.hi].load
		higher := false
		for _, p := range pts {
			higher = higher || p.load > hi
		}
		if !pts[b.hi].wide && !higher && hi < top {
			// A marginal first break may be noise: confirm it one step up.
			d.next = k.up(hi)
			break
		}
		if hi-lo <= k.Tolerance*lo || k.Axis == AxisConcurrency && hi-lo <= 1 {
			if ext, ok := k.extension(pts[b.lo], pts[b.hi]); ok {
				d.next, d.extend = ext, true
				break
			}
			d.stop = true
			hs, bs := sides(pts[b.lo], pts[b.hi])
			d.reason = fmt.Sprintf("The SLO holds at %s (benchmark %d)%s and breaks at %s (benchmark %d)%s: bracketed within %.3g%%.",
				k.label(lo), pts[b.lo].idx, hs, k.label(hi), pts[b.hi].idx, bs, 100*(hi-lo)/lo)
			return d
		}
		mid := (lo + hi) / 2
		if k.Axis == AxisConcurrency {
			mid = math.Floor(mid)
		}
		d.next = mid
	}
	measured := false
	for _, p := range all {
		measured = measured || p.load == d.next && !d.extend
	}
	if len(all) >= k.MaxRounds || measured {
		d.stop = true
		if d.found {
			lo, hi := pts[b.lo].load, pts[b.hi].load
			d.reason = fmt.Sprintf("The search stopped at its limit of %d rounds with the knee between %s (benchmark %d) and %s (benchmark %d), %.3g%% apart.",
				k.MaxRounds, k.label(lo), pts[b.lo].idx, k.label(hi), pts[b.hi].idx, 100*(hi-lo)/lo)
		} else {
			d.limit = fmt.Sprintf("max rounds %d", k.MaxRounds)
			d.reason = fmt.Sprintf("The search stopped at its limit of %d rounds before the SLO broke; the highest load that held it, %s (benchmark %d), is a lower bound of the capacity.",
				k.MaxRounds, k.label(pts[b.lo].load), pts[b.lo].idx)
		}
	}
	return d
}

// extension is the load of the bracket's side to measure again: the
// holding side when its decision is indeterminate, else the breaking
// side; false when both are decided (or carry no decisions), or the side
// was already extended Extend times.
func (k KneeSearch) extension(lo, hi point) (float64, bool) {
	if k.Extend < 0 {
		return 0, false
	}
	for _, p := range []point{lo, hi} {
		if p.decision == report.DecisionIndeterminate && p.tries <= k.Extend {
			return p.load, true
		}
	}
	return 0, false
}

// maxDownSteps bounds the steps below Start when nothing passes.
const maxDownSteps = 3

// down is the next load below v when nothing passed: v / Factor, or for
// concurrency the next whole number below (0 when v is 1).
func (k KneeSearch) down(v float64) float64 {
	n := v / k.Factor
	if k.Axis == AxisConcurrency {
		n = math.Min(math.Floor(n), v-1)
	}
	return n
}

// up is the next ramp load above v, capped at the limit.
func (k KneeSearch) up(v float64) float64 {
	n := v * k.Factor
	if k.Axis == AxisConcurrency {
		n = math.Max(math.Round(n), v+1)
	}
	return math.Min(n, k.limitLoad())
}

// Next returns the next round of the search.
func (k KneeSearch) Next(done []Round) (loadgen.Strategy, bool, error) {
	if err := k.Validate(); err != nil {
		return loadgen.Strategy{}, false, err
	}
	k = k.withDefaults()
	pts, err := k.points(done)
	if err != nil {
		return loadgen.Strategy{}, false, err
	}
	d := k.decide(pts)
	if d.stop || len(done) >= k.MaxRounds || busyStop(done, k.strategy(d.next)) != "" {
		return loadgen.Strategy{}, false, nil
	}
	return k.strategy(d.next), true, nil
}

// MaxBusyRepeats is how many rounds in a row at one load may start on a
// busy server before a search stops: the drain's bound is shorter than
// the server's backlog, and measuring the load again would only repeat it.
const MaxBusyRepeats = 2

// busyStop is why a search stops instead of measuring next again: the
// last MaxBusyRepeats rounds, all at next's load, started on a busy server
// (Round.Excluded). "" otherwise.
func busyStop(done []Round, next loadgen.Strategy) string {
	var idx []string
	for i := len(done) - 1; i >= 0 && done[i].Excluded && done[i].Strategy.Streams == next.Streams && done[i].Strategy.Rate == next.Rate; i-- {
		idx = append([]string{strconv.Itoa(i)}, idx...)
	}
	if len(idx) < MaxBusyRepeats {
		return ""
	}
	return fmt.Sprintf("The search stopped: benchmarks %s at %s all started on a busy server (the wait for earlier rounds to drain ran out each time), so that load could not be measured; raise --max-drain.",
		strings.Join(idx, ", "), next)
}

// Knee names the search's knee (see KneeSearch). A search cut short (by
// an interrupt or a stop rule) says so.
func (k KneeSearch) Knee(rounds []Round) *report.Knee {
	k = k.withDefaults()
	pts, err := k.points(rounds)
	if err != nil {
		return nil
	}
	if len(pts) == 0 { // nothing measured: every round started busy, or none ran
		if busy := busyStop(rounds, k.strategy(k.Start)); busy != "" {
			return &report.Knee{Mode: k.mode(), Index: -1, Below: -1, Above: -1, Reason: busy}
		}
		return nil
	}
	d := k.decide(pts)
	kn := newKnee(k.mode(), rounds, d.pts, d.bracket, k.label)
	kn.Limit = d.limit
	reason := d.reason
	if kn.Indeterminate {
		reason = kn.Reason
	}
	busy := ""
	if !d.stop {
		busy = busyStop(rounds, k.strategy(d.next))
	}
	if busy != "" {
		reason = busy
		if d.found {
			reason += fmt.Sprintf(" The knee lies between %s and %s.", k.label(d.pts[d.bracket.lo].load), k.label(d.pts[d.bracket.hi].load))
		}
	} else if !d.stop && len(rounds) >= k.MaxRounds {
		reason = fmt.Sprintf("The search stopped at its limit of %d rounds before it converged, %d of them left out.", k.MaxRounds, len(rounds)-len(pts))
		if d.found {
			reason += fmt.Sprintf(" The knee lies between %s and %s.", k.label(d.pts[d.bracket.lo].load), k.label(d.pts[d.bracket.hi].load))
		}
	} else if !d.stop {
		reason = fmt.Sprintf("The search was cut short after %d rounds (interrupted or stopped by a constraint) before it converged.", len(rounds))
		if d.found {
			reason += fmt.Sprintf(" The knee lies between %s and %s.", k.label(d.pts[d.bracket.lo].load), k.label(d.pts[d.bracket.hi].load))
		}
	}
	kn.Reason = joinReasons(reason, shortNote(d.pts, k.label), noiseNote(d.pts, d.bracket, k.label), saturationNote(pts, k.label), excludedNote(rounds))
	return kn
}
