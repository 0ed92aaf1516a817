package telemetry

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
)

// staticSource returns readings that advance on every call.
type staticSource struct {
	gpus int
	n    float64
}

func (s *staticSource) Name() string { return "static" }

func (s *staticSource) ReadGPUs(context.Context) ([]GPUReading, error) {
	s.n++
	out := make([]GPUReading, s.gpus)
	for i := range out {
		out[i] = GPUReading{GPU: GPUID{Index: fmt.Sprint(i), UUID: fmt.Sprintf("GPU-%d", i)}, EnergyMJ: 700_000 * s.n, PowerW: 700}
	}
	return out, nil
}

// BenchmarkGPUSamplerLongRun simulates one sample per second of an 8-GPU
// node for b.N seconds and reports the retained points per GPU and the heap
// in use afterwards: both must stay flat as the run grows.
func BenchmarkGPUSamplerLongRun(b *testing.B) {
	var clk time.Time = t0
	s, err := NewGPUSampler([]GPUSource{&staticSource{gpus: 8}}, SamplerOptions{Now: func() time.Time { return clk }})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		clk = t0.Add(time.Duration(i) * time.Second)
		if err := s.Sample(ctx); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(s.gpus[0].s.len()), "points/GPU")
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
}

// BenchmarkGPUWindow measures one window query over a full 8-GPU history.
func BenchmarkGPUWindow(b *testing.B) {
	var clk time.Time = t0
	s, _ := NewGPUSampler([]GPUSource{&staticSource{gpus: 8}}, SamplerOptions{Now: func() time.Time { return clk }})
	for i := range 10000 {
		clk = t0.Add(time.Duration(i) * time.Second)
		_ = s.Sample(context.Background())
	}
	for b.Loop() {
		if _, err := s.Window(at(600), at(9000), GPUSelector{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDCGMParse parses an 8-GPU dcgm-exporter exposition.
func BenchmarkDCGMParse(b *testing.B) {
	var gpus []fakeGPU
	for i := range 8 {
		gpus = append(gpus, fakeGPU{index: fmt.Sprint(i), uuid: fmt.Sprintf("GPU-%d", i), energyMJ: 4.8e10, powerW: 612.48})
	}
	text := dcgmText("hostname", "gpu-node-07", gpus)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		fams, err := decodeExposition(strings.NewReader(text), expfmt.NewFormat(expfmt.TypeTextPlain))
		if err != nil || len(dcgmReadings(fams)) != 8 {
			b.Fatal(err)
		}
	}
}
