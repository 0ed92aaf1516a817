package slo

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/metric"
	"github.com/goodput-dev/goodput/report"
)

// specForm is the accepted --slo form, quoted in errors.
const specForm = "key=value items separated by commas, e.g. " + DefaultSpec

// statForm lists the accepted statistics, quoted in errors.
const statForm = "a percentile p<x> with 0 < x < 100 (p50, p95, p99, p99.9, p97, …), mean or max"

// keyForm lists the accepted keys, quoted in errors.
var keyForm = latencyKeys() + " with an optional _<statistic> (" + statForm + "), fluidity (_min, _mean, _p<x>), deadline_misses (_mean, _max, _p<x>), error_rate or attainment"

// latencyKeys lists the latency metrics' keys: "ttft, itl, … or stall".
func latencyKeys() string {
	ks := metric.Names()
	if len(ks) < 2 {
		return strings.Join(ks, "")
	}
	return strings.Join(ks[:len(ks)-1], ", ") + " or " + ks[len(ks)-1]
}

// Parse reads a spec in goodput's syntax (see the package documentation).
// Errors name the bad item and the accepted form.
func Parse(s string) (Spec, error) {
	if strings.TrimSpace(s) == "" {
		return Spec{}, fmt.Errorf("empty SLO: want %s", specForm)
	}
	var sp Spec
	seen := map[string]bool{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return Spec{}, fmt.Errorf("SLO %q has an empty item: want %s", s, specForm)
		}
		k, v, ok := strings.Cut(item, "=")
		if !ok {
			return Spec{}, fmt.Errorf("SLO item %q: want key=value, e.g. ttft_p99=500ms", item)
		}
		o, err := parseItem(strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v))
		if err != nil {
			return Spec{}, fmt.Errorf("SLO item %q: %w", item, err)
		}
		if seen[o.Key()] {
			return Spec{}, fmt.Errorf("SLO item %q: %s is given twice", item, o.Key())
		}
		seen[o.Key()] = true
		sp.Objectives = append(sp.Objectives, o)
	}
	canonical(sp.Objectives)
	return sp, nil
}

// parseItem reads one key=value item.
func parseItem(k, v string) (Objective, error) {
	switch k {
	case "error_rate":
		f, err := ParseFraction(v)
		if err != nil {
			return Objective{}, fmt.Errorf("error_rate %w", err)
		}
		return Objective{Metric: ErrorRate, Threshold: f}, nil
	case "attainment":
		f, err := ParseFraction(v)
		if err != nil {
			return Objective{}, fmt.Errorf("attainment %w", err)
		}
		if f == 0 {
			return Objective{}, errors.New("attainment 0 judges nothing: want a share of good requests > 0, e.g. 99%")
		}
		return Objective{Metric: Attainment, Threshold: f}, nil
	}
	for _, q := range []Metric{Fluidity, DeadlineMisses} {
		if rest, ok := strings.CutPrefix(k, string(q)); ok && (rest == "" || rest[0] == '_') {
			return parseQuality(q, k, strings.TrimPrefix(rest, "_"), v)
		}
	}
	m, stat, hasStat, ok := metricName(k)
	if !ok {
		return Objective{}, fmt.Errorf("unknown key %q: want %s", k, keyForm)
	}
	o := Objective{Metric: m, Stat: Each}
	if hasStat {
		var err error
		if o.Stat, o.Percentile, err = parseStat(stat); err != nil {
			return Objective{}, fmt.Errorf("key %q: %w", k, err)
		}
	}
	ms, err := parseMs(v)
	if err != nil {
		return Objective{}, err
	}
	o.Threshold = ms
	return o, nil
}

// metricName splits a latency key into its metric (by its key or an
// alias, metric.Latency) and the statistic after it, if any.
func metricName(k string) (m Metric, stat string, hasStat, ok bool) {
	for _, l := range metric.All {
		if l.Key == "" {
			continue
		}
		for _, name := range append([]string{l.Key}, l.Aliases...) {
			if rest, found := strings.CutPrefix(k, name); found && (rest == "" || rest[0] == '_') {
				return Metric(l.Key), strings.TrimPrefix(rest, "_"), rest != "", true
			}
		}
	}
	return "", "", false, false
}

