package console

import (
	"fmt"

	"github.com/goodput-dev/goodput/internal/texttable"
	"github.com/goodput-dev/goodput/report"
)

// serverTimeTable builds the console's table of the server's own
// per-request times (report.ServerTime): prefill, decode per token, and
// the TTFT they leave to the queue, the network and the client. nil when
// no benchmark has them.
func serverTimeTable(r *report.Report) *texttable.Table {
	has := false
	for _, bm := range r.Benchmarks {
		has = has || bm.Extras != nil && bm.Extras.ServerTime != nil
	}
	if !has {
		return nil
	}
	t := &texttable.Table{
		Title: "Server-side time (the server's own timings, successful requests in the window; TTFT − prefill is the slot queue, HTTP and tokenization, network and client together: no queue time is reported)",
		Groups: []texttable.Group{{Name: "", Span: 3}, {Name: "Server prefill ms", Span: 4}, {Name: "Server decode ms/token", Span: 4},
			{Name: "TTFT − prefill ms", Span: 4}, {Name: "", Span: 1}},
		Heads: []string{"#", "Strategy", "Req", "Mean", "P50", "P90", "P99", "Mean", "P50", "P90", "P99", "Mean", "P50", "P90", "P99", "Prefill % TTFT"},
	}
	for i, bm := range r.Benchmarks {
		if bm.Extras == nil || bm.Extras.ServerTime == nil {
			continue
		}
		s := bm.Extras.ServerTime
		row := []string{fmt.Sprint(i), latencyLabel(bm), fmt.Sprint(s.Requests)}
		for _, q := range []*report.Quantiles{s.PrefillMs, s.DecodePerTokenMs, s.TTFTOutsidePrefillMs} {
			row = append(row, quantileCells(q)...)
		}
		t.Rows = append(t.Rows, append(row, num(s.PrefillShareOfTTFT, 100, 1)))
	}
	return t
}

// quantileCells is mean, P50, P90 and P99 in ms, "-" when absent.
func quantileCells(q *report.Quantiles) []string {
	if q == nil || q.Count == 0 {
		return []string{"-", "-", "-", "-"}
	}
	out := make([]string, 0, 4)
	for _, v := range []report.Float{q.Mean, q.P50, q.P90, q.P99} {
		out = append(out, fmt.Sprintf("%.2f", float64(v)))
	}
	return out
}
