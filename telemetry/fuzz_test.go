package telemetry

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
)

// FuzzParseGPUSelector: never panics; an accepted selector renders to a
// string that parses back to the same selector.
func FuzzParseGPUSelector(f *testing.F) {
	for _, s := range []string{"", "hostname=gpu-node-07,gpu=0,gpu=1", "uuid=GPU-3b1f", "host=a, index=2", "gpu=", "x=1", "gpu=0,,", "gpu=\"0\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := ParseGPUSelector(s)
		if err != nil {
			return
		}
		if sel.IsZero() {
			return
		}
		back, err := ParseGPUSelector(sel.String())
		if err != nil {
			t.Fatalf("rendered selector %q does not parse: %v", sel.String(), err)
		}
		if back.String() != sel.String() {
			t.Fatalf("round trip %q → %q", sel.String(), back.String())
		}
	})
}

// FuzzParseMatchers: never panics; accepted matchers render to PromQL that
// parses back to the same matchers.
func FuzzParseMatchers(f *testing.F) {
	for _, s := range []string{``, `Hostname=~"gpu-node-.*"`, `{a="1",b!~"x|y",}`, `a="\"\\"`, `a="é\u00e9\x41"`, `a=`, `a="`, `{}`, `a!="1" ,b="2"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ms, err := ParseMatchers(s)
		if err != nil {
			return
		}
		back, err := ParseMatchers(ms.String())
		if err != nil {
			t.Fatalf("rendered %q does not parse: %v", ms.String(), err)
		}
		if len(back) != len(ms) {
			t.Fatalf("round trip %q → %q", ms.String(), back.String())
		}
		for i := range ms {
			if back[i] != ms[i] {
				t.Fatalf("round trip matcher %d: %+v → %+v", i, ms[i], back[i])
			}
		}
	})
}

// FuzzDCGMExposition: arbitrary exposition text never panics the DCGM
// extraction, and every reading is a GPU with at least one value.
func FuzzDCGMExposition(f *testing.F) {
	f.Add(dcgmText("Hostname", "gpu-node-07", exampleGPUs()))
	f.Add(dcgmText("hostname", "gpu-node-07", exampleGPUs()[:1]))
	f.Add("DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",GPU_I_ID=\"1\"} NaN\nDCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION 5\n")
	f.Add("# TYPE DCGM_FI_DEV_POWER_USAGE histogram\nDCGM_FI_DEV_POWER_USAGE_bucket{le=\"+Inf\"} 1\n")
	for _, name := range []string{"dcgm-profiling.prom", "rocm-device-metrics.prom"} {
		if b, err := os.ReadFile("testdata/" + name); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("amd_gpu_power_usage{gpu_id=\"0\"} 1\namd_gpu_gfx_activity{gpu_id=\"0\"} NaN\ngpu_clock{gpu_id=\"0\",clock_type=\"GPU_CLOCK_TYPE_SYSTEM\"} 2\n")
	f.Fuzz(func(t *testing.T, text string) {
		fams, err := decodeExposition(strings.NewReader(text), expfmt.NewFormat(expfmt.TypeTextPlain))
		if err != nil {
			return
		}
		for _, r := range append(dcgmReadings(fams), amdReadings(fams)...) {
			if math.IsNaN(r.EnergyMJ) && math.IsNaN(r.PowerW) {
				t.Fatalf("reading without any value: %+v", r)
			}
		}
	})
}

// FuzzServerExposition: arbitrary text never panics the server ingestion,
// and a window over two identical scrapes has no negative counter delta.
func FuzzServerExposition(f *testing.F) {
	f.Add(vllmText(vllmState{running: [2]float64{1, 2}, ttft: [4]float64{1, 2, 3, 4}}))
	f.Add("# TYPE sglang:time_per_output_token_seconds histogram\nsglang:time_per_output_token_seconds_bucket{le=\"0.02\"} 5\nsglang:time_per_output_token_seconds_count 5\n")
	f.Add("vllm:num_requests_running NaN\nvllm:prompt_tokens_total +Inf\n")
	for _, name := range []string{"vllm.prom", "sglang.prom", "tgi.prom", "triton-trtllm.prom"} {
		if b, err := os.ReadFile("testdata/" + name); err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		fams, err := decodeExposition(strings.NewReader(text), expfmt.NewFormat(expfmt.TypeTextPlain))
		if err != nil || !hasServerMetrics(fams) {
			return
		}
		clk := newFakeClock()
		sv, err := NewServerSampler("http://127.0.0.1:1/metrics", nil, SamplerOptions{Now: clk.Now})
		if err != nil {
			t.Fatal(err)
		}
		sv.ingest(sv.clock.nanos(), fams)
		clk.Set(1e9)
		sv.ingest(sv.clock.nanos(), fams)
		w, err := sv.Window(at(0), at(1))
		if err != nil {
			t.Fatal(err)
		}
		for name, v := range map[string]float64{"prompt": w.PromptTokens, "gen": w.GenerationTokens, "preempt": w.Preemptions, "ttft count": w.TTFT.Count} {
			if v < 0 {
				t.Fatalf("%s delta %v < 0 over identical scrapes", name, v)
			}
		}
	})
}

// FuzzParseNvidiaSMI: never panics; accepted GPUs have a name and a
// non-negative memory size.
func FuzzParseNvidiaSMI(f *testing.F) {
	f.Add("NVIDIA H200, 143771 MiB\n")
	f.Add("NVIDIA H100 80GB HBM3, 81559 MiB\nNVIDIA H100 80GB HBM3, 81559 MiB\n")
	f.Add("a,b,c, -1 MiB")
	f.Fuzz(func(t *testing.T, out string) {
		gpus, err := parseNvidiaSMI(out)
		if err != nil {
			return
		}
		for _, g := range gpus {
			if g.Name == "" || g.MemoryMiB < 0 {
				t.Fatalf("bad GPU %+v", g)
			}
		}
	})
}
