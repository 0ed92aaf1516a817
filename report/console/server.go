package console

import (
	"fmt"

	"github.com/goodput-dev/goodput/internal/texttable"
	"github.com/goodput-dev/goodput/report"
)

// serverTable builds the console's table of what surrounded each round:
// the wait for an idle server before it (and the server's queue when it
// started), the server's own view over the window (queue, running
// requests, the sequences an engine step carried where the engine says
// (llama.cpp), KV cache usage, its TTFT and ITL beside the client's) and
// the closed-loop streams' backoffs. Each group is there only when some
// benchmark has its figures (llama.cpp has no KV cache usage upstream nor
// latency histograms); nil when none has any (a GuideLLM report,
// a rebuilt one).
func serverTable(r *report.Report) *texttable.Table {
	var drain, server, batch, kv, lat, backoff bool
	for _, bm := range r.Benchmarks {
		g := bm.Extras
		if g == nil {
			continue
		}
		drain = drain || g.Drain != nil
		server = server || serverOf(bm) != nil
		if sv := serverOf(bm); sv != nil {
			batch = batch || sv.BusySlotsPerStep != nil
			kv = kv || sv.KVCacheUsageMean != nil || sv.KVCacheUsageMax != nil
			lat = lat || sv.TTFT != nil || sv.ITL != nil
		}
		backoff = backoff || g.Client != nil && g.Client.Backoffs > 0
	}
	if !drain && !server && !backoff {
		return nil
	}
	t := &texttable.Table{
		Title:  "Server and load (wait: before the round, for the server to drain what earlier rounds left; server: its /metrics over the window)",
		Groups: []texttable.Group{{Name: "", Span: 2}},
		Heads:  []string{"#", "Strategy"},
	}
	if drain {
		t.Groups = append(t.Groups, texttable.Group{Name: "Wait", Span: 3})
		t.Heads = append(t.Heads, "s", "By", "Run/wait")
	}
	if server {
		t.Groups = append(t.Groups, texttable.Group{Name: "Queue", Span: 2}, texttable.Group{Name: "Running", Span: 2})
		t.Heads = append(t.Heads, "Mean", "Max", "Mean", "Max")
		if batch {
			t.Groups = append(t.Groups, texttable.Group{Name: "Step", Span: 1})
			t.Heads = append(t.Heads, "Seqs")
		}
		if kv {
			t.Groups = append(t.Groups, texttable.Group{Name: "KV cache %", Span: 2})
			t.Heads = append(t.Heads, "Mean", "Max")
		}
		if lat {
			t.Groups = append(t.Groups, texttable.Group{Name: "TTFT P50 ms", Span: 2}, texttable.Group{Name: "ITL P50 ms", Span: 2})
			t.Heads = append(t.Heads, "Server", "Client", "Server", "Client")
		}
	}
	if backoff {
		t.Groups = append(t.Groups, texttable.Group{Name: "Backoffs", Span: 2})
		t.Heads = append(t.Heads, "N", "s")
	}
	for i, bm := range r.Benchmarks {
		row := []string{fmt.Sprint(i), latencyLabel(bm)}
		g := bm.Extras
		if drain {
			if g == nil || g.Drain == nil {
				row = append(row, "-", "-", "-")
			} else {
				d := g.Drain
				row = append(row, fmt.Sprintf("%.2f", float64(d.WaitedS)), d.Method, queueCell(d.Running, d.Waiting))
			}
		}
		if server {
			sv := serverOf(bm)
			if sv == nil {
				sv = &report.ServerTelemetry{}
			}
			row = append(row, num(sv.RequestsWaitingMean, 1, 1), num(sv.RequestsWaitingMax, 1, 0),
				num(sv.RequestsRunningMean, 1, 1), num(sv.RequestsRunningMax, 1, 0))
			if batch {
				row = append(row, num(sv.BusySlotsPerStep, 1, 2))
			}
			if kv {
				row = append(row, num(sv.KVCacheUsageMean, 100, 1), num(sv.KVCacheUsageMax, 100, 1))
			}
			for _, l := range []*report.ServerLatency{sv.TTFT, sv.ITL} {
				if !lat {
					break
				}
				if l == nil {
					l = &report.ServerLatency{}
				}
				row = append(row, num(l.ServerP50Ms, 1, 1), num(l.ClientP50Ms, 1, 1))
			}
		}
		if backoff {
			if g == nil || g.Client == nil {
				row = append(row, "-", "-")
			} else {
				row = append(row, fmt.Sprint(g.Client.Backoffs), fmt.Sprintf("%.2f", float64(g.Client.BackoffS)))
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// serverOf is a benchmark's server telemetry, nil when it has none.
func serverOf(bm *report.Benchmark) *report.ServerTelemetry {
	if bm.Extras == nil || bm.Extras.Telemetry == nil {
		return nil
	}
	return bm.Extras.Telemetry.Server
}

// num formats v × scale with prec decimals, "-" when absent.
func num(v *report.Float, scale float64, prec int) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.*f", prec, float64(*v)*scale)
}

// queueCell is the server's running and waiting requests when a round
// started, "-" when not read.
func queueCell(running, waiting *report.Float) string {
	if running == nil || waiting == nil {
		return "-"
	}
	return fmt.Sprintf("%g/%g", float64(*running), float64(*waiting))
}

// startedBusy reports whether a benchmark's round started on a busy
// server (the wait's bound ran out): its figures are contaminated.
func startedBusy(b *report.Benchmark) bool {
	return b.Extras != nil && b.Extras.Drain != nil && b.Extras.Drain.Busy
}

// busyMark follows the strategy label of a benchmark that started on a
// busy server.
const busyMark = "!"

// busyNotes are the footnotes for the rounds that started busy.
func busyNotes(r *report.Report) []string {
	var notes []string
	for i, bm := range r.Benchmarks {
		if startedBusy(bm) {
			notes = append(notes, fmt.Sprintf("%s benchmark %d (%s) %s", busyMark, i, bm.Label(), bm.Extras.Drain.Warning()))
		}
	}
	return notes
}
