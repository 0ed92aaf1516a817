package slo

import (
	"math"

	"github.com/goodput-dev/goodput/metric"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/stats"
)

// attainmentEpsilon absorbs binary rounding when an attainment is compared
// with its floor (0.935 is not exact in binary).
const attainmentEpsilon = 1e-9

// thresholdSource is the objective that gives a metric its per-request
// threshold.
func (s Spec) thresholdSource(m Metric) (Objective, bool) {
	var best Objective
	found := false
	for _, o := range s.Objectives {
		if o.Metric != m || o.Stat == Mean {
			continue
		}
		if !found || o.Threshold > best.Threshold {
			best, found = o, true
		}
	}
	return best, found
}

// Thresholds returns the per-request thresholds: per latency metric, the
// largest threshold of its percentile, max and per-request items (a mean
// gives none).
func (s Spec) Thresholds() RequestThresholds {
	get := func(m Metric) float64 {
		if o, ok := s.thresholdSource(m); ok {
			return o.Threshold
		}
		return 0
	}
	var t RequestThresholds
	for _, l := range metric.All {
		if l.Key != "" {
			t.Ms[l.Slot] = get(Metric(l.Key))
		}
	}
	for _, o := range s.Objectives {
		if o.Stat == Mean {
			continue
		}
		switch o.Metric {
		case Fluidity: // the lowest floor
			if t.MinFluidity == 0 || o.Threshold < t.MinFluidity {
				t.MinFluidity = o.Threshold
			}
		case DeadlineMisses: // the highest bound
			if !t.HasMaxMissed || o.Threshold > t.MaxMissed {
				t.MaxMissed, t.HasMaxMissed = o.Threshold, true
			}
		}
	}
	return t
}

// qualityAllowance is the share of requests a fluidity or deadline_misses
// objective lets break its per-request bound: p/100 of a fluidity
// percentile (its lower tail), 1 − p/100 of a deadline_misses one; 0 for
// the others. The loosest objective of the metric gives the bound.
func (s Spec) qualityAllowance(m Metric) (allowance float64, found bool) {
	t := s.Thresholds()
	for _, o := range s.Objectives {
		if o.Metric != m || o.Stat == Mean {
			continue
		}
		if (m == Fluidity && o.Threshold != t.MinFluidity) || (m == DeadlineMisses && o.Threshold != t.MaxMissed) {
			continue
		}
		found = true
		if o.Stat == Percentile {
			a := 1 - o.Percentile/100
			if m == Fluidity {
				a = o.Percentile / 100
			}
			allowance = max(allowance, a)
		}
	}
	return allowance, found
}

// AttainmentFloor is the lowest attainment a benchmark may have and still
// pass: the spec's attainment objective when it has one; else, when it has
// per-request thresholds, 1 − the allowance (the error budget plus, per
// metric, 1 − p of the percentile objective giving the threshold, 0 for
// max and per-request items); explicit is false for the implicit floor. A
// floor ≤ 0 means no attainment objective.
func (s Spec) AttainmentFloor() (floor float64, explicit bool) {
	allowance := 0.0
	thresholds := false
	for _, o := range s.Objectives {
		switch o.Metric {
		case Attainment:
			return o.Threshold, true
		case ErrorRate:
			allowance += o.Threshold
		}
	}
	for _, m := range []Metric{Fluidity, DeadlineMisses} {
		if a, ok := s.qualityAllowance(m); ok {
			thresholds = true
			allowance += a
		}
	}
	for _, l := range metric.All {
		if l.Key == "" {
			continue
		}
		o, ok := s.thresholdSource(Metric(l.Key))
		if !ok {
			continue
		}
		thresholds = true
		if o.Stat == Percentile {
			allowance += 1 - o.Percentile/100
		}
	}
	if !thresholds || allowance >= 1 {
		return 0, false
	}
	return 1 - allowance, false
}

