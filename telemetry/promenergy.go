package telemetry

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// GPUWindow returns the GPU energy and power over [start, end] from the
// dcgm-exporter series stored in Prometheus, restricted by the label
// matchers (e.g. Hostname=~"gpu-node-.*"). Every query is an instant query at
// time = end over the range [D] with D = end − start (milliseconds when not
// whole seconds):
//
//	energy, J        increase(DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{m}[D]) / 1000
//	fallback, J      avg_over_time(DCGM_FI_DEV_POWER_USAGE{m}[D]) × D
//	mean power, W    avg_over_time(DCGM_FI_DEV_POWER_USAGE{m}[D]), summed over GPUs
//	peak power, W    max_over_time(sum(DCGM_FI_DEV_POWER_USAGE{m})[D:step])
//	GPU peak, W      max_over_time(DCGM_FI_DEV_POWER_USAGE{m}[D])
//	samples          count_over_time(DCGM_FI_DEV_POWER_USAGE{m}[D])
//	update interval  D / changes(DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{m}[D])
//
// increase() handles counter resets and extrapolates to the range edges.
// When nothing matches and the matchers use Hostname/hostname, UUID/uuid or
// modelName/model_name, the other spelling is tried. No series at all is an
// error naming the selector.
func (p *Prometheus) GPUWindow(ctx context.Context, start, end time.Time, m Matchers) (EnergyWindow, error) {
	if !end.After(start) {
		return EnergyWindow{}, fmt.Errorf("%s: energy window: end %s is not after start %s", p.name, end.Format(time.RFC3339Nano), start.Format(time.RFC3339Nano))
	}
	d := end.Sub(start).Round(time.Millisecond)
	rng := promDuration(d)
	w := EnergyWindow{Start: start, End: end, Source: p.name, Method: MethodNone, Coverage: 1}

	run := func(expr string) ([]PromSample, error) {
		v, warns, err := p.Query(ctx, expr, end)
		for _, x := range warns {
			w.Warnings = append(w.Warnings, "prometheus: "+x)
		}
		return v, err
	}
	probe := func(ms Matchers) (energy, power []PromSample, err error) {
		if energy, err = run("increase(" + ms.selector(MetricDCGMEnergy) + "[" + rng + "])"); err != nil {
			return nil, nil, err
		}
		power, err = run("avg_over_time(" + ms.selector(MetricDCGMPower) + "[" + rng + "])")
		return energy, power, err
	}
	energy, power, err := probe(m)
	if err != nil {
		return EnergyWindow{}, err
	}
	if len(energy) == 0 && len(power) == 0 {
		if alt, ok := m.aliased(); ok {
			if energy, power, err = probe(alt); err != nil {
				return EnergyWindow{}, err
			}
			if len(energy) > 0 || len(power) > 0 {
				w.Warnings = append(w.Warnings, fmt.Sprintf("no series for {%s}; matched with the other label spelling {%s}", m, alt))
				m = alt
			}
		}
	}
	if len(energy) == 0 && len(power) == 0 {
		return EnergyWindow{}, fmt.Errorf("%s: no series for %s (nor %s) in the %s range ending at %s",
			p.name, m.selector(MetricDCGMEnergy), m.selector(MetricDCGMPower), rng, end.UTC().Format(time.RFC3339))
	}

	byGPU := map[string]*GPUEnergy{}
	var order []string
	gpu := func(l map[string]string) *GPUEnergy {
		k := promGPUKey(l)
		g := byGPU[k]
		if g == nil {
			nan := math.NaN()
			g = &GPUEnergy{GPU: promGPUID(l), Source: p.name, Method: MethodNone, EnergyJ: nan, MeanPowerW: nan, PeakPowerW: nan, Coverage: 1}
			if inst := l["instance"]; inst != "" {
				g.Source = p.name + " instance " + inst
			}
			byGPU[k] = g
			order = append(order, k)
		}
		return g
	}
	sec := d.Seconds()
	for _, s := range energy {
		g := gpu(s.Labels)
		g.EnergyJ, g.Method = s.Value/1000, MethodCounter
	}
	for _, s := range power {
		g := gpu(s.Labels)
		g.MeanPowerW = s.Value
		if g.Method == MethodNone {
			g.EnergyJ, g.Method = s.Value*sec, MethodPowerIntegral
		}
	}
	countMetric, changeMetric := MetricDCGMPower, MetricDCGMEnergy
	if len(power) == 0 {
		countMetric = MetricDCGMEnergy
		w.Warnings = append(w.Warnings, fmt.Sprintf("no %s series: mean power derived from the energy counter, peak unavailable", m.selector(MetricDCGMPower)))
	}
	if len(energy) == 0 {
		changeMetric = MetricDCGMPower
		w.Warnings = append(w.Warnings, fmt.Sprintf("no %s series over the window: energy is mean power × duration", m.selector(MetricDCGMEnergy)))
	}
	if len(power) > 0 {
		peaks, err := run("max_over_time(" + m.selector(MetricDCGMPower) + "[" + rng + "])")
		if err != nil {
			return EnergyWindow{}, err
		}
		for _, s := range peaks {
			gpu(s.Labels).PeakPowerW = s.Value
		}
		step := promDuration(max(time.Second, d/1000))
		tot, err := run("max_over_time(sum(" + m.selector(MetricDCGMPower) + ")[" + rng + ":" + step + "])")
		if err != nil {
			return EnergyWindow{}, err
		}
		w.PeakPowerW = math.NaN()
		if len(tot) > 0 {
			w.PeakPowerW = tot[0].Value
		}
	} else {
		w.PeakPowerW = math.NaN()
	}
	counts, err := run("count_over_time(" + m.selector(countMetric) + "[" + rng + "])")
	if err != nil {
		return EnergyWindow{}, err
	}
	maxCount := 0
	for _, s := range counts {
		g := gpu(s.Labels)
		g.Samples = int(s.Value)
		maxCount = max(maxCount, g.Samples)
	}
	changes, err := run("changes(" + m.selector(changeMetric) + "[" + rng + "])")
	if err != nil {
		return EnergyWindow{}, err
	}
	for _, s := range changes {
		g := gpu(s.Labels)
		if s.Value >= 1 {
			g.UpdateInterval = time.Duration(float64(d) / s.Value)
		} else {
			g.UpdateInterval = d
			w.Warnings = append(w.Warnings, fmt.Sprintf("%s: %s did not change during the window", g.GPU, changeMetric))
		}
	}

	for _, g := range byGPU {
		for k := range g.Gauges {
			g.Gauges[k] = GaugeStats{Mean: math.NaN(), Peak: math.NaN()}
		}
	}
	if w.Gauges, err = p.gpuGauges(run, m, rng, d, func(l map[string]string) *GPUEnergy { return byGPU[promGPUKey(l)] }); err != nil {
		return EnergyWindow{}, err
	}

	sort.Slice(order, func(i, j int) bool { return lessGPU(byGPU[order[i]].GPU, byGPU[order[j]].GPU) })
	methods := map[string]bool{}
	w.EnergyJ, w.MeanPowerW = 0, 0
	for _, k := range order {
		g := byGPU[k]
		if math.IsNaN(g.MeanPowerW) && !math.IsNaN(g.EnergyJ) {
			g.MeanPowerW = g.EnergyJ / sec
		}
		if maxCount > 0 {
			g.Coverage = float64(g.Samples) / float64(maxCount)
			if g.Coverage < 0.9 {
				w.Warnings = append(w.Warnings, fmt.Sprintf("missing samples: %s has %d of %d samples in the window (scrape failures, or the GPU appeared or disappeared)", g.GPU, g.Samples, maxCount))
			}
		}
		w.Coverage = math.Min(w.Coverage, g.Coverage)
		w.UpdateInterval = max(w.UpdateInterval, g.UpdateInterval)
		methods[g.Method] = true
		if !math.IsNaN(g.EnergyJ) {
			w.EnergyJ += g.EnergyJ
		}
		if !math.IsNaN(g.MeanPowerW) {
			w.MeanPowerW += g.MeanPowerW
		}
		w.GPUs = append(w.GPUs, *g)
	}
	w.Method = combineMethods(methods)
	if w.UpdateInterval > 0 && d < coarseFactor*w.UpdateInterval {
		w.Warnings = append(w.Warnings, fmt.Sprintf(
			"update interval too coarse: the window (%v) is shorter than %d × the detected update interval (%v); increase() extrapolates from few samples (run dcgm-exporter with -c 1000, scrape more often, or lengthen and pad the window)",
			d, coarseFactor, w.UpdateInterval.Round(time.Millisecond)))
	}
	return w, nil
}

