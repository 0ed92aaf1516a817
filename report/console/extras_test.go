package console

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

// extrasReport builds, by hand, a report of three benchmarks: a goodput
// benchmark whose client was saturated, a goodput benchmark with no
// samples in its extras and no client figures, and a GuideLLM benchmark
// (no extras at all).
func extrasReport() *report.Report {
	sum := func(median, p99, max report.Float, count report.Int) *report.DistributionSummary {
		d := &report.DistributionSummary{Median: median, Max: max, Count: count}
		d.Percentiles.P99 = p99
		return d
	}
	succ := func(d *report.DistributionSummary) *report.StatusDistributionSummary {
		return &report.StatusDistributionSummary{Successful: d, Errored: &report.DistributionSummary{}, Incomplete: &report.DistributionSummary{}, Total: d}
	}
	lateness := &report.StatusDistributionSummary{Successful: sum(1, 2, 2, 5), Errored: sum(9, 9, 9, 1), Incomplete: &report.DistributionSummary{},
		// All requests: the lateness of errored requests counts too.
		Total: sum(1.04, 3.26, 12, 6)}
	b0 := &report.Benchmark{Config: report.BenchmarkConfig{Strategy: report.Strategy{Type: report.StrategyConstant, Rate: 2}}, Extras: &report.Extras{
		Metrics: report.ExtraMetrics{
			ScheduledTimeToFirstTokenMs: succ(sum(120.04, 480.5, 510, 5)),
			DispatchLatenessMs:          lateness,
			ITLPerGapMs:                 succ(sum(9.94, 41, 77.7, 400)),
			TimeToSecondTokenMs:         succ(sum(130, 200, 250, 5)),
		},
		// 2 + 1 of 8 compared requests differ: 37.5 %.
		TokenMismatch: report.TokenMismatch{Compared: 8, Equal: 5, ServerHigher: 2, ClientHigher: 1},
		Client:        &report.ClientLoad{Saturated: true, Reason: "timer lag P99 12.0 ms > 5ms: the client process is CPU-starved"},
	}}
	empty := succ(&report.DistributionSummary{})
	b1 := &report.Benchmark{Config: report.BenchmarkConfig{Strategy: report.Strategy{Type: report.StrategyConcurrent, Streams: 4}}, Extras: &report.Extras{
		Metrics: report.ExtraMetrics{ScheduledTimeToFirstTokenMs: empty, DispatchLatenessMs: empty, ITLPerGapMs: empty},
	}}
	b2 := &report.Benchmark{Config: report.BenchmarkConfig{Strategy: report.Strategy{Type: report.StrategySynchronous}}}
	return &report.Report{Benchmarks: []*report.Benchmark{b0, b1, b2}, Layout: report.LayoutGoodput}
}

// TestConsoleExtrasAndSaturation: goodput's table shows the figures
// computed by hand below, "-" for absent ones, and a saturated client
// marks the rows of latency figures and gets a footnote with its reason.
func TestConsoleExtrasAndSaturation(t *testing.T) {
	var b bytes.Buffer
	if err := WriteWidth(&b, extrasReport(), 0); err != nil {
		t.Fatal(err)
	}
	// Benchmark 0: scheduled TTFT P50 120.04 → 120.0, P99 480.5; lateness
	// over all requests P99 3.26 → 3.3, max 12.0; ITL per gap P50 9.94 →
	// 9.9, P99 41.0; TTST P50 130.0; mismatch (2+1)/8 = 37.5 %.
	// Benchmark 1: every extras distribution has no samples, nothing was
	// compared; benchmark 2 has no extras.
	want := `Requests and throughput (request counts in the measurement window; rates are means)
                    | Requests              | Throughput                           |
 #  Strategy        | Succ  Err  Inc  Err % | Req/s  Out tok/s  Tot tok/s  Concur. | Duration s
 -  --------------- | ----  ---  ---  ----- | -----  ---------  ---------  ------- | ----------
 0  constant 2.00/s |    -    -    -      - |     -          -          -        - |          -
 1  concurrent 4    |    -    -    -      - |     -          -          -        - |          -
 2  synchronous     |    -    -    -      - |     -          -          -        - |          -

Latency, successful requests (ms)
                     | TTFT          | ITL           | TPOT          | Request latency
 #  Strategy         | P50  P95  P99 | P50  P95  P99 | P50  P95  P99 | P50  P95    P99
 -  ---------------- | ---  ---  --- | ---  ---  --- | ---  ---  --- | ---  ---  -----
 0  constant 2.00/s* |   -    -    - |   -    -    - |   -    -    - |   -    -      -
 1  concurrent 4     |   -    -    - |   -    -    - |   -    -    - |   -    -      -
 2  synchronous      |   -    -    - |   -    -    - |   -    -    - |   -    -      -

Schedule and streaming, successful requests (ms; lateness over all requests)
  Sched. TTFT counts from the intended send time (no coordinated omission); lateness = sent − intended;
  ITL per gap: every inter-chunk gap; TTST: time to second token; token mismatch: server ≠ client count
                     | Sched. TTFT  | Lateness  | ITL per gap | TTST  | Tokens
 #  Strategy         |   P50    P99 | P99   Max | P50     P99 |   P50 | Mismatch %
 -  ---------------- | -----  ----- | ---  ---- | ---  ------ | ----- | ----------
 0  constant 2.00/s* | 120.0  480.5 | 3.3  12.0 | 9.9    41.0 | 130.0 |       37.5
 1  concurrent 4     |     -      - |   -     - |   -       - |     - |          -
 2  synchronous      |     -      - |   -     - |   -       - |     - |          -
* benchmark 0 (constant 2.00/s): client saturated: latency figures unreliable: timer lag P99 12.0 ms > 5ms: the client process is CPU-starved
`
	if got := b.String(); got != want {
		t.Errorf("console:\n%s\nwant:\n%s", got, want)
	}
}

