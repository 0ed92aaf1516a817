package htmlreport

import (
	"encoding/xml"
	"errors"
	"io"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

// wellFormed fails the test unless s is well-formed XML (an SVG element
// must be, to be embeddable anywhere).
func wellFormed(t testing.TB, s string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(s))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v\n%s", err, s)
		}
	}
}

// badCoord matches a coordinate attribute that is not a finite number.
var badCoord = regexp.MustCompile(`\b(?:x|y|x1|y1|x2|y2|cx|cy|r|width|height|d|viewBox)="[^"]*(?:NaN|Inf)`)

func svgOf(c *chart) string {
	var b strings.Builder
	c.svg(&b)
	return b.String()
}

// handReport builds a constant-rate report by hand: one benchmark per
// load with the given throughput, goodput, TTFT P99 and ITL P95 (NaN:
// absent), judged against ttft_p99=500ms,itl_p95=50ms, with the knee at
// round knee (-1: none).
func handReport(loads, thr, good, ttft, itl []float64, knee int) *report.Report {
	var bs []*report.Benchmark
	for i, l := range loads {
		b := &report.Benchmark{Type: "generative_benchmark"}
		b.Config.Strategy = report.Strategy{Type: report.StrategyConstant, Rate: l}
		b.Metrics.OutputTokensPerSecond = &report.StatusDistributionSummary{Successful: &report.DistributionSummary{Mean: report.Float(thr[i])}}
		res := &report.SLOResult{Spec: "ttft_p99=500ms,itl_p95=50ms", ThroughputOutputTokS: report.Float(thr[i]), GoodputOutputTokS: report.Float(good[i]),
			Pass: ttft[i] <= 500 && itl[i] <= 50}
		res.Objectives = []report.ObjectiveResult{
			{Key: "ttft_p99", Metric: "ttft", Percentile: 99, Unit: "ms", Threshold: 500, Measured: report.Float(ttft[i]), Pass: ttft[i] <= 500},
			{Key: "itl_p95", Metric: "itl", Percentile: 95, Unit: "ms", Threshold: 50, Measured: report.Float(itl[i]), Pass: itl[i] <= 50},
		}
		b.Extras = &report.Extras{Version: 1, Exact: true, SLO: res}
		bs = append(bs, b)
	}
	rep := report.NewReport("test", nil, bs...)
	rep.Run = &report.RunExtras{Version: 1, RunID: "hand", SLO: &report.SLOSpec{Spec: "ttft_p99=500ms,itl_p95=50ms"}}
	if knee >= 0 {
		rep.Run.Knee = &report.Knee{Found: true, Index: report.Int(knee), Below: report.Int(knee - 1), Above: report.Int(knee + 1),
			Rate: report.Float(loads[knee]), GoodputOutputTokS: report.Float(good[knee]), ThroughputOutputTokS: report.Float(thr[knee]),
			TTFTP99Ms: report.Float(ttft[knee]), ITLP95Ms: report.Float(itl[knee])}
	}
	return rep
}