// gpuGauges reads the DCGM gauges over the range: per GPU
// avg_over_time and max_over_time of each field (the first of a gauge's
// names that has series), combined as GaugeWindow says; a summed gauge's
// peak is max_over_time of its sum. Throttle reasons, a bitmask, are not
// read from Prometheus. gpu returns the GPU of a series, nil for one
// without energy or power.
func (p *Prometheus) gpuGauges(run func(string) ([]PromSample, error), m Matchers, rng string, d time.Duration, gpu func(map[string]string) *GPUEnergy) ([]GaugeWindow, error) {
	var done [NumGPUGauges]bool
	var out []GaugeWindow
	for _, f := range dcgmGauges {
		if f.gauge == GaugeThrottle || done[f.gauge] {
			continue
		}
		sel := m.selector(f.metric)
		means, err := run("avg_over_time(" + sel + "[" + rng + "])")
		if err != nil {
			return nil, err
		}
		if len(means) == 0 {
			continue
		}
		done[f.gauge] = true
		peaks, err := run("max_over_time(" + sel + "[" + rng + "])")
		if err != nil {
			return nil, err
		}
		gw := GaugeWindow{Gauge: f.gauge, Mean: math.NaN(), Peak: math.NaN()}
		sum, peak := 0.0, math.NaN()
		for _, s := range means {
			if g := gpu(s.Labels); g != nil {
				g.Gauges[f.gauge].Mean = s.Value * f.scale
				gw.GPUs++
				sum += s.Value * f.scale
			}
		}
		for _, s := range peaks {
			if g := gpu(s.Labels); g != nil {
				g.Gauges[f.gauge].Peak = s.Value * f.scale
				peak = nanMax(peak, s.Value*f.scale)
			}
		}
		if gw.GPUs == 0 {
			continue
		}
		if f.gauge.Summed() {
			gw.Mean = sum
			step := promDuration(max(time.Second, d/1000))
			tot, err := run("max_over_time(sum(" + sel + ")[" + rng + ":" + step + "])")
			if err != nil {
				return nil, err
			}
			if len(tot) > 0 {
				gw.Peak = tot[0].Value * f.scale
			}
		} else {
			gw.Mean, gw.Peak = sum/float64(gw.GPUs), peak
		}
		out = append(out, gw)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Gauge < out[j].Gauge })
	return out, nil
}

