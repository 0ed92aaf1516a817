package slo

import (
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
	return RequestThresholds{TTFTMs: get(TTFT), ITLMs: get(ITL), TPOTMs: get(TPOT), LatencyMs: get(E2E)}
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
	for _, m := range []Metric{TTFT, ITL, TPOT, E2E} {
		o, ok := s.thresholdSource(m)
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
			add(latencyResult(o, ex))
		case o.Metric == ErrorRate:
			res := report.ObjectiveResult{Key: o.Key(), Metric: string(o.Metric), Unit: "fraction", Threshold: report.Float(o.Threshold)}
			if ex == nil || c.InWindow == 0 {
				res.Missing = true
			} else {
				res.Measured = ex.Errors.ErrorRate
				res.Pass = float64(res.Measured) <= o.Threshold
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
		}
		add(res)
	}
	r.Pass = pass
	if b != nil {
		s.guideLLM(b, c)
	}
	return r
}

// guideLLM writes the verdict where GuideLLM's newest release keeps it:
// the objectives in the benchmark's config.slo, the attainment and the
// number of determined requests in its metrics. It writes nothing when the
// per-request thresholds include tpot (GuideLLM's objectives are TTFT,
// inter-token latency and request latency).
func (s Spec) guideLLM(b *report.Benchmark, c report.GoodputCounts) {
	t := s.Thresholds()
	if t.IsZero() || t.TPOTMs > 0 {
		return
	}
	ms := func(v float64) *report.Float {
		if v <= 0 {
			return nil
		}
		return report.FloatPtr(v)
	}
	b.Config.SLO = &report.GoodputSLO{TTFTMs: ms(t.TTFTMs), TPOTMs: ms(t.ITLMs), E2ELMs: ms(t.LatencyMs)}
	n := report.Int(c.Judged)
	b.Metrics.SLODeterminedRequests = &n
	if c.Judged > 0 {
		b.Metrics.SLOAttainment = report.FloatPtr(float64(c.Good) / float64(c.Judged))
	}
}

// roundFraction rounds a derived fraction to 12 decimals (1 − 0.065 is
// 0.9349999999999999 in binary).
func roundFraction(f float64) float64 {
	const k = 1e12
	return float64(int64(f*k+0.5)) / k
}

// latencyResult judges one latency objective on the extras' distribution
// of the successful requests.
func latencyResult(o Objective, ex *report.Extras) report.ObjectiveResult {
	res := report.ObjectiveResult{Key: o.Key(), Metric: string(o.Metric), Unit: "ms", Threshold: report.Float(o.Threshold)}
	switch o.Stat {
	case Percentile:
		res.Percentile = report.Float(o.Percentile)
	case Max:
		res.Percentile = 100
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
	return res
}

// distribution returns the successful requests' distribution of a
// latency metric and the factor turning its unit into milliseconds.
func distribution(m Metric, ex *report.Extras) (*report.DistributionSummary, float64) {
	l, _ := metric.ByKey(string(m))
	if ex == nil {
		return nil, l.ToMs()
	}
	sd := ex.Metrics.Latency(l)
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
