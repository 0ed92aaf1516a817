package aiperf

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/slo"
)

// FromReport approximates the AIPerf export of rep.Benchmarks[index]
// from the report alone, for reports whose per-request records are not
// available (GuideLLM's reports, or a goodput report without its JSON
// Lines file). It uses goodput's absent-means-absent distributions where
// the report has them (their means, std, min, max and counts are exact,
// their percentiles come from HDR histograms), GuideLLM's otherwise.
// goodput_export.source is "report", goodput_export.exact is false and
// goodput_export.inexact_reasons says what differs from AIPerf's own numbers.
// Metrics that cannot be derived from distributions (AIPerf's per-request
// throughputs, time_to_second_token) are left out.
func FromReport(rep *report.Report, index int, opts Options) (*Export, error) {
	x, err := aiperfHeader(rep, index, opts, "report")
	if err != nil {
		return nil, err
	}
	b := rep.Benchmarks[index]
	prov := x.Goodput
	prov.Exact = false
	prov.InexactReasons = append(prov.InexactReasons,
		"approximated from the report's distributions: no per-request records were available; percentiles are the report's (GuideLLM's first value reaching p, or an HDR bucket), not numpy's interpolation",
		"request_latency ends at the end of the response (AIPerf: at the last content chunk)")
	m := &b.Metrics
	var ex *report.ExtraMetrics
	if b.Extras != nil {
		ex = &b.Extras.Metrics
	}
	succOf := func(d *report.StatusDistributionSummary) *report.DistributionSummary {
		if d == nil {
			return nil
		}
		return d.Successful
	}
	// pick prefers goodput's distribution of a metric to GuideLLM's.
	pick := func(extra func(*report.ExtraMetrics) *report.StatusDistributionSummary, guide *report.StatusDistributionSummary) *report.DistributionSummary {
		if ex != nil {
			if d := succOf(extra(ex)); d != nil {
				return d
			}
		}
		return succOf(guide)
	}
	var succ, errored, incomplete int64
	if t := m.RequestTotals; t != nil {
		succ, errored, incomplete = int64(t.Successful), int64(t.Errored), int64(t.Incomplete)
	}
	prov.InWindow = succ + errored + incomplete
	if b.Extras != nil {
		prov.OutsideWindow = int64(b.Extras.Requests.OutsideWindow)
	}
	addDist := func(def int, d *report.DistributionSummary, scale float64, isTime bool, count *int64) {
		if d == nil || d.Count == 0 {
			return
		}
		if isTime && d.Max == 0 && d.Min == 0 {
			return // GuideLLM's zero-filling of a metric nobody measured (no streaming)
		}
		mt := summaryMetric(&aiperfRecordDefs[def], d, scale)
		if count != nil {
			n := *count
			mt.Count = &n
			s := *mt.Avg * float64(n)
			mt.Sum = &s
		}
		x.Metrics = append(x.Metrics, mt)
	}
	addDist(apRequestLatency, pick(func(e *report.ExtraMetrics) *report.StatusDistributionSummary { return e.RequestLatency }, m.RequestLatency), 1000, true, nil)
	addDist(apTTFT, pick(func(e *report.ExtraMetrics) *report.StatusDistributionSummary { return e.TimeToFirstTokenMs }, m.TimeToFirstTokenMs), 1, true, nil)
	addDist(apTTFO, pick(func(e *report.ExtraMetrics) *report.StatusDistributionSummary { return e.TimeToFirstOutputTokenMs }, m.TimeToFirstOutputTokenMs), 1, true, nil)
	if d := pick(func(e *report.ExtraMetrics) *report.StatusDistributionSummary { return e.InterTokenLatencyMs }, m.InterTokenLatencyMs); d != nil && d.Count > 0 {
		// GuideLLM's ITL distribution weights each request's value by its
		// output tokens − 1; its count is in tokens.
		n := succ
		addDist(apITL, d, 1, true, &n)
		if x.Metric(aiperfRecordDefs[apITL].tag) != nil {
			prov.InexactReasons = append(prov.InexactReasons,
				"inter_token_latency: each request's (latency − TTFT)/(OSL − 1) weighted by OSL − 1 (GuideLLM); AIPerf weighs every request equally; count is the successful requests")
		}
	}
	if ex != nil {
		addDist(apICL, succOf(ex.ITLPerGapMs), 1, true, nil)
	}
	osl, isl := succOf(m.OutputTokenCount), succOf(m.PromptTokenCount)
	if poolingReport(rep) {
		osl = nil // no output tokens: AIPerf's token metrics do not apply
	}
	addDist(apOSL, osl, 1, false, nil)
	addDist(apISL, isl, 1, false, nil)

	sc := func(tag string, v float64) { x.Metrics = append(x.Metrics, scalarMetric(tag, v)) }
	sc("request_count", float64(succ))
	sc("error_request_count", float64(errored+incomplete))
	dur := 0.0
	if b.Duration != nil {
		dur = float64(*b.Duration)
		prov.InexactReasons = append(prov.InexactReasons,
			"benchmark_duration is the measurement window (AIPerf: first request start to last response of the successful requests)")
		sc("benchmark_duration", dur)
	}
	var totISL, totOSL float64
	if isl != nil {
		totISL = float64(isl.TotalSum)
		sc("total_isl", totISL)
	}
	if osl != nil {
		totOSL = float64(osl.TotalSum)
		sc("total_osl", totOSL)
		sc("total_output_tokens", totOSL)
		prov.InexactReasons = append(prov.InexactReasons, "total_output_tokens includes reasoning tokens (the report does not separate them)")
	}
	if dur > 0 {
		sc("request_throughput", float64(succ)/dur)
		if osl != nil {
			sc("output_token_throughput", totOSL/dur)
			sc("total_token_throughput", (totISL+totOSL)/dur)
		}
	}
	if b.Extras != nil && b.Extras.SLO != nil {
		s := b.Extras.SLO
		sc("good_request_count", float64(s.GoodRequests))
		sc("goodput", float64(s.GoodputRPS))
		prov.InexactReasons = append(prov.InexactReasons, fmt.Sprintf(
			"good_request_count and goodput judge the report's SLO %q over the measurement window", s.Spec))
	}
	if len(opts.SLOs) > 0 {
		prov.InexactReasons = append(prov.InexactReasons, fmt.Sprintf(
			"--goodput %q needs per-request records: not evaluated", slo.FormatAIPerfGoodput(opts.SLOs)))
	}
	addSessionMetrics(x, b)
	x.ErrorSummary = approxErrors(b, errored, incomplete)
	return x, nil
}