// parseStat reads a statistic: mean, avg, max, median or p<percentile>.
func parseStat(s string) (Stat, float64, error) {
	switch s {
	case "mean", "avg":
		return Mean, 0, nil
	case "max":
		return Max, 0, nil
	case "median":
		return Percentile, 50, nil
	}
	num, ok := strings.CutPrefix(s, "p")
	if !ok || num == "" {
		return 0, 0, fmt.Errorf("unknown statistic %q: want %s", s, statForm)
	}
	// GuideLLM's keys: p001 = 0.1, p01 = 1, p05 = 5, p999 = 99.9.
	switch num {
	case "001":
		return Percentile, 0.1, nil
	case "01":
		return Percentile, 1, nil
	case "05":
		return Percentile, 5, nil
	case "999":
		return Percentile, 99.9, nil
	}
	// Any percentile strictly between 0 and 100: the report's own
	// (p0.1 … p99.9) are judged on the figures it prints, others on the
	// benchmark's HDR histogram (within 0.1%).
	p, err := strconv.ParseFloat(num, 64)
	if err == nil && p > 0 && p < 100 {
		return Percentile, p, nil
	}
	return 0, 0, fmt.Errorf("percentile %q is not available: want %s", s, statForm)
}

// parseQuality reads a fluidity or deadline_misses item: key k, its
// statistic stat ("" for a per-request bound) and value v. Their
// percentiles are the report's own (p0.1 … p99.9), read from the
// streaming-quality distributions.
func parseQuality(m Metric, k, stat, v string) (Objective, error) {
	o := Objective{Metric: m, Stat: Each}
	switch stat {
	case "":
	case "mean", "avg":
		o.Stat = Mean
	case "min":
		o.Stat = Min
	case "max":
		o.Stat = Max
	default:
		st, p, err := parseStat(stat)
		if err != nil || st != Percentile || !reportPercentile(p) {
			return Objective{}, fmt.Errorf("key %q: unknown statistic %q: want _min, _mean, _max or a report percentile (p0.1, p1, p5, p10, p25, p50, p75, p90, p95, p99, p99.9)", k, stat)
		}
		o.Stat, o.Percentile = st, p
	}
	if m == Fluidity {
		if o.Stat == Max {
			return Objective{}, fmt.Errorf("key %q: fluidity is bounded from below: want fluidity, fluidity_min, fluidity_mean or fluidity_p<x>", k)
		}
		f, err := ParseFraction(v)
		if err != nil {
			return Objective{}, fmt.Errorf("fluidity %w", err)
		}
		if f == 0 {
			return Objective{}, errors.New("fluidity 0 judges nothing: want a floor > 0, e.g. 0.9")
		}
		o.Threshold = f
		return o, nil
	}
	if o.Stat == Min {
		return Objective{}, fmt.Errorf("key %q: deadline_misses is bounded from above: want deadline_misses, _mean, _max or _p<x>", k)
	}
	n, ok := finite(v)
	if !ok || n < 0 {
		return Objective{}, fmt.Errorf("value %q: want a number of missed token deadlines >= 0", v)
	}
	o.Threshold = n
	return o, nil
}

// reportPercentile reports whether p is one of the report's percentiles.
func reportPercentile(p float64) bool {
	for _, q := range report.PercentileProbs {
		if math.Abs(q*100-p) < 1e-9 {
			return true
		}
	}
	return false
}

