package telemetry

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeNVMLDevice answers in NVML units (mJ, mW, bytes).
type fakeNVMLDevice struct {
	mu       sync.Mutex
	idx      int
	energyMJ uint64
	powerMW  uint32
	energyEr error
	powerEr  error
}

func (d *fakeNVMLDevice) Index() int                   { return d.idx }
func (d *fakeNVMLDevice) UUID() (string, error)        { return "GPU-fake-" + string(rune('0'+d.idx)), nil }
func (d *fakeNVMLDevice) Name() (string, error)        { return "NVIDIA H200", nil }
func (d *fakeNVMLDevice) MemoryBytes() (uint64, error) { return 143771 << 20, nil }
func (d *fakeNVMLDevice) TotalEnergyMJ() (uint64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.energyMJ, d.energyEr
}
func (d *fakeNVMLDevice) PowerMW() (uint32, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.powerMW, d.powerEr
}

func (d *fakeNVMLDevice) set(e uint64, p uint32) {
	d.mu.Lock()
	d.energyMJ, d.powerMW = e, p
	d.mu.Unlock()
}

// TestNVMLSourceUnits: mW become W, mJ stay mJ at the source and J in the
// window; a GPU without the energy counter falls back to the power integral.
func TestNVMLSourceUnits(t *testing.T) {
	d0 := &fakeNVMLDevice{idx: 0}
	d1 := &fakeNVMLDevice{idx: 1, energyEr: errNVMLNotSupported}
	shut := 0
	src, err := newNVMLSource([]nvmlDevice{d0, d1}, func() error { shut++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	clk := newFakeClock()
	s, err := NewGPUSampler([]GPUSource{src}, SamplerOptions{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range []uint32{612480, 600000, 588000} {
		clk.Set(time.Duration(i) * time.Second)
		d0.set(uint64(1_000_000+i*600_000), p) // 600 J/s
		d1.set(0, p/2)
		if err := s.Sample(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	w, err := s.Window(at(0), at(2), GPUSelector{})
	if err != nil {
		t.Fatal(err)
	}
	// GPU 0: 1 200 000 mJ = 1200 J by counter; mean power from mW:
	// (612.48+600)/2 + (600+588)/2 = 1200.24 W·s over 2 s.
	// GPU 1: half the power, by trapezoid: 600.12 J.
	g0, g1 := w.GPUs[0], w.GPUs[1]
	if g0.Method != MethodCounter || g0.EnergyJ != 1200 || !near(g0.MeanPowerW, 600.12, 1e-12) || g0.PeakPowerW != 612.48 {
		t.Errorf("GPU 0: %+v", g0)
	}
	if g1.Method != MethodPowerIntegral || !near(g1.EnergyJ, 600.12, 1e-12) || w.Method != MethodMixed {
		t.Errorf("GPU 1: %+v, total method %s", g1, w.Method)
	}
	if g0.GPU.Model != "NVIDIA H200" || g0.GPU.UUID != "GPU-fake-0" || g0.GPU.Index != "0" || g0.Source != "nvml" {
		t.Errorf("identity %+v source %q", g0.GPU, g0.Source)
	}
	// Other errors are reported, and the GPUs that worked are kept.
	d1.mu.Lock()
	d1.powerEr = errors.New("NVML: ERROR_GPU_IS_LOST")
	d1.mu.Unlock()
	rs, err := src.ReadGPUs(context.Background())
	if len(rs) != 1 || err == nil || !strings.Contains(err.Error(), "ERROR_GPU_IS_LOST") {
		t.Errorf("partial read: %d readings, %v", len(rs), err)
	}
	if err := src.Close(); err != nil || src.Close() != nil || shut != 1 {
		t.Errorf("close: %v, shutdowns %d", err, shut)
	}
	if _, err := src.ReadGPUs(context.Background()); err == nil {
		t.Error("read after Close succeeded")
	}
	hw, err := describeNVML([]nvmlDevice{d0, d1})
	if err != nil || len(hw) != 2 || hw[0].MemoryMiB != 143771 {
		t.Errorf("describeNVML: %+v %v", hw, err)
	}
	if math.IsNaN(w.PeakPowerW) {
		t.Error("no peak")
	}
}

// TestOpenNVMLFallback runs everywhere: without -tags nvml it must say so;
// with the tag on a machine without the NVIDIA library it must say that; on
// a GPU machine it must read plausible values.
func TestOpenNVMLFallback(t *testing.T) {
	src, err := OpenNVML()
	if !NVMLBuiltIn {
		if err == nil || err.Error() != "NVML support not built in (build with -tags nvml)" {
			t.Fatalf("default build: %v", err)
		}
		return
	}
	if err != nil {
		if !strings.Contains(err.Error(), "NVML") {
			t.Fatalf("NVML error does not say NVML: %v", err)
		}
		t.Logf("NVML unavailable here, clean fallback: %v", err)
		return
	}
	defer src.Close()
	rs, err := src.ReadGPUs(context.Background())
	if err != nil || len(rs) == 0 {
		t.Fatalf("reading GPUs: %v (%d readings)", err, len(rs))
	}
	for _, r := range rs {
		t.Logf("%s %s: %.0f mJ, %.1f W", r.GPU, r.GPU.Model, r.EnergyMJ, r.PowerW)
		if !(r.PowerW > 1 && r.PowerW < 2000) {
			t.Errorf("%s: power %v W out of range (unit error?)", r.GPU, r.PowerW)
		}
	}
}

func TestHardware(t *testing.T) {
	gpus, err := parseNvidiaSMI("NVIDIA H200, 143771 MiB\nNVIDIA H200, 143771 MiB\n\nNVIDIA L4, 23034 MiB\n")
	if err != nil {
		t.Fatal(err)
	}
	h := Hardware{GPUs: gpus, Source: "nvidia-smi"}
	if got := h.String(); got != "2xNVIDIA H200 (143771 MiB) + 1xNVIDIA L4 (23034 MiB)" {
		t.Errorf("summary %q", got)
	}
	for _, bad := range []string{"", "NVIDIA H200 143771 MiB", "NVIDIA H200, lots MiB", ", 1 MiB", "X, 5 GiB"} {
		if _, err := parseNvidiaSMI(bad); err == nil {
			t.Errorf("parseNvidiaSMI(%q) accepted", bad)
		}
	}
	// On this machine: whatever is available, it never fails and says why.
	hw := DescribeHardware(context.Background())
	switch hw.Source {
	case "unknown":
		if hw.String() != "unknown" || len(hw.Notes) != 2 {
			t.Errorf("unknown hardware: %+v", hw)
		}
		if !NVMLBuiltIn && hw.Notes[0] != "NVML support not built in (build with -tags nvml)" {
			t.Errorf("first note %q", hw.Notes[0])
		}
	case "nvml", "nvidia-smi":
		if len(hw.GPUs) == 0 {
			t.Errorf("%s listed no GPU", hw.Source)
		}
		t.Logf("hardware: %s (%s)", hw, hw.Source)
	default:
		t.Errorf("source %q", hw.Source)
	}
}