// Judge judges a finished benchmark: goodput from the counts, every
// objective from the benchmark's distributions (see the package
// documentation). It implements accum.SLO.
func (s Spec) Judge(b *report.Benchmark, c report.GoodputCounts) *report.SLOResult {
	r := &report.SLOResult{Spec: s.String(), Default: s.Default, GoodRequests: report.Int(c.Good), Objectives: []report.ObjectiveResult{}}
	if c.Judged > 0 {
		r.Attainment = report.Float(float64(c.Good) / float64(c.Judged))
	}
	if c.WindowSeconds > 0 {
		r.GoodputRPS = report.Float(float64(c.Good) / c.WindowSeconds)
		r.GoodputOutputTokS = report.Float(float64(c.GoodOutputTokens) / c.WindowSeconds)
		r.ThroughputOutputTokS = report.Float(float64(c.SuccessfulOutputTokens) / c.WindowSeconds)
	}
	var ex *report.Extras
	if b != nil {
		ex = b.Extras
	}
	conf := c.Confidence
	if conf <= 0 || conf >= 1 {
		conf = stats.DefaultConfidence
	}
	pass := true
	add := func(o report.ObjectiveResult) {
		r.Objectives = append(r.Objectives, o)
		pass = pass && o.Pass
	}
	for _, o := range s.Objectives {
		switch {
		case o.Metric.latency():
			if o.Stat == Each {
				continue // judged through the attainment
			}
			add(latencyResult(o, ex, conf))
		case o.Metric.quality():
			if o.Stat == Each {
				continue // judged through the attainment
			}
			add(qualityResult(o, ex))
		case o.Metric == ErrorRate:
			res := report.ObjectiveResult{Key: o.Key(), Metric: string(o.Metric), Unit: "fraction", Threshold: report.Float(o.Threshold)}
			if ex == nil || c.InWindow == 0 {
				res.Missing = true
			} else {
				res.Measured = ex.Errors.ErrorRate
				res.Pass = float64(res.Measured) <= o.Threshold
				errs := int64(math.Round(float64(res.Measured) * float64(c.InWindow)))
				h, b := stats.ProportionConfidence(c.InWindow-errs, c.InWindow, 1-o.Threshold)
				decide(&res, h, b, conf)
			}
			add(res)
		}
	}
	if floor, explicit := s.AttainmentFloor(); floor > 0 {
		key := string(Attainment)
		res := report.ObjectiveResult{Key: key, Metric: key, Unit: "fraction", Threshold: report.Float(floor)}
		if !explicit {
			res.Threshold = report.Float(roundFraction(floor))
		}
		if c.Judged == 0 {
			res.Missing = true
		} else {
			res.Measured = r.Attainment
			res.Pass = float64(r.Attainment) >= floor-attainmentEpsilon
			h, b := stats.ProportionConfidence(c.Good, c.Judged, floor-attainmentEpsilon)
			decide(&res, h, b, conf)
		}
		add(res)
	}
	r.Pass = pass
	r.Decision, r.Confidence = overall(r.Objectives)
	if b != nil {
		s.guideLLM(b, c)
	}
	return r
}

// guideLLM writes the verdict where GuideLLM's newest release keeps it:
// the objectives in the benchmark's config.slo, the attainment and the
// number of determined requests in its metrics. It writes nothing when the
// per-request thresholds include a latency GuideLLM's objectives lack
// (they are TTFT, inter-token latency and request latency; a stall is
// judged on the stream, beside them).
func (s Spec) guideLLM(b *report.Benchmark, c report.GoodputCounts) {
	t := s.Thresholds()
	if t.IsZero() {
		return
	}
	for _, l := range metric.All {
		if t.Ms[l.Slot] > 0 && !l.Stream && l != metric.TTFT && l != metric.ITL && l != metric.E2E {
			return
		}
	}
	ms := func(v float64) *report.Float {
		if v <= 0 {
			return nil
		}
		return report.FloatPtr(v)
	}
	b.Config.SLO = &report.GoodputSLO{TTFTMs: ms(t.Ms[metric.TTFT.Slot]), TPOTMs: ms(t.Ms[metric.ITL.Slot]), E2ELMs: ms(t.Ms[metric.E2E.Slot])}
	n := report.Int(c.Judged)
	b.Metrics.SLODeterminedRequests = &n
	if c.Judged > 0 {
		b.Metrics.SLOAttainment = report.FloatPtr(float64(c.Good) / float64(c.Judged))
	}
}

// decide sets an objective's decision at confidence conf from how sure
// the data makes "it holds" (h) and "it breaks" (b).
func decide(res *report.ObjectiveResult, h, b, conf float64) {
	switch {
	case h >= conf:
		res.Decision = report.DecisionHolds
	case b >= conf:
		res.Decision = report.DecisionBreaks
	default:
		res.Decision = report.DecisionIndeterminate
	}
	if res.Pass {
		res.Confidence = report.Float(h)
	} else {
		res.Confidence = report.Float(b)
	}
}

