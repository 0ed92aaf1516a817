package htmlreport

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/report"
)

// maxMessages bounds the sampled error messages listed per run.
const maxMessages = 12

// renderErrors writes the errored and incomplete requests by class and
// HTTP status per round, and the distinct messages among the sampled
// failed requests.
func renderErrors(p *page, v *runView) {
	h3(p, v, "errors", "Errors")
	if len(v.rounds) == 0 {
		p.note("No round.")
		return
	}
	classes := map[string]bool{}
	anyFail := false
	for _, r := range v.rounds {
		if g := r.b.Extras; g != nil {
			for c, n := range g.Errors.ByClass {
				if n > 0 {
					classes[c] = true
				}
			}
		}
		if rt := r.b.Metrics.RequestTotals; rt != nil && rt.Errored+rt.Incomplete > 0 {
			anyFail = true
		}
	}
	cls := slices.Sorted(maps.Keys(classes))
	if !anyFail && len(cls) == 0 {
		p.el("p", "", "No errored or incomplete request in any round's measurement window.")
	} else {
		head := []string{"#", "Strategy", "In window", "Errored", "Incomplete", "Error rate"}
		head = append(head, cls...)
		head = append(head, "HTTP statuses")
		t := &table{head: head}
		for _, r := range v.rounds {
			row := []cell{numCell(strconv.Itoa(r.i)), {text: r.label}}
			if rt := r.b.Metrics.RequestTotals; rt != nil {
				row = append(row, numCell(fmtInt(int64(rt.Total))), numCell(fmtInt(int64(rt.Errored))), numCell(fmtInt(int64(rt.Incomplete))))
				rate := float64(rt.Errored) / float64(rt.Total)
				if rt.Total == 0 {
					rate = 0
				}
				if g := r.b.Extras; g != nil {
					rate = float64(g.Errors.ErrorRate)
				}
				row = append(row, numCell(fmtPct(rate)))
			} else {
				row = append(row, numCell("–"), numCell("–"), numCell("–"), numCell("–"))
			}
			g := r.b.Extras
			for _, c := range cls {
				n := "–"
				if g != nil {
					n = fmtInt(int64(g.Errors.ByClass[c]))
				}
				row = append(row, numCell(n))
			}
			st := "–"
			if g != nil {
				var parts []string
				for _, code := range slices.Sorted(maps.Keys(g.Errors.ByHTTPStatus)) {
					if n, err := strconv.Atoi(code); err == nil && n >= 200 && n < 300 {
						continue // an older report's disconnects and stalls after a 200: no HTTP error
					}
					parts = append(parts, code+" ×"+fmtInt(int64(g.Errors.ByHTTPStatus[code])))
				}
				st = strings.Join(parts, ", ")
			}
			row = append(row, cell{text: clip(st, 200)})
			t.rows = append(t.rows, row)
		}
		p.table(t)
		if v.hasExtr {
			p.el("p", `class="sub"`, "Errored and incomplete requests in each round's measurement window by class (goodput's error classes: "+
				"http_status, connect, timeout, stall, disconnect, stream_error, protocol, empty_response, cancelled, client). "+
				"The error rate is errored ÷ requests in the window; incomplete requests (cancelled at the end of a round) are not errors.")
		} else {
			p.note("This report has no error classes (goodput's extras); the counts are GuideLLM's request totals.")
		}
	}

	renderTopMessages(p, v)
	msgs := sampledMessages(v)
	if len(msgs) == 0 {
		return
	}
	t := &table{caption: "Messages of the sampled failed requests", head: []string{"Message", "Samples", "Rounds"}}
	for i, m := range msgs {
		if i == maxMessages {
			break
		}
		t.rows = append(t.rows, []cell{{text: clip(m.text, 300), class: "msg"}, numCell(fmtInt(m.n)), {text: m.rounds}})
	}
	p.table(t)
	note := "From the request records the report samples (not every request)."
	if len(msgs) > maxMessages {
		note += " " + strconv.Itoa(len(msgs)-maxMessages) + " more distinct messages not shown."
	}
	p.el("p", `class="sub"`, note)
}

// renderTopMessages lists each round's error classes with the most common
// message of each, counted over every failed request in the window (the
// console's table); nothing for a report without them.
func renderTopMessages(p *page, v *runView) {
	t := &table{caption: "Most common message of each error class (every failed request in the window)", head: []string{"#", "Strategy", "Class", "Requests", "Message", "With it"}}
	for _, r := range v.rounds {
		for _, e := range r.b.ErrorRows() {
			if e.Message == "" {
				continue
			}
			t.rows = append(t.rows, []cell{numCell(strconv.Itoa(r.i)), {text: r.label}, {text: e.Class}, numCell(fmtInt(e.Count)),
				{text: clip(e.Message, 300), class: "msg"}, numCell(fmtInt(e.MessageCount))})
		}
	}
	if len(t.rows) > 0 {
		p.table(t)
	}
}

type errMessage struct {
	text   string
	n      int64
	rounds string
	seen   map[int]bool
}

// sampledMessages groups the error messages of the sampled errored and
// incomplete requests, most frequent first.
func sampledMessages(v *runView) []*errMessage {
	by := map[string]*errMessage{}
	var order []*errMessage
	for _, r := range v.rounds {
		for _, list := range [][]*report.RequestStats{r.b.Requests.Errored, r.b.Requests.Incomplete} {
			for _, rs := range list {
				if rs == nil || rs.Info.Error == nil || *rs.Info.Error == "" {
					continue
				}
				text := clip(*rs.Info.Error, 2000)
				if rs.Extras != nil && rs.Extras.ErrorClass != "" {
					text = rs.Extras.ErrorClass + ": " + text
				}
				m := by[text]
				if m == nil {
					m = &errMessage{text: text, seen: map[int]bool{}}
					by[text] = m
					order = append(order, m)
				}
				m.n++
				if !m.seen[r.i] {
					m.seen[r.i] = true
					if m.rounds != "" {
						m.rounds += ", "
					}
					m.rounds += "#" + strconv.Itoa(r.i)
				}
			}
		}
	}
	slices.SortStableFunc(order, func(a, b *errMessage) int {
		switch {
		case a.n > b.n:
			return -1
		case a.n < b.n:
			return 1
		}
		return strings.Compare(a.text, b.text)
	})
	return order
}
