//go:build nvml && cgo

package telemetry

import (
	"errors"
	"fmt"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// NVMLBuiltIn reports whether this binary was built with NVML support
// (-tags nvml, with cgo).
const NVMLBuiltIn = true

// openNVMLDevices loads libnvidia-ml.so.1 (dlopen, inside nvml.Init) and
// returns a handle per GPU. A missing library or driver, or no GPU, is an
// error that says so.
func openNVMLDevices() ([]nvmlDevice, func() error, error) {
	lib := nvml.New()
	if ret := lib.Init(); ret != nvml.SUCCESS {
		switch ret {
		case nvml.ERROR_LIBRARY_NOT_FOUND:
			return nil, nil, errors.New("NVML library libnvidia-ml.so.1 not found (no NVIDIA driver on this machine)")
		case nvml.ERROR_DRIVER_NOT_LOADED:
			return nil, nil, errors.New("NVML: the NVIDIA driver is not loaded")
		}
		return nil, nil, fmt.Errorf("NVML init: %v", ret)
	}
	shutdown := func() error {
		if ret := lib.Shutdown(); ret != nvml.SUCCESS {
			return fmt.Errorf("NVML shutdown: %v", ret)
		}
		return nil
	}
	n, ret := lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		return nil, nil, errors.Join(fmt.Errorf("NVML device count: %v", ret), shutdown())
	}
	if n == 0 {
		return nil, nil, errors.Join(errors.New("NVML: no GPU found"), shutdown())
	}
	devs := make([]nvmlDevice, 0, n)
	for i := range n {
		d, ret := lib.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			return nil, nil, errors.Join(fmt.Errorf("NVML: gpu %d handle: %v", i, ret), shutdown())
		}
		devs = append(devs, cgoDevice{index: i, d: d})
	}
	return devs, shutdown, nil
}

// cgoDevice adapts a go-nvml device to nvmlDevice.
type cgoDevice struct {
	index int
	d     nvml.Device
}

func nvmlErr(ret nvml.Return) error {
	switch ret {
	case nvml.SUCCESS:
		return nil
	case nvml.ERROR_NOT_SUPPORTED:
		return errNVMLNotSupported
	}
	return fmt.Errorf("NVML: %v", ret)
}

func (c cgoDevice) Index() int { return c.index }

func (c cgoDevice) UUID() (string, error) {
	v, ret := c.d.GetUUID()
	return v, nvmlErr(ret)
}

func (c cgoDevice) Name() (string, error) {
	v, ret := c.d.GetName()
	return v, nvmlErr(ret)
}

func (c cgoDevice) MemoryBytes() (uint64, error) {
	m, ret := c.d.GetMemoryInfo()
	return m.Total, nvmlErr(ret)
}

func (c cgoDevice) TotalEnergyMJ() (uint64, error) {
	v, ret := c.d.GetTotalEnergyConsumption()
	return v, nvmlErr(ret)
}

func (c cgoDevice) PowerMW() (uint32, error) {
	v, ret := c.d.GetPowerUsage()
	return v, nvmlErr(ret)
}

func (c cgoDevice) UtilizationPct() (uint32, uint32, error) {
	u, ret := c.d.GetUtilizationRates()
	return u.Gpu, u.Memory, nvmlErr(ret)
}

func (c cgoDevice) MemoryUsedFreeBytes() (uint64, uint64, error) {
	m, ret := c.d.GetMemoryInfo()
	return m.Used, m.Free, nvmlErr(ret)
}

func (c cgoDevice) TemperatureC() (uint32, error) {
	v, ret := c.d.GetTemperature(nvml.TEMPERATURE_GPU)
	return v, nvmlErr(ret)
}

func (c cgoDevice) ClocksMHz() (uint32, uint32, error) {
	sm, ret := c.d.GetClockInfo(nvml.CLOCK_SM)
	if err := nvmlErr(ret); err != nil {
		return 0, 0, err
	}
	mem, ret := c.d.GetClockInfo(nvml.CLOCK_MEM)
	return sm, mem, nvmlErr(ret)
}

func (c cgoDevice) PowerLimitMW() (uint32, error) {
	v, ret := c.d.GetEnforcedPowerLimit()
	return v, nvmlErr(ret)
}

// ClocksEventReasons falls back to the throttle-reasons call of drivers
// older than 535, which return NOT_SUPPORTED or FUNCTION_NOT_FOUND for it.
func (c cgoDevice) ClocksEventReasons() (uint64, error) {
	v, ret := c.d.GetCurrentClocksEventReasons()
	if ret == nvml.SUCCESS {
		return v, nil
	}
	v, ret = c.d.GetCurrentClocksThrottleReasons()
	return v, nvmlErr(ret)
}
