package cli

import (
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/scorecard"
	"github.com/goodput-dev/goodput/scorecard/measure"
	"github.com/goodput-dev/goodput/telemetry"
)

// Telemetry and scorecard flags of goodput benchmark: where energy, cost
// and server metrics come from, measured in the same windows as the load
// (package scorecard/measure), and the scorecard file written beside the report.

// scorecardOptions are the raw telemetry flags.
type scorecardOptions struct {
	dcgmURLs           []string
	gpuSelector        string
	nvml               bool
	prometheus         string
	prometheusSelector string
	keplerNamespace    string
	keplerPod          string
	keplerContainer    string
	serverMetrics      []string
	opencost           string
	opencostNamespace  string
	opencostLabel      string
	opencostAggregate  string
	gpuCostPerHour     float64
	costPerHour        float64
	gpus               int
	currency           string
	pue                float64
	gridIntensity      float64
	optional           bool
	interval           time.Duration
	wait               time.Duration
	metricsAddr        string
}

// scorecardFlags registers the telemetry flags.
func scorecardFlags(o *scorecardOptions, fs *pflag.FlagSet) {
	fs.StringArrayVar(&o.dcgmURLs, "dcgm-url", nil, "dcgm-exporter /metrics URL scraped directly for GPU energy, e.g. http://gpu-node-07:9400/metrics (repeatable, one per node)")
	fs.StringVar(&o.gpuSelector, "gpu-selector", "", "GPUs of --dcgm-url/--nvml to count: hostname=H,gpu=N,uuid=U terms, e.g. hostname=gpu-node-07,gpu=0,gpu=1 (default all)")
	fs.BoolVar(&o.nvml, "nvml", false, "read the local GPUs' energy through NVML (binaries built with -tags nvml only)")
	fs.StringVar(&o.prometheus, "prometheus", "", "Prometheus server that scrapes dcgm-exporter (and Kepler), e.g. http://prometheus.monitoring:9090")
	fs.StringVar(&o.prometheusSelector, "prometheus-selector", "", `PromQL label matchers for the DCGM series, e.g. 'Hostname=~"gpu-node-.*"'`)
	fs.StringVar(&o.keplerNamespace, "kepler-namespace", "", "also read Kepler's energy of this namespace from --prometheus (cross-check)")
	fs.StringVar(&o.keplerPod, "kepler-pod", "", "also read Kepler's energy of this pod from --prometheus")
	fs.StringVar(&o.keplerContainer, "kepler-container", "", "also read Kepler's energy of this container from --prometheus")
	fs.StringArrayVar(&o.serverMetrics, "server-metrics", []string{string(measure.ServerMetricsAuto)}, "inference server /metrics (KV cache, queue, prefix cache, spec decode, server TTFT/ITL of "+serverMetricsEngines()+`): auto (scrape <target>/metrics when it serves them), on (required), off, or URLs, one per replica (comma-separated or repeated; counters and histograms are summed), or every replica's series read from Prometheus: 'prometheus=http://prometheus:9090,selector={namespace="llm",app="vllm"}'`)
	fs.StringVar(&o.opencost, "opencost", "", "OpenCost API that prices each window, e.g. http://opencost.opencost:9003")
	fs.StringVar(&o.opencostNamespace, "opencost-namespace", "", "OpenCost: the namespace to price")
	fs.StringVar(&o.opencostLabel, "opencost-label", "", "OpenCost: price the allocations with this label, key=value (e.g. app=vllm)")
	fs.StringVar(&o.opencostAggregate, "opencost-aggregate", "", "OpenCost aggregation (default namespace, or label:<key> with --opencost-label)")
	fs.Float64Var(&o.gpuCostPerHour, "gpu-cost-per-hour", 0, "price of one GPU-hour, multiplied by --gpus (default: the GPUs the energy source selects)")
	fs.Float64Var(&o.costPerHour, "cost-per-hour", 0, "the whole deployment's price per hour (instead of --gpu-cost-per-hour)")
	fs.IntVar(&o.gpus, "gpus", 0, "GPUs priced by --gpu-cost-per-hour")
	fs.StringVar(&o.currency, "currency", scorecard.DefaultCurrency, "ISO 4217 code of the prices (goodput converts nothing)")
	fs.Float64Var(&o.pue, "pue", measure.DefaultPUE, "data-centre power usage effectiveness for the PUE-adjusted energy and carbon (default 1: GPU energy only)")
	fs.Float64Var(&o.gridIntensity, "grid-intensity", 0, "grid carbon intensity in gCO2/kWh for the carbon axis (e.g. 40 for France)")
	fs.BoolVar(&o.optional, "telemetry-optional", false, "run even when a telemetry source is unreachable; it is reported as missing")
	fs.DurationVar(&o.interval, "telemetry-interval", telemetry.DefaultInterval, "sampling interval of --dcgm-url, --nvml and the server metrics")
	fs.DurationVar(&o.wait, "telemetry-wait", measure.DefaultWait, "longest wait after each window end for a reading past it (dcgm-exporter refreshes every 30 s by default)")
	fs.StringVar(&o.metricsAddr, "metrics-addr", "", "serve the run's own Prometheus series at http://ADDR/metrics while it runs (requests, in flight, TTFT/ITL/e2e per round, target load, client CPU), e.g. :9090")
}