// promGPUID reads a GPU identity from a series' labels, accepting both
// spellings of the host and UUID labels.
func promGPUID(l map[string]string) GPUID {
	get := func(names ...string) string {
		for _, n := range names {
			if v, ok := l[n]; ok {
				return v
			}
		}
		return ""
	}
	return GPUID{Index: get("gpu"), UUID: get("UUID", "uuid"), Hostname: get("Hostname", "hostname"),
		Model: get("modelName", "model_name"), MIG: get("GPU_I_ID")}
}

// promGPUKey joins the results of different queries for one GPU series.
func promGPUKey(l map[string]string) string {
	id := promGPUID(l)
	return strings.Join([]string{l["instance"], l["job"], id.Hostname, id.Index, id.UUID, id.MIG}, "\x00")
}

// KeplerSelector chooses the workload whose Kepler energy is wanted. Empty
// Namespace, Pod and Container select the whole node's GPU energy.
type KeplerSelector struct {
	Namespace string
	Pod       string
	Container string
	// Matchers are added to every query, e.g. node_name="gpu-node-07".
	Matchers Matchers
}

// KeplerEnergy is the Kepler energy of a workload over one window.
type KeplerEnergy struct {
	Start, End time.Time
	Metric     string  // family used, e.g. kepler_pod_gpu_joules_total
	Query      string  // the PromQL evaluated at End
	Scope      string  // what the energy covers (components, level, Kepler era)
	EnergyJ    float64 // J (Kepler counters are already in J)
	Series     []PromSample
	Warnings   []string
}

