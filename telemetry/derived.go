package telemetry

import (
	"fmt"
	"math"
	"strings"
)

// EnergyInput is what the derived energy figures need for one window.
// Token counts should come from the client (the server counters are a
// cross-check).
type EnergyInput struct {
	EnergyJ      float64 // GPU energy over the window, J
	OutputTokens int64   // output (generated) tokens in the window
	PromptTokens int64   // prompt (input) tokens in the window
	Requests     int64   // completed requests in the window
	// PUE is the data centre's power usage effectiveness (≥ 1); 0 = not
	// given, and the PUE-adjusted figures are NaN.
	PUE float64
	// GridGCO2PerKWh is the grid carbon intensity in gCO2/kWh; 0 = not
	// given, and the carbon figures are NaN.
	GridGCO2PerKWh float64
	// GPUModel (e.g. "NVIDIA H200") picks the plausibility band.
	GPUModel string
}

// EnergyFigures are derived from an EnergyInput. NaN means undefined (a
// zero denominator, or an input not given).
//
// Unit conversions: 1 Wh = 3600 J; kWh per 1M tokens = J/token ÷ 3.6;
// gCO2 per 1M tokens = kWh per 1M tokens × PUE (1 when not given) × gCO2/kWh.
type EnergyFigures struct {
	JPerOutputToken  float64 // EnergyJ / OutputTokens
	JPerToken        float64 // EnergyJ / (PromptTokens + OutputTokens)
	WhPerOutputToken float64 // JPerOutputToken / 3600
	WhPerToken       float64 // JPerToken / 3600
	// KWhPerMOutputTokens = JPerOutputToken / 3.6.
	KWhPerMOutputTokens float64
	WhPerRequest        float64 // EnergyJ / 3600 / Requests
	OutputTokensPerJ    float64 // OutputTokens / EnergyJ
	TokensPerJ          float64 // (PromptTokens + OutputTokens) / EnergyJ
	// WhPerOutputTokenPUE and WhPerTokenPUE are multiplied by PUE.
	WhPerOutputTokenPUE float64
	WhPerTokenPUE       float64
	// GCO2PerMOutputTokens and GCO2PerMTokens are grams of CO2 per million
	// tokens, PUE-adjusted when PUE is given.
	GCO2PerMOutputTokens float64
	GCO2PerMTokens       float64
	// Family, BandLowJ and BandHighJ are the plausibility band applied to
	// JPerOutputToken.
	Family              string
	BandLowJ, BandHighJ float64
	Warnings            []string
}

// plausibilityBand is a generous range of GPU-only energy per output token
// for one GPU family. Published figures (telemetry.md §8):
//   - ML.ENERGY Leaderboard v3.0 (Dec 2025, vLLM 0.11.1, H100, GPU-only via
//     NVML/Zeus): Llama-3.1-8B at batch 64 ≈ 0.12 J/output token;
//   - MLPerf Inference v4.x Llama-2-70B Offline, 8×H100/H200: derived
//     ≈ 0.15–0.2 J/output token GPU-only (≈ 0.3 system-level);
//   - low batch (1–8) with 2k–16k-token prompts on 4×H100, 70B class
//     (clune.org estimate): 5–70 J/output token;
//   - arXiv 2310.03003, LLaMA-65B on V100/A100: ≈ 3–4 J/decoded token.
//
// The bands stretch these by several times on both sides (small models,
// large batches, long prompts); a value outside almost always means a unit
// error (mJ read as J is ×1000, mW as W ×1000), a sum over overlapping Kepler
// zones, or GPUs selected that did not serve the load.
type plausibilityBand struct {
	family   string
	patterns []string // substrings of the upper-cased GPU name
	lowJ     float64
	highJ    float64
}

