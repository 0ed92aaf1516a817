package slo

import (
	"fmt"
	"slices"

	"github.com/goodput-dev/goodput/report"
)

// New is the spec of objectives a front end built (rather than read from
// text): each key once, thresholds in range, in canonical order.
func New(objs ...Objective) (Spec, error) {
	seen := map[string]bool{}
	for _, o := range objs {
		if seen[o.Key()] {
			return Spec{}, fmt.Errorf("%s is given twice", o.Key())
		}
		seen[o.Key()] = true
		if err := o.check(); err != nil {
			return Spec{}, fmt.Errorf("%s: %w", o.Key(), err)
		}
	}
	s := Spec{Objectives: slices.Clone(objs)}
	canonical(s.Objectives)
	return s, nil
}

// check is what Parse checks of an objective read from text: a known
// metric, a percentile inside (0, 100), a threshold in range.
func (o Objective) check() error {
	if o.Stat == Percentile && !(o.Percentile > 0 && o.Percentile < 100) {
		return fmt.Errorf("percentile %v: want 0 < p < 100", o.Percentile)
	}
	t := o.Threshold
	switch {
	case o.Metric.latency():
		if !(t >= minLatencyMs && t <= MaxLatencyMs) {
			return fmt.Errorf("the threshold %v ms is out of range (1ns to 24h)", t)
		}
	case o.Metric == ErrorRate, o.Metric == Fluidity:
		if !(t >= 0 && t <= 1) {
			return fmt.Errorf("%v: want a fraction from 0 to 1", t)
		}
	case o.Metric == Attainment:
		if !(t > 0 && t <= 1) {
			return fmt.Errorf("%v: want a share of good requests 0 < x ≤ 1", t)
		}
	case o.Metric == DeadlineMisses:
		if !(t >= 0) {
			return fmt.Errorf("%v: want a count ≥ 0", t)
		}
	default:
		return fmt.Errorf("unknown metric %q (want %s)", o.Metric, keyForm)
	}
	return nil
}

// Find is the spec's objective on m with statistic stat (at percentile p
// for Percentile), ok false when it has none.
func (s Spec) Find(m Metric, stat Stat, p float64) (Objective, bool) {
	for _, o := range s.Objectives {
		if o.Metric == m && o.Stat == stat && (stat != Percentile || o.Percentile == p) {
			return o, true
		}
	}
	return Objective{}, false
}

// Quantile is the percentile a latency or streaming-quality objective
// bounds: its Percentile, 100 for Max; ok false for a mean, a minimum, a
// per-request threshold or a fraction.
func (o Objective) Quantile() (float64, bool) {
	switch {
	case o.Stat == Percentile:
		return o.Percentile, true
	case o.Stat == Max && (o.Metric.latency() || o.Metric.quality()):
		return 100, true
	}
	return 0, false
}

// FromResult is the spec a benchmark was judged against, read from its
// verdict's objectives field by field (metric, statistic, unit,
// threshold), not from the verdict's text. A verdict lists the objectives
// with a benchmark-level statistic, error_rate and attainment (its floor,
// explicit or not); per-request thresholds are judged through the
// attainment and are not among them. An objective whose metric or unit
// this version does not know is left out.
func FromResult(r *report.SLOResult) Spec {
	if r == nil {
		return Spec{}
	}
	s := Spec{Default: r.Default}
	for _, res := range r.Objectives {
		if o, ok := objectiveOf(res); ok {
			s.Objectives = append(s.Objectives, o)
		}
	}
	canonical(s.Objectives)
	return s
}

// objectiveOf is the objective a verdict's objective judged: its metric
// and unit, and the statistic whose key it bears.
func objectiveOf(res report.ObjectiveResult) (Objective, bool) {
	o := Objective{Metric: Metric(res.Metric), Threshold: float64(res.Threshold)}
	switch {
	case o.Metric.latency():
		if res.Unit != "ms" {
			return Objective{}, false
		}
	case o.Metric == Fluidity, o.Metric == ErrorRate, o.Metric == Attainment:
		if res.Unit != "fraction" {
			return Objective{}, false
		}
		if !o.Metric.quality() {
			return o, res.Key == string(o.Metric)
		}
	case o.Metric == DeadlineMisses:
		if res.Unit != "count" {
			return Objective{}, false
		}
	default:
		return Objective{}, false
	}
	for _, st := range []Stat{Percentile, Mean, Max, Min} {
		o.Stat, o.Percentile = st, 0
		if st == Percentile {
			o.Percentile = float64(res.Percentile)
		}
		if o.Key() == res.Key {
			return o, true
		}
	}
	return Objective{}, false
}