// liveMetricsAddr checks --metrics-addr: host:port, the host optional.
func (o *scorecardOptions) liveMetricsAddr() (string, error) {
	a := strings.TrimSpace(o.metricsAddr)
	if a == "" {
		return "", nil
	}
	if _, port, err := net.SplitHostPort(a); err != nil || port == "" {
		return "", Usagef("--metrics-addr %q: want [host]:port, e.g. :9090 or 127.0.0.1:9090", o.metricsAddr)
	}
	return a, nil
}

// config turns the flags into the scorecard configuration. Errors are
// usage errors naming the flag and the accepted form.
func (o *scorecardOptions) config(fs *pflag.FlagSet) (measure.Config, error) {
	c := measure.Config{
		DCGMURLs: o.dcgmURLs, NVML: o.nvml, PrometheusURL: o.prometheus,
		OpenCostURL: o.opencost, GPUCostPerHour: o.gpuCostPerHour, CostPerHour: o.costPerHour, GPUs: o.gpus,
		Currency: o.currency, GridIntensity: o.gridIntensity, Optional: o.optional, Interval: o.interval, Wait: o.wait,
	}
	var err error
	if c.GPUSelector, err = telemetry.ParseGPUSelector(o.gpuSelector); err != nil {
		return c, Usagef("--gpu-selector: %v", err)
	}
	if c.PrometheusSelector, err = telemetry.ParseMatchers(o.prometheusSelector); err != nil {
		return c, Usagef("--prometheus-selector: %v", err)
	}
	if o.keplerNamespace != "" || o.keplerPod != "" || o.keplerContainer != "" {
		c.Kepler = &telemetry.KeplerSelector{Namespace: o.keplerNamespace, Pod: o.keplerPod, Container: o.keplerContainer}
	}
	for _, v := range o.serverMetrics {
		if !isServerMetricsProm(v) {
			continue
		}
		if len(o.serverMetrics) > 1 {
			return c, Usagef("--server-metrics %q: the Prometheus form is given alone (not with URLs, auto, on or off)", v)
		}
		if c.ServerMetricsPrometheus, c.ServerMetricsSelector, err = parseServerMetricsProm(v); err != nil {
			return c, Usagef("--server-metrics %q: %v", v, err)
		}
		c.ServerMetrics = measure.ServerMetricsOn
	}
	var sms []string
	for _, v := range o.serverMetrics {
		if isServerMetricsProm(v) {
			break
		}
		for _, x := range strings.Split(v, ",") {
			if x = strings.TrimSpace(x); x != "" {
				sms = append(sms, x)
			}
		}
	}
	switch sm := strings.Join(sms, ","); strings.ToLower(sm) {
	case "":
		if c.ServerMetrics == "" {
			c.ServerMetrics = measure.ServerMetricsAuto
		}
	case "auto":
		c.ServerMetrics = measure.ServerMetricsAuto
	case "on", "true":
		c.ServerMetrics = measure.ServerMetricsOn
	case "off", "false":
		c.ServerMetrics = measure.ServerMetricsOff
	default:
		for _, u := range sms {
			if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
				return c, Usagef("--server-metrics %q: want auto, on, off, http(s) URLs (comma-separated or repeated, one per replica) or prometheus=URL,selector={label matchers}", u)
			}
		}
		c.ServerMetrics, c.ServerMetricsURL, c.ServerMetricsURLs = measure.ServerMetricsOn, sms[0], sms[1:]
	}
	if o.opencost == "" && (o.opencostNamespace != "" || o.opencostLabel != "" || o.opencostAggregate != "") {
		return c, Usagef("--opencost-namespace, --opencost-label and --opencost-aggregate need --opencost URL")
	}
	q := telemetry.CostQuery{Aggregate: o.opencostAggregate}
	if o.opencostLabel != "" {
		k, v, ok := strings.Cut(o.opencostLabel, "=")
		if !ok || strings.TrimSpace(k) == "" || strings.TrimSpace(v) == "" {
			return c, Usagef("--opencost-label %q: want key=value, e.g. app=vllm", o.opencostLabel)
		}
		if q.Aggregate == "" {
			q.Aggregate = "label:" + strings.TrimSpace(k)
		}
		q.Keys = []string{strings.TrimSpace(v)}
		q.Namespace = o.opencostNamespace
	} else if o.opencostNamespace != "" {
		if q.Aggregate == "" || q.Aggregate == "namespace" {
			q.Aggregate, q.Keys = "namespace", []string{o.opencostNamespace}
		} else {
			q.Namespace = o.opencostNamespace
		}
	}
	c.OpenCostQuery = q
	if o.interval <= 0 {
		return c, Usagef("--telemetry-interval %v: want a duration of at least 10ms, e.g. 1s", o.interval)
	}
	if fs == nil || fs.Changed("pue") {
		c.PUE = o.pue
		if c.PUE == 0 {
			return c, Usagef("--pue 0: want facility energy / IT energy, 1 ≤ PUE ≤ 10 (e.g. 1.4)")
		}
	}
	if err := c.Validate(); err != nil {
		return c, Usagef("%v", err)
	}
	return c, nil
}

