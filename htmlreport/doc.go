// Package htmlreport renders goodput and GuideLLM benchmark reports as one
// self-contained HTML file that works offline for as long as a browser can
// open it: no request to any host, no external script, font or stylesheet.
// Charts are inline SVG computed in Go (deterministic and unit-tested); a
// short inline script, allowed by a hash in the page's Content Security
// Policy, only toggles series when a legend entry is clicked, and the page
// is complete without it. Tooltips are SVG <title> elements.
//
//	err := htmlreport.Render(w, []*report.Report{rep}, htmlreport.Options{
//		Records: []htmlreport.RecordSource{htmlreport.RecordsFile("run/requests.jsonl")},
//	})
//
// For each report the page shows, when the data is there: the run's
// metadata and SLO; the knee summary (goodput at the knee, capacity per
// replica, replicas for a target load); the load curve (throughput and
// goodput against request rate or concurrency, TTFT and ITL percentiles
// against load with the SLO thresholds and the knee); TTFT and ITL CDFs
// per round from goodput's HDR histograms; requests over time (from the
// per-request records when given, else per round from the report); errors
// by class; and, with telemetry, power and €/1M tokens and Wh/token per
// round. With several reports a comparison section lists each run's
// scorecard row and its place on the Pareto frontier (package scorecard:
// Build and Frontier), overlays the load curves of runs driven alike and,
// when cost and energy exist, draws the Pareto chart (€/1M tokens against
// TTFT P99, marker area by Wh/token) with its frontier.
// A section whose data a report lacks (GuideLLM reports have no goodput
// extras) is replaced by a note saying what is missing.
//
// Everything taken from a report is HTML-escaped (a report is untrusted
// input), the page's Content Security Policy allows no source but its own
// inline style and script (by hash), the output depends only on the inputs
// (same report, same bytes: nothing of the rendering's time or host), and
// the page prints on A4 or Letter. Memory is bounded: record sources are
// streamed into at most 360 time bins, histograms are sampled by the HDR
// percentile iterator and only in goodput's geometry.
package htmlreport