// summaryMetric converts a report distribution (in unit·1/scale) into an
// AIPerf metric block.
func summaryMetric(def *aiperfDef, d *report.DistributionSummary, scale float64) Metric {
	f := func(v report.Float) *float64 {
		x := float64(v) * scale
		return &x
	}
	mt := Metric{Tag: def.tag, Header: def.header, Unit: def.unit}
	mt.Avg, mt.Min, mt.Max, mt.Std = f(d.Mean), f(d.Min), f(d.Max), f(d.StdDev)
	p50 := d.Median
	if d.Percentiles.P50 != nil {
		p50 = *d.Percentiles.P50
	}
	pc := d.Percentiles
	for i, v := range []report.Float{pc.P01, pc.P05, pc.P10, pc.P25, p50, pc.P75, pc.P90, pc.P95, pc.P99} {
		mt.P[i] = f(v)
	}
	n := int64(d.Count)
	mt.Count = &n
	mt.Sum = f(d.TotalSum)
	return mt
}

// approxErrors builds error_summary from the report's error counts: by
// class and HTTP status when goodput's extras are there, else one entry
// per status.
func approxErrors(b *report.Benchmark, errored, incomplete int64) []ErrorCount {
	var out []ErrorCount
	if g := b.Extras; g != nil && len(g.Errors.ByClass) > 0 {
		for class, n := range g.Errors.ByClass {
			c := record.ErrorClass(class)
			if c == record.ErrHTTPStatus && len(g.Errors.ByHTTPStatus) > 0 {
				var listed int64
				for status, k := range g.Errors.ByHTTPStatus {
					code, err := strconv.Atoi(status)
					det := ErrorDetails{Type: aiperfErrorType(c), Message: "HTTP " + status}
					if err == nil {
						det.Code = &code
					}
					out = append(out, ErrorCount{Details: det, Count: int64(k)})
					listed += int64(k)
				}
				if rest := int64(n) - listed; rest > 0 {
					out = append(out, ErrorCount{Details: ErrorDetails{Type: aiperfErrorType(c), Message: class}, Count: rest})
				}
				continue
			}
			det := ErrorDetails{Type: aiperfErrorType(c), Message: class}
			if c == record.ErrCancelled {
				code := 499
				det.Code = &code
			}
			out = append(out, ErrorCount{Details: det, Count: int64(n)})
		}
	} else {
		if errored > 0 {
			out = append(out, ErrorCount{Details: ErrorDetails{Type: "Error", Message: "errored"}, Count: errored})
		}
		if incomplete > 0 {
			code := 499
			out = append(out, ErrorCount{Details: ErrorDetails{Code: &code, Type: aiperfErrorType(record.ErrCancelled), Message: "incomplete"}, Count: incomplete})
		}
	}
	slices.SortFunc(out, func(x, y ErrorCount) int {
		if x.Count != y.Count {
			if x.Count > y.Count {
				return -1
			}
			return 1
		}
		if x.Details.Type != y.Details.Type {
			if x.Details.Type < y.Details.Type {
				return -1
			}
			return 1
		}
		if x.Details.Message < y.Details.Message {
			return -1
		}
		if x.Details.Message > y.Details.Message {
			return 1
		}
		return 0
	})
	return out
}
