package mock

import (
	"bytes"
	"math"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestDCGMLoadFields: the profiling fields, framebuffer, power limit and
// clocks event reasons follow the busy fraction of the sample.
func TestDCGMLoadFields(t *testing.T) {
	spec := DefaultGPU()
	mem := float64(spec.MemoryMiB)
	for _, util := range []float64{0, 0.5, 1} {
		raw := appendDCGM(nil, dcgmSample{util: util, power: 300}, []string{`gpu="0"`}, spec)
		parser := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := parser.TextToMetricFamilies(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%v\n%s", err, raw)
		}
		idle := 0.0
		if util == 0 {
			idle = 1
		}
		for name, want := range map[string]float64{
			"DCGM_FI_DEV_GPU_UTIL":             100 * util,
			"DCGM_FI_PROF_SM_ACTIVE":           0.85 * util,
			"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE":  0.40 * util,
			"DCGM_FI_PROF_DRAM_ACTIVE":         0.60 * util,
			"DCGM_FI_DEV_FB_USED":              math.Floor(0.9*mem + 0.05*mem*util),
			"DCGM_FI_DEV_FB_FREE":              mem - math.Floor(0.9*mem+0.05*mem*util),
			"DCGM_FI_DEV_POWER_MGMT_LIMIT":     spec.MaxWatts,
			"DCGM_FI_DEV_CLOCKS_EVENT_REASONS": idle,
		} {
			mf := fams[name]
			if mf == nil || len(mf.GetMetric()) != 1 {
				t.Fatalf("util %v: no %s\n%s", util, name, raw)
			}
			if got := mf.GetMetric()[0].GetGauge().GetValue(); math.Abs(got-want) > 1e-9 {
				t.Errorf("util %v: %s = %v, want %v", util, name, got, want)
			}
		}
	}
}