// chartSVG extracts the <svg> with the given id from a page.
func chartSVG(t testing.TB, page, id string) string {
	t.Helper()
	i := strings.Index(page, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="`+id+`"`)
	if i < 0 {
		t.Fatalf("chart %s not in the page", id)
	}
	j := strings.Index(page[i:], "</svg>")
	return page[i : i+j+len("</svg>")]
}

// The knee marker sits on the knee round's point and the SLO threshold is
// a line at the threshold's y, in a data set whose pixels are computed by
// hand: plot area x 66..700, y 254 (bottom)..14 (top).
func TestKneeMarkerAndThreshold(t *testing.T) {
	rep := handReport(
		[]float64{2, 4, 6, 8, 10},          // x domain 0..10 (step 2)
		[]float64{100, 200, 300, 400, 500}, // y domain 0..500 (step 100)
		[]float64{100, 200, 300, 250, 150},
		[]float64{100, 200, 450, 700, 900}, // y domain 0..1000 (step 200), linear (900/100 < 30)
		[]float64{10, 12, 20, 60, 90}, 2)
	v := newRunView(0, rep, "", nil)
	p := &page{}
	renderLoadCurve(p, v)
	html := p.String()

	tput := chartSVG(t, html, "r0-load-tput")
	wellFormed(t, tput)
	// Knee at load 6 (x = 66 + 0.6×634 = 446.4), goodput 300 (y = 254 − 0.6×240 = 110).
	if want := `<path d="M446.4 103L453.4 110L446.4 117L439.4 110Z"`; !strings.Contains(tput, want) {
		t.Errorf("throughput chart: knee marker %s missing:\n%s", want, tput)
	}
	if want := `<line x1="446.4" y1="14" x2="446.4" y2="254"/>`; !strings.Contains(tput, want) {
		t.Errorf("throughput chart: knee guide %s missing", want)
	}
	if !strings.Contains(tput, "knee 300 tok/s") {
		t.Errorf("throughput chart: knee label missing")
	}

	ttft := chartSVG(t, html, "r0-load-ttft")
	wellFormed(t, ttft)
	// Threshold 500 ms on 0..1000: y = 254 − 0.5×240 = 134.
	if want := `<line x1="66" y1="134" x2="700" y2="134" stroke="#C0392B"/>`; !strings.Contains(ttft, want) {
		t.Errorf("TTFT chart: threshold line %s missing:\n%s", want, ttft)
	}
	// Knee TTFT 450 ms: y = 254 − 0.45×240 = 146.
	if want := `<path d="M446.4 139L453.4 146L446.4 153L439.4 146Z"`; !strings.Contains(ttft, want) {
		t.Errorf("TTFT chart: knee marker %s missing", want)
	}
	// The TTFT series passes through every round: (2, 100) is at (66+0.2×634, 254−0.1×240).
	if !strings.Contains(ttft, `<path d="M192.8 230L319.6 206L446.4 146L573.2 86L700 38"`) {
		t.Errorf("TTFT chart: series path wrong:\n%s", ttft)
	}

	// ITL 10..90 ms: ratio 9, linear 0..100 (step 20); threshold 50 at y = 254 − 0.5×240 = 134.
	itl := chartSVG(t, html, "r0-load-itl")
	if want := `<line x1="66" y1="134" x2="700" y2="134" stroke="#C0392B"/>`; !strings.Contains(itl, want) {
		t.Errorf("ITL chart: threshold line %s missing:\n%s", want, itl)
	}
}

// A wide TTFT range switches the latency chart to a log axis; the
// threshold and knee stay where log10 puts them.
func TestLogLatencyAxis(t *testing.T) {
	rep := handReport([]float64{2, 4, 6, 8, 10}, []float64{1, 2, 3, 4, 5}, []float64{1, 2, 3, 2, 1},
		[]float64{100, 200, 500, 5000, 20000}, []float64{10, 10, 10, 10, 10}, 2)
	v := newRunView(0, rep, "", nil)
	p := &page{}
	renderLoadCurve(p, v)
	ttft := chartSVG(t, p.String(), "r0-load-ttft")
	// Domain 100..20000 (both 1-2-5 values); 500 ms sits at
	// log10(5)/log10(200) of the height: y = 254 − 0.30376×240 = 181.1.
	if want := `<line x1="66" y1="181.1" x2="700" y2="181.1" stroke="#C0392B"/>`; !strings.Contains(ttft, want) {
		t.Errorf("log TTFT chart: threshold line %s missing:\n%s", want, ttft)
	}
	if !strings.Contains(ttft, "log scale") {
		t.Error("log TTFT chart: axis label does not say log scale")
	}
}

// Charts with no data, one point, NaN or unplaceable values still give
// well-formed SVG with finite coordinates, and never panic.
func TestChartDegenerateData(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name     string
		c        chart
		noData   bool
		contains []string
		absent   []string
	}{
		{name: "no series", c: chart{id: "a", title: "t"}, noData: true},
		{name: "empty series", c: chart{id: "b", series: []series{{name: "s"}}}, noData: true},
		{name: "all NaN", c: chart{id: "c", series: []series{{name: "s", dots: true, pts: []point{{x: nan, y: 1}, {x: 1, y: nan}}}}}, noData: true, absent: []string{"<path d=", "<circle"}},
		{name: "too large", c: chart{id: "d", series: []series{{name: "s", pts: []point{{x: 1e300, y: 1}}}}}, noData: true},
		{name: "log axis, non-positive only", c: chart{id: "e", y: axis{log: true}, series: []series{{name: "s", pts: []point{{x: 1, y: 0}, {x: 2, y: -3}}}}}, noData: true},
		// One point at (3, 7): x domain 2.7..3.3 (step 0.1); y 6.3..7.7 widened to 6..8 (step 0.5).
		{name: "one point", c: chart{id: "f", series: []series{{name: "s", dots: true, pts: []point{{x: 3, y: 7, tip: "p"}}}}},
			contains: []string{`<circle cx="383" cy="134" r="3.5" fill="#0072B2"><title>p</title></circle>`}},
		// A NaN in the middle breaks the line: two subpaths, no segment across the gap.
		{name: "gap", c: chart{id: "g", series: []series{{name: "s", pts: []point{{x: 0, y: 0}, {x: 1, y: nan}, {x: 2, y: 2}}}}},
			contains: []string{`<path d="M66 254M700 14"`}},
		// Step series: flat then vertical.
		{name: "step", c: chart{id: "h", series: []series{{name: "s", kind: stepSeries, pts: []point{{x: 0, y: 0}, {x: 1, y: 1}, {x: 2, y: 2}}}}},
			contains: []string{`<path d="M66 254H383V134H700V14"`}},
		// Reference lines and markers alone set the domain.
		{name: "threshold only", c: chart{id: "i", hlines: []refLine{{v: 5, label: "SLO"}}}, noData: true, contains: []string{`stroke="#C0392B"`}},
		{name: "marker NaN", c: chart{id: "j", marks: []marker{{x: nan, y: 1, label: "k"}}, series: []series{{pts: []point{{x: 1, y: 1}}}}}, absent: []string{`class="mark"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := svgOf(&tc.c)
			wellFormed(t, s)
			if badCoord.MatchString(s) {
				t.Errorf("non-finite coordinate: %s", badCoord.FindString(s))
			}
			if got := strings.Contains(s, `class="nodata"`); got != tc.noData {
				t.Errorf("no-data text shown = %v, want %v", got, tc.noData)
			}
			for _, want := range tc.contains {
				if !strings.Contains(s, want) {
					t.Errorf("missing %s in\n%s", want, s)
				}
			}
			for _, bad := range tc.absent {
				if strings.Contains(s, bad) {
					t.Errorf("unexpected %s in\n%s", bad, s)
				}
			}
		})
	}
}

