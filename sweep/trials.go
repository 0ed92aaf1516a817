package sweep

import (
	"math"

	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/stats"
)

// DefaultRunVariation is the default --run-variation-threshold: a figure
// whose runs have a coefficient of variation above 10 % is flagged.
const DefaultRunVariation = 0.10

// trialFigures are the figures compared across runs: name and value of a
// benchmark (ok false when it has none).
var trialFigures = []struct {
	name string
	get  func(b *report.Benchmark) (float64, bool)
}{
	{"requests_per_second_mean", func(b *report.Benchmark) (float64, bool) { return mean(b.Metrics.RequestsPerSecond) }},
	{"output_tokens_per_second_mean", func(b *report.Benchmark) (float64, bool) { return mean(b.Metrics.OutputTokensPerSecond) }},
	{"time_to_first_token_ms_mean", func(b *report.Benchmark) (float64, bool) { return mean(b.Metrics.TimeToFirstTokenMs) }},
	{"time_to_first_token_ms_p99", func(b *report.Benchmark) (float64, bool) { return p99(b.Metrics.TimeToFirstTokenMs) }},
	{"inter_token_latency_ms_mean", func(b *report.Benchmark) (float64, bool) { return mean(b.Metrics.InterTokenLatencyMs) }},
	{"request_latency_mean", func(b *report.Benchmark) (float64, bool) { return mean(b.Metrics.RequestLatency) }},
	{"request_latency_p99", func(b *report.Benchmark) (float64, bool) { return p99(b.Metrics.RequestLatency) }},
	{"goodput_output_tokens_per_second", func(b *report.Benchmark) (float64, bool) {
		if b.Extras == nil || b.Extras.SLO == nil {
			return 0, false
		}
		return float64(b.Extras.SLO.GoodputOutputTokS), true
	}},
}

func mean(d *report.StatusDistributionSummary) (float64, bool) {
	if d == nil || d.Successful == nil || d.Successful.Count == 0 {
		return 0, false
	}
	return float64(d.Successful.Mean), true
}

func p99(d *report.StatusDistributionSummary) (float64, bool) {
	if d == nil || d.Successful == nil || d.Successful.Count == 0 {
		return 0, false
	}
	return float64(d.Successful.Percentiles.P99), true
}

// Trials summarises the rounds of a plan run runs times (Repeat): rounds
// of the same strategy, one per run, are compared figure by figure at the
// confidence given (0: stats.DefaultConfidence); threshold is the
// coefficient of variation above which a figure is flagged. nil for a
// single run.
func Trials(runs int, rounds []Round, confidence, threshold float64) *report.Trials {
	if runs <= 1 {
		return nil
	}
	if confidence <= 0 || confidence >= 1 {
		confidence = stats.DefaultConfidence
	}
	t := &report.Trials{Runs: report.Int(runs), Confidence: report.Float(confidence), VariationThreshold: report.Float(threshold),
		Points: []report.TrialPoint{}, Flagged: []string{}}
	var order []string
	byLabel := map[string][]int{}
	for i, r := range rounds {
		if r.Benchmark == nil || r.Excluded {
			continue
		}
		l := r.Strategy.String()
		if _, ok := byLabel[l]; !ok {
			order = append(order, l)
		}
		byLabel[l] = append(byLabel[l], i)
	}
	for _, l := range order {
		idx := byLabel[l]
		if len(idx) < 2 {
			continue
		}
		pt := report.TrialPoint{Strategy: l}
		for _, i := range idx {
			pt.Benchmarks = append(pt.Benchmarks, report.Int(i))
		}
		for _, f := range trialFigures {
			var vs []float64
			for _, i := range idx {
				if v, ok := f.get(rounds[i].Benchmark); ok && !math.IsNaN(v) {
					vs = append(vs, v)
				}
			}
			if len(vs) < 2 {
				continue
			}
			m := trialMetric(f.name, vs, confidence, threshold)
			if m.Exceeds {
				t.Flagged = append(t.Flagged, l+": "+f.name)
			}
			pt.Metrics = append(pt.Metrics, m)
		}
		t.Points = append(t.Points, pt)
	}
	return t
}

// trialMetric is one figure's spread over its values.
func trialMetric(name string, vs []float64, confidence, threshold float64) report.TrialMetric {
	n := float64(len(vs))
	sum := 0.0
	for _, v := range vs {
		sum += v
	}
	mu := sum / n
	ss := 0.0
	for _, v := range vs {
		ss += (v - mu) * (v - mu)
	}
	sd := math.Sqrt(ss / (n - 1))
	m := report.TrialMetric{Metric: name, Mean: report.Float(mu), Std: report.Float(sd), SE: report.Float(sd / math.Sqrt(n)),
		TCritical: report.Float(stats.TQuantile(1-(1-confidence)/2, n-1))}
	for _, v := range vs {
		m.Values = append(m.Values, report.Float(v))
	}
	if mu != 0 {
		m.CV = report.Float(sd / math.Abs(mu))
	}
	iv := stats.MeanCI(mu, math.Sqrt(ss/n), int64(len(vs)), confidence)
	if iv.Bounded() {
		m.CILow, m.CIHigh = report.FloatPtr(iv.Lower), report.FloatPtr(iv.Upper)
	}
	m.Exceeds = threshold > 0 && float64(m.CV) > threshold
	return m
}
