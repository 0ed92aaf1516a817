package compare

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/stats"
)

// Defaults of Options.
const (
	DefaultResamples  = 1000
	DefaultSeed       = 1
	DefaultConfidence = 0.95
)

// Options configure a comparison.
type Options struct {
	// Limits are the thresholds by metric key (see Metrics); a missing
	// key takes its default, LimitOff disables the gate.
	Limits map[string]Limit
	// Strict fails the gate on every threshold crossing, including those
	// within the run-to-run noise.
	Strict bool
	// AllowUndecided passes a gate whose only crossings the samples are
	// too small to judge (StatusUndecided); without it such a gate does
	// not pass (Result.Undecided).
	AllowUndecided bool
	// Resamples, Seed and Confidence configure the bootstrap (0 means
	// DefaultResamples, DefaultSeed, DefaultConfidence).
	Resamples  int
	Seed       uint64
	Confidence float64
}

// Status is a row's verdict.
type Status string

// Row verdicts.
const (
	// StatusRegression: the metric got worse beyond its threshold, and
	// the difference is larger than the noise (or no noise estimate
	// exists, or --strict). It fails the gate.
	StatusRegression Status = "regression"
	// StatusWithinNoise: beyond the threshold, but the two runs'
	// confidence intervals overlap. It does not fail the gate (unless
	// Strict, which makes it a regression).
	StatusWithinNoise Status = "within_noise"
	// StatusUndecided: beyond the threshold, and a run has too few
	// requests to bound its percentile on the side that would decide it
	// (a p99 of fewer than 368 requests has no upper bound at 95 %): the
	// samples can neither confirm nor dismiss the regression. The gate
	// does not pass unless AllowUndecided (or Strict, which makes it a
	// regression); Row.DecidingRequests says how many requests per run
	// would bound it.
	StatusUndecided Status = "undecided"
	// StatusImproved: better beyond the threshold (and beyond the noise
	// where it is estimated).
	StatusImproved Status = "improved"
	// StatusOK: within the threshold.
	StatusOK Status = "ok"
	// StatusNotGated: the threshold is off; the row is information.
	StatusNotGated Status = "not_gated"
	// StatusNA: a side has no value; the row is not gated (Note says why).
	StatusNA Status = "n/a"
)

// Result is a whole comparison: the verdict and every row behind it.
type Result struct {
	Baseline RunInfo `json:"baseline"`
	Current  RunInfo `json:"current"`
	// Pass is the gate's verdict: no regression, and no undecided row
	// unless AllowUndecided.
	Pass        bool `json:"pass"`
	Regressions int  `json:"regressions"`
	WithinNoise int  `json:"within_noise"`
	// Undecided counts the rows the samples were too small to judge;
	// DecidingRequests is the most requests per run any of them needs.
	Undecided        int  `json:"undecided"`
	DecidingRequests int  `json:"deciding_requests,omitempty"`
	AllowUndecided   bool `json:"allow_undecided"`
	Improved         int  `json:"improved"`
	Strict           bool `json:"strict"`
	// Limits are the thresholds applied, as written ("5%", "off").
	Limits map[string]string `json:"limits"`
	Noise  NoiseMethod       `json:"noise"`
	Pairs  []Pair            `json:"pairs"`
	Knee   *KneeComparison   `json:"knee"`
	// Unmatched lists the benchmarks of either run without a partner.
	UnmatchedBaseline []string `json:"unmatched_baseline"`
	UnmatchedCurrent  []string `json:"unmatched_current"`
	// MetadataDiffs lists the run metadata fields that differ (both runs
	// must be goodput reports with metadata).
	MetadataDiffs []FieldDiff `json:"metadata_diffs"`
	Notes         []string    `json:"notes"`
}

// RunInfo identifies one side.
type RunInfo struct {
	Name   string `json:"name"`
	Layout string `json:"layout"`
	RunID  string `json:"run_id"`
}

// NoiseMethod records how significance was decided.
type NoiseMethod struct {
	Method     string  `json:"method"`
	Resamples  int     `json:"resamples"`
	Seed       uint64  `json:"seed"`
	Confidence float64 `json:"confidence"`
}

// Pair is one baseline benchmark matched with one current benchmark.
type Pair struct {
	Label string `json:"label"`
	// Match is "load" (same strategy and rate/streams) or "near_load"
	// (same strategy, rates within 5%).
	Match         string `json:"match"`
	BaselineIndex int    `json:"baseline_index"`
	CurrentIndex  int    `json:"current_index"`
	Rows          []Row  `json:"rows"`
}

