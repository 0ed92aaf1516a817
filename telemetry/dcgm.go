package telemetry

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"sort"

	dto "github.com/prometheus/client_model/go"
)

// DCGM exporter metric names (etc/default-counters.csv of dcgm-exporter).
const (
	// MetricDCGMEnergy is the total energy counter since driver load, in mJ.
	// It has no _total suffix and resets on driver reload.
	MetricDCGMEnergy = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"
	// MetricDCGMPower is the power draw gauge, in W (a 1 s average on Ampere
	// and newer except GA100; instantaneous on older GPUs).
	MetricDCGMPower = "DCGM_FI_DEV_POWER_USAGE"
)

// DCGMExporter is a GPUSource that scrapes a dcgm-exporter /metrics URL
// directly, with no Prometheus server in between.
type DCGMExporter struct {
	url    *url.URL
	name   string
	client *http.Client
}

// NewDCGMExporter returns a source for one dcgm-exporter. metricsURL is like
// http://gpu-node-07:9400/metrics (the path /metrics is added when the URL
// has none). A nil client means http.DefaultClient; timeouts come from the
// context the sampler passes.
func NewDCGMExporter(metricsURL string, client *http.Client) (*DCGMExporter, error) {
	u, err := parseMetricsURL("dcgm-exporter URL", metricsURL)
	if err != nil {
		return nil, err
	}
	if client == nil {
		client = http.DefaultClient
	}
	return &DCGMExporter{url: u, name: "dcgm-exporter " + u.Redacted(), client: client}, nil
}

// Name returns "dcgm-exporter <URL>" (password redacted).
func (d *DCGMExporter) Name() string { return d.name }

// ReadGPUs scrapes the exporter once. It is an error when the exposition has
// no energy or power series: neither dcgm-exporter's
// DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION / DCGM_FI_DEV_POWER_USAGE nor the
// ROCm device-metrics-exporter's gpu_energy_consumed / gpu_power_usage.
func (d *DCGMExporter) ReadGPUs(ctx context.Context) ([]GPUReading, error) {
	fams, err := scrape(ctx, d.client, d.url)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.name, err)
	}
	rs := dcgmReadings(fams)
	if len(rs) == 0 {
		rs = amdReadings(fams)
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("%s: no %s or %s series, nor the ROCm exporter's gpu_energy_consumed or gpu_power_usage (is this a dcgm-exporter or AMD device-metrics-exporter /metrics URL?)", d.name, MetricDCGMEnergy, MetricDCGMPower)
	}
	return rs, nil
}

// dcgmGauges maps dcgm-exporter fields to gauges, with the factor that
// converts them (the profiling fields are ratios 0..1, gauges are %).
// Later entries of the same gauge are fallbacks for older field names.
var dcgmGauges = []struct {
	metric string
	gauge  GPUGauge
	scale  float64
}{
	{"DCGM_FI_DEV_GPU_UTIL", GaugeUtil, 1},
	{"DCGM_FI_PROF_SM_ACTIVE", GaugeSMActive, 100},
	{"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", GaugeTensorActive, 100},
	{"DCGM_FI_PROF_DRAM_ACTIVE", GaugeDRAMActive, 100},
	{"DCGM_FI_DEV_MEM_COPY_UTIL", GaugeMemUtil, 1},
	{"DCGM_FI_DEV_FB_USED", GaugeFBUsed, 1},
	{"DCGM_FI_DEV_FB_FREE", GaugeFBFree, 1},
	{"DCGM_FI_DEV_GPU_TEMP", GaugeTemp, 1},
	{"DCGM_FI_DEV_MEMORY_TEMP", GaugeMemTemp, 1},
	{"DCGM_FI_DEV_SM_CLOCK", GaugeSMClock, 1},
	{"DCGM_FI_DEV_MEM_CLOCK", GaugeMemClock, 1},
	{"DCGM_FI_DEV_POWER_MGMT_LIMIT", GaugePowerLimit, 1},
	{"DCGM_FI_DEV_ENFORCED_POWER_LIMIT", GaugePowerLimit, 1},
	{"DCGM_FI_DEV_CLOCKS_EVENT_REASONS", GaugeThrottle, 1},
	{"DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", GaugeThrottle, 1},
}

// dcgmReadings extracts one reading per GPU from a DCGM exposition. Series of
// the metrics are joined on the GPU identity labels; everything else
// (driver version, pod labels) is ignored. Only GPUs with an energy or power
// series are returned. Readings are sorted by host, then index, then MIG
// instance, then UUID.
func dcgmReadings(fams families) []GPUReading {
	byID := map[GPUID]*GPUReading{}
	get := func(id GPUID) *GPUReading {
		r := byID[id]
		if r == nil {
			r = &GPUReading{GPU: id, EnergyMJ: math.NaN(), PowerW: math.NaN()}
			byID[id] = r
		}
		return r
	}
	if mf := fams[MetricDCGMEnergy]; mf != nil {
		for _, m := range mf.GetMetric() {
			if v := scalarValue(m); !math.IsNaN(v) {
				get(dcgmID(m)).EnergyMJ = v
			}
		}
	}
	if mf := fams[MetricDCGMPower]; mf != nil {
		for _, m := range mf.GetMetric() {
			if v := scalarValue(m); !math.IsNaN(v) {
				get(dcgmID(m)).PowerW = v
			}
		}
	}
	if len(byID) == 0 {
		return nil
	}
	for _, f := range dcgmGauges {
		mf := fams[f.metric]
		if mf == nil {
			continue
		}
		for _, m := range mf.GetMetric() {
			r := byID[dcgmID(m)]
			if r == nil {
				continue
			}
			if _, done := r.Gauges.Get(f.gauge); done {
				continue
			}
			r.Gauges.Set(f.gauge, scalarValue(m)*f.scale)
		}
	}
	return sortedReadings(byID)
}

func sortedReadings(byID map[GPUID]*GPUReading) []GPUReading {
	out := make([]GPUReading, 0, len(byID))
	for _, r := range byID {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return lessGPU(out[i].GPU, out[j].GPU) })
	return out
}

// dcgmID reads the identity labels of a DCGM series: gpu, UUID (uuid),
// Hostname (hostname), modelName and, for MIG, GPU_I_ID.
func dcgmID(m *dto.Metric) GPUID {
	return GPUID{
		Index:    label(m, "gpu"),
		UUID:     label(m, "UUID"),
		Hostname: label(m, "Hostname"),
		Model:    label(m, "modelName", "model_name"),
		MIG:      label(m, "GPU_I_ID"),
	}
}

// lessGPU orders GPUs by host, numeric index, MIG instance, UUID.
func lessGPU(a, b GPUID) bool {
	if a.Hostname != b.Hostname {
		return a.Hostname < b.Hostname
	}
	if a.Index != b.Index {
		if len(a.Index) != len(b.Index) {
			return len(a.Index) < len(b.Index)
		}
		return a.Index < b.Index
	}
	if a.MIG != b.MIG {
		return a.MIG < b.MIG
	}
	return a.UUID < b.UUID
}
