package mock

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"
)

// DCGMHostname is the Hostname label of the DCGM exposition.
const DCGMHostname = "goodput-mock"

// dcgmBootEnergyMJ is GPU i's energy counter at mock start, standing for
// the energy consumed since the driver was loaded (about 1 kWh): consumers
// must take differences, as with a real exporter.
func dcgmBootEnergyMJ(i int) float64 { return 3.6e9 + float64(i)*123456789 }

// Clocks reported (MHz): SM busy and idle, memory.
const (
	dcgmSMClockBusy = 1980
	dcgmSMClockIdle = 345
	dcgmMemClock    = 2619
)

// hgxBuses are the PCI bus numbers of the eight GPUs of an HGX H100 board.
var hgxBuses = [8]int{0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb}

// dcgmLabels renders the label set of each GPU, in dcgm-exporter's order:
// gpu, UUID, pci_bus_id, device, modelName, Hostname, DCGM_FI_DRIVER_VERSION.
func dcgmLabels(gpus int, spec GPUSpec, seed uint64) []string {
	out := make([]string, gpus)
	for i := range out {
		hi := splitmix64(seed ^ splitmix64(uint64(i)+0x6770752d))
		lo := splitmix64(hi ^ uint64(i))
		uuid := fmt.Sprintf("GPU-%08x-%04x-4%03x-%04x-%012x",
			uint32(hi>>32), uint16(hi>>16), uint16(hi)&0xfff, (uint16(lo>>48)&0x3fff)|0x8000, lo&0xffffffffffff)
		bus := fmt.Sprintf("%08X:%02X:00.0", i/8, hgxBuses[i%8])
		out[i] = fmt.Sprintf(`gpu="%d",UUID="%s",pci_bus_id="%s",device="nvidia%d",modelName="%s",Hostname="%s",DCGM_FI_DRIVER_VERSION="%s"`,
			i, uuid, bus, i, spec.Name, DCGMHostname, spec.DriverVersion)
	}
	return out
}

// dcgmField is one field of the DCGM exposition: its value for GPU i
// drawing p W, and whether it is written as a float.
type dcgmField struct {
	name, typ, help string
	value           func(i int, p float64) (v float64, isFloat bool)
}

// appendDCGM writes the exposition of sample s for every GPU: the fields of
// dcgm-exporter's default counters that the mock models, with its HELP and
// TYPE lines and its value formats (integer fields as integers, float
// fields with six decimals).
func appendDCGM(b []byte, s dcgmSample, labels []string, spec GPUSpec) []byte {
	fbUsed := dcgmFBUsed(s, spec)
	temp := func(p float64) float64 { return math.Round(30 + 45*p/spec.MaxWatts) }
	fields := []dcgmField{
		{"DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).", func(int, float64) (float64, bool) {
			if s.util > 0 {
				return dcgmSMClockBusy, false
			}
			return dcgmSMClockIdle, false
		}},
		{"DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz).", func(int, float64) (float64, bool) { return dcgmMemClock, false }},
		{"DCGM_FI_DEV_MEMORY_TEMP", "gauge", "Memory temperature (in C).", func(_ int, p float64) (float64, bool) { return temp(p) + 4, false }},
		{"DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).", func(_ int, p float64) (float64, bool) { return temp(p), false }},
		{"DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", func(_ int, p float64) (float64, bool) { return p, true }},
		{"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter", "Total energy consumption since boot (in mJ).", func(i int, _ float64) (float64, bool) {
			return dcgmBootEnergyMJ(i) + math.Floor(gpuFactor(i)*s.e*1000), false
		}},
		{"DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", func(int, float64) (float64, bool) { return math.Round(100 * s.util), false }},
		{"DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB).", func(int, float64) (float64, bool) { return float64(spec.MemoryMiB) - fbUsed, false }},
		{"DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).", func(int, float64) (float64, bool) { return fbUsed, false }},
	}
	fields = append(fields, dcgmLoadFields(s, spec)...)
	for _, f := range fields {
		b = appendHeader(b, f.name, f.help, f.typ)
		for i, l := range labels {
			v, isFloat := f.value(i, gpuFactor(i)*s.power)
			b = append(b, f.name...)
			b = append(b, '{')
			b = append(b, l...)
			b = append(b, "} "...)
			if isFloat {
				b = strconv.AppendFloat(b, v, 'f', 6, 64)
			} else {
				b = strconv.AppendInt(b, int64(v), 10)
			}
			b = append(b, '\n')
		}
	}
	return b
}

// serveDCGM answers GET /dcgm/metrics (and GET /metrics on the DCGM
// listener) with the DCGM exporter exposition.
func (s *Server) serveDCGM(w http.ResponseWriter, _ *http.Request) {
	b := appendDCGM(make([]byte, 0, 2048+len(s.dcgmLabels)*2048), s.power.read(), s.dcgmLabels, s.gpu)
	h := w.Header()
	h.Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// EnergyJ returns the ground truth of the DCGM energy counters: the exact
// integral of the power model, summed over the simulated GPUs, in joules,
// from New to t (without the counters' boot offsets). ok is false when t is
// in the future, before New, or older than the power history kept (the last
// 4096 changes of the running count). The exposition's counter at an update
// instant u is, per GPU, its boot offset plus floor(its share of
// EnergyJ(u) in mJ).
func (s *Server) EnergyJ(t time.Time) (joules float64, ok bool) {
	e, ok := s.power.energyAt(int64(t.Sub(s.started)))
	if !ok {
		return 0, false
	}
	return e * s.gpuFactorSum, true
}

// DCGMURL returns "http://HOST:PORT" of the DCGM listener (Config.DCGMAddr),
// or "" when there is none or before Start.
func (s *Server) DCGMURL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dcgmLn == nil {
		return ""
	}
	return "http://" + s.dcgmLn.Addr().String()
}
