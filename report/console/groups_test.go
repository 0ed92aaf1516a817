package console

import (
	"bytes"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

// The By Model and By Target tables list each group of each benchmark,
// and are left out when no benchmark has a breakdown.
func TestConsoleGroupTables(t *testing.T) {
	att := report.Float(0.5)
	b := &report.Benchmark{Config: report.BenchmarkConfig{Strategy: report.Strategy{Type: report.StrategyConcurrent, Streams: 4}},
		Extras: &report.Extras{ByModel: []report.GroupFigures{
			{Name: "base", Requests: report.StatusCounts{Successful: 3, Errored: 1, Total: 4}, RequestsPerSecond: 1.5,
				RequestLatencyMs: &report.Quantiles{P50: 12.25, P99: 40}, Attainment: &att},
			{Name: "sql-lora", Requests: report.StatusCounts{Incomplete: 2, Total: 2}},
		}}}
	var out bytes.Buffer
	if err := WriteWidth(&out, &report.Report{Benchmarks: []*report.Benchmark{b}}, 0); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.Contains(s, "By Model") || strings.Contains(s, "By Target") {
		t.Fatalf("tables:\n%s", s)
	}
	var base, lora string
	for _, l := range strings.Split(s, "\n") {
		switch {
		case strings.Contains(l, " base "):
			base = strings.Join(strings.Fields(l), " ")
		case strings.Contains(l, "sql-lora"):
			lora = strings.Join(strings.Fields(l), " ")
		}
	}
	if base != "0 concurrent 4 base | 3 1 0 | 1.50 0.0 | 12.2 40.0 | - - | - | 50.0" || !strings.HasPrefix(lora, "0 concurrent 4 sql-lora | 0 0 2 |") {
		t.Fatalf("rows %q %q", base, lora)
	}
	out.Reset()
	b.Extras.ByModel = nil
	if err := WriteWidth(&out, &report.Report{Benchmarks: []*report.Benchmark{b}}, 0); err != nil || strings.Contains(out.String(), "By Model") {
		t.Fatalf("a table without breakdowns: %v\n%s", err, out.String())
	}
}