// Row is one metric of a pair (or of the knee).
type Row struct {
	Metric string `json:"metric"`
	Title  string `json:"title"`
	// Baseline and Current are nil when that side has no value.
	Baseline *float64 `json:"baseline"`
	Current  *float64 `json:"current"`
	// Delta is Current − Baseline; Relative is Delta / Baseline (nil
	// when the baseline is 0 or a side is missing).
	Delta    *float64 `json:"delta"`
	Relative *float64 `json:"relative"`
	Limit    string   `json:"limit"`
	// Crossed: worse than the baseline by more than the limit.
	Crossed bool   `json:"crossed"`
	Noise   *Noise `json:"noise"`
	// NoiseNote says why a row has no noise estimate.
	NoiseNote string `json:"noise_note,omitempty"`
	Status    Status `json:"status"`
	Note      string `json:"note,omitempty"`
	// DecidingRequests is, for an undecided row, how many requests each
	// run needs for its interval to be bounded on the deciding side.
	DecidingRequests int `json:"deciding_requests,omitempty"`

	limit  Limit
	higher bool
}

// Noise is the bootstrap estimate of a percentile's sampling noise in
// each run.
type Noise struct {
	Baseline Interval `json:"baseline_ci"`
	Current  Interval `json:"current_ci"`
	// SampleSizes are the resample sizes (requests) of each side.
	SampleSizes [2]int `json:"sample_sizes"`
	// Significant: the intervals do not overlap (an open end overlaps
	// everything beyond it).
	Significant bool `json:"significant"`
}

// FieldDiff is a metadata field that differs between the runs.
type FieldDiff struct {
	Field    string `json:"field"`
	Baseline string `json:"baseline"`
	Current  string `json:"current"`
}

// ErrNoMatch is returned (wrapped) when no benchmark of one run matches
// one of the other and the runs have no knees to compare.
var ErrNoMatch = errors.New("no matching benchmarks")

// Compare compares current against baseline. It fails only when nothing
// can be compared (ErrNoMatch, with both runs' strategies in the
// message); everything else is in the Result.
func Compare(baseline, current *report.Report, baseName, curName string, opt Options) (*Result, error) {
	if opt.Resamples <= 0 {
		opt.Resamples = DefaultResamples
	}
	if opt.Seed == 0 {
		opt.Seed = DefaultSeed
	}
	if !(opt.Confidence > 0 && opt.Confidence < 1) {
		opt.Confidence = DefaultConfidence
	}
	limits := DefaultLimits()
	for k, l := range opt.Limits {
		limits[k] = l
	}
	res := &Result{
		Baseline: runInfo(baseline, baseName), Current: runInfo(current, curName),
		Strict: opt.Strict, AllowUndecided: opt.AllowUndecided, Limits: map[string]string{},
		Noise: NoiseMethod{Method: "percentile bootstrap per run; significant when the intervals do not overlap",
			Resamples: opt.Resamples, Seed: opt.Seed, Confidence: opt.Confidence},
		Pairs: []Pair{}, UnmatchedBaseline: []string{}, UnmatchedCurrent: []string{}, MetadataDiffs: []FieldDiff{}, Notes: []string{},
	}
	for _, s := range specs {
		if !s.sessions {
			res.Limits[s.Key] = limits[s.Key].String()
		}
	}
	c := &comparer{opt: opt, limits: limits, res: res}

	matches, ub, uc := match(baseline.Benchmarks, current.Benchmarks)
	for _, m := range matches {
		res.Pairs = append(res.Pairs, c.pair(side{baseline, baseline.Benchmarks[m.b]}, side{current, current.Benchmarks[m.c]}, m))
	}
	for _, i := range ub {
		res.UnmatchedBaseline = append(res.UnmatchedBaseline, fmt.Sprintf("#%d %s", i, describe(baseline.Benchmarks[i])))
	}
	for _, i := range uc {
		res.UnmatchedCurrent = append(res.UnmatchedCurrent, fmt.Sprintf("#%d %s", i, describe(current.Benchmarks[i])))
	}
	if c.trials {
		res.Notes = append(res.Notes, "loads run several times on both sides (--num-runs) compare the runs' means of goodput, throughput, TTFT p99 and latency p99, significant when their t intervals across runs do not overlap")
	}
	res.Knee = c.knee(baseline, current)
	if len(res.Pairs) == 0 && res.Knee == nil {
		return nil, fmt.Errorf("%w: baseline has %s; current has %s (benchmarks match by strategy and rate or streams; runs with a knee compare knees)",
			ErrNoMatch, strategies(baseline), strategies(current))
	}
	res.MetadataDiffs = metadataDiffs(baseline, current)
	if len(ub)+len(uc) > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d baseline and %d current benchmarks have no partner and are not compared", len(ub), len(uc)))
	}
	count := func(rows []Row) {
		for _, r := range rows {
			switch r.Status {
			case StatusRegression:
				res.Regressions++
			case StatusWithinNoise:
				res.WithinNoise++
			case StatusUndecided:
				res.Undecided++
				res.DecidingRequests = max(res.DecidingRequests, r.DecidingRequests)
			case StatusImproved:
				res.Improved++
			}
		}
	}
	for _, p := range res.Pairs {
		count(p.Rows)
	}
	if res.Knee != nil {
		count(res.Knee.Rows)
	}
	res.Pass = res.Regressions == 0 && (res.Undecided == 0 || opt.AllowUndecided)
	return res, nil
}

