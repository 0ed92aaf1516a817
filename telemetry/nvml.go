package telemetry

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"sync"
)

// errNVMLNotSupported is returned by an nvmlDevice for a call the GPU or
// driver does not support (NVML ERROR_NOT_SUPPORTED).
var errNVMLNotSupported = errors.New("not supported")

// nvmlDevice is the part of an NVML device handle the sampler uses. Units
// are NVML's: energy in mJ, power in mW, memory in bytes. The cgo build
// adapts github.com/NVIDIA/go-nvml to it; tests use fakes.
type nvmlDevice interface {
	Index() int
	UUID() (string, error)
	Name() (string, error)
	MemoryBytes() (uint64, error)
	TotalEnergyMJ() (uint64, error)
	PowerMW() (uint32, error)
}

// nvmlGaugeDevice is the optional part of an NVML device that reads the
// gauges beside energy and power, in NVML's units (%, bytes, °C, MHz, mW,
// the clocks event reasons bitmask). The cgo adapter implements it.
type nvmlGaugeDevice interface {
	UtilizationPct() (gpu, mem uint32, err error)
	MemoryUsedFreeBytes() (used, free uint64, err error)
	TemperatureC() (uint32, error)
	ClocksMHz() (sm, mem uint32, err error)
	PowerLimitMW() (uint32, error)
	ClocksEventReasons() (uint64, error)
}

// readNVMLGauges reads d's gauges into r; unsupported ones are left out and
// other failures returned joined.
func readNVMLGauges(d nvmlGaugeDevice, r *GPUReading) error {
	var errs []error
	keep := func(what string, err error) bool {
		if err != nil && !errors.Is(err, errNVMLNotSupported) {
			errs = append(errs, fmt.Errorf("nvml: %s: %s: %w", r.GPU, what, err))
		}
		return err == nil
	}
	if g, m, err := d.UtilizationPct(); keep("utilization", err) {
		r.Gauges.Set(GaugeUtil, float64(g))
		r.Gauges.Set(GaugeMemUtil, float64(m))
	}
	if used, free, err := d.MemoryUsedFreeBytes(); keep("memory", err) {
		r.Gauges.Set(GaugeFBUsed, float64(used)/(1<<20))
		r.Gauges.Set(GaugeFBFree, float64(free)/(1<<20))
	}
	if t, err := d.TemperatureC(); keep("temperature", err) {
		r.Gauges.Set(GaugeTemp, float64(t))
	}
	if sm, mem, err := d.ClocksMHz(); keep("clocks", err) {
		r.Gauges.Set(GaugeSMClock, float64(sm))
		r.Gauges.Set(GaugeMemClock, float64(mem))
	}
	if p, err := d.PowerLimitMW(); keep("power limit", err) {
		r.Gauges.Set(GaugePowerLimit, float64(p)/1000)
	}
	if m, err := d.ClocksEventReasons(); keep("clocks event reasons", err) {
		r.Gauges.Set(GaugeThrottle, float64(m))
	}
	return errors.Join(errs...)
}

// NVMLSource is a GPUSource reading the local GPUs through NVML: the total
// energy counter (mJ) and the power draw (NVML's mW ÷ 1000 = W). It exists
// only in builds with -tags nvml (and cgo); otherwise OpenNVML reports that.
type NVMLSource struct {
	mu       sync.Mutex
	devs     []nvmlDevice
	ids      []GPUID
	shutdown func() error
	closed   bool
}

// OpenNVML initialises NVML and lists the local GPUs. Without NVML support
// built in, or without the NVIDIA library or a GPU, it returns an error that
// says so; callers fall back to dcgm-exporter or Prometheus. Close releases
// NVML.
func OpenNVML() (*NVMLSource, error) {
	devs, shutdown, err := openNVMLDevices()
	if err != nil {
		return nil, err
	}
	return newNVMLSource(devs, shutdown)
}

func newNVMLSource(devs []nvmlDevice, shutdown func() error) (*NVMLSource, error) {
	host, _ := os.Hostname()
	s := &NVMLSource{devs: devs, shutdown: shutdown}
	for _, d := range devs {
		id := GPUID{Index: strconv.Itoa(d.Index()), Hostname: host}
		var err error
		if id.UUID, err = d.UUID(); err != nil {
			return nil, errors.Join(fmt.Errorf("nvml: gpu %d: reading UUID: %w", d.Index(), err), s.Close())
		}
		if id.Model, err = d.Name(); err != nil {
			return nil, errors.Join(fmt.Errorf("nvml: gpu %d: reading name: %w", d.Index(), err), s.Close())
		}
		s.ids = append(s.ids, id)
	}
	return s, nil
}

// Name returns "nvml".
func (s *NVMLSource) Name() string { return "nvml" }

// ReadGPUs reads every GPU's energy counter, power and gauges
// (utilization, memory, temperature, clocks, power limit, clocks event
// reasons). A GPU whose energy
// counter is not supported (some vGPU/MIG setups) gets NaN energy, and its
// windows use the power integral; other per-GPU failures are returned joined
// alongside the readings of the GPUs that worked.
func (s *NVMLSource) ReadGPUs(ctx context.Context) ([]GPUReading, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("nvml: source closed")
	}
	var out []GPUReading
	var errs []error
	for i, d := range s.devs {
		if err := ctx.Err(); err != nil {
			return out, errors.Join(append(errs, err)...)
		}
		r := GPUReading{GPU: s.ids[i], EnergyMJ: math.NaN(), PowerW: math.NaN()}
		e, eErr := d.TotalEnergyMJ()
		switch {
		case eErr == nil:
			r.EnergyMJ = float64(e)
		case !errors.Is(eErr, errNVMLNotSupported):
			errs = append(errs, fmt.Errorf("nvml: %s: total energy: %w", r.GPU, eErr))
		}
		p, pErr := d.PowerMW()
		switch {
		case pErr == nil:
			r.PowerW = float64(p) / 1000
		case !errors.Is(pErr, errNVMLNotSupported):
			errs = append(errs, fmt.Errorf("nvml: %s: power: %w", r.GPU, pErr))
		}
		if eErr != nil && pErr != nil {
			continue
		}
		if gd, ok := d.(nvmlGaugeDevice); ok {
			if err := readNVMLGauges(gd, &r); err != nil {
				errs = append(errs, err)
			}
		}
		out = append(out, r)
	}
	return out, errors.Join(errs...)
}

// Close shuts NVML down; safe to call twice.
func (s *NVMLSource) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.shutdown == nil {
		s.closed = true
		return nil
	}
	s.closed = true
	return s.shutdown()
}

// nvmlHardware describes the GPUs through NVML.
func nvmlHardware() ([]GPUDevice, error) {
	devs, shutdown, err := openNVMLDevices()
	if err != nil {
		return nil, err
	}
	defer shutdown()
	return describeNVML(devs)
}

func describeNVML(devs []nvmlDevice) ([]GPUDevice, error) {
	out := make([]GPUDevice, 0, len(devs))
	for _, d := range devs {
		name, err := d.Name()
		if err != nil {
			return nil, fmt.Errorf("nvml: gpu %d: reading name: %w", d.Index(), err)
		}
		mem, err := d.MemoryBytes()
		if err != nil {
			return nil, fmt.Errorf("nvml: gpu %d: reading memory: %w", d.Index(), err)
		}
		out = append(out, GPUDevice{Name: name, MemoryMiB: int64(mem >> 20)})
	}
	return out, nil
}
