package compare

import (
	"fmt"

	"github.com/goodput-dev/goodput/report"
)

// trialFigure is the run extras' trials figure behind a row's metric and
// the factor turning it into the row's unit; ok is false for a metric the
// trials do not hold.
func trialFigure(key string) (name string, scale float64, ok bool) {
	switch key {
	case MetricGoodput:
		return "goodput_output_tokens_per_second", 1, true
	case MetricThroughput:
		return "output_tokens_per_second_mean", 1, true
	case MetricTTFTP99:
		return "time_to_first_token_ms_p99", 1, true
	case MetricLatencyP99:
		return "request_latency_p99", 1000, true
	}
	return "", 0, false
}

// trialOf is the figure name of the load benchmark i belongs to in r's
// repeated runs (--num-runs), with its number of runs; nil when r was
// run once or the load has no such figure.
func trialOf(r *report.Report, i int, name string) (*report.TrialMetric, int) {
	if r == nil || r.Run == nil || r.Run.Trials == nil {
		return nil, 0
	}
	for _, p := range r.Run.Trials.Points {
		for _, b := range p.Benchmarks {
			if int(b) != i {
				continue
			}
			for k := range p.Metrics {
				if m := &p.Metrics[k]; m.Metric == name && m.CILow != nil && m.CIHigh != nil {
					return m, len(p.Benchmarks)
				}
			}
			return nil, 0
		}
	}
	return nil, 0
}

// trialRow replaces a row's values by the means across runs and its noise
// by their t intervals when both runs repeated the load; it reports
// whether it did.
func trialRow(r *Row, s MetricSpec, b, cur side, bi, ci int) bool {
	name, scale, ok := trialFigure(s.Key)
	if !ok {
		return false
	}
	bm, bn := trialOf(b.rep, bi, name)
	cm, cn := trialOf(cur.rep, ci, name)
	if bm == nil || cm == nil {
		return false
	}
	iv := func(m *report.TrialMetric) Interval {
		return Interval{Low: float64(*m.CILow) * scale, High: float64(*m.CIHigh) * scale}
	}
	r.Baseline, r.Current = ptr(float64(bm.Mean)*scale), ptr(float64(cm.Mean)*scale)
	n := &Noise{Baseline: iv(bm), Current: iv(cm), SampleSizes: [2]int{bn, cn}}
	n.Significant = n.Current.above(n.Baseline) || n.Baseline.above(n.Current)
	r.Noise, r.NoiseNote = n, ""
	r.Note = fmt.Sprintf("means of %d and %d runs; noise: their t intervals across runs", bn, cn)
	return true
}