// Every text a chart takes is escaped.
func TestChartEscapes(t *testing.T) {
	evil := `<script>alert("x")</script>&'`
	c := &chart{id: "x", title: evil, x: axis{label: evil}, y: axis{label: evil},
		series: []series{{name: evil, dots: true, pts: []point{{x: 1, y: 1, tip: evil}}}, {name: evil, kind: scatterSeries, pts: []point{{x: 2, y: 2, label: evil}}}},
		hlines: []refLine{{v: 1, label: evil}}, vlines: []refLine{{v: 1, label: evil}}, marks: []marker{{x: 1, y: 1, label: evil}}}
	s := svgOf(c)
	wellFormed(t, s)
	if strings.Contains(s, "<script") || strings.Contains(s, `alert("x")`) {
		t.Errorf("unescaped text in SVG:\n%s", s)
	}
	if n := strings.Count(s, "&lt;script&gt;"); n < 10 {
		t.Errorf("escaped text appears %d times, want every label (≥ 10)", n)
	}
}

// TestBarsWithin: an interval widens the y axis only within the points'
// own span past them, so a few requests' wide P99 interval does not fill
// the chart's height and squeeze the points.
func TestBarsWithin(t *testing.T) {
	if got := barsWithin([]float64{10, 20}, []float64{5, 25, 1000}, false); !slices.Equal(got, []float64{5, 25}) {
		t.Errorf("linear: %v, want [5 25]", got)
	}
	if got := barsWithin([]float64{10, 100}, []float64{1, 1000, 1e6}, true); !slices.Equal(got, []float64{1, 1000}) {
		t.Errorf("log: %v, want [1 1000]", got)
	}
	if got := barsWithin(nil, []float64{1}, false); got != nil {
		t.Errorf("no points: %v", got)
	}
}

// A label beside a point starts after it where it fits before the
// chart's right edge, else ends before it, else is broken into lines on
// the roomier side; nothing is cut.
func TestLabelStaysInChart(t *testing.T) {
	if got := label("pl", "knee", 100, 90, 50, false); got != `<text class="pl" x="100" y="50">knee</text>` {
		t.Errorf("room on the right: %s", got)
	}
	if got := label("", "SLO 50.0 ms", chartWidth-10, chartWidth-16, 23, false); got != `<text x="704" y="23" text-anchor="end">SLO 50.0 ms</text>` {
		t.Errorf("at the right edge: %s", got)
	}
	// 75 runes (465 units); 318 units on the right, 378 on the left: lines
	// of at most 378 / 6.2 = 60 runes, ending before the point.
	long := "sweep-llama-3.1-70b-instruct-fp8-tp8-on-8xH100-SXM-80GB-vllm-0.9.1-baseline"
	got := label("pl", long, 400, 380, 100, false)
	want := `<text class="pl" x="380" y="100" text-anchor="end">` +
		`<tspan x="380" dy="0">sweep-llama-3.1-70b-instruct-fp8-tp8-on-8xH100-SXM-80GB-</tspan>` +
		`<tspan x="380" dy="1.15em">vllm-0.9.1-baseline</tspan></text>`
	if got != want {
		t.Errorf("too long for either side:\n%s\nwant\n%s", got, want)
	}
	if got := label("", "knee", 500, 480, 50, true); got != `<text x="480" y="50" text-anchor="end">knee</text>` {
		t.Errorf("left first: %s", got)
	}
	if strings.Contains(got, "…") {
		t.Error("a label was cut")
	}
}

func TestBreakLabel(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want []string
	}{
		{"short", 10, []string{"short"}},
		{"a b c d", 3, []string{"a b", "c d"}},
		{"model-name_v2/final", 7, []string{"model-", "name_", "v2/", "final"}},
		{"unbreakable", 4, []string{"unbreakable"}},
	} {
		if got := breakLabel(tc.in, tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("breakLabel(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
