package report

import (
	"encoding/json"
	"math"
)

// Percentiles are GuideLLM's percentile keys. P50 is a pointer only so that
// GuideLLM v0.2–v0.3 reports, which have no p50 key, read back with the
// value absent; every distribution goodput computes sets it.
type Percentiles struct {
	P001 Float  `json:"p001"`
	P01  Float  `json:"p01"`
	P05  Float  `json:"p05"`
	P10  Float  `json:"p10"`
	P25  Float  `json:"p25"`
	P50  *Float `json:"p50"`
	P75  Float  `json:"p75"`
	P90  Float  `json:"p90"`
	P95  Float  `json:"p95"`
	P99  Float  `json:"p99"`
	P999 Float  `json:"p999"`
}

// PercentileProbs are the probabilities of the Percentiles fields, in
// field order.
var PercentileProbs = [11]float64{0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999}

func (p *Percentiles) Set(i int, v float64) {
	f := Float(v)
	switch i {
	case 0:
		p.P001 = f
	case 1:
		p.P01 = f
	case 2:
		p.P05 = f
	case 3:
		p.P10 = f
	case 4:
		p.P25 = f
	case 5:
		p.P50 = &f
	case 6:
		p.P75 = f
	case 7:
		p.P90 = f
	case 8:
		p.P95 = f
	case 9:
		p.P99 = f
	case 10:
		p.P999 = f
	}
}

func (p *Percentiles) get(i int) Float {
	switch i {
	case 0:
		return p.P001
	case 1:
		return p.P01
	case 2:
		return p.P05
	case 3:
		return p.P10
	case 4:
		return p.P25
	case 6:
		return p.P75
	case 7:
		return p.P90
	case 8:
		return p.P95
	case 9:
		return p.P99
	}
	return p.P999
}

// Percentile returns percentile pct (in percent: 0.1, 1, 5, …, 99.9) of
// d, and false when the report does not carry that percentile (or d is
// nil). The 50th is p50, or the median in a report without p50.
func (d *DistributionSummary) Percentile(pct float64) (float64, bool) {
	if d == nil {
		return math.NaN(), false
	}
	for i, pr := range PercentileProbs {
		if math.Abs(pr*100-pct) > 1e-9 {
			continue
		}
		if i == 5 {
			if d.Percentiles.P50 != nil {
				return float64(*d.Percentiles.P50), true
			}
			return float64(d.Median), true
		}
		return float64(d.Percentiles.get(i)), true
	}
	return math.NaN(), false
}

// DistributionSummary is GuideLLM's DistributionSummary. Count is the sum
// of the sample weights (so it is in tokens for token-weighted metrics),
// TotalSum is Mean×Count, and PDF is always null in goodput's output (it
// is kept verbatim when a GuideLLM report carries one).
type DistributionSummary struct {
	Mean        Float           `json:"mean"`
	Median      Float           `json:"median"`
	Mode        Float           `json:"mode"`
	Variance    Float           `json:"variance"`
	StdDev      Float           `json:"std_dev"`
	Min         Float           `json:"min"`
	Max         Float           `json:"max"`
	Count       Int             `json:"count"`
	TotalSum    Float           `json:"total_sum"`
	Percentiles Percentiles     `json:"percentiles"`
	PDF         json.RawMessage `json:"pdf"`
	// MeanCI and PercentileCIs are the confidence intervals of the mean
	// (Student's t) and of each percentile (distribution-free, order
	// statistics), GuideLLM's newest fields; nil in a report that has none
	// (an older one, another tool's, a rate or concurrency distribution).
	MeanCI        *ConfidenceInterval `json:"mean_ci,omitempty"`
	PercentileCIs *PercentileCIs      `json:"percentile_cis,omitempty"`
}

// ConfidenceInterval is an interval at a confidence (0..1). A bound the
// sample cannot give at that confidence is null: p99 of 20 requests has
// no upper bound at 95 %.
type ConfidenceInterval struct {
	Lower      *Float `json:"lower"`
	Upper      *Float `json:"upper"`
	Confidence Float  `json:"confidence"`
}

// Bounded reports whether both bounds are known.
func (c *ConfidenceInterval) Bounded() bool { return c != nil && c.Lower != nil && c.Upper != nil }

// NewConfidenceInterval builds one from bounds, an infinite or NaN bound
// becoming null.
func NewConfidenceInterval(lower, upper, confidence float64) *ConfidenceInterval {
	ci := &ConfidenceInterval{Confidence: Float(confidence)}
	if !math.IsInf(lower, 0) && !math.IsNaN(lower) {
		f := Float(lower)
		ci.Lower = &f
	}
	if !math.IsInf(upper, 0) && !math.IsNaN(upper) {
		f := Float(upper)
		ci.Upper = &f
	}
	return ci
}

// PercentileCIs are the intervals of the Percentiles, under the same keys.
type PercentileCIs struct {
	P001 *ConfidenceInterval `json:"p001"`
	P01  *ConfidenceInterval `json:"p01"`
	P05  *ConfidenceInterval `json:"p05"`
	P10  *ConfidenceInterval `json:"p10"`
	P25  *ConfidenceInterval `json:"p25"`
	P50  *ConfidenceInterval `json:"p50"`
	P75  *ConfidenceInterval `json:"p75"`
	P90  *ConfidenceInterval `json:"p90"`
	P95  *ConfidenceInterval `json:"p95"`
	P99  *ConfidenceInterval `json:"p99"`
	P999 *ConfidenceInterval `json:"p999"`
}

func (p *PercentileCIs) slot(i int) **ConfidenceInterval {
	return [...]**ConfidenceInterval{&p.P001, &p.P01, &p.P05, &p.P10, &p.P25, &p.P50, &p.P75, &p.P90, &p.P95, &p.P99, &p.P999}[i]
}

// At is the interval of PercentileProbs[i].
func (p *PercentileCIs) At(i int) *ConfidenceInterval { return *p.slot(i) }

// Set stores the interval of PercentileProbs[i].
func (p *PercentileCIs) Set(i int, ci *ConfidenceInterval) { *p.slot(i) = ci }

// PercentileCI returns the interval of percentile pct (in percent, like
// Percentile); nil when the report has none.
func (d *DistributionSummary) PercentileCI(pct float64) *ConfidenceInterval {
	if d == nil || d.PercentileCIs == nil {
		return nil
	}
	for i, pr := range PercentileProbs {
		if math.Abs(pr*100-pct) <= 1e-9 {
			return *d.PercentileCIs.slot(i)
		}
	}
	return nil
}

// StatusDistributionSummary is GuideLLM's per-status breakdown of a
// distribution. A nil member is a key absent from the source report.
type StatusDistributionSummary struct {
	Successful *DistributionSummary `json:"successful"`
	Errored    *DistributionSummary `json:"errored"`
	Incomplete *DistributionSummary `json:"incomplete"`
	Total      *DistributionSummary `json:"total"`
}

// Status indexes used by tagged samples.
const (
	StatusSuccessful uint8 = iota
	StatusErrored
	StatusIncomplete
	NumStatus
)

func (s *StatusDistributionSummary) ByStatus(st uint8) *DistributionSummary {
	switch st {
	case StatusSuccessful:
		return s.Successful
	case StatusErrored:
		return s.Errored
	case StatusIncomplete:
		return s.Incomplete
	}
	return s.Total
}

func (s *StatusDistributionSummary) SetStatus(st uint8, d *DistributionSummary) {
	switch st {
	case StatusSuccessful:
		s.Successful = d
	case StatusErrored:
		s.Errored = d
	case StatusIncomplete:
		s.Incomplete = d
	default:
		s.Total = d
	}
}