// overall is the SLO's decision: breaks when an objective breaks at the
// confidence (with the greatest such confidence; a missing value breaks
// for sure), else indeterminate when an objective is undecided (with the
// confidence of the point estimate's side), else holds (with the least
// confidence). A maximum has no decision of its own and follows its point
// estimate.
func overall(objs []report.ObjectiveResult) (string, report.Float) {
	breaks, holds, lean := report.Float(-1), report.Float(2), report.Float(-1)
	undecided := false
	for _, o := range objs {
		switch {
		case o.Missing || (o.Decision == "" && !o.Pass):
			breaks = 1
		case o.Decision == "":
		case o.Decision == report.DecisionBreaks:
			breaks = max(breaks, o.Confidence)
		case o.Decision == report.DecisionHolds:
			holds = min(holds, o.Confidence)
		default:
			undecided = true
			if o.Pass {
				holds = min(holds, o.Confidence)
			} else {
				lean = max(lean, o.Confidence)
			}
		}
	}
	switch {
	case breaks >= 0:
		return report.DecisionBreaks, breaks
	case undecided && lean >= 0:
		return report.DecisionIndeterminate, lean
	case undecided:
		return report.DecisionIndeterminate, holds
	case holds <= 1:
		return report.DecisionHolds, holds
	}
	return report.DecisionHolds, 1
}

// roundFraction rounds a derived fraction to 12 decimals (1 − 0.065 is
// 0.9349999999999999 in binary).
func roundFraction(f float64) float64 {
	const k = 1e12
	return float64(int64(f*k+0.5)) / k
}

// latencyResult judges one latency objective on the extras' distribution
// of the successful requests; a TTFT or end-to-end percentile of a
// benchmark that cut requests off at its end is judged on the
// censoring-aware estimate (goodput.censored) instead, so that the
// requests that waited longest are not deleted from the tail.
func latencyResult(o Objective, ex *report.Extras, conf float64) report.ObjectiveResult {
	res := report.ObjectiveResult{Key: o.Key(), Metric: string(o.Metric), Unit: "ms", Threshold: report.Float(o.Threshold)}
	switch o.Stat {
	case Percentile:
		res.Percentile = report.Float(o.Percentile)
	case Max:
		res.Percentile = 100
	}
	if o.Stat == Percentile {
		if cd, scale := censoredDistribution(o.Metric, ex); cd != nil && cd.Censored > 0 {
			return censoredResult(res, o, cd, scale)
		}
	}
	d, scale := distribution(o.Metric, ex)
	if d == nil || d.Count <= 0 {
		res.Missing = true
		return res
	}
	var v report.Float
	switch o.Stat {
	case Mean:
		v = d.Mean
	case Max:
		v = d.Max
	default:
		p, ok := d.Percentile(o.Percentile)
		if !ok { // not one of the report's percentiles: the histogram's
			if p, ok = histPercentile(o.Metric, o.Percentile, ex); !ok {
				res.Missing = true
				return res
			}
			scale = 1
		}
		v = report.Float(p)
	}
	res.Measured = report.Float(float64(v) * scale)
	res.Pass = float64(res.Measured) <= o.Threshold
	switch o.Stat {
	case Mean:
		n := int64(d.Count)
		if d.MeanCI == nil { // a weighted distribution's effective size is not known here
			break
		}
		h, b := stats.MeanConfidence(float64(d.Mean)*scale, float64(d.StdDev)*scale, n, o.Threshold)
		decide(&res, h, b, conf)
	case Percentile:
		if n, k, ok := histAtMost(o.Metric, o.Threshold, ex); ok {
			h, b := stats.PercentileConfidence(n, k, o.Percentile/100)
			decide(&res, h, b, conf)
		}
	}
	return res
}

// censoredResult judges a percentile objective on a Kaplan–Meier
// estimate: decided when the percentile's interval lies on one side of
// the threshold (each side then at confidence (1 + c)/2 at least, c the
// interval's), indeterminate otherwise.
func censoredResult(res report.ObjectiveResult, o Objective, cd *report.CensoredDistribution, scale float64) report.ObjectiveResult {
	res.Censored = true
	v, ok := cd.Percentile(o.Percentile)
	if !ok {
		res.AtLeast = true
		v = float64(cd.MaxObserved)
	}
	res.Measured = report.Float(v * scale)
	res.Pass = ok && float64(res.Measured) <= o.Threshold
	var ci *report.ConfidenceInterval
	for i, p := range report.PercentileProbs {
		if math.Abs(p*100-o.Percentile) <= 1e-9 && cd.PercentileCIs != nil {
			ci = cd.PercentileCIs.At(i)
		}
	}
	if ci == nil {
		return res
	}
	side := (1 + float64(ci.Confidence)) / 2
	switch {
	case ci.Upper != nil && float64(*ci.Upper)*scale <= o.Threshold:
		res.Decision, res.Confidence = report.DecisionHolds, report.Float(side)
	case ci.Lower != nil && float64(*ci.Lower)*scale > o.Threshold:
		res.Decision, res.Confidence = report.DecisionBreaks, report.Float(side)
	case res.AtLeast && v*scale > o.Threshold:
		res.Decision, res.Confidence = report.DecisionBreaks, report.Float(side)
	default:
		res.Decision, res.Confidence = report.DecisionIndeterminate, 0.5
	}
	return res
}