// plausibilityBands is an immutable lookup table, most specific names first
// (GB200 before B200; families do not share patterns).
var plausibilityBands = []plausibilityBand{
	{"Blackwell", []string{"GB200", "GB300", "B200", "B300", "B100", "RTX PRO 6000"}, 0.005, 100},
	{"Hopper", []string{"GH200", "H100", "H200", "H800", "H20"}, 0.01, 100},
	{"Ada Lovelace", []string{"L40S", "L40", "L4", "RTX 6000 ADA", "RTX 4090"}, 0.02, 200},
	{"Ampere", []string{"A100", "A800", "A40", "A30", "A10", "A16", "A2", "RTX A6000", "RTX 3090"}, 0.02, 200},
	{"Volta", []string{"V100"}, 0.1, 400},
	{"Turing", []string{"T4", "RTX 2080"}, 0.1, 400},
}

var unknownBand = plausibilityBand{family: "unknown GPU", lowJ: 0.005, highJ: 400}

func bandFor(model string) plausibilityBand {
	m := strings.ToUpper(model)
	for _, b := range plausibilityBands {
		for _, p := range b.patterns {
			if strings.Contains(m, p) {
				return b
			}
		}
	}
	return unknownBand
}

// DeriveEnergy computes the per-token, per-request and carbon figures for
// one window. It rejects negative or non-finite inputs and a PUE below 1.
func DeriveEnergy(in EnergyInput) (EnergyFigures, error) {
	for _, f := range []struct {
		name string
		v    float64
	}{{"energy J", in.EnergyJ}, {"output tokens", float64(in.OutputTokens)}, {"prompt tokens", float64(in.PromptTokens)},
		{"requests", float64(in.Requests)}, {"PUE", in.PUE}, {"grid intensity gCO2/kWh", in.GridGCO2PerKWh}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return EnergyFigures{}, fmt.Errorf("energy figures: %s %v: want a finite number ≥ 0", f.name, f.v)
		}
	}
	if in.PUE != 0 && in.PUE < 1 {
		return EnergyFigures{}, fmt.Errorf("energy figures: PUE %v: want ≥ 1 (facility energy / IT energy), or 0 for not given", in.PUE)
	}
	div := func(a, b float64) float64 {
		if b == 0 {
			return math.NaN()
		}
		return a / b
	}
	nan := math.NaN()
	out := float64(in.OutputTokens)
	all := out + float64(in.PromptTokens)
	f := EnergyFigures{
		JPerOutputToken:  div(in.EnergyJ, out),
		JPerToken:        div(in.EnergyJ, all),
		WhPerRequest:     div(in.EnergyJ/3600, float64(in.Requests)),
		OutputTokensPerJ: div(out, in.EnergyJ),
		TokensPerJ:       div(all, in.EnergyJ),
	}
	f.WhPerOutputToken = f.JPerOutputToken / 3600
	f.WhPerToken = f.JPerToken / 3600
	f.KWhPerMOutputTokens = f.JPerOutputToken / 3.6
	f.WhPerOutputTokenPUE, f.WhPerTokenPUE = nan, nan
	pue := 1.0
	if in.PUE > 0 {
		pue = in.PUE
		f.WhPerOutputTokenPUE = f.WhPerOutputToken * pue
		f.WhPerTokenPUE = f.WhPerToken * pue
	}
	f.GCO2PerMOutputTokens, f.GCO2PerMTokens = nan, nan
	if in.GridGCO2PerKWh > 0 {
		// Wh/token × 10^6 tokens ÷ 1000 Wh/kWh = kWh per 1M tokens.
		f.GCO2PerMOutputTokens = f.WhPerOutputToken * 1e3 * pue * in.GridGCO2PerKWh
		f.GCO2PerMTokens = f.WhPerToken * 1e3 * pue * in.GridGCO2PerKWh
	}
	b := bandFor(in.GPUModel)
	f.Family, f.BandLowJ, f.BandHighJ = b.family, b.lowJ, b.highJ
	if j := f.JPerOutputToken; !math.IsNaN(j) && (j < b.lowJ || j > b.highJ) {
		f.Warnings = append(f.Warnings, fmt.Sprintf(
			"implausible energy per output token: %.4g J is outside %g–%g J for %s GPUs (published GPU-only figures are about 0.1–0.2 J at high concurrency and 5–70 J at concurrency 1–8 for 70B-class models on Hopper); check units (mJ vs J, mW vs W), the GPU selection and the token counts",
			j, b.lowJ, b.highJ, b.family))
	}
	return f, nil
}