// TestCSVClientSaturated: goodput's CSV says per benchmark whether the
// client was saturated and why (empty when the client's load was not
// measured; no such columns for a GuideLLM benchmark).
func TestCSVClientSaturated(t *testing.T) {
	r := extrasReport()
	var b bytes.Buffer
	if err := report.WriteCSV(&b, r); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := func(field string) int {
		for i := range rows[1] {
			if rows[0][i] == "Goodput" && rows[1][i] == field {
				return i
			}
		}
		t.Fatalf("no Goodput %q column", field)
		return -1
	}
	sat, reason := col("Client Saturated"), col("Client Saturation Reason")
	want := [][2]string{
		{"True", "timer lag P99 12.0 ms > 5ms: the client process is CPU-starved"},
		{"", ""},
		{"", ""},
	}
	for i, w := range want {
		row := rows[3+i]
		if row[sat] != w[0] || row[reason] != w[1] {
			t.Errorf("benchmark %d: saturated %q, reason %q; want %q, %q", i, row[sat], row[reason], w[0], w[1])
		}
	}
	r.Benchmarks[0].Extras.Client = &report.ClientLoad{Saturated: false}
	b.Reset()
	if err := report.WriteCSV(&b, r); err != nil {
		t.Fatal(err)
	}
	if rows, _ := csv.NewReader(&b).ReadAll(); rows[3][sat] != "False" {
		t.Errorf("a client that kept up: %q, want False", rows[3][sat])
	}
	var con bytes.Buffer
	if err := WriteWidth(&con, r, 0); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(con.String(), "saturated") || strings.Contains(con.String(), "2.00/s*") {
		t.Errorf("a client that kept up is marked:\n%s", con.String())
	}
}

// The prompt mismatch column appears when a benchmark compared prompt
// counts: the share that differ, "-" where nothing was compared.
func TestConsolePromptMismatch(t *testing.T) {
	r := extrasReport()
	r.Benchmarks[0].Extras.PromptTokenMismatch = &report.TokenMismatch{Compared: 4, ServerHigher: 4}
	var b bytes.Buffer
	if err := WriteWidth(&b, r, 0); err != nil {
		t.Fatal(err)
	}
	var rows []string
	in := false
	for _, l := range strings.Split(b.String(), "\n") {
		switch {
		case strings.Contains(l, "Mismatch %"):
			if !strings.HasSuffix(l, "Mismatch %  Prompt %") {
				t.Errorf("heads %q", l)
			}
			in = true
		case in && l == "":
			in = false
		case in && len(strings.TrimSpace(l)) > 0 && strings.TrimSpace(l)[0] >= '0' && strings.TrimSpace(l)[0] <= '9':
			rows = append(rows, l)
		}
	}
	if len(rows) != 3 || !strings.HasSuffix(rows[0], "37.5     100.0") || !strings.HasSuffix(rows[1], "-         -") || !strings.HasSuffix(rows[2], "-         -") {
		t.Errorf("rows:\n%s\nconsole:\n%s", strings.Join(rows, "\n"), b.String())
	}
	if !strings.Contains(b.String(), "Prompt %: requests whose server prompt count") {
		t.Errorf("no note on the prompt column:\n%s", b.String())
	}
}
