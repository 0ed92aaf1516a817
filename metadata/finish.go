package metadata

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/report"
)

// Finish completes metadata that Collect started, once the benchmarks
// ran: the maximum concurrency tested (from the rounds; it replaces a
// declared value, which is then kept as a free label if it differs), and
// ISL/OSL from the measured mean prompt and output token counts where the
// data description gave none. It recomputes Missing over every required
// field and returns notes for the console.
func Finish(md *report.RunMetadata, benchmarks []*report.Benchmark) []string {
	var notes []string
	if md.Sources == nil {
		md.Sources = map[string]string{}
	}
	if md.Labels == nil {
		md.Labels = map[string]string{}
	}
	if n, src := MaxConcurrency(benchmarks); n > 0 {
		if old := int64(md.MaxConcurrency); old > 0 && old != int64(n) {
			if lbl := md.Sources[FieldMaxConcurrency]; lbl != "" && !strings.HasPrefix(lbl, "rounds:") {
				notes = append(notes, fmt.Sprintf("max_concurrency: %s declared %d, the rounds tested %d; the rounds' value is recorded", lbl, old, n))
				md.Labels["max_concurrency"] = strconv.FormatInt(old, 10)
			}
		}
		md.MaxConcurrency = report.Int(n)
		md.Sources[FieldMaxConcurrency] = src
	}
	fill := func(field string, dst *report.Float, get func(*report.Metrics) *report.StatusDistributionSummary, what string) {
		if *dst > 0 {
			return
		}
		var sum, count float64
		for _, b := range benchmarks {
			if b == nil {
				continue
			}
			d := get(&b.Metrics)
			if d == nil || d.Successful == nil || d.Successful.Count <= 0 {
				continue
			}
			sum += float64(d.Successful.Mean) * float64(d.Successful.Count)
			count += float64(d.Successful.Count)
		}
		if count > 0 && sum > 0 {
			*dst = report.Float(sum / count)
			md.Sources[field] = "measured: mean " + what + " of the successful requests"
		}
	}
	fill(FieldISL, &md.ISLTokens, func(m *report.Metrics) *report.StatusDistributionSummary { return m.PromptTokenCount }, "prompt tokens")
	fill(FieldOSL, &md.OSLTokens, func(m *report.Metrics) *report.StatusDistributionSummary { return m.OutputTokenCount }, "output tokens")
	md.Missing = MissingFields(md)
	return notes
}

// MaxConcurrency is the highest concurrency the benchmarks tested: the
// streams of concurrent rounds, the in-flight cap of throughput rounds,
// 1 for synchronous rounds and, for rate-driven rounds (constant,
// poisson, replay), the peak measured request concurrency (rounded up).
// source says which.
func MaxConcurrency(benchmarks []*report.Benchmark) (n int, source string) {
	for _, b := range benchmarks {
		if b == nil {
			continue
		}
		s := b.Config.Strategy
		v, src := 0, ""
		switch s.Type {
		case report.StrategySynchronous:
			v, src = 1, "rounds: synchronous"
		case report.StrategyConcurrent:
			v, src = s.Streams, "rounds: concurrent streams"
		case report.StrategyThroughput:
			if s.MaxConcurrency > 0 {
				v, src = s.MaxConcurrency, "rounds: throughput in-flight cap"
			}
		}
		if v == 0 {
			if peak := peakConcurrency(b); peak > 0 {
				v, src = peak, "rounds: peak measured request concurrency"
			}
		}
		if v > n {
			n, source = v, src
		}
	}
	return n, source
}

func peakConcurrency(b *report.Benchmark) int {
	d := b.Metrics.RequestConcurrency
	if d == nil {
		return 0
	}
	best := 0.0
	for _, x := range []*report.DistributionSummary{d.Total, d.Successful} {
		if x != nil && float64(x.Max) > best {
			best = float64(x.Max)
		}
	}
	return int(math.Ceil(best - 1e-9))
}
