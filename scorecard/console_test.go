package scorecard

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/goodput-dev/goodput/internal/texttable"
	"github.com/goodput-dev/goodput/report"
)

var update = flag.Bool("update", false, "rewrite testdata's golden summaries")

// TestSummaryWidth: make demo's scorecard summary (cost, energy, carbon),
// wrapped as the run wraps it, in 80 and 100 columns against its golden
// files (go test ./scorecard -run TestSummaryWidth -update rewrites
// them); no line is wider.
func TestSummaryWidth(t *testing.T) {
	b := benchmark(0, time.Unix(1_781_604_000, 0), 3*time.Second, 853.1, true)
	b.Extras.Telemetry = &report.BenchmarkTelemetry{
		Window: report.TelemetryWindow{DurationS: 3, Basis: "measurement"},
		Cost:   &report.CostTelemetry{Source: "--gpu-cost-per-hour", Currency: "EUR", CostPerHour: 2.5, WindowCost: 0.00208},
		Energy: &report.EnergyTelemetry{Source: "dcgm-exporter http://127.0.0.1:41161/dcgm/metrics", Method: "counter",
			EnergyJ: rf(216), MeanPowerW: rf(72), GPUs: 1, GPUModel: "NVIDIA L4",
			Derived: &report.EnergyDerived{WhPerOutputToken: rf(2.32e-5), JPerOutputToken: rf(0.0836), PUE: 1.3,
				WhPerOutputTokenPUE: rf(3.02e-5), GridGCO2PerKWh: rf(56), GCO2PerMOutputTokens: rf(1.69)}},
	}
	f, err := Build(&report.Report{Benchmarks: []*report.Benchmark{b}})
	if err != nil {
		t.Fatal(err)
	}
	var s strings.Builder
	if err := WriteSummary(&s, f, "results/20261206T051520-8f8cbb/scorecard-20261206T051520-8f8cbb.json"); err != nil {
		t.Fatal(err)
	}
	for _, cols := range []int{80, 100} {
		got := texttable.Wrap(s.String(), cols)
		for i, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
			if n := utf8.RuneCountInString(line); n > cols {
				t.Errorf("%d columns: line %d is %d wide: %s", cols, i+1, n, line)
			}
		}
		path := filepath.Join("testdata", fmt.Sprintf("summary.%d.txt", cols))
		if *update {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (-update writes it)", err)
		}
		if got != string(want) {
			t.Errorf("%d columns differs from %s (-update to accept):\n%s", cols, path, got)
		}
	}
}