// finite parses a finite float.
func finite(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// unitMs are duration suffixes in milliseconds, longest first so that
// "ms" is not read as "m" (an "s" suffix is checked after "ms", "us" and
// "ns").
var unitMs = [...]struct {
	suffix string
	ms     float64
}{{"ns", 1e-6}, {"us", 1e-3}, {"µs", 1e-3}, {"μs", 1e-3}, {"ms", 1}, {"s", 1e3}, {"m", 60e3}, {"h", 3600e3}}

// latencyForm is the accepted latency value form, quoted in errors.
const latencyForm = "a duration such as 500ms, 0.5s or 250us, or a number of milliseconds, between 1ns and 24h"

// parseMs reads a latency threshold: a number of milliseconds, a number
// with a unit, or a Go duration.
func parseMs(v string) (float64, error) {
	ms, ok := durationMs(v)
	if !ok || !(ms >= minLatencyMs) || ms > MaxLatencyMs {
		return 0, fmt.Errorf("value %q: want %s", v, latencyForm)
	}
	return ms, nil
}

// durationMs converts a latency value to milliseconds.
func durationMs(v string) (float64, bool) {
	if f, ok := finite(v); ok {
		return f, true
	}
	for _, u := range unitMs {
		if num, found := strings.CutSuffix(v, u.suffix); found {
			if f, ok := finite(num); ok {
				return f * u.ms, true
			}
			break
		}
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, false
	}
	return float64(d) / 1e6, true
}

// ParseFraction reads a fraction in [0, 1]: 0.005 or 0.5% (the SLO's rates
// and goodput's other rates on the command line).
func ParseFraction(v string) (float64, error) {
	f, ok := 0.0, false
	if num, pct := strings.CutSuffix(v, "%"); pct {
		if f, ok = finite(strings.TrimSpace(num)); ok {
			f /= 100
		}
	} else {
		f, ok = finite(v)
	}
	if !ok || f < 0 || f > 1 {
		return 0, fmt.Errorf("%q: want a fraction from 0 to 1 (0.005) or a percentage (0.5%%)", v)
	}
	return f, nil
}

// ParseAIPerf reads AIPerf's --goodput form into goodput's per-request
// Spec: ParseAIPerfGoodput, then AIPerfSpec.
func ParseAIPerf(s string) (Spec, error) {
	ts, err := ParseAIPerfGoodput(s)
	if err != nil {
		return Spec{}, err
	}
	return AIPerfSpec(ts)
}

// aiperfPerUser is AIPerf's per-user output rate, 1 / ITL.
const aiperfPerUser = "output_token_throughput_per_user"

// aiperfSpecKeys are the AIPerf tags goodput's Spec has a metric for: the
// SLO-able rows with an AIPerf tag, and the per-user rate.
var aiperfSpecKeys = func() string {
	var ks []string
	for _, l := range metric.All {
		if l.Key != "" && l.AIPerf != "" {
			ks = append(ks, l.AIPerf)
		}
	}
	return strings.Join(ks, ", ") + " or " + aiperfPerUser
}()

// aiperfMetric is the SLO-able metric whose AIPerf tag is tag.
func aiperfMetric(tag string) (Metric, bool) {
	for _, l := range metric.All {
		if l.Key != "" && tag != "" && l.AIPerf == tag {
			return Metric(l.Key), true
		}
	}
	return "", false
}

// AIPerfSpec turns AIPerf --goodput pairs into goodput's Spec, per-request
// thresholds only: the metrics whose AIPerf tag the metric table gives
// (time_to_first_token, inter_token_latency and request_latency, in ms),
// and output_token_throughput_per_user (tokens/s per user, bounding itl
// at 1000/value ms); when both inter_token_latency and
// output_token_throughput_per_user are given, the stricter itl bound
// applies. A pair goodput has no metric for is an error naming it.
func AIPerfSpec(ts []AIPerfThreshold) (Spec, error) {
	if len(ts) == 0 {
		return Spec{}, fmt.Errorf("empty AIPerf --goodput: want space-separated key:value pairs with keys %s", aiperfSpecKeys)
	}
	var sp Spec
	byMetric := map[Metric]int{}
	for _, t := range ts {
		m, ok := aiperfMetric(t.Tag)
		var rate float64 // numerator turning a rate into ms; 0 for a value in ms
		switch {
		case ok:
		case t.Tag == aiperfPerUser:
			m, rate = ITL, 1000 // tokens/s per user → ms per token
		default:
			return Spec{}, fmt.Errorf("AIPerf --goodput pair %q: unknown key %q: want %s", t, t.Tag, aiperfSpecKeys)
		}
		if t.Threshold <= 0 {
			return Spec{}, fmt.Errorf("AIPerf --goodput pair %q: want a number > 0", t)
		}
		ms := t.Threshold
		if rate > 0 {
			ms = rate / t.Threshold
		}
		if ms < minLatencyMs || ms > MaxLatencyMs {
			return Spec{}, fmt.Errorf("AIPerf --goodput pair %q: the threshold %v ms is out of range (1ns to 24h)", t, ms)
		}
		if i, dup := byMetric[m]; dup {
			sp.Objectives[i].Threshold = min(sp.Objectives[i].Threshold, ms)
			continue
		}
		byMetric[m] = len(sp.Objectives)
		sp.Objectives = append(sp.Objectives, Objective{Metric: m, Stat: Each, Threshold: ms})
	}
	canonical(sp.Objectives)
	return sp, nil
}