func runInfo(r *report.Report, name string) RunInfo {
	ri := RunInfo{Name: name, Layout: string(r.Layout)}
	if r.Run != nil {
		ri.RunID = r.Run.RunID
	}
	if ri.RunID == "" {
		for _, b := range r.Benchmarks {
			if b.Config.RunID != "" {
				ri.RunID = b.Config.RunID
				break
			}
		}
	}
	return ri
}

func strategies(r *report.Report) string {
	if len(r.Benchmarks) == 0 {
		return "no benchmarks"
	}
	parts := make([]string, len(r.Benchmarks))
	for i, b := range r.Benchmarks {
		parts[i] = describe(b)
	}
	return strings.Join(parts, ", ")
}

type comparer struct {
	opt    Options
	limits map[string]Limit
	res    *Result
	trials bool // a row used the runs' spread (--num-runs on both sides)
}

// pair builds the rows of one matched pair.
func (c *comparer) pair(b, cur side, m matched) Pair {
	p := Pair{Label: m.label, Match: m.kind, BaselineIndex: m.b, CurrentIndex: m.c}
	for _, s := range specs {
		if s.Key == MetricKnee || s.sessions && (b.sessions() == nil || cur.sessions() == nil) {
			continue
		}
		if s.sessions {
			c.res.Limits[s.Key] = c.limits[s.Key].String()
		}
		r := Row{Metric: s.Key, Title: s.Title, limit: c.limits[s.Key], higher: s.HigherIsBetter}
		bv, bwhy := b.value(s)
		cv, cwhy := cur.value(s)
		if s.Key == MetricThroughput {
			// The SLO's window throughput when both runs have it (the
			// figure goodput is compared with), else GuideLLM's mean
			// output token rate on both sides.
			bw, okb := b.windowThroughput()
			cw, okc := cur.windowThroughput()
			if okb && okc {
				bv, cv = bw, cw
			}
		}
		if s.Key == MetricGoodput && bwhy == "" && cwhy == "" && b.sloSpec() != cur.sloSpec() {
			bwhy = fmt.Sprintf("the SLOs differ (%q vs %q)", b.sloSpec(), cur.sloSpec())
		}
		switch {
		case bwhy != "":
			r.Note = "baseline: " + bwhy
		case cwhy != "":
			r.Note = "current: " + cwhy
		}
		if bwhy == "" {
			r.Baseline = ptr(bv)
		}
		if cwhy == "" {
			r.Current = ptr(cv)
		}
		usedWindow := s.Key == MetricThroughput && r.Baseline != nil && r.Current != nil && func() bool {
			_, okb := b.windowThroughput()
			_, okc := cur.windowThroughput()
			return okb && okc
		}()
		if r.Baseline != nil && r.Current != nil && !usedWindow && trialRow(&r, s, b, cur, m.b, m.c) {
			c.trials = true
		} else if r.Baseline != nil && r.Current != nil {
			if s.hist() == "" {
				r.NoiseNote = "no distribution to resample: gated on the threshold alone"
			} else if r.Noise = c.noise(b, cur, s, p.Label); r.Noise == nil {
				r.NoiseNote = "a run has no goodput histogram for it: gated on the threshold alone"
			}
		}
		c.judge(&r)
		p.Rows = append(p.Rows, r)
	}
	return p
}