// censoredDistribution returns the censoring-aware estimate of TTFT or
// end-to-end latency and the factor to milliseconds; nil for other
// metrics or without one.
func censoredDistribution(m Metric, ex *report.Extras) (*report.CensoredDistribution, float64) {
	if ex == nil || ex.Censored == nil {
		return nil, 1
	}
	switch m {
	case TTFT:
		return ex.Censored.TimeToFirstTokenMs, 1
	case E2E:
		return ex.Censored.RequestLatency, 1000
	}
	return nil, 1
}

// histAtMost counts the successful requests whose metric m is at most
// thresholdMs, from the benchmark's HDR histogram (within its 0.1 %), and
// their number.
func histAtMost(m Metric, thresholdMs float64, ex *report.Extras) (n, k int64, ok bool) {
	if ex == nil || ex.Histograms == nil {
		return 0, 0, false
	}
	l, _ := metric.ByKey(string(m))
	sh := ex.Histograms.Metrics[l.Hist]
	if sh == nil || sh.Successful == "" {
		return 0, 0, false
	}
	h, err := stats.DecodeHistogram(sh.Successful)
	if err != nil || h.TotalCount() == 0 {
		return 0, 0, false
	}
	limit := int64(thresholdMs * 1e6)
	for _, b := range h.Distribution() {
		if b.Count > 0 && b.To <= limit {
			k += b.Count
		}
	}
	return h.TotalCount(), k, true
}

// qualityResult judges a fluidity or deadline_misses objective on the
// extras' streaming-quality distribution.
func qualityResult(o Objective, ex *report.Extras) report.ObjectiveResult {
	res := report.ObjectiveResult{Key: o.Key(), Metric: string(o.Metric), Unit: "count", Threshold: report.Float(o.Threshold)}
	var d *report.DistributionSummary
	if ex != nil && ex.Streaming != nil {
		d = ex.Streaming.DeadlineMisses
		if o.Metric == Fluidity {
			d = ex.Streaming.FluidityIndex
		}
	}
	if o.Metric == Fluidity {
		res.Unit = "fraction"
	}
	switch o.Stat {
	case Percentile:
		res.Percentile = report.Float(o.Percentile)
	case Max:
		res.Percentile = 100
	}
	if d == nil || d.Count <= 0 {
		res.Missing = true
		return res
	}
	switch o.Stat {
	case Mean:
		res.Measured = d.Mean
	case Min:
		res.Measured = d.Min
	case Max:
		res.Measured = d.Max
	default:
		p, ok := d.Percentile(o.Percentile)
		if !ok {
			res.Missing = true
			return res
		}
		res.Measured = report.Float(p)
	}
	if o.Metric == Fluidity {
		res.Pass = float64(res.Measured) >= o.Threshold-attainmentEpsilon
	} else {
		res.Pass = float64(res.Measured) <= o.Threshold
	}
	return res
}

// distribution returns the successful requests' distribution of a
// latency metric and the factor turning its unit into milliseconds.
func distribution(m Metric, ex *report.Extras) (*report.DistributionSummary, float64) {
	l, _ := metric.ByKey(string(m))
	if ex == nil {
		return nil, l.ToMs()
	}
	if m == Stall {
		if ex.Streaming == nil {
			return nil, l.ToMs()
		}
		return ex.Streaming.LongestStallMs, l.ToMs()
	}
	sd := l.OfExtra(&ex.Metrics)
	if sd == nil {
		return nil, l.ToMs()
	}
	return sd.Successful, l.ToMs()
}

// histPercentile reads percentile p of the successful requests' metric
// m, in milliseconds, from the benchmark's HDR histogram (nanoseconds,
// within 0.1%): a percentile the report does not print.
func histPercentile(m Metric, p float64, ex *report.Extras) (float64, bool) {
	if ex == nil || ex.Histograms == nil {
		return 0, false
	}
	l, _ := metric.ByKey(string(m))
	sh := ex.Histograms.Metrics[l.Hist]
	if sh == nil || sh.Successful == "" {
		return 0, false
	}
	h, err := stats.DecodeHistogram(sh.Successful)
	if err != nil || h.TotalCount() == 0 {
		return 0, false
	}
	return float64(h.ValueAtQuantile(p)) / 1e6, true
}