// serverMetricsPromForm is the accepted form of --server-metrics' Prometheus
// source, for error messages.
const serverMetricsPromForm = `want prometheus=URL,selector={label matchers}, e.g. prometheus=http://prometheus:9090,selector={namespace="llm",app="vllm"} (prometheus= may be left out with --prometheus URL)`

// isServerMetricsProm reports whether a --server-metrics value is the
// Prometheus form (prometheus=URL,selector={…}).
func isServerMetricsProm(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	return strings.HasPrefix(v, "prometheus=") || strings.HasPrefix(v, "selector=")
}

// parseServerMetricsProm reads prometheus=URL,selector={matchers}: keys
// separated by commas, the selector's value running to its closing brace
// (its matchers hold commas) or, without braces, to the end.
func parseServerMetricsProm(v string) (string, telemetry.Matchers, error) {
	var promURL, sel string
	haveSel := false
	rest := strings.TrimSpace(v)
	for rest != "" {
		key, val, ok := strings.Cut(rest, "=")
		if !ok {
			return "", nil, fmt.Errorf("%q has no value; %s", key, serverMetricsPromForm)
		}
		key = strings.ToLower(strings.TrimSpace(key))
		val = strings.TrimLeft(val, " ")
		switch key {
		case "selector":
			end := len(val)
			if strings.HasPrefix(val, "{") {
				if end = closingBrace(val); end < 0 {
					return "", nil, fmt.Errorf("selector %q has no closing brace; %s", val, serverMetricsPromForm)
				}
				end++
			}
			sel, haveSel, rest = val[:end], true, val[end:]
		case "prometheus":
			u, r, _ := strings.Cut(val, ",")
			promURL, rest = strings.TrimSpace(u), ","+r
			if r == "" {
				rest = ""
			}
		default:
			return "", nil, fmt.Errorf("unknown key %q; %s", key, serverMetricsPromForm)
		}
		rest = strings.TrimSpace(rest)
		if rest != "" && rest[0] != ',' {
			return "", nil, fmt.Errorf("unexpected %q after %s=; %s", rest, key, serverMetricsPromForm)
		}
		rest = strings.TrimSpace(strings.TrimPrefix(rest, ","))
	}
	if !haveSel {
		return "", nil, fmt.Errorf("no selector: %s", serverMetricsPromForm)
	}
	ms, err := telemetry.ParseMatchers(sel)
	if err != nil {
		return "", nil, err
	}
	if len(ms) == 0 {
		return "", nil, fmt.Errorf("empty selector (it would sum every server Prometheus holds); %s", serverMetricsPromForm)
	}
	return promURL, ms, nil
}

// closingBrace returns the index of the brace closing s[0] == '{', skipping
// quoted strings, or -1.
func closingBrace(s string) int {
	inQuote := false
	for i := 1; i < len(s); i++ {
		switch {
		case inQuote && s[i] == '\\':
			i++
		case s[i] == '"':
			inQuote = !inQuote
		case !inQuote && s[i] == '}':
			return i
		}
	}
	return -1
}

// serverMetricsEngines names the engines whose /metrics goodput reads,
// with the options that turn them on, from telemetry's engine table.
func serverMetricsEngines() string {
	names, hints := telemetry.MetricsEngines()
	if hints != "" {
		names += "; " + hints
	}
	return names
}
