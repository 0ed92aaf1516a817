package htmlreport

import (
	"strconv"

	"github.com/goodput-dev/goodput/report"
)

// renderServerTime writes the server's own per-request times of the
// rounds whose responses carried them (report.ServerTime): prefill,
// decode per token, and the part of TTFT outside the prefill. Nothing
// when no round has them.
func renderServerTime(p *page, v *runView) {
	var rounds []*roundView
	for _, r := range v.rounds {
		if r.b.Extras != nil && r.b.Extras.ServerTime != nil {
			rounds = append(rounds, r)
		}
	}
	if len(rounds) == 0 {
		return
	}
	h3(p, v, "server-time", "Server-side time")
	head := []string{"#", "Strategy", "Requests"}
	for _, m := range []string{"Prefill", "Decode/token", "TTFT − prefill"} {
		head = append(head, m+" mean", m+" P50", m+" P90", m+" P99")
	}
	t := &table{head: append(head, "Prefill share of TTFT")}
	for _, r := range rounds {
		s := r.b.Extras.ServerTime
		row := []cell{numCell(strconv.Itoa(r.i)), {text: r.label}, numCell(fmtInt(int64(s.Requests)))}
		for _, q := range []*report.Quantiles{s.PrefillMs, s.DecodePerTokenMs, s.TTFTOutsidePrefillMs} {
			if q == nil || q.Count == 0 {
				row = append(row, numCell("–"), numCell("–"), numCell("–"), numCell("–"))
				continue
			}
			for _, f := range []report.Float{q.Mean, q.P50, q.P90, q.P99} {
				row = append(row, numCell(strconv.FormatFloat(float64(f), 'f', 2, 64)))
			}
		}
		share := numCell("–")
		if s.PrefillShareOfTTFT != nil {
			share = numCell(fmtPct(float64(*s.PrefillShareOfTTFT)))
		}
		t.rows = append(t.rows, append(row, share))
	}
	p.table(t)
	p.note("Milliseconds, over the successful requests in the window whose responses carried the server's timings (llama-server's timings). " +
		"Prefill is the server's prompt_ms: from its slot starting on the prompt to the first token. Decode/token is predicted_ms / (predicted_n − 1). " +
		"TTFT − prefill is the client's TTFT minus prompt_ms: the wait for a free slot, HTTP and tokenization, the network and the client together; " +
		"the server reports no queue time, so these cannot be told apart.")
}
