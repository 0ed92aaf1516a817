package telemetry

import (
	"context"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
)

func readGolden(t *testing.T, name string) families {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	fams, err := decodeExposition(strings.NewReader(string(b)), expfmt.NewFormat(expfmt.TypeTextPlain))
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

func wantGauges(t *testing.T, r GPUReading, want map[GPUGauge]float64) {
	t.Helper()
	for k := range NumGPUGauges {
		got, ok := r.Gauges.Get(k)
		w, exp := want[k]
		switch {
		case exp && (!ok || !near(got, w, 1e-9)):
			t.Errorf("%s %s = %v (present %v), want %v", r.GPU, k, got, ok, w)
		case !exp && ok:
			t.Errorf("%s %s = %v, want absent", r.GPU, k, got)
		}
	}
}

// TestDCGMProfilingGolden: a dcgm-exporter exposition with the profiling
// fields, written by hand from dcgm-exporter's default and DCP counters,
// parses to every gauge, the profiling ratios as percentages.
func TestDCGMProfilingGolden(t *testing.T) {
	rs := dcgmReadings(readGolden(t, "dcgm-profiling.prom"))
	if len(rs) != 2 {
		t.Fatalf("%d readings, want 2", len(rs))
	}
	if rs[0].GPU.Index != "0" || rs[0].GPU.Hostname != "gpu-node-07" || rs[0].EnergyMJ != 48213377120 || rs[0].PowerW != 612.48 {
		t.Errorf("gpu 0: %+v", rs[0])
	}
	wantGauges(t, rs[0], map[GPUGauge]float64{
		GaugeUtil: 97, GaugeSMActive: 81.2345, GaugeTensorActive: 40.2, GaugeDRAMActive: 65, GaugeMemUtil: 41,
		GaugeFBUsed: 76482, GaugeFBFree: 4021, GaugeTemp: 57, GaugeMemTemp: 61, GaugeSMClock: 1980, GaugeMemClock: 2619,
		GaugePowerLimit: 700, GaugeThrottle: 4,
	})
	wantGauges(t, rs[1], map[GPUGauge]float64{
		GaugeUtil: 88, GaugeSMActive: 70.1234, GaugeTensorActive: 35.1, GaugeDRAMActive: 60, GaugeMemUtil: 36,
		GaugeFBUsed: 75970, GaugeFBFree: 4533, GaugeTemp: 54, GaugeMemTemp: 58, GaugeSMClock: 1755, GaugeMemClock: 2619,
		GaugePowerLimit: 700, GaugeThrottle: 0,
	})
}

// TestROCmGolden: the ROCm device-metrics-exporter's series (its metrics
// list: energy in µJ, power, GFX and UMC activity, VRAM, junction and memory
// temperature, gpu_clock by clock_type), with and without a field prefix.
func TestROCmGolden(t *testing.T) {
	for _, prefix := range []string{"", "amd_"} {
		fams := readGolden(t, "rocm-device-metrics.prom")
		if prefix != "" {
			renamed := families{}
			for k, v := range fams {
				n := prefix + k
				v.Name = &n
				renamed[n] = v
			}
			fams = renamed
		}
		if rs := dcgmReadings(fams); len(rs) != 0 {
			t.Fatalf("prefix %q: the AMD exposition read as DCGM: %+v", prefix, rs)
		}
		rs := amdReadings(fams)
		if len(rs) != 2 {
			t.Fatalf("prefix %q: %d readings, want 2", prefix, len(rs))
		}
		g := rs[0]
		if g.GPU != (GPUID{Index: "0", UUID: "0x21c3b8f5a9e04d11", Hostname: "gpu-node-12", Model: "AMD Instinct MI300X"}) {
			t.Errorf("prefix %q: id %+v", prefix, g.GPU)
		}
		// 1.4000012e14 µJ = 1.4000012e11 mJ; gpu_power_usage wins over the package power.
		if !near(g.EnergyMJ, 1.4000012e11, 1e-12) || g.PowerW != 698 {
			t.Errorf("prefix %q: energy %v mJ power %v W", prefix, g.EnergyMJ, g.PowerW)
		}
		wantGauges(t, g, map[GPUGauge]float64{
			GaugeUtil: 93, GaugeMemUtil: 38, GaugeFBUsed: 183265, GaugeFBFree: 13327, GaugeTemp: 76, GaugeMemTemp: 64,
			GaugeSMClock: 2100, GaugeMemClock: 1300,
		})
	}
}

// gaugeText renders a DCGM exposition of two GPUs with utilization u0, u1
// and framebuffer used fb0, fb1, energy and power as given.
func gaugeText(e0, u0, fb0, e1, u1, fb1 float64, throttle int) string {
	var b strings.Builder
	b.WriteString(dcgmText("Hostname", "gpu-node-07", twoGPUs(e0, 600, e1, 500)))
	g := exampleGPUs()
	lab := func(i int) string {
		return fmt.Sprintf(`gpu="%s",UUID="%s",modelName="NVIDIA H200",Hostname="gpu-node-07"`, g[i].index, g[i].uuid)
	}
	fmt.Fprintf(&b, "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\nDCGM_FI_DEV_GPU_UTIL{%s} %g\nDCGM_FI_DEV_GPU_UTIL{%s} %g\n", lab(0), u0, lab(1), u1)
	fmt.Fprintf(&b, "# TYPE DCGM_FI_DEV_FB_USED gauge\nDCGM_FI_DEV_FB_USED{%s} %g\nDCGM_FI_DEV_FB_USED{%s} %g\n", lab(0), fb0, lab(1), fb1)
	fmt.Fprintf(&b, "# TYPE DCGM_FI_DEV_CLOCKS_EVENT_REASONS gauge\nDCGM_FI_DEV_CLOCKS_EVENT_REASONS{%s} %d\nDCGM_FI_DEV_CLOCKS_EVENT_REASONS{%s} 0\n", lab(0), throttle, lab(1))
	return b.String()
}

// TestGPUWindowGauges: per-GPU time-weighted means and peaks, the
// combination over GPUs (utilization averaged, memory summed), the series
// and the union of throttle reasons, worked out by hand. Utilization of GPU 0
// goes 0 → 100 → 100 → 0 at 0, 10, 20, 30 s: over [0, 30] its mean is
// (5·10 + 100·10 + 50·10)/30 = 66.67 %.
func TestGPUWindowGauges(t *testing.T) {
	r := newRig(t, 1)
	r.mustStep(0, gaugeText(1e6, 0, 1000, 1e6, 50, 2000, 0))
	r.mustStep(10, gaugeText(2e6, 100, 1000, 2e6, 50, 2000, 0))
	r.mustStep(20, gaugeText(3e6, 100, 3000, 3e6, 50, 2000, 0x44))
	r.mustStep(30, gaugeText(4e6, 0, 3000, 4e6, 50, 2000, 0))
	w := r.window(0, 30, GPUSelector{})
	g0 := w.GPUs[0].Gauges
	if !near(g0[GaugeUtil].Mean, 200.0/3, 1e-9) || g0[GaugeUtil].Peak != 100 {
		t.Errorf("gpu 0 utilization %+v, want mean 66.67 peak 100", g0[GaugeUtil])
	}
	if !math.IsNaN(g0[GaugeTemp].Mean) {
		t.Errorf("temperature not exported but %v", g0[GaugeTemp])
	}
	// FB used 1000 until 10 s, ramps to 3000 at 20 s, 3000 after: mean (1000·10 + 2000·10 + 3000·10)/30 = 2000.
	if !near(g0[GaugeFBUsed].Mean, 2000, 1e-9) {
		t.Errorf("gpu 0 fb used %+v", g0[GaugeFBUsed])
	}
	if w.GPUs[0].ThrottleReasons != 0x44 || w.ThrottleReasons != 0x44 {
		t.Errorf("throttle %x / %x, want 0x44", w.GPUs[0].ThrottleReasons, w.ThrottleReasons)
	}
	if got := ThrottleReasonNames(w.ThrottleReasons); !reflect.DeepEqual(got, []string{"sw_power_cap", "hw_thermal_slowdown"}) {
		t.Errorf("throttle names %q", got)
	}
	byGauge := map[GPUGauge]GaugeWindow{}
	for _, gw := range w.Gauges {
		byGauge[gw.Gauge] = gw
	}
	if len(w.Gauges) != 2 {
		t.Errorf("gauges %+v, want utilization and framebuffer_used only", w.Gauges)
	}
	u := byGauge[GaugeUtil]
	// Averaged: (66.67 + 50) / 2; peak is the highest GPU's.
	if u.GPUs != 2 || !near(u.Mean, (200.0/3+50)/2, 1e-9) || u.Peak != 100 {
		t.Errorf("utilization %+v", u)
	}
	// 31 instants (one per second); at 15 s GPU 0 is at 100, GPU 1 at 50.
	if len(u.Series) != 31 || !near(u.Series[15].V, 75, 1e-9) || !near(u.Series[15].T-u.Series[0].T, 15, 1e-9) {
		t.Errorf("utilization series %d points, [15] = %+v", len(u.Series), u.Series[min(15, len(u.Series)-1)])
	}
	fb := byGauge[GaugeFBUsed]
	// Summed: 2000 + 2000; peak of the sum 3000 + 2000.
	if fb.GPUs != 2 || !near(fb.Mean, 4000, 1e-9) || fb.Peak != 5000 || !near(fb.Series[30].V, 5000, 1e-9) {
		t.Errorf("framebuffer used %+v", fb)
	}
}

// fakeNVMLGauges adds the gauge calls to a fake NVML device.
type fakeNVMLGauges struct {
	*fakeNVMLDevice
	tempErr error
}

func (d fakeNVMLGauges) UtilizationPct() (uint32, uint32, error) { return 87, 31, nil }
func (d fakeNVMLGauges) MemoryUsedFreeBytes() (uint64, uint64, error) {
	return 70000 << 20, 11000 << 20, nil
}
func (d fakeNVMLGauges) TemperatureC() (uint32, error)       { return 66, d.tempErr }
func (d fakeNVMLGauges) ClocksMHz() (uint32, uint32, error)  { return 1980, 2619, nil }
func (d fakeNVMLGauges) PowerLimitMW() (uint32, error)       { return 700000, nil }
func (d fakeNVMLGauges) ClocksEventReasons() (uint64, error) { return 0x1, nil }

// TestNVMLGauges: NVML's units (bytes, mW) become MiB and W; an unsupported
// reading is left out without an error.
func TestNVMLGauges(t *testing.T) {
	d := fakeNVMLGauges{fakeNVMLDevice: &fakeNVMLDevice{idx: 0, energyMJ: 1000, powerMW: 450000}, tempErr: errNVMLNotSupported}
	src, err := newNVMLSource([]nvmlDevice{d}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := src.ReadGPUs(context.Background())
	if err != nil || len(rs) != 1 {
		t.Fatalf("%v %+v", err, rs)
	}
	wantGauges(t, rs[0], map[GPUGauge]float64{
		GaugeUtil: 87, GaugeMemUtil: 31, GaugeFBUsed: 70000, GaugeFBFree: 11000, GaugeSMClock: 1980, GaugeMemClock: 2619,
		GaugePowerLimit: 700, GaugeThrottle: 1,
	})
}

// TestPrometheusGPUGauges: from Prometheus, each gauge's per-GPU mean and
// peak are avg_over_time and max_over_time of the first DCGM field that has
// series (profiling ratios made %), combined over GPUs; a summed gauge's
// peak is max_over_time of its sum; fields without series are left out.
func TestPrometheusGPUGauges(t *testing.T) {
	g0, g1 := gpuLabels(0, "Hostname"), gpuLabels(1, "Hostname")
	p := newFakeProm(t, func(q string) (int, string) {
		switch {
		case strings.HasPrefix(q, "increase("):
			return 200, vector(g0, "360000000", g1, "300000000")
		case strings.HasPrefix(q, "avg_over_time(DCGM_FI_DEV_GPU_UTIL"):
			return 200, vector(g0, "90", g1, "70")
		case strings.HasPrefix(q, "max_over_time(DCGM_FI_DEV_GPU_UTIL"):
			return 200, vector(g0, "100", g1, "95")
		case strings.HasPrefix(q, "avg_over_time(DCGM_FI_PROF_SM_ACTIVE"):
			return 200, vector(g0, "0.5", g1, "0.3")
		case strings.HasPrefix(q, "max_over_time(DCGM_FI_PROF_SM_ACTIVE"):
			return 200, vector(g0, "0.6", g1, "0.4")
		case strings.HasPrefix(q, "avg_over_time(DCGM_FI_DEV_FB_USED"):
			return 200, vector(g0, "70000", g1, "60000")
		case strings.HasPrefix(q, "max_over_time(sum(DCGM_FI_DEV_FB_USED"):
			return 200, vector(map[string]string{}, "131000")
		case strings.HasPrefix(q, "max_over_time(DCGM_FI_DEV_FB_USED"):
			return 200, vector(g0, "70500", g1, "60500")
		case isGaugeQuery(q), strings.Contains(q, MetricDCGMPower):
			return 200, vector()
		case strings.HasPrefix(q, "count_over_time("):
			return 200, vector(g0, "600", g1, "600")
		case strings.HasPrefix(q, "changes("):
			return 200, vector(g0, "600", g1, "600")
		}
		return 400, `{"status":"error","errorType":"bad_data","error":"unexpected query in fake"}`
	})
	c, _ := NewPrometheus(p.URL, nil)
	w, err := c.GPUWindow(context.Background(), t0, t0.Add(10*time.Minute), nil)
	if err != nil {
		t.Fatal(err)
	}
	byGauge := map[GPUGauge]GaugeWindow{}
	for _, gw := range w.Gauges {
		byGauge[gw.Gauge] = gw
	}
	if len(w.Gauges) != 3 {
		t.Errorf("gauges %+v, want utilization, sm_active and framebuffer_used", w.Gauges)
	}
	if u := byGauge[GaugeUtil]; u.GPUs != 2 || u.Mean != 80 || u.Peak != 100 {
		t.Errorf("utilization %+v", u)
	}
	if sm := byGauge[GaugeSMActive]; !near(sm.Mean, 40, 1e-12) || !near(sm.Peak, 60, 1e-12) {
		t.Errorf("sm_active %+v", sm)
	}
	if fb := byGauge[GaugeFBUsed]; fb.Mean != 130000 || fb.Peak != 131000 {
		t.Errorf("framebuffer_used %+v", fb)
	}
	if w.GPUs[1].Gauges[GaugeUtil] != (GaugeStats{Mean: 70, Peak: 95}) || !math.IsNaN(w.GPUs[1].Gauges[GaugeTemp].Mean) {
		t.Errorf("gpu 1 gauges %+v", w.GPUs[1].Gauges)
	}
}
