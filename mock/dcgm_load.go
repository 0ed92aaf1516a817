package mock

import (
	"math"
	"time"
)

// The profiling (DCP) fields follow the busy fraction with these ratios: an
// LLM decode keeps SMs resident most of the time it runs, the tensor pipes
// less, and the memory interface in between (decode is memory bound).
const (
	dcgmSMActivePerBusy     = 0.85
	dcgmTensorActivePerBusy = 0.40
	dcgmDRAMActivePerBusy   = 0.60
	// dcgmFBLoadShare is the share of the GPU's memory the running batch
	// adds to the 90 % that vLLM preallocates (activations, workspace).
	dcgmFBLoadShare = 0.05
	// clocksEventGPUIdle is DCGM's (and NVML's) "GPU idle" clocks event
	// reason bit.
	clocksEventGPUIdle = 0x1
)

// dcgmFBUsed is the framebuffer in use (MiB): the 90 % preallocated at
// start plus a share that follows the load.
func dcgmFBUsed(s dcgmSample, spec GPUSpec) float64 {
	mem := float64(spec.MemoryMiB)
	return math.Floor(0.9*mem + dcgmFBLoadShare*mem*s.util)
}

// dcgmLoadFields are the fields beyond dcgm-exporter's default counters
// that follow the load: the profiling fields of its dcp-metrics-included
// list (ratios 0..1), the power limit and the clocks event reasons.
func dcgmLoadFields(s dcgmSample, spec GPUSpec) []dcgmField {
	ratio := func(r float64) func(int, float64) (float64, bool) {
		return func(int, float64) (float64, bool) { return math.Round(r*s.util*1e6) / 1e6, true }
	}
	return []dcgmField{
		{"DCGM_FI_DEV_POWER_MGMT_LIMIT", "gauge", "Power management limit (in W).", func(int, float64) (float64, bool) { return spec.MaxWatts, true }},
		{"DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "gauge", "Current clock event reasons (bitmask of DCGM_CLOCKS_EVENT_REASON_*).", func(int, float64) (float64, bool) {
			if s.util == 0 {
				return clocksEventGPUIdle, false
			}
			return 0, false
		}},
		{"DCGM_FI_PROF_SM_ACTIVE", "gauge", "The ratio of cycles an SM has at least 1 warp assigned.", ratio(dcgmSMActivePerBusy)},
		{"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "gauge", "Ratio of cycles the tensor (HMMA) pipe is active.", ratio(dcgmTensorActivePerBusy)},
		{"DCGM_FI_PROF_DRAM_ACTIVE", "gauge", "Ratio of cycles the device memory interface is active sending or receiving data.", ratio(dcgmDRAMActivePerBusy)},
	}
}

// BusyPct returns the mock's own account of GPU utilization over [a, b]:
// the share of the time in which at least one sequence ran, in percent,
// from the exact history of its power model. The exposition's
// DCGM_FI_DEV_GPU_UTIL at each update instant is the same share over the
// min(1s, update interval) before it. ok is false when a or b is in the
// future, before New, older than the history kept, or b is not after a.
func (s *Server) BusyPct(a, b time.Time) (pct float64, ok bool) {
	ta, tb := int64(a.Sub(s.started)), int64(b.Sub(s.started))
	if tb <= ta {
		return 0, false
	}
	ba, okA := s.power.busyAt(ta)
	bb, okB := s.power.busyAt(tb)
	if !okA || !okB {
		return 0, false
	}
	return 100 * (bb - ba) / (float64(tb-ta) / 1e9), true
}

// busyAt returns the busy time in s at t on the meter clock; ok is false
// for a t in the future or before the history kept.
func (pm *powerMeter) busyAt(t int64) (float64, bool) {
	pm.mu.Lock()
	defer pm.mu.Unlock()
	if t > pm.now() || t < 0 {
		return 0, false
	}
	pm.lastRead = max(pm.lastRead, t)
	_, busy, ok := pm.at(t)
	return busy, ok
}