// keplerCandidate is one Kepler family and the labels it uses for the
// selector fields ("" = this family cannot filter on that field).
type keplerCandidate struct {
	metric, ns, pod, container, scope string
}

// keplerWorkload and keplerNode are immutable lookup tables, in order of
// preference (telemetry.md §2: GPU families first, then the old aggregate).
var keplerWorkload = []keplerCandidate{
	{"kepler_pod_gpu_joules_total", "pod_namespace", "pod_name", "", "GPU, per pod (Kepler ≥ 0.11.4, experimental GPU support)"},
	{"kepler_container_gpu_joules_total", "container_namespace", "pod_name", "container_name", "GPU, per container (Kepler ≤ 0.8)"},
	{"kepler_container_gpu_joules_total", "", "", "container_name", "GPU, per container (Kepler ≥ 0.11.4)"},
	{"kepler_container_joules_total", "container_namespace", "pod_name", "container_name", "all components (CPU package, DRAM, GPU, other), per container (Kepler ≤ 0.8)"},
}

var keplerNode = []keplerCandidate{
	{"kepler_node_gpu_joules_total", "", "", "", "GPU, whole node"},
}

// KeplerWindow returns increase(<family>{selector}[D]) at time = end, trying
// the Kepler families in order of preference and using the first with series:
// kepler_pod_gpu_joules_total (new Kepler), kepler_container_gpu_joules_total
// (old, then new labels), kepler_container_joules_total (old, all
// components); with no workload selector, kepler_node_gpu_joules_total.
// CPU families are not summed (their RAPL zones overlap).
func (p *Prometheus) KeplerWindow(ctx context.Context, start, end time.Time, sel KeplerSelector) (KeplerEnergy, error) {
	if !end.After(start) {
		return KeplerEnergy{}, fmt.Errorf("%s: kepler window: end %s is not after start %s", p.name, end.Format(time.RFC3339Nano), start.Format(time.RFC3339Nano))
	}
	d := end.Sub(start).Round(time.Millisecond)
	cands := keplerWorkload
	if sel.Namespace == "" && sel.Pod == "" && sel.Container == "" {
		cands = keplerNode
	}
	var tried []string
	for _, c := range cands {
		ms, ok := c.matchers(sel)
		if !ok {
			continue
		}
		q := "increase(" + ms.selector(c.metric) + "[" + promDuration(d) + "])"
		tried = append(tried, ms.selector(c.metric))
		v, warns, err := p.Query(ctx, q, end)
		if err != nil {
			return KeplerEnergy{}, err
		}
		if len(v) == 0 {
			continue
		}
		k := KeplerEnergy{Start: start, End: end, Metric: c.metric, Query: q, Scope: c.scope, EnergyJ: sumValues(v), Series: v}
		for _, x := range warns {
			k.Warnings = append(k.Warnings, "prometheus: "+x)
		}
		return k, nil
	}
	if len(tried) == 0 {
		return KeplerEnergy{}, fmt.Errorf("%s: no Kepler family can select namespace=%q pod=%q container=%q together (new Kepler has no namespace on container series)", p.name, sel.Namespace, sel.Pod, sel.Container)
	}
	return KeplerEnergy{}, fmt.Errorf("%s: no Kepler series for %s in the %s range ending at %s (is Kepler scraped, and for GPU energy Kepler ≥ 0.11.4 run with --experimental.gpu.enabled?)",
		p.name, strings.Join(tried, ", "), promDuration(d), end.UTC().Format(time.RFC3339))
}

func (c keplerCandidate) matchers(sel KeplerSelector) (Matchers, bool) {
	ms := append(Matchers(nil), sel.Matchers...)
	for _, f := range []struct{ label, value string }{{c.ns, sel.Namespace}, {c.pod, sel.Pod}, {c.container, sel.Container}} {
		if f.value == "" {
			continue
		}
		if f.label == "" {
			return nil, false
		}
		ms = append(ms, Matcher{Name: f.label, Op: "=", Value: f.value})
	}
	return ms, true
}
