package stats

import (
	"math"
	"slices"
)

// Observation is one right-censored time: Event is false when the
// request was still waiting at Time (cut off by the end of its benchmark),
// so its true time is only known to exceed Time.
type Observation struct {
	Time  float64
	Event bool
}

// Survival is the Kaplan–Meier estimate of a time-to-event distribution
// from right-censored observations: requests in flight when a benchmark
// ends are not deleted (which biases the tail low: the longest waits are
// the ones cut off) but counted as "longer than this" until they leave
// the risk set.
type Survival struct {
	times []float64 // distinct event times, ascending
	surv  []float64 // S just after each event time
	gw    []float64 // Greenwood's Σ d/(n(n−d)) up to each event time
	// Events and Censored count the observations; MaxTime is the largest
	// time observed (event or censored).
	Events, Censored int64
	MaxTime          float64
}

// KaplanMeier estimates the survival function of obs (reordered in
// place). At tied times events come before censorings, the usual
// convention: a request cut off at t was still waiting at t.
func KaplanMeier(obs []Observation) *Survival {
	slices.SortFunc(obs, func(a, b Observation) int {
		if a.Time != b.Time {
			if a.Time < b.Time {
				return -1
			}
			return 1
		}
		switch {
		case a.Event == b.Event:
			return 0
		case a.Event:
			return -1
		}
		return 1
	})
	s := &Survival{}
	atRisk := float64(len(obs))
	cur, gw := 1.0, 0.0
	for i := 0; i < len(obs); {
		t := obs[i].Time
		var d, c float64
		for ; i < len(obs) && obs[i].Time == t; i++ {
			if obs[i].Event {
				d++
			} else {
				c++
			}
		}
		s.Events += int64(d)
		s.Censored += int64(c)
		s.MaxTime = t
		if d > 0 {
			cur *= 1 - d/atRisk
			if atRisk > d {
				gw += d / (atRisk * (atRisk - d))
			} else {
				gw = math.Inf(1)
			}
			s.times = append(s.times, t)
			s.surv = append(s.surv, cur)
			s.gw = append(s.gw, gw)
		}
		atRisk -= d + c
	}
	return s
}

// S is the estimated survival P(T > t).
func (s *Survival) S(t float64) float64 {
	i, found := slices.BinarySearch(s.times, t)
	if !found {
		i--
	}
	if i < 0 {
		return 1
	}
	return s.surv[i]
}

// Quantile is the estimated quantile p (0..1): the first event time at
// which 1 − S reaches p (without interpolation, GuideLLM's percentile
// rule; with no censoring it equals the completed-only percentile).
// false when the estimate never reaches p (too many observations were
// cut off before it): the quantile is then only known to exceed the
// censored times, MaxTime at most.
func (s *Survival) Quantile(p float64) (float64, bool) {
	return s.firstBelow(func(i int) float64 { return s.surv[i] }, p)
}

func (s *Survival) firstBelow(band func(i int) float64, p float64) (float64, bool) {
	const eps = 1e-12
	for i := range s.times {
		if band(i) <= 1-p+eps {
			return s.times[i], true
		}
	}
	return math.Inf(1), false
}

// QuantileCI is the interval of quantile p, by inverting Greenwood's
// pointwise band of S (the lower bound is where the band's lower edge
// reaches 1 − p, the upper bound where its upper edge does; survival's
// "plain" interval in R). A bound that is never reached is infinite.
func (s *Survival) QuantileCI(p, confidence float64) CI {
	if !validConfidence(confidence) || len(s.times) == 0 {
		return unbounded(confidence)
	}
	z := math.Sqrt2 * math.Erfinv(confidence)
	se := func(i int) float64 { return s.surv[i] * math.Sqrt(s.gw[i]) }
	lo, _ := s.firstBelow(func(i int) float64 { return math.Max(s.surv[i]-z*se(i), 0) }, p)
	hi, _ := s.firstBelow(func(i int) float64 {
		if math.IsInf(s.gw[i], 1) { // the last at risk had the event: S = 0 exactly
			return s.surv[i]
		}
		return math.Min(s.surv[i]+z*se(i), 1)
	}, p)
	if math.IsInf(lo, 1) {
		lo = s.MaxTime // even the lower edge stays above 1 − p: the quantile is beyond every time seen
	}
	return CI{Lower: lo, Upper: hi, Confidence: confidence}
}

// Attained is the estimated share of observations whose time is at most
// t, 1 − S(t), with censored times counted correctly: a request cut off
// after t is known to have exceeded t.
func (s *Survival) Attained(t float64) float64 { return 1 - s.S(t) }
