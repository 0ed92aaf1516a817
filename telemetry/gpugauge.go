package telemetry

import (
	"math"
	"strconv"
)

// GPUGauge names one of the GPU gauges read beside energy and power:
// utilization, memory, temperature, clocks, power limit and throttle
// reasons. Activity gauges are percentages 0..100 whatever the source's
// unit (DCGM's profiling ratios are multiplied by 100 at ingestion).
type GPUGauge uint8

// The GPU gauges, in report order.
const (
	GaugeUtil         GPUGauge = iota // % of time a kernel ran (DCGM_FI_DEV_GPU_UTIL, NVML utilization.gpu, AMD GPU_GFX_ACTIVITY)
	GaugeSMActive                     // % of time an SM had a warp resident (DCGM_FI_PROF_SM_ACTIVE × 100)
	GaugeTensorActive                 // % of cycles the tensor pipes were busy (DCGM_FI_PROF_PIPE_TENSOR_ACTIVE × 100)
	GaugeDRAMActive                   // % of cycles the memory interface was busy (DCGM_FI_PROF_DRAM_ACTIVE × 100)
	GaugeMemUtil                      // % of time memory was read or written (DCGM_FI_DEV_MEM_COPY_UTIL, NVML utilization.memory, AMD GPU_UMC_ACTIVITY)
	GaugeFBUsed                       // framebuffer used, MiB (DCGM_FI_DEV_FB_USED, NVML, AMD GPU_USED_VRAM)
	GaugeFBFree                       // framebuffer free, MiB (DCGM_FI_DEV_FB_FREE, NVML, AMD GPU_FREE_VRAM)
	GaugeTemp                         // GPU temperature, °C (DCGM_FI_DEV_GPU_TEMP, NVML, AMD junction or edge)
	GaugeMemTemp                      // memory temperature, °C (DCGM_FI_DEV_MEMORY_TEMP, AMD GPU_MEMORY_TEMPERATURE)
	GaugeSMClock                      // SM clock, MHz (DCGM_FI_DEV_SM_CLOCK, NVML, AMD system clock)
	GaugeMemClock                     // memory clock, MHz (DCGM_FI_DEV_MEM_CLOCK, NVML, AMD memory clock)
	GaugePowerLimit                   // enforced power limit, W (DCGM_FI_DEV_POWER_MGMT_LIMIT, NVML)
	GaugeThrottle                     // clock throttle (event) reasons bitmask (DCGM_FI_DEV_CLOCKS_EVENT_REASONS, NVML)
	NumGPUGauges
)

// gaugeInfo describes a gauge: its report name, unit and how GPUs combine.
type gaugeInfo struct {
	name, unit string
	sum        bool // summed over GPUs (memory, power limit); else averaged
}

var gaugeInfos = [NumGPUGauges]gaugeInfo{
	GaugeUtil:         {"utilization", "%", false},
	GaugeSMActive:     {"sm_active", "%", false},
	GaugeTensorActive: {"tensor_active", "%", false},
	GaugeDRAMActive:   {"dram_active", "%", false},
	GaugeMemUtil:      {"memory_utilization", "%", false},
	GaugeFBUsed:       {"framebuffer_used", "MiB", true},
	GaugeFBFree:       {"framebuffer_free", "MiB", true},
	GaugeTemp:         {"temperature", "C", false},
	GaugeMemTemp:      {"memory_temperature", "C", false},
	GaugeSMClock:      {"sm_clock", "MHz", false},
	GaugeMemClock:     {"memory_clock", "MHz", false},
	GaugePowerLimit:   {"power_limit", "W", true},
	GaugeThrottle:     {"throttle_reasons", "bitmask", false},
}

// String returns the gauge's report name, e.g. "utilization".
func (g GPUGauge) String() string {
	if g < NumGPUGauges {
		return gaugeInfos[g].name
	}
	return "unknown"
}

// Unit returns the gauge's unit: "%", "MiB", "C", "MHz", "W" or "bitmask".
func (g GPUGauge) Unit() string {
	if g < NumGPUGauges {
		return gaugeInfos[g].unit
	}
	return ""
}

// Summed reports whether the gauge is summed over GPUs (memory, power
// limit) rather than averaged (activity, temperature, clocks).
func (g GPUGauge) Summed() bool { return g < NumGPUGauges && gaugeInfos[g].sum }

// GPUGauges holds one reading's gauges; a gauge is present only when Set.
// The zero value has none.
type GPUGauges struct {
	v   [NumGPUGauges]float64
	has uint32
}

// Set stores gauge g (NaN and infinities are ignored).
func (x *GPUGauges) Set(g GPUGauge, v float64) {
	if g >= NumGPUGauges || math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	x.v[g] = v
	x.has |= 1 << g
}

// Get returns gauge g and whether it is present.
func (x GPUGauges) Get(g GPUGauge) (float64, bool) {
	if g >= NumGPUGauges || x.has&(1<<g) == 0 {
		return math.NaN(), false
	}
	return x.v[g], true
}

// Any reports whether some gauge is present.
func (x GPUGauges) Any() bool { return x.has != 0 }

// raw returns gauge g or NaN.
func (x GPUGauges) raw(g GPUGauge) float64 {
	v, _ := x.Get(g)
	return v
}

// GaugeStats are one gauge over a window: the time-weighted mean and the
// peak. NaN when the gauge is not available over the whole window.
type GaugeStats struct {
	Mean, Peak float64
}

// GaugeWindow is one gauge over a window, combined over the selected GPUs:
// averaged for activity, temperature and clocks, summed for memory and
// power limit (GPUGauge.Summed).
type GaugeWindow struct {
	Gauge GPUGauge
	// GPUs counts the GPUs that report the gauge over the whole window.
	GPUs int
	// Mean is the combination of the per-GPU time-weighted means; Peak is
	// the highest per-GPU peak for an averaged gauge, the highest sum at
	// a sample time for a summed one.
	Mean, Peak float64
	// Series is the combined gauge at up to MaxPowerPoints evenly spaced
	// instants (direct sampling; nil from Prometheus).
	Series []GaugeSample
}

// GaugeSample is a combined gauge at one instant.
type GaugeSample struct {
	T float64 // Unix seconds
	V float64
}

// Throttle reason bits, as NVML's nvmlClocksEventReason* and DCGM's
// DCGM_FI_DEV_CLOCKS_EVENT_REASONS (formerly CLOCK_THROTTLE_REASONS) share
// them.
var throttleBits = []struct {
	bit  uint64
	name string
}{
	{0x1, "gpu_idle"},
	{0x2, "applications_clocks_setting"},
	{0x4, "sw_power_cap"},
	{0x8, "hw_slowdown"},
	{0x10, "sync_boost"},
	{0x20, "sw_thermal_slowdown"},
	{0x40, "hw_thermal_slowdown"},
	{0x80, "hw_power_brake_slowdown"},
	{0x100, "display_clock_setting"},
}

// ThrottleReasonNames names the bits of a clocks event reasons mask, in
// bit order; unknown bits are written as hex.
func ThrottleReasonNames(mask uint64) []string {
	out := []string{}
	for _, b := range throttleBits {
		if mask&b.bit != 0 {
			out = append(out, b.name)
			mask &^= b.bit
		}
	}
	if mask != 0 {
		out = append(out, "0x"+strconv.FormatUint(mask, 16))
	}
	return out
}
