package mock

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// CapacityModel is the continuous-batching engine the mock simulates when
// Config.Capacity is set: a vLLM-like scheduler with MaxNumSeqs slots, a FIFO
// waiting queue, chunked prefill under a per-step token budget, and a step
// time that grows with the batch. See "Capacity model" in README.md for the
// engine's rules and Capacity for the analytic steady state.
type CapacityModel struct {
	// Name is informational: the preset's name, or any label. It is not
	// validated.
	Name string

	// MaxNumSeqs is the number of running slots (vLLM's --max-num-seqs):
	// at most this many requests are in the batch (prefilling or decoding);
	// the others wait in a FIFO queue. Range 1..65536.
	MaxNumSeqs int

	// MaxNumBatchedTokens is the token budget of one step (vLLM's
	// --max-num-batched-tokens, chunked prefill on): each decoding sequence
	// takes one token of it, and prompts are prefilled in chunks from what
	// is left, so a prompt longer than the remainder takes several steps.
	// Range MaxNumSeqs..16777216 (as vLLM, the budget must cover one
	// decode token per slot).
	MaxNumBatchedTokens int

	// StepBase is the fixed cost of one engine step (weights read, launch
	// overheads). Range 1µs..10s; below about 2ms the Go timer
	// granularity (about 1ms) becomes a visible part of every step.
	StepBase time.Duration
	// StepPerSeq is the extra step time per decoding sequence in the step
	// (KV reads, per-token compute). Range 0..1s.
	StepPerSeq time.Duration
	// PrefillPerToken is the extra step time per prompt token prefilled in
	// the step. Range 0..1s.
	PrefillPerToken time.Duration

	// GPUs is the number of GPUs the model stands for (tensor parallel
	// size); it is the default for Config.GPUs. Range 1..256.
	GPUs int
	// GPU describes one GPU for the DCGM exposition and the power model;
	// it is the default for Config.GPU.
	GPU GPUSpec
}

// GPUSpec describes a simulated GPU: its name and memory in the DCGM
// exposition, and its power model. Each GPU draws
//
//	P = min(MaxWatts, IdleWatts + WattsPerSeq × running)
//
// watts, scaled by a fixed per-GPU factor in [0.97, 1] (real GPUs of one
// tensor-parallel group do not draw exactly the same), where running is the
// number of sequences in the engine's batch (prefilling or decoding) with a
// capacity model, or the number of admitted requests not yet ended without
// one.
type GPUSpec struct {
	// Name is the modelName label. Must be non-empty and printable.
	Name string
	// MemoryMiB is the framebuffer size; the exposition reports 90% of it
	// used (vLLM's default --gpu-memory-utilization preallocates it) and the
	// rest free. Range 1..16777216.
	MemoryMiB int
	// DriverVersion is the DCGM_FI_DRIVER_VERSION label. Must be non-empty
	// and printable.
	DriverVersion string
	// IdleWatts is the draw with nothing running. Range 0..MaxWatts.
	IdleWatts float64
	// WattsPerSeq is the extra draw per running sequence. Range 0..100000.
	WattsPerSeq float64
	// MaxWatts is the cap (the board power limit, TDP). Range 1..100000.
	MaxWatts float64
}

// DefaultGPU is an H100 SXM5 80GB: 70 W idle, 700 W board limit and 20 W
// per running sequence.
func DefaultGPU() GPUSpec {
	return GPUSpec{
		Name:          "NVIDIA H100 80GB HBM3",
		MemoryMiB:     81559,
		DriverVersion: "570.124.06",
		IdleWatts:     70,
		WattsPerSeq:   20,
		MaxWatts:      700,
	}
}

// Preset names, for Preset and the CLI.
const (
	Preset70B8xH100 = "70b-8xh100"
	Preset8B1xH100  = "8b-1xh100"
	PresetTiny      = "tiny"
)

// PresetNames lists the presets Preset accepts, in a stable order.
func PresetNames() []string {
	return []string{Preset70B8xH100, Preset8B1xH100, PresetTiny}
}

// Preset returns a named capacity model; see "Presets" in README.md for
// each one's parameters and analytic knee.
func Preset(name string) (CapacityModel, error) {
	h100 := DefaultGPU()
	switch strings.ToLower(strings.TrimSpace(name)) {
	case Preset70B8xH100:
		gpu := h100
		gpu.IdleWatts, gpu.WattsPerSeq = 115, 21
		return CapacityModel{
			Name:                Preset70B8xH100,
			MaxNumSeqs:          12,
			MaxNumBatchedTokens: 8192,
			StepBase:            2400 * time.Microsecond,
			StepPerSeq:          50 * time.Microsecond,
			PrefillPerToken:     10 * time.Microsecond,
			GPUs:                8,
			GPU:                 gpu,
		}, nil
	case Preset8B1xH100:
		gpu := h100
		gpu.IdleWatts, gpu.WattsPerSeq = 90, 6
		return CapacityModel{
			Name:                Preset8B1xH100,
			MaxNumSeqs:          256,
			MaxNumBatchedTokens: 8192,
			StepBase:            6 * time.Millisecond,
			StepPerSeq:          50 * time.Microsecond,
			PrefillPerToken:     8 * time.Microsecond,
			GPUs:                1,
			GPU:                 gpu,
		}, nil
	case PresetTiny:
		gpu := h100
		gpu.Name = "NVIDIA L4"
		gpu.MemoryMiB = 23034
		gpu.IdleWatts, gpu.WattsPerSeq, gpu.MaxWatts = 16, 8, 72
		return CapacityModel{
			Name:                PresetTiny,
			MaxNumSeqs:          8,
			MaxNumBatchedTokens: 512,
			StepBase:            5 * time.Millisecond,
			StepPerSeq:          500 * time.Microsecond,
			PrefillPerToken:     20 * time.Microsecond,
			GPUs:                1,
			GPU:                 gpu,
		}, nil
	}
	return CapacityModel{}, fmt.Errorf("mock: unknown capacity preset %q: want one of %s", name, strings.Join(PresetNames(), ", "))
}

