package measure

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/scorecard"
	"github.com/goodput-dev/goodput/telemetry"
)

// Defaults of Config.
const (
	// DefaultPUE is applied when no PUE is given: 1.0 means GPU energy
	// only, no facility overhead, so the PUE-adjusted figures equal the
	// measured ones until --pue says otherwise. (The article's example uses
	// 1.4, a typical air-cooled data centre; goodput invents no overhead.)
	DefaultPUE = 1.0
	// DefaultWait bounds how long a window's figures wait for a reading
	// after the window end (dcgm-exporter refreshes every 30 s by default,
	// Prometheus scrapes every 15–60 s).
	DefaultWait = 60 * time.Second
	// DefaultProbeTimeout bounds each source's probe before the load.
	DefaultProbeTimeout = 10 * time.Second
)

// ServerMetrics says whether the inference server's /metrics is scraped.
type ServerMetrics string

// ServerMetrics modes.
const (
	// ServerMetricsAuto scrapes the target's /metrics when it serves vLLM
	// or SGLang metrics, and otherwise records the reason in the missing
	// list without failing (the default).
	ServerMetricsAuto ServerMetrics = "auto"
	// ServerMetricsOn requires them: an unreachable or foreign /metrics
	// fails before the load (unless Optional).
	ServerMetricsOn ServerMetrics = "on"
	// ServerMetricsOff never scrapes.
	ServerMetricsOff ServerMetrics = "off"
)

// Config selects the telemetry sources and prices of a run. The zero value
// has no source: Open then returns a Telemetry that only counts tokens.
type Config struct {
	// DCGMURLs are dcgm-exporter /metrics URLs scraped directly, one per
	// node (--dcgm-url, repeatable).
	DCGMURLs []string
	// GPUSelector picks the GPUs of the direct sources (--gpu-selector,
	// telemetry.ParseGPUSelector's form).
	GPUSelector telemetry.GPUSelector
	// NVML reads the local GPUs through NVML (--nvml; builds with -tags
	// nvml only).
	NVML bool

	// PrometheusURL is a Prometheus server that scrapes dcgm-exporter
	// (--prometheus); PrometheusSelector restricts its DCGM series
	// (--prometheus-selector 'Hostname=~"gpu-node-.*"').
	PrometheusURL      string
	PrometheusSelector telemetry.Matchers
	// Kepler, when set, also reads Kepler's energy of this workload from
	// the Prometheus (--kepler-namespace, --kepler-pod, --kepler-container).
	Kepler *telemetry.KeplerSelector

	// ServerMetrics and ServerMetricsURL: the inference server's /metrics
	// (--server-metrics auto|on|off|URL); the URL defaults to
	// <target>/metrics. ServerMetricsURLs are more replicas' /metrics
	// (--server-metrics URL,URL or repeated), combined with it as one
	// server: counters and histograms summed.
	ServerMetrics     ServerMetrics
	ServerMetricsURL  string
	ServerMetricsURLs []string
	// ServerMetricsSelector, when set, reads the server figures of every
	// window from a Prometheus instead of scraping /metrics: the series
	// of every replica under these label matchers, summed
	// (--server-metrics 'prometheus=URL,selector={…}').
	// ServerMetricsPrometheus is that Prometheus; "" means PrometheusURL.
	ServerMetricsSelector   telemetry.Matchers
	ServerMetricsPrometheus string

	// OpenCostURL prices windows with OpenCost's allocation API
	// (--opencost); OpenCostQuery selects the workload (Start and End are
	// filled per window).
	OpenCostURL   string
	OpenCostQuery telemetry.CostQuery
	// GPUCostPerHour is the price of one GPU-hour (--gpu-cost-per-hour),
	// multiplied by GPUs; CostPerHour is the deployment's whole price per
	// hour (--cost-per-hour). At most one price source.
	GPUCostPerHour float64
	CostPerHour    float64
	// GPUs counts the GPUs priced by GPUCostPerHour (--gpus); 0 counts
	// those the energy source selects.
	GPUs int
	// Currency is the ISO 4217 code of the prices (--currency, default
	// EUR). goodput converts nothing.
	Currency string

	// PUE is the data centre's power usage effectiveness (--pue, ≥ 1);
	// 0 means DefaultPUE.
	PUE float64
	// GridIntensity is the grid's carbon intensity in gCO2/kWh
	// (--grid-intensity); 0 leaves the carbon axis out.
	GridIntensity float64

	// Optional turns an unreachable source into a "missing" entry instead
	// of an error (--telemetry-optional).
	Optional bool
	// Interval is the sampling interval of the direct GPU sources and the
	// server metrics (--telemetry-interval, default 1 s).
	Interval time.Duration
	// Wait bounds the wait for a reading after each window end
	// (--telemetry-wait, default DefaultWait).
	Wait time.Duration
	// ProbeTimeout bounds each probe before the load (default
	// DefaultProbeTimeout).
	ProbeTimeout time.Duration
	// HTTPClient is used for every source; nil means a client with no
	// overall timeout (each call has its own context deadline).
	HTTPClient *http.Client
}

