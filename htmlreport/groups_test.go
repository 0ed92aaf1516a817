package htmlreport

import (
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

// TestRenderGroups: rounds with a by-model breakdown get the By model
// table (one row per round and model, with the SLO attainment) and the
// TTFT P99 chart with one series per model; a by-target breakdown its own
// table; a report without breakdowns neither.
func TestRenderGroups(t *testing.T) {
	rep := handReport([]float64{1, 2}, []float64{10, 20}, []float64{10, 20}, []float64{100, 200}, []float64{10, 20}, -1)
	if out := render(t, []*report.Report{rep}, Options{}); strings.Contains(out, "By model") || strings.Contains(out, "By target") {
		t.Error("a report without breakdowns has a By model or By target section")
	}
	q := func(p50, p99 float64) *report.Quantiles {
		return &report.Quantiles{Count: 4, Mean: report.Float(p50), P50: report.Float(p50), P90: report.Float(p99), P99: report.Float(p99), Max: report.Float(p99)}
	}
	for i, b := range rep.Benchmarks {
		f := float64(i + 1)
		b.Extras.ByModel = []report.GroupFigures{
			{Name: "llama-8b", Requests: report.StatusCounts{Successful: 6, Errored: 1, Total: 7}, RequestsPerSecond: report.Float(f), PromptTokens: 600, OutputTokens: 1200,
				OutputTokensPerSecond: 120, GoodRequests: 5, Attainment: report.FloatPtr(5.0 / 7), RequestLatencyMs: q(900, 1500), TTFTMs: q(80, 100*f), ITLMs: q(9, 12)},
			{Name: "lora-<sql>", Requests: report.StatusCounts{Successful: 3, Incomplete: 1, Total: 4}, RequestsPerSecond: 0.5, PromptTokens: 300, OutputTokens: 600,
				OutputTokensPerSecond: 60, RequestLatencyMs: q(800, 1400), TTFTMs: q(70, 150*f), ITLMs: q(8, 11)},
		}
	}
	rep.Benchmarks[1].Extras.ByTarget = []report.GroupFigures{{Name: "http://replica-a:8000", Requests: report.StatusCounts{Successful: 9, Total: 9}, TTFTMs: q(75, 210)}}
	out := render(t, []*report.Report{rep}, Options{})
	checkHTML(t, out)
	for _, want := range []string{`id="r0-by-model">By model</h3>`, `id="r0-by-target">By target</h3>`, "<td>llama-8b</td>", "<td>lora-&lt;sql&gt;</td>",
		`<td class="num" title="5 requests met the SLO&#39;s per-request thresholds">71.4%</td>`, "<td>http://replica-a:8000</td>",
		"llama-8b, #1 constant 2.00 req/s: 200 ms at 2.00 req/s", "lora-&lt;sql&gt;, #0 constant 1.00 req/s: 150 ms at 1.00 req/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	svg := chartSVG(t, out, "r0-by-model-ttft")
	wellFormed(t, svg)
	if n := strings.Count(svg, `<g class="s"`); n != 2 {
		t.Errorf("By model chart: %d series, want one per model (2)", n)
	}
	if strings.Contains(out, `id="r0-by-target-ttft"`) {
		t.Error("a breakdown in one round only is charted")
	}
	// Three rows by model in each round: the table has 4 rows, by target 1.
	sec := out[strings.Index(out, `id="r0-by-model"`):strings.Index(out, `id="r0-by-target"`)]
	if n := strings.Count(sec, "<tr>") - 1; n != 4 {
		t.Errorf("By model table: %d rows, want 4 (2 models × 2 rounds)", n)
	}
}
