package telemetry

import (
	"math"
	"strings"
	"testing"
)

// TestDeriveEnergyGolden uses the scorecard of harness-articles.txt
// (1.58 J/token, PUE 1.4, 40 gCO2/kWh → 24.6 g per 1M tokens), with every
// figure worked out by hand.
func TestDeriveEnergyGolden(t *testing.T) {
	f, err := DeriveEnergy(EnergyInput{
		EnergyJ: 158000, OutputTokens: 100000, PromptTokens: 300000, Requests: 500,
		PUE: 1.4, GridGCO2PerKWh: 40, GPUModel: "NVIDIA H100 80GB HBM3",
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"J/output token", f.JPerOutputToken, 1.58},             // 158 000 / 100 000
		{"J/token", f.JPerToken, 0.395},                         // 158 000 / 400 000
		{"Wh/output token", f.WhPerOutputToken, 1.58 / 3600},    // 0.000438…
		{"Wh/token", f.WhPerToken, 0.395 / 3600},                // 0.000109…
		{"kWh/1M output tokens", f.KWhPerMOutputTokens, 0.4389}, // 1.58 / 3.6
		{"Wh/request", f.WhPerRequest, 158000.0 / 3600 / 500},   // 0.0877…
		{"output tokens/J", f.OutputTokensPerJ, 100000.0 / 158000},
		{"tokens/J", f.TokensPerJ, 400000.0 / 158000},
		{"Wh/output token PUE", f.WhPerOutputTokenPUE, 1.58 / 3600 * 1.4}, // 0.000614…
		{"Wh/token PUE", f.WhPerTokenPUE, 0.395 / 3600 * 1.4},
		// 0.000438… Wh × 10^6 = 438.9 Wh = 0.4389 kWh × 1.4 × 40 g = 24.58 g.
		{"gCO2/1M output tokens", f.GCO2PerMOutputTokens, 24.5778},
		{"gCO2/1M tokens", f.GCO2PerMTokens, 6.1444},
	} {
		tol := 1e-12
		if c.name == "kWh/1M output tokens" || strings.HasPrefix(c.name, "gCO2") {
			tol = 1e-4 // hand-rounded to 4 decimals
		}
		if !near(c.got, c.want, tol) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if f.Family != "Hopper" || len(f.Warnings) != 0 {
		t.Errorf("family %q warnings %q", f.Family, f.Warnings)
	}
}

func TestDeriveEnergyPlausibility(t *testing.T) {
	for _, tc := range []struct {
		model  string
		jPerT  float64
		family string
		warn   bool
	}{
		{"NVIDIA H200", 0.3, "Hopper", false},
		{"NVIDIA H200", 300, "Hopper", true},         // mJ taken as J
		{"NVIDIA H100 PCIe", 0.0003, "Hopper", true}, // J taken as mJ
		{"NVIDIA GB200", 0.008, "Blackwell", false},
		{"NVIDIA A100-SXM4-80GB", 3.5, "Ampere", false},
		{"NVIDIA L40S", 0.5, "Ada Lovelace", false},
		{"Tesla V100-SXM2-32GB", 0.05, "Volta", true},
		{"", 1, "unknown GPU", false},
	} {
		f, err := DeriveEnergy(EnergyInput{EnergyJ: tc.jPerT * 1000, OutputTokens: 1000, GPUModel: tc.model})
		if err != nil {
			t.Fatal(err)
		}
		if f.Family != tc.family || (len(f.Warnings) > 0) != tc.warn {
			t.Errorf("%q at %v J/token: family %q warnings %q; want %q, warning %v", tc.model, tc.jPerT, f.Family, f.Warnings, tc.family, tc.warn)
		}
		if tc.warn && !strings.Contains(f.Warnings[0], "check units") {
			t.Errorf("warning does not point at units: %q", f.Warnings[0])
		}
	}
}

func TestDeriveEnergyUndefinedAndInvalid(t *testing.T) {
	f, err := DeriveEnergy(EnergyInput{EnergyJ: 100})
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]float64{"J/output token": f.JPerOutputToken, "Wh/request": f.WhPerRequest,
		"PUE-adjusted": f.WhPerOutputTokenPUE, "gCO2": f.GCO2PerMOutputTokens} {
		if !math.IsNaN(v) {
			t.Errorf("%s = %v, want NaN without its input", name, v)
		}
	}
	// Grid intensity without PUE: carbon on GPU energy alone (PUE 1).
	f, _ = DeriveEnergy(EnergyInput{EnergyJ: 3600, OutputTokens: 1000, GridGCO2PerKWh: 100})
	// 3.6 J/token = 0.001 Wh → 1 kWh per 1M tokens → 100 g.
	if !near(f.GCO2PerMOutputTokens, 100, 1e-12) {
		t.Errorf("gCO2 without PUE = %v, want 100", f.GCO2PerMOutputTokens)
	}
	for _, in := range []EnergyInput{{EnergyJ: -1}, {EnergyJ: math.NaN()}, {OutputTokens: -5}, {PUE: 0.9}, {GridGCO2PerKWh: math.Inf(1)}} {
		if _, err := DeriveEnergy(in); err == nil {
			t.Errorf("DeriveEnergy(%+v) accepted", in)
		}
	}
}