// noise estimates both runs' confidence intervals of the row's
// percentile from their histograms (nil when a side has none).
func (c *comparer) noise(b, cur side, s MetricSpec, label string) *Noise {
	var n Noise
	for i, sd := range []side{b, cur} {
		d, size, ok := histogramOf(sd, s)
		if !ok {
			return nil
		}
		h := fnv.New64a()
		fmt.Fprintf(h, "%s|%s|%d", label, s.Key, i)
		rng := rand.New(rand.NewPCG(c.opt.Seed, h.Sum64()))
		ci := percentileCI(d, s.pct, size, c.opt.Resamples, c.opt.Confidence, rng)
		if i == 0 {
			n.Baseline = ci
		} else {
			n.Current = ci
		}
		n.SampleSizes[i] = size
	}
	n.Significant = n.Current.above(n.Baseline) || n.Baseline.above(n.Current)
	return &n
}

// histogramOf decodes the successful-request histogram of a metric and
// the resample size: one value per request. A token-weighted histogram
// (ITL) holds one value per token; its requests, not its tokens, are the
// independent draws, so it is resampled with the number of successful
// requests.
func histogramOf(sd side, s MetricSpec) (dist, int, bool) {
	g := sd.b.Extras
	if g == nil || g.Histograms == nil || g.Histograms.Metrics[s.hist()] == nil || g.Histograms.Metrics[s.hist()].Successful == "" {
		return dist{}, 0, false
	}
	h, err := stats.DecodeHistogram(g.Histograms.Metrics[s.hist()].Successful)
	if err != nil {
		return dist{}, 0, false
	}
	d, err := newDist(h, 1e6)
	if err != nil {
		return dist{}, 0, false
	}
	size := int(d.total())
	if s.perToken {
		t := sd.b.Metrics.RequestTotals
		if t == nil || t.Successful <= 0 {
			return dist{}, 0, false
		}
		size = min(size, int(t.Successful))
	}
	return d, size, size > 0
}

// judge sets a row's change, crossing and status.
func (c *comparer) judge(r *Row) {
	r.Limit = r.limit.String()
	if r.Baseline == nil || r.Current == nil {
		r.Status = StatusNA
		return
	}
	bv, cv := *r.Baseline, *r.Current
	r.Delta = ptr(cv - bv)
	if bv != 0 {
		r.Relative = ptr((cv - bv) / bv)
	}
	// worse is how much worse the current run is, in the limit's terms
	// (negative when better).
	worse := func() float64 {
		d := cv - bv
		if r.higher {
			d = -d
		}
		switch r.limit.Kind {
		case LimitPercent:
			if bv == 0 {
				if d == 0 {
					return 0
				}
				return math.Copysign(math.Inf(1), d)
			}
			return d / math.Abs(bv)
		case LimitPoints:
			return d * 100
		}
		return d // ms
	}()
	lim := r.limit.Num
	if r.limit.Kind == LimitPercent {
		lim /= 100
	}
	const eps = 1e-12
	if r.limit.Kind == LimitOff {
		r.Status = StatusNotGated
		return
	}
	r.Crossed = worse > lim+eps
	better := -worse > lim+eps
	sigWorse, sigBetter := true, true
	// need is how many requests per run would bound the intervals' ends
	// that decide a worsening, 0 when they are bounded.
	need := 0
	if n := r.Noise; n != nil {
		curHigher := n.Current.above(n.Baseline)
		curLower := n.Baseline.above(n.Current)
		if r.higher {
			sigWorse, sigBetter = curLower, curHigher
			need = max(n.Baseline.needLow, n.Current.needHigh)
		} else {
			sigWorse, sigBetter = curHigher, curLower
			need = max(n.Baseline.needHigh, n.Current.needLow)
		}
	}
	switch {
	case r.Crossed && (sigWorse || c.opt.Strict):
		r.Status = StatusRegression
	case r.Crossed && need > 0:
		r.Status, r.DecidingRequests = StatusUndecided, need
		r.Note = fmt.Sprintf("undecidable at this sample size: %d and %d requests; %d per run would bound it",
			r.Noise.SampleSizes[0], r.Noise.SampleSizes[1], need)
	case r.Crossed:
		r.Status = StatusWithinNoise
	case better && sigBetter:
		r.Status = StatusImproved
	default:
		r.Status = StatusOK
	}
}

func ptr(v float64) *float64 { return &v }
