package telemetry

import (
	"math"
	"strings"

	dto "github.com/prometheus/client_model/go"
)

// ROCm device-metrics-exporter series (docs/configuration/metricslist.md of
// ROCm/device-metrics-exporter), exposed in lower case and, when the
// exporter's MetricsFieldPrefix is set, with a prefix such as "amd_".
const (
	// MetricAMDEnergy is the accumulated energy, in µJ (typed gauge).
	MetricAMDEnergy = "gpu_energy_consumed"
	// MetricAMDPower is the GPU power usage, in W.
	MetricAMDPower = "gpu_power_usage"
)

// amdPowerFallbacks are read when gpu_power_usage is absent: the MI3xx
// socket power and the MI2xx average socket power, W.
var amdPowerFallbacks = []string{"gpu_package_power", "gpu_average_package_power"}

// amdGauges maps the exporter's series to gauges (first present wins).
var amdGauges = []struct {
	metric string
	gauge  GPUGauge
}{
	{"gpu_gfx_activity", GaugeUtil},
	{"gpu_umc_activity", GaugeMemUtil},
	{"gpu_used_vram", GaugeFBUsed}, // MB as the exporter says; reported as MiB
	{"gpu_free_vram", GaugeFBFree},
	{"gpu_junction_temperature", GaugeTemp}, // MI3xx hotspot
	{"gpu_edge_temperature", GaugeTemp},     // MI2xx
	{"gpu_memory_temperature", GaugeMemTemp},
}

// amdPrefix finds the prefix the exporter puts before its field names ("" or
// e.g. "amd_"), from its energy or power series; ok is false when there is
// neither.
func amdPrefix(fams families) (string, bool) {
	for name := range fams {
		for _, base := range append([]string{MetricAMDEnergy, MetricAMDPower}, amdPowerFallbacks...) {
			if strings.HasSuffix(name, base) {
				return strings.TrimSuffix(name, base), true
			}
		}
	}
	return "", false
}

// amdReadings extracts one reading per GPU (or GPU partition) from a ROCm
// device-metrics-exporter exposition: energy (µJ → mJ), power, activity,
// VRAM, temperatures and the system and memory clocks (gpu_clock by
// clock_type). nil when the exposition has no AMD energy or power series.
func amdReadings(fams families) []GPUReading {
	prefix, ok := amdPrefix(fams)
	if !ok {
		return nil
	}
	byID := map[GPUID]*GPUReading{}
	get := func(id GPUID) *GPUReading {
		r := byID[id]
		if r == nil {
			r = &GPUReading{GPU: id, EnergyMJ: math.NaN(), PowerW: math.NaN()}
			byID[id] = r
		}
		return r
	}
	each := func(name string, f func(m *dto.Metric, v float64)) {
		if mf := fams[prefix+name]; mf != nil {
			for _, m := range mf.GetMetric() {
				if v := scalarValue(m); !math.IsNaN(v) {
					f(m, v)
				}
			}
		}
	}
	each(MetricAMDEnergy, func(m *dto.Metric, v float64) { get(amdID(m)).EnergyMJ = v / 1000 })
	for _, name := range append([]string{MetricAMDPower}, amdPowerFallbacks...) {
		each(name, func(m *dto.Metric, v float64) {
			if r := get(amdID(m)); math.IsNaN(r.PowerW) {
				r.PowerW = v
			}
		})
	}
	set := func(m *dto.Metric, g GPUGauge, v float64) {
		r := byID[amdID(m)]
		if r == nil {
			return
		}
		if _, done := r.Gauges.Get(g); !done {
			r.Gauges.Set(g, v)
		}
	}
	for _, f := range amdGauges {
		each(f.metric, func(m *dto.Metric, v float64) { set(m, f.gauge, v) })
	}
	each("gpu_clock", func(m *dto.Metric, v float64) {
		switch label(m, "clock_type") {
		case "GPU_CLOCK_TYPE_SYSTEM":
			set(m, GaugeSMClock, v)
		case "GPU_CLOCK_TYPE_MEMORY":
			set(m, GaugeMemClock, v)
		}
	})
	return sortedReadings(byID)
}

// amdID reads the identity labels of a ROCm exporter series: gpu_id,
// gpu_uuid (else serial_number), hostname, card_model and, for a partitioned
// GPU, gpu_partition_id (kept as the MIG field when not "0").
func amdID(m *dto.Metric) GPUID {
	id := GPUID{
		Index:    label(m, "gpu_id"),
		UUID:     label(m, "gpu_uuid", "serial_number"),
		Hostname: label(m, "hostname"),
		Model:    label(m, "card_model"),
	}
	if p := label(m, "gpu_partition_id"); p != "" && p != "0" {
		id.MIG = p
	}
	return id
}