// serverMetricsURLs are every configured server metrics URL.
func (c *Config) serverMetricsURLs() []string {
	var out []string
	if c.ServerMetricsURL != "" {
		out = append(out, c.ServerMetricsURL)
	}
	return append(out, c.ServerMetricsURLs...)
}

// serverPrometheus is the Prometheus the server figures are read from; ""
// when they are scraped.
func (c *Config) serverPrometheus() string {
	if len(c.ServerMetricsSelector) == 0 {
		return ""
	}
	if c.ServerMetricsPrometheus != "" {
		return c.ServerMetricsPrometheus
	}
	return c.PrometheusURL
}

// HasEnergy reports whether an energy source is configured.
func (c *Config) HasEnergy() bool {
	return c.NVML || len(c.DCGMURLs) > 0 || c.PrometheusURL != ""
}

// HasCost reports whether a price source is configured.
func (c *Config) HasCost() bool {
	return c.OpenCostURL != "" || c.GPUCostPerHour > 0 || c.CostPerHour > 0
}

// pue returns the PUE to apply and whether it is the default.
func (c *Config) pue() (float64, bool) {
	if c.PUE == 0 {
		return DefaultPUE, true
	}
	return c.PUE, false
}

// Validate checks the configuration; errors name the flag and the accepted
// form.
func (c *Config) Validate() error {
	for _, u := range c.DCGMURLs {
		if err := checkURL("--dcgm-url", u); err != nil {
			return err
		}
	}
	if c.PrometheusURL != "" {
		if err := checkURL("--prometheus", c.PrometheusURL); err != nil {
			return err
		}
	} else {
		if len(c.PrometheusSelector) > 0 {
			return fmt.Errorf("--prometheus-selector needs --prometheus URL")
		}
		if c.Kepler != nil {
			return fmt.Errorf("--kepler-namespace, --kepler-pod and --kepler-container read Kepler through Prometheus: give --prometheus URL")
		}
	}
	if !c.GPUSelector.IsZero() && len(c.DCGMURLs) == 0 && !c.NVML {
		return fmt.Errorf("--gpu-selector selects GPUs of --dcgm-url or --nvml sources; give one (for Prometheus use --prometheus-selector)")
	}
	switch c.ServerMetrics {
	case "", ServerMetricsAuto, ServerMetricsOn, ServerMetricsOff:
	default:
		return fmt.Errorf("--server-metrics %q: want auto, on, off or a URL", c.ServerMetrics)
	}
	for _, u := range c.serverMetricsURLs() {
		if err := checkURL("--server-metrics", u); err != nil {
			return err
		}
	}
	if len(c.ServerMetricsSelector) > 0 {
		switch {
		case c.ServerMetrics == ServerMetricsOff:
			return fmt.Errorf("--server-metrics: a selector with off: give one or the other")
		case len(c.serverMetricsURLs()) > 0:
			return fmt.Errorf("--server-metrics: give /metrics URLs or prometheus=URL,selector={…}, not both")
		case c.serverPrometheus() == "":
			return fmt.Errorf("--server-metrics selector={%s}: which Prometheus? give prometheus=URL in it, or --prometheus URL", c.ServerMetricsSelector)
		}
		if err := checkURL("--server-metrics prometheus=", c.serverPrometheus()); err != nil {
			return err
		}
	} else if c.ServerMetricsPrometheus != "" {
		return fmt.Errorf("--server-metrics prometheus=%s: give selector={…} label matchers of the server's series too, e.g. prometheus=%[1]s,selector={namespace=\"llm\",app=\"vllm\"}", c.ServerMetricsPrometheus)
	}
	if c.OpenCostURL != "" {
		if err := checkURL("--opencost", c.OpenCostURL); err != nil {
			return err
		}
	}
	for _, f := range []struct {
		flag string
		v    float64
	}{{"--gpu-cost-per-hour", c.GPUCostPerHour}, {"--cost-per-hour", c.CostPerHour}, {"--grid-intensity", c.GridIntensity}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("%s %v: want a finite number ≥ 0", f.flag, f.v)
		}
	}
	if c.GPUCostPerHour > 0 && c.CostPerHour > 0 {
		return fmt.Errorf("--gpu-cost-per-hour and --cost-per-hour both set: give the price per GPU-hour or the deployment's price per hour, not both")
	}
	if c.OpenCostURL != "" && (c.GPUCostPerHour > 0 || c.CostPerHour > 0) {
		return fmt.Errorf("--opencost and a fixed price (--gpu-cost-per-hour/--cost-per-hour) both set: choose one price source")
	}
	if c.GPUs < 0 {
		return fmt.Errorf("--gpus %d: want a count ≥ 1", c.GPUs)
	}
	if c.GPUs > 0 && c.GPUCostPerHour == 0 {
		return fmt.Errorf("--gpus counts the GPUs priced by --gpu-cost-per-hour; give --gpu-cost-per-hour")
	}
	if c.GPUCostPerHour > 0 && c.GPUs == 0 && len(c.DCGMURLs) == 0 && !c.NVML && c.PrometheusURL == "" {
		return fmt.Errorf("--gpu-cost-per-hour needs --gpus N (or a GPU energy source to count the GPUs)")
	}
	if c.Currency != "" && !isCurrencyCode(c.Currency) {
		return fmt.Errorf("--currency %q: want an ISO 4217 code of three capital letters, e.g. EUR or USD", c.Currency)
	}
	if c.PUE != 0 && (!(c.PUE >= 1) || math.IsInf(c.PUE, 0) || c.PUE > 10) {
		return fmt.Errorf("--pue %v: want facility energy / IT energy, 1 ≤ PUE ≤ 10 (e.g. 1.4)", c.PUE)
	}
	if c.Interval < 0 || c.Wait < 0 || c.ProbeTimeout < 0 {
		return fmt.Errorf("--telemetry-interval and --telemetry-wait must not be negative")
	}
	if c.Interval != 0 && c.Interval < 10*time.Millisecond {
		return fmt.Errorf("--telemetry-interval %v: want at least 10ms", c.Interval)
	}
	return nil
}

func checkURL(flag, raw string) error {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		shown := raw
		if err == nil {
			shown = u.Redacted()
		}
		return fmt.Errorf("%s %q: want an absolute http:// or https:// URL", flag, shown)
	}
	return nil
}

func isCurrencyCode(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// currency returns the configured currency or the default.
func (c *Config) currency() string {
	if c.Currency == "" {
		return scorecard.DefaultCurrency
	}
	return c.Currency
}

func (c *Config) wait() time.Duration {
	if c.Wait == 0 {
		return DefaultWait
	}
	return c.Wait
}

func (c *Config) probeTimeout() time.Duration {
	if c.ProbeTimeout == 0 {
		return DefaultProbeTimeout
	}
	return c.ProbeTimeout
}
