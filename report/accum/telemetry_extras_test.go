package accum

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

// TestTelemetryExtrasJSON: goodput.telemetry is absent without telemetry
// (so reports without it are unchanged), and with it the keys are the
// documented snake_case ones, an unmeasured figure is null, and the report
// writes, reads and writes again to the same bytes.
func TestTelemetryExtrasJSON(t *testing.T) {
	r := goldenReport(t)
	plain := writeJSON(t, r)
	if bytes.Contains(plain, []byte(`"telemetry"`)) {
		t.Fatal("a report without telemetry has a telemetry key")
	}
	f := func(v float64) *report.Float { x := report.Float(v); return &x }
	r.Benchmarks[0].Extras.Telemetry = &report.BenchmarkTelemetry{
		Window: report.TelemetryWindow{Start: 1781604000, End: 1781604100, DurationS: 100, Basis: "measurement"},
		Tokens: report.WindowTokens{Output: 312000, Prompt: 1228800, Requests: 1200, Successful: 1199, OutputTokS: 3120},
		Energy: &report.EnergyTelemetry{Source: "dcgm-exporter http://n:9400/metrics", Method: "counter", EnergyJ: f(492400), EnergyWh: f(136.8),
			MeanPowerW: f(4924), PeakPowerW: nil, GPUs: 4, PerGPU: []report.GPUEnergyTelemetry{{Index: "0", EnergyJ: f(123100), Samples: 100}},
			Derived:     &report.EnergyDerived{JPerOutputToken: f(1.578), PUE: 1.4, GridGCO2PerKWh: nil, Warnings: []string{}},
			CrossChecks: []report.EnergyCrossCheck{{Source: "prometheus http://p:9090", Method: "counter", EnergyJ: f(492000), DiffPct: f(-0.08)}}},
		Cost: &report.CostTelemetry{Source: "--gpu-cost-per-hour 2.7 × 4 GPUs", Currency: "EUR", CostPerHour: 10.8, WindowCost: 0.3, CPM: f(0.9615),
			CPMBasis: "goodput", BasisTokS: f(3120)},
		Server:  &report.ServerTelemetry{Engine: "vllm", Metrics: map[string]string{"ttft": "vllm:time_to_first_token_seconds"}, TTFT: &report.ServerLatency{Metric: "vllm:time_to_first_token_seconds", ServerP99Ms: f(240)}},
		Missing: []report.MissingTelemetry{{Source: "opencost", Reason: "unreachable"}},
	}
	first := writeJSON(t, r)
	back, err := report.Decode(bytes.NewReader(first), "r.json")
	if err != nil {
		t.Fatal(err)
	}
	if again := writeJSON(t, back); !bytes.Equal(first, again) {
		t.Error("write, read, write: different bytes")
	}
	var doc struct {
		Benchmarks []struct {
			Goodput struct {
				Telemetry map[string]json.RawMessage `json:"telemetry"`
			} `json:"goodput"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal(first, &doc); err != nil {
		t.Fatal(err)
	}
	tel := doc.Benchmarks[0].Goodput.Telemetry
	var keys []string
	for k := range tel {
		keys = append(keys, k)
	}
	for _, k := range []string{"window", "tokens", "energy", "cost", "server", "missing", "warnings"} {
		if _, ok := tel[k]; !ok {
			t.Errorf("telemetry lacks %q (has %v)", k, keys)
		}
	}
	for _, s := range []string{`"peak_power_w": null`, `"grid_intensity_gco2_kwh": null`, `"cpm": 0.9615`, `"output_tokens_per_second": 3120.0`,
		`"wh_per_output_token_pue_adjusted": null`, `"diff_pct": -0.08`, `"basis": "measurement"`} {
		if !strings.Contains(string(first), s) {
			t.Errorf("report lacks %s", s)
		}
	}
	// The second benchmark has no telemetry: no key.
	if doc.Benchmarks[1].Goodput.Telemetry != nil {
		t.Error("benchmark without telemetry has a telemetry key")
	}
}