// PresetWorkload returns the request shape a preset's documented knee is
// computed for (see "Presets" in README.md): 1024 prompt
// and 256 output tokens for 70b-8xh100 and 8b-1xh100, 256 and 128 (the
// `make demo` shape) for tiny. TokensPerChunk is left 0 (one token per
// step).
func PresetWorkload(name string) (Workload, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case Preset70B8xH100, Preset8B1xH100:
		return Workload{PromptTokens: 1024, OutputTokens: 256}, nil
	case PresetTiny:
		return Workload{PromptTokens: 256, OutputTokens: 128}, nil
	}
	return Workload{}, fmt.Errorf("mock: unknown capacity preset %q: want one of %s", name, strings.Join(PresetNames(), ", "))
}

// validate checks the model's fields, naming the first bad one in a
// *ConfigError whose Field is "Capacity." and the field's name.
func (m *CapacityModel) validate() error {
	if m.MaxNumSeqs < 1 || m.MaxNumSeqs > 65536 {
		return configErr("Capacity.MaxNumSeqs", "must be in 1..65536, got %d", m.MaxNumSeqs)
	}
	if m.MaxNumBatchedTokens < m.MaxNumSeqs || m.MaxNumBatchedTokens > 1<<24 {
		return configErr("Capacity.MaxNumBatchedTokens", "must be in MaxNumSeqs..16777216 (%d..16777216), got %d", m.MaxNumSeqs, m.MaxNumBatchedTokens)
	}
	if m.StepBase < time.Microsecond || m.StepBase > 10*time.Second {
		return configErr("Capacity.StepBase", "must be a duration in 1µs..10s, got %s", m.StepBase)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"StepPerSeq", m.StepPerSeq}, {"PrefillPerToken", m.PrefillPerToken}} {
		if d.v < 0 || d.v > time.Second {
			return configErr("Capacity."+d.name, "must be a duration in 0..1s, got %s", d.v)
		}
	}
	if m.GPUs < 1 || m.GPUs > maxGPUs {
		return configErr("Capacity.GPUs", "must be in 1..%d, got %d", maxGPUs, m.GPUs)
	}
	return m.GPU.validate("Capacity.GPU")
}

// maxGPUs bounds Config.GPUs and CapacityModel.GPUs.
const maxGPUs = 256

// validate checks a GPU spec, naming the first bad field in a *ConfigError
// whose Field is prefix, a dot and the field's name.
func (g *GPUSpec) validate(prefix string) error {
	if !printableLabel(g.Name) {
		return configErr(prefix+".Name", "must be a non-empty printable name, got %q", g.Name)
	}
	if !printableLabel(g.DriverVersion) {
		return configErr(prefix+".DriverVersion", "must be a non-empty printable string, got %q", g.DriverVersion)
	}
	if g.MemoryMiB < 1 || g.MemoryMiB > 1<<24 {
		return configErr(prefix+".MemoryMiB", "must be in 1..16777216, got %d", g.MemoryMiB)
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	if !finite(g.MaxWatts) || g.MaxWatts < 1 || g.MaxWatts > 100000 {
		return configErr(prefix+".MaxWatts", "must be in 1..100000, got %v", g.MaxWatts)
	}
	if !finite(g.IdleWatts) || g.IdleWatts < 0 || g.IdleWatts > g.MaxWatts {
		return configErr(prefix+".IdleWatts", "must be in 0..MaxWatts (%v), got %v", g.MaxWatts, g.IdleWatts)
	}
	if !finite(g.WattsPerSeq) || g.WattsPerSeq < 0 || g.WattsPerSeq > 100000 {
		return configErr(prefix+".WattsPerSeq", "must be in 0..100000, got %v", g.WattsPerSeq)
	}
	return nil
}

// printableLabel reports whether s is non-empty printable ASCII without
// quotes or backslashes, safe in a label value as is.
func printableLabel(s string) bool {
	if strings.TrimSpace(s) == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// stepTime is the engine's step-time equation: StepBase + StepPerSeq ×
// decoding sequences + PrefillPerToken × prefill tokens in the step.
func (m *CapacityModel) stepTime(decodes, prefillTokens int) time.Duration {
	return m.StepBase + time.Duration(decodes)*m.StepPerSeq + time.Duration(prefillTokens)*m.PrefillPerToken
}
