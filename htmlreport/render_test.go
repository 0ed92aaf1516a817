package htmlreport

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
)

// render renders reps and fails the test on error.
func render(t testing.TB, reps []*report.Report, opts Options) string {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, reps, opts); err != nil {
		t.Fatalf("Render: %v", err)
	}
	return b.String()
}

var (
	tagRe    = regexp.MustCompile(`^<(/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z_:][-a-zA-Z0-9_:.]*(?:="[^"<]*")?)*)\s*(/?)>`)
	charRef  = regexp.MustCompile(`^&(?:[a-zA-Z][a-zA-Z0-9]*|#[0-9]+|#x[0-9a-fA-F]+);`)
	idAttrRe = regexp.MustCompile(`\sid="([^"]*)"`)
	voidTags = map[string]bool{"meta": true, "link": true, "br": true, "hr": true, "img": true, "input": true, "col": true,
		"area": true, "base": true, "embed": true, "source": true, "track": true, "wbr": true}
)

// checkHTML checks what makes the page valid HTML5 in practice: the
// doctype, every tag well-formed with double-quoted attributes, elements
// balanced (void elements unclosed, self-closing tags only inside SVG), no
// stray "<" or "&" in text, unique ids, and raw text only in the one
// <style> and the one <script>.
func checkHTML(t testing.TB, s string) {
	t.Helper()
	if !strings.HasPrefix(s, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">") {
		t.Fatalf("page does not start with the HTML5 doctype and charset: %.80q", s)
	}
	var stack []string
	ids := map[string]bool{}
	inSVG := 0
	for i := len("<!DOCTYPE html>"); i < len(s); {
		switch s[i] {
		case '<':
			m := tagRe.FindStringSubmatch(s[i:])
			if m == nil {
				t.Fatalf("malformed tag or stray '<' at byte %d: %.80q", i, s[i:])
			}
			closing, name, attrs, self := m[1] == "/", m[2], m[3], m[4] == "/"
			i += len(m[0])
			for _, id := range idAttrRe.FindAllStringSubmatch(attrs, -1) {
				if ids[id[1]] {
					t.Fatalf("duplicate id %q", id[1])
				}
				ids[id[1]] = true
			}
			switch {
			case closing:
				if len(stack) == 0 || stack[len(stack)-1] != name {
					t.Fatalf("</%s> at byte %d closes %v", name, i, stack)
				}
				stack = stack[:len(stack)-1]
				if name == "svg" {
					inSVG--
				}
			case self:
				if inSVG == 0 && !voidTags[name] {
					t.Fatalf("self-closing <%s/> outside SVG at byte %d", name, i)
				}
			case voidTags[name] && inSVG == 0:
			default:
				stack = append(stack, name)
				if name == "svg" {
					inSVG++
				}
				if name == "script" || name == "style" {
					end := strings.Index(s[i:], "</"+name+">")
					if end < 0 {
						t.Fatalf("<%s> not closed", name)
					}
					i += end
				}
			}
		case '&':
			if !charRef.MatchString(s[i:]) {
				t.Fatalf("bare '&' at byte %d: %.40q", i, s[i:])
			}
			i++
		default:
			i++
		}
	}
	if len(stack) != 0 {
		t.Fatalf("unclosed elements: %v", stack)
	}
	if n := strings.Count(s, "<script"); n != 1 {
		t.Fatalf("%d <script> elements, want exactly the page's own", n)
	}
	if n := strings.Count(s, "<style"); n != 1 {
		t.Fatalf("%d <style> elements, want exactly one", n)
	}
}

// sweepOnce builds the 10-round sweep used by several tests.
func sweepOnce(t testing.TB, telemetry bool) (*report.Report, []*record.Record) {
	return buildSweep(t, sweepSpec{rounds: 10, seconds: 20, chunks: 32, kneeAt: 5, telemetry: telemetry, label: "a"}, true)
}

