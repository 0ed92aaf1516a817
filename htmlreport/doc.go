// Package htmlreport renders goodput and GuideLLM benchmark reports as one
// self-contained HTML file that works offline for as long as a browser can
// open it: no request to any host, no external script, font or stylesheet.
// Charts are inline SVG computed in Go, and the page is complete without
// its one small inline script (legend toggles, allowed by hash in the
// page's Content Security Policy).
//
// Enter with Render; RecordsFile adds the per-request records for the
// requests-over-time chart:
//
//	err := htmlreport.Render(w, []*report.Report{rep}, htmlreport.Options{
//		Records: []htmlreport.RecordSource{htmlreport.RecordsFile("run/requests.jsonl")},
//	})
//
// A report is untrusted input: everything taken from it is HTML-escaped,
// and the output depends only on the inputs (same reports, same bytes).
// README.md beside this file lists the sections of the page and how memory
// stays bounded.
package htmlreport