// Every section a full goodput report supports is there, with each chart.
func TestRenderSections(t *testing.T) {
	rep, recs := sweepOnce(t, true)
	rep.Run.Merge = &report.MergeInfo{Shards: 4, Path: "records", Exact: true}
	path := writeRecords(t, t.TempDir(), recs)
	page := render(t, []*report.Report{rep}, Options{Records: []RecordSource{RecordsFile(path)}})
	checkHTML(t, page)
	for _, id := range []string{"r0-load-tput", "r0-load-ttft", "r0-load-itl", "r0-cdf-ttft", "r0-cdf-itl", "r0-cdf-gap",
		"r0-time-rate", "r0-time-flight", "r0-power", "r0-cpm", "r0-wh"} {
		svg := chartSVG(t, page, id)
		wellFormed(t, svg)
		if badCoord.MatchString(svg) {
			t.Errorf("%s: non-finite coordinate %s", id, badCoord.FindString(svg))
		}
		if !strings.Contains(svg, `<g class="s"`) {
			t.Errorf("%s: no series", id)
		}
	}
	if svg := chartSVG(t, page, "r0-power"); strings.Count(svg, `<g class="s"`) != 3 || !strings.Contains(svg, "sampled power") {
		t.Errorf("r0-power: want the sampled power line beside the mean and peak steps:\n%.2000s", svg)
	}
	for _, want := range []string{
		"Goodput at the knee", "Replicas for a target load", "for 10,000 output tok/s", "Knee round", "#5 (sweep)",
		"SLO: ttft_p99=500ms,itl_p95=50ms,error_rate=0.5%", "Missing audit fields: model_revision, tokenizer_hash",
		"From 2200 per-request records in " + path, "Curves from goodput&#39;s HDR histograms",
		"merged from 4 shards, from their records (exact)", "503 ×" + fmtInt(int64(rep.Benchmarks[6].Extras.Errors.ByHTTPStatus["503"])), "http_status: HTTP 503: server overloaded", "€/1M out tok", "Serving engine", "4×H100-SXM-80GB",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// 6 of 10 rounds pass: rounds 0..5.
	if !strings.Contains(page, `<div class="v">6 of 10</div>`) {
		t.Error("key figures: rounds meeting the SLO should be 6 of 10")
	}
	if strings.Contains(page, "cmp") {
		t.Error("a single report has no comparison section")
	}
}

// The same reports give the same bytes, and a report read back from its
// JSON gives the page the in-memory report gave: the page depends only on
// the report's data.
func TestRenderDeterministic(t *testing.T) {
	rep, _ := sweepOnce(t, true)
	a := render(t, []*report.Report{rep}, Options{})
	b := render(t, []*report.Report{rep}, Options{})
	if a != b {
		t.Fatal("two renderings of one report differ")
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	back, err := report.Decode(&js, "sweep.json")
	if err != nil {
		t.Fatal(err)
	}
	if c := render(t, []*report.Report{back}, Options{}); c != a {
		t.Error("the report read back from JSON renders differently")
	}
}

// evil is text a hostile report could carry.
const evil = `<script>alert(1)</script>" onmouseover="x" '&<img src=//example.com/x.png>`

// A report is untrusted input: every string from it is escaped, in text
// and attributes, and credentials in a target URL are dropped.
func TestRenderEscapes(t *testing.T) {
	rep := handReport([]float64{1, 2}, []float64{10, 20}, []float64{10, 5}, []float64{100, 900}, []float64{10, 60}, 0)
	rep.Run.RunID = evil
	rep.Run.SLO.Spec = evil
	rep.Run.Knee.Reason, rep.Run.Knee.Mode = evil, evil
	rep.Run.Merge = &report.MergeInfo{Path: evil, Reason: evil}
	rep.Run.Shard = &report.ShardInfo{RunID: evil}
	rep.Run.Metadata = &report.RunMetadata{Engine: evil, EngineVersion: evil, Model: evil, Precision: evil, Hardware: evil, Data: evil,
		Labels: map[string]string{evil: evil}, Sources: map[string]string{"engine": evil}, Missing: []string{evil}}
	sc, err := report.NewScenario(report.SpecInput{Backend: report.Backend{Target: "http://user:secretpass@host:8000/" + evil, Model: evil}, Profile: report.Profile{Kind: "constant", Rate: []float64{1}},
		Data: []report.SyntheticText{{PromptTokens: 1, OutputTokens: 1}}, Labels: map[string]string{evil: evil}})
	if err != nil {
		t.Fatal(err)
	}
	rep.Config = sc
	for _, b := range rep.Benchmarks {
		b.Config.Strategy.Type = evil
		b.Extras.Errors = report.ErrorCounts{ByClass: map[string]report.Int{evil: 3}, ByHTTPStatus: map[string]report.Int{evil: 3}}
		b.Extras.InexactReasons, b.Extras.Exact = []string{evil}, false
		b.Extras.Client = &report.ClientLoad{Saturated: true, Reason: evil}
		b.Extras.SLO.Objectives[0].Key, b.Extras.SLO.Objectives[0].Unit = evil, evil
		msg := evil
		b.Requests.Errored = []*report.RequestStats{{Info: report.RequestInfo{Error: &msg}, Extras: &report.RequestExtras{ErrorClass: evil}}}
		b.Metrics.RequestTotals = &report.StatusCounts{Successful: 1, Errored: 3, Total: 4}
		addTelemetryHand(b, evil)
	}
	two := handReport([]float64{1}, []float64{10}, []float64{10}, []float64{100}, []float64{10}, 0)
	page := render(t, []*report.Report{rep, two}, Options{Title: evil, Names: []string{evil, evil}})
	checkHTML(t, page)
	for _, bad := range []string{"<script>alert", "<img", ` onmouseover="x"`, "secretpass", "user:"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	if n := strings.Count(page, "&lt;script&gt;alert(1)&lt;/script&gt;"); n < 20 {
		t.Errorf("the hostile text appears escaped %d times; want it everywhere it is shown (≥ 20)", n)
	}
	if !strings.Contains(page, "http://***@host:8000/") { // credentials masked as everywhere else
		t.Error("target URL without its credentials is missing")
	}
}

// addTelemetryHand gives a hand-built benchmark telemetry with text s in
// every string field.
func addTelemetryHand(b *report.Benchmark, s string) {
	f := func(v float64) *report.Float { x := report.Float(v); return &x }
	b.Extras.Telemetry = &report.BenchmarkTelemetry{
		Window: report.TelemetryWindow{Start: 100, End: 110, DurationS: 10, Basis: s},
		Energy: &report.EnergyTelemetry{Source: s, GPUModel: s, EnergyWh: f(1), MeanPowerW: f(300), PeakPowerW: f(350), GPUs: 1, Warnings: []string{s},
			Derived: &report.EnergyDerived{WhPerOutputToken: f(0.001), Warnings: []string{s}}},
		Cost:   &report.CostTelemetry{Source: s, Currency: s, CPM: f(2), CPMBasis: s, Warnings: []string{s}},
		Server: &report.ServerTelemetry{Source: s, Engine: s},
		GPU: &report.GPUTelemetry{Source: s, GPUs: 1, ThrottleReasons: []string{s},
			Gauges: []report.GPUGaugeTelemetry{{Name: "utilization", Unit: "%", Combine: s, GPUs: 1, Mean: f(50), Peak: f(90)}}},
		Missing:  []report.MissingTelemetry{{Source: s, Reason: s}},
		Warnings: []string{s},
	}
}

// TestRenderGPUTelemetry: each round's GPU utilization is shown beside its
// throughput, and against the load in a chart.
func TestRenderGPUTelemetry(t *testing.T) {
	rep := handReport([]float64{1, 2}, []float64{10, 20}, []float64{10, 20}, []float64{100, 200}, []float64{10, 20}, 0)
	f := func(v float64) *report.Float { x := report.Float(v); return &x }
	for i, b := range rep.Benchmarks {
		u := []float64{41, 97}[i]
		b.Extras.Telemetry = &report.BenchmarkTelemetry{Window: report.TelemetryWindow{Start: 100, End: 110, DurationS: 10},
			GPU: &report.GPUTelemetry{Source: "dcgm-exporter http://node:9400/metrics", GPUs: 2, ThrottleReasons: []string{"sw_power_cap"},
				Gauges: []report.GPUGaugeTelemetry{
					{Name: "utilization", Unit: "%", Combine: "mean", GPUs: 2, Mean: f(u), Peak: f(u + 2)},
					{Name: "framebuffer_used", Unit: "MiB", Combine: "sum", GPUs: 2, Mean: f(150000), Peak: f(151000)},
				}},
			Server: &report.ServerTelemetry{Engine: "vllm", Replicas: 2, PrefixCache: &report.PrefixCacheTelemetry{HitRate: f(0.75)},
				SpecDecode: &report.SpecDecodeTelemetry{AcceptanceRate: f(0.5)}, QueueTime: &report.ServerLatency{ServerMeanMs: f(150), ServerP99Ms: f(790)}}}
	}
	page := render(t, []*report.Report{rep}, Options{})
	checkHTML(t, page)
	for _, want := range []string{"GPU utilization, memory, temperature and clocks over each window", ">41.0 / 43.0</td>", ">97.0 / 99.0</td>",
		">150,000 / 151,000</td>", ">sw_power_cap</td>", ">vllm × 2</td>", ">75.0%</td>", ">50.0%</td>", ">150 / 790</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if strings.Contains(page, "Sequences per step") {
		t.Error("vLLM rounds: want no sequences-per-step column")
	}
	i := strings.Index(page, `-gpu-util"`)
	j := strings.LastIndex(page[:max(i, 0)], `id="`)
	if i < 0 || j < 0 {
		t.Fatal("no utilization chart")
	}
	wellFormed(t, chartSVG(t, page, page[j+4:i]+"-gpu-util"))
}

// llama.cpp's rounds show the sequences each engine step carried, in
// the column after the queue.
func TestRenderServerSteps(t *testing.T) {
	rep := handReport([]float64{1, 2}, []float64{10, 20}, []float64{10, 20}, []float64{100, 200}, []float64{10, 20}, 0)
	f := func(v float64) *report.Float { x := report.Float(v); return &x }
	for i, b := range rep.Benchmarks {
		b.Extras.Telemetry = &report.BenchmarkTelemetry{Window: report.TelemetryWindow{Start: 100, End: 110, DurationS: 10},
			Server: &report.ServerTelemetry{Engine: "llama.cpp", RequestsWaitingMean: f(0), RequestsWaitingMax: f(3), BusySlotsPerStep: f([]float64{1, 3.5}[i])}}
	}
	page := render(t, []*report.Report{rep}, Options{})
	checkHTML(t, page)
	for _, want := range []string{">Sequences per step</th>", ">0 / 3.00</td><td class=\"num\">1.00</td>", ">3.50</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
}

// A GuideLLM report renders what its data supports, with notes on the
// rest.
func TestRenderGuideLLM(t *testing.T) {
	rep, err := report.Read(filepath.Join("..", "report", "testdata", "benchmarks_stripped_legacy_v0.3.json"))
	if err != nil {
		t.Fatal(err)
	}
	page := render(t, []*report.Report{rep}, Options{})
	checkHTML(t, page)
	for _, id := range []string{"r0-load-tput", "r0-load-ttft", "r0-load-itl", "r0-cdf-ttft", "r0-cdf-itl", "r0-time-rate", "r0-time-flight"} {
		wellFormed(t, chartSVG(t, page, id))
	}
	for _, want := range []string{
		"GuideLLM (v0.2–v0.3 layout), which has none of goodput&#39;s extras",
		"GuideLLM reports have no SLO and so no knee",
		"Curves through the report&#39;s 11 percentiles",
		"Gap between chunks (every gap): no distribution in this report.",
		"From the report: each round&#39;s mean completion rate",
		"This report has no error classes",
		"GuideLLM reports have no telemetry.",
		"model: example_model",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, `id="r0-cdf-gap"`) {
		t.Error("a GuideLLM report has no per-gap distribution to chart")
	}

	// A GuideLLM v2 sweep: goodput's report without goodput's keys.
	sweep, _ := buildSweep(t, sweepSpec{rounds: 4, seconds: 4, chunks: 8, kneeAt: 1, label: "v2"}, false)
	var js bytes.Buffer
	if err := sweep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	stripGoodput(doc)
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	v2, err := report.Decode(bytes.NewReader(raw), "guidellm.json")
	if err != nil {
		t.Fatal(err)
	}
	if v2.Layout != report.LayoutV2 {
		t.Fatalf("layout %s, want %s", v2.Layout, report.LayoutV2)
	}
	page = render(t, []*report.Report{v2}, Options{})
	checkHTML(t, page)
	for _, id := range []string{"r0-load-tput", "r0-load-ttft", "r0-cdf-ttft", "r0-cdf-itl", "r0-time-rate"} {
		wellFormed(t, chartSVG(t, page, id))
	}
	for _, want := range []string{"GuideLLM 0.7.3 (report v2), which has none of goodput&#39;s extras", "Request rate (req/s, scheduled)",
		"GuideLLM&#39;s distributions of successful requests (GuideLLM counts a missing value as 0)"} {
		if !strings.Contains(page, want) {
			t.Errorf("GuideLLM v2 page lacks %q", want)
		}
	}
}

// stripGoodput deletes every "goodput" and "goodput_version" key.
func stripGoodput(v any) {
	switch x := v.(type) {
	case map[string]any:
		delete(x, "goodput")
		delete(x, "goodput_version")
		for _, e := range x {
			stripGoodput(e)
		}
	case []any:
		for _, e := range x {
			stripGoodput(e)
		}
	}
}

// Several runs get a comparison: overlaid load curves for runs driven
// alike, and the Pareto chart when cost and energy exist.
func TestRenderComparison(t *testing.T) {
	a, _ := buildSweep(t, sweepSpec{rounds: 6, seconds: 5, chunks: 16, kneeAt: 3, telemetry: true, label: "a"}, false)
	b, _ := buildSweep(t, sweepSpec{rounds: 6, seconds: 5, chunks: 16, kneeAt: 1, telemetry: true, label: "b"}, false)
	page := render(t, []*report.Report{a, b}, Options{})
	checkHTML(t, page)
	for _, id := range []string{"cmp0-goodput", "cmp0-ttft", "cmp-pareto"} {
		wellFormed(t, chartSVG(t, page, id))
	}
	if !strings.Contains(page, "on the frontier") {
		t.Error("no run is on the Pareto frontier")
	}
}

// The comparison places runs on the Pareto frontier as package scorecard
// judges them, and draws them: A and D on the frontier (D has the lowest
// TTFT), B dominated by A on all three axes, C breaking the SLO.
func TestRenderPareto(t *testing.T) {
	run := func(id string, good, ttft, wh float64) *report.Report {
		rep := handReport([]float64{1}, []float64{good}, []float64{good}, []float64{ttft}, []float64{20}, 0)
		rep.Run.RunID = id
		f := func(v float64) *report.Float { x := report.Float(v); return &x }
		// 3.6/h: CPM = 3.6 × 10^6 / (goodput × 3600) = 1000 / goodput.
		rep.Benchmarks[0].Extras.Telemetry = &report.BenchmarkTelemetry{
			Energy: &report.EnergyTelemetry{Derived: &report.EnergyDerived{WhPerOutputToken: f(wh)}},
			Cost:   &report.CostTelemetry{Currency: "EUR", CostPerHour: 3.6},
		}
		return rep
	}
	reps := []*report.Report{
		run("A", 1000, 300, 0.001),  // CPM 1
		run("B", 500, 400, 0.002),   // CPM 2: dominated by A
		run("C", 2000, 900, 0.0005), // CPM 0.5, TTFT P99 900 > 500 ms
		run("D", 250, 200, 0.003),   // CPM 4, lowest TTFT
	}
	page := render(t, reps, Options{})
	checkHTML(t, page)
	for _, want := range []string{
		`<td>A</td><td class="wrap"></td>`, `title="on the frontier">on the frontier</td>`,
		`>dominated</td>`, `>breaks the SLO</td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("comparison lacks %s", want)
		}
	}
	if n := strings.Count(page, `>on the frontier</td>`); n != 2 {
		t.Errorf("%d runs on the frontier, want 2 (A and D)", n)
	}
	svg := chartSVG(t, page, "cmp-pareto")
	wellFormed(t, svg)
	// x 0..5 over 66..700, y 0..1000 over 294..14: A (1, 300) at (192.8, 210), D (4, 200) at (573.2, 238).
	if want := `<path d="M192.8 210H573.2V238"`; !strings.Contains(svg, want) {
		t.Errorf("Pareto staircase %s missing:\n%s", want, svg)
	}
	if n := strings.Count(svg, `fill="#ffffff"`); n != 2 {
		t.Errorf("%d hollow markers, want 2 (B dominated, C breaks the SLO)", n)
	}
	// The common SLO threshold, 500 ms: y = 294 − 0.5×280 = 154.
	if want := `<line x1="66" y1="154" x2="700" y2="154" stroke="#C0392B"/>`; !strings.Contains(svg, want) {
		t.Errorf("SLO line %s missing", want)
	}
}

// paretoFront (the chart's staircase uses it in two dimensions) on the
// article's scorecard: CPM, Wh/tok, TTFT P99; E breaks the SLO.
func TestParetoFront(t *testing.T) {
	objs := [][]float64{
		{1.64, 0.00074, 498}, // A: dominated by B
		{0.97, 0.00044, 487}, // B: dominated by C
		{0.88, 0.00041, 421}, // C: frontier
		{1.31, 0.00056, 294}, // D: frontier (lowest TTFT)
		{0.84, 0.00040, 721}, // E: fails the SLO
		{0.5, math.NaN(), 100},
	}
	got := paretoFront(objs, []bool{true, true, true, true, false, true})
	want := []bool{false, false, true, true, false, false}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %c: on the frontier = %v, want %v", 'A'+i, got[i], want[i])
		}
	}
	// Equal rows do not dominate each other.
	if got := paretoFront([][]float64{{1, 1}, {1, 1}}, []bool{true, true}); !got[0] || !got[1] {
		t.Errorf("equal rows: %v, want both on the frontier", got)
	}
}

func TestRenderErrors(t *testing.T) {
	var b bytes.Buffer
	if err := Render(&b, nil, Options{}); err == nil {
		t.Error("no report: want an error")
	}
	if err := Render(&b, []*report.Report{nil}, Options{}); err == nil {
		t.Error("nil report: want an error")
	}
	rep := handReport([]float64{1}, []float64{1}, []float64{1}, []float64{1}, []float64{1}, -1)
	err := Render(&b, []*report.Report{rep}, Options{Records: []RecordSource{RecordsFile(filepath.Join(t.TempDir(), "missing.jsonl"))}})
	if err == nil || !strings.Contains(err.Error(), "missing.jsonl") {
		t.Errorf("missing records file: error %v, want one naming the file", err)
	}
	if err := Render(failWriter{}, []*report.Report{rep}, Options{}); err == nil {
		t.Error("failing writer: want an error")
	}
	// An empty report (no benchmark) still renders.
	checkHTML(t, render(t, []*report.Report{report.NewReport("x", nil)}, Options{}))
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// memSource is an in-memory RecordSource.
type memSource struct {
	name string
	data []byte
}

func (m memSource) Name() string                 { return m.name }
func (m memSource) Open() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(m.data)), nil }

// Requests over time from records: completions by the bin they end in,
// in-flight as each request's share of each bin, hand-computed.
func TestRecordTimeline(t *testing.T) {
	sec := func(s float64) int64 { return int64(math.Round(s * 1e9)) }
	mk := func(id uint64, st record.Status, start, end float64) *record.Record {
		r := record.New()
		r.ID, r.Status, r.Dispatched, r.End = id, st, sec(start), sec(end)
		if st != record.StatusSuccessful {
			r.ErrorClass = record.ErrTimeout
		}
		return r
	}
	var buf bytes.Buffer
	enc := record.NewEncoder(&buf)
	for _, r := range []*record.Record{
		mk(1, record.StatusSuccessful, 1000.25, 1001.75), // bins 0..3
		mk(2, record.StatusErrored, 1000.1, 1000.3),      // bin 0
		mk(3, record.StatusIncomplete, 1050, 1200),       // ends after the span: clamped
		mk(4, record.StatusSuccessful, 1010, 0),          // never ended: not counted
	} {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	start, end := report.Float(1000), report.Float(1100)
	rep := report.NewReport("x", nil, &report.Benchmark{StartTime: &start, EndTime: &end})
	tl, err := recordTimeline(t.Context(), memSource{"mem", buf.Bytes()}, rep)
	if err != nil {
		t.Fatal(err)
	}
	// Span 1000..1100, plus 2 s: 102 s in bins of 0.5 s (0.2 s would need 510 bins).
	if tl.t0 != 1000 || tl.width != 0.5 || len(tl.ok) != 204 {
		t.Fatalf("t0 %v width %v bins %d, want 1000, 0.5, 204", tl.t0, tl.width, len(tl.ok))
	}
	if tl.records != 4 || tl.clamped != 1 {
		t.Errorf("records %d clamped %d, want 4 and 1", tl.records, tl.clamped)
	}
	if tl.ok[3] != 1 || tl.errd[0] != 1 || tl.errd[203] != 1 || tl.inc[203] != 1 {
		t.Errorf("completions: ok[3]=%v errd[0]=%v errd[203]=%v inc[203]=%v, want 1 each", tl.ok[3], tl.errd[0], tl.errd[203], tl.inc[203])
	}
	for _, c := range []struct {
		bin  int
		want float64
	}{{0, 0.5 + 0.4}, {1, 1}, {2, 1}, {3, 0.5}, {4, 0}, {99, 0}, {100, 1}, {150, 1}, {203, 1}} {
		if got := tl.inflight[c.bin]; math.Abs(got-c.want) > 1e-6 {
			t.Errorf("in flight in bin %d = %v, want %v", c.bin, got, c.want)
		}
	}
	// Without a span in the report, a first pass over the records finds it.
	tl, err = recordTimeline(t.Context(), memSource{"mem", buf.Bytes()}, report.NewReport("x", nil))
	if err != nil {
		t.Fatal(err)
	}
	if tl.t0 != 1000.1 || tl.clamped != 0 {
		t.Errorf("span from records: t0 %v clamped %d, want 1000.1 and 0", tl.t0, tl.clamped)
	}
	// A corrupt line is an error naming the source and line.
	_, err = recordTimeline(t.Context(), memSource{"bad.jsonl", []byte("{\"id\":1,\"status\":\"successful\"}\n{oops\n")}, rep)
	if err == nil || !strings.Contains(err.Error(), "bad.jsonl:2") {
		t.Errorf("corrupt records: error %v, want one naming bad.jsonl:2", err)
	}
}

// A 10-round sweep with records and telemetry stays a modest page.
func TestRenderSize(t *testing.T) {
	rep, recs := sweepOnce(t, true)
	path := writeRecords(t, t.TempDir(), recs)
	page := render(t, []*report.Report{rep}, Options{Records: []RecordSource{RecordsFile(path)}})
	if n := len(page); n > 400<<10 {
		t.Errorf("10-round page is %d bytes, want at most 400 KiB", n)
	}
}

// An older report filed disconnects after a 200 under status 200: the
// errors table lists only the statuses that are HTTP errors.
func TestRenderErrorsByStatusSkips2xx(t *testing.T) {
	rep := handReport([]float64{1}, []float64{1}, []float64{1}, []float64{1}, []float64{1}, -1)
	b := rep.Benchmarks[0]
	b.Metrics.RequestTotals = &report.StatusCounts{Successful: 6, Errored: 4, Total: 10}
	b.Extras.Errors = report.ErrorCounts{ErrorRate: 0.4, ByClass: map[string]report.Int{"disconnect": 3, "http_status": 1},
		ByHTTPStatus: map[string]report.Int{"200": 3, "503": 1}}
	html := render(t, []*report.Report{rep}, Options{})
	if !strings.Contains(html, "503 ×1") || strings.Contains(html, "200 ×3") {
		t.Errorf("HTTP statuses: want 503 ×1 and no 200 ×3 in the errors table")
	}
}

// The errors section lists each class's most common message over every
// failed request in the window, as the console does.
func TestRenderErrorsTopMessages(t *testing.T) {
	rep := handReport([]float64{1}, []float64{1}, []float64{1}, []float64{1}, []float64{1}, -1)
	b := rep.Benchmarks[0]
	b.Metrics.RequestTotals = &report.StatusCounts{Successful: 0, Errored: 7, Total: 7}
	b.Extras.Errors = report.ErrorCounts{ErrorRate: 1, ByClass: map[string]report.Int{"http_status": 7},
		ByHTTPStatus: map[string]report.Int{"404": 7},
		Messages:     map[string]report.ErrorMessage{"http_status": {Message: "HTTP 404: no such route", Count: 6}}}
	html := render(t, []*report.Report{rep}, Options{})
	if !strings.Contains(html, "Most common message of each error class") || !strings.Contains(html, "HTTP 404: no such route") {
		t.Errorf("no table of the most common messages")
	}
	b.Extras.Errors.Messages = nil
	if html := render(t, []*report.Report{rep}, Options{}); strings.Contains(html, "Most common message of each error class") {
		t.Errorf("a table of messages for a report without them")
	}
}

// A pooling round's page gives its input tokens and inputs per second,
// in the rounds section and as the peak card, instead of 0 output tok/s.
func TestRenderPoolingThroughput(t *testing.T) {
	rep := handReport([]float64{1}, []float64{0}, []float64{0}, []float64{1}, []float64{1}, -1)
	rep.Benchmarks[0].Extras.Inputs = &report.InputFigures{Kind: "documents", Total: 240, PerRequest: 8, PerSecond: 31.25, Tokens: 15360, TokensPerSecond: 2048}
	html := render(t, []*report.Report{rep}, Options{})
	for _, want := range []string{"Pooling throughput (a pooling request has no output tokens)", "Peak pooling throughput", fmtNum(2048) + " input tok/s"} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestEnergyTableHidesEmptyColumns: telemetry of the server only (no
// energy source, no price) shows no energy table of dashes; a price only
// shows the cost columns and none of the energy ones.
func TestEnergyTableHidesEmptyColumns(t *testing.T) {
	f := func(v float64) *report.Float { x := report.Float(v); return &x }
	rep := handReport([]float64{1, 2}, []float64{10, 20}, []float64{10, 20}, []float64{100, 200}, []float64{10, 20}, 0)
	for _, b := range rep.Benchmarks {
		b.Extras.Telemetry = &report.BenchmarkTelemetry{Window: report.TelemetryWindow{Start: 100, End: 110, DurationS: 10},
			Server: &report.ServerTelemetry{Engine: "vllm"}}
	}
	page := render(t, []*report.Report{rep}, Options{})
	checkHTML(t, page)
	if strings.Contains(page, ">Energy Wh</th>") || !strings.Contains(page, "No energy or cost figures") {
		t.Error("server-only telemetry: want no energy table, and the note saying why")
	}
	for _, b := range rep.Benchmarks {
		b.Extras.Telemetry.Cost = &report.CostTelemetry{Source: "--cost-per-hour", Currency: "EUR", CPM: f(2), CostPerRequest: f(0.001), CPMBasis: "goodput"}
	}
	page = render(t, []*report.Report{rep}, Options{})
	checkHTML(t, page)
	if strings.Contains(page, ">Energy Wh</th>") || strings.Contains(page, ">Wh/token</th>") || !strings.Contains(page, "/1M out tok</th>") {
		t.Error("a price only: want the cost columns without the energy ones")
	}
	for _, b := range rep.Benchmarks {
		b.Extras.Telemetry.Energy = &report.EnergyTelemetry{Source: "nvml", EnergyWh: f(1), MeanPowerW: f(300), PeakPowerW: f(350), GPUs: 1}
	}
	if page = render(t, []*report.Report{rep}, Options{}); !strings.Contains(page, ">Energy Wh</th>") {
		t.Error("with an energy source: want the energy columns")
	}
}
