package measure

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/internal/redact"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/telemetry"
)

// Telemetry is the set of telemetry sources of one run, probed and started
// before the load. Make one with Open, watch the run with Observer, and
// Close it after Observer.Finish.
type Telemetry struct {
	cfg Config
	// life carries the samplers' background loops; it outlives the run's
	// context so that an interrupted run still gets its last window.
	life   context.Context
	cancel context.CancelFunc

	gpu      *telemetry.GPUSampler // direct sources (NVML, dcgm-exporter); nil when none
	gpuNames []string
	nvml     *telemetry.NVMLSource

	prom        *telemetry.Prometheus
	promDCGM    bool   // Prometheus holds DCGM series for the selector
	promCounter string // the DCGM metric Prometheus has (counter preferred)
	kepler      *telemetry.KeplerSelector

	server       *telemetry.ServerSampler
	serverSource string // the scraped /metrics URL, credentials removed
	serverURL    string // the scraped /metrics URL as given
	// serverProm reads the server figures from a Prometheus instead
	// (--server-metrics prometheus=URL,selector={…}); nil when scraped.
	serverProm *telemetry.Prometheus

	opencost *telemetry.OpenCost

	gpuCount int    // GPUs selected by the energy source at probe time
	gpuModel string // their model name(s)
	missing  []report.MissingTelemetry
	lines    []string
}

// Open validates cfg, probes every configured source (each within
// cfg.ProbeTimeout) and starts sampling. target is the benchmark's base URL,
// used for the server metrics (<target>/metrics). An unreachable source, or
// one without the metrics it must serve, is an error naming it — unless
// cfg.Optional, when it is recorded as missing and the run goes on without
// it. Call it before the load starts.
func Open(ctx context.Context, cfg Config, target string) (*Telemetry, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Interval == 0 {
		cfg.Interval = telemetry.DefaultInterval
	}
	t := &Telemetry{cfg: cfg}
	t.life, t.cancel = context.WithCancel(context.WithoutCancel(ctx))
	var errs []error
	fail := func(source string, err error) {
		if cfg.Optional {
			t.missing = append(t.missing, report.MissingTelemetry{Source: source, Reason: err.Error()})
			t.lines = append(t.lines, fmt.Sprintf("telemetry: %s is missing: %v", source, err))
			return
		}
		errs = append(errs, err)
	}
	t.openGPU(ctx, fail)
	t.openPrometheus(ctx, fail)
	t.openServer(ctx, target, fail)
	t.openCost(ctx, fail)
	if len(errs) > 0 {
		t.Close()
		return nil, fmt.Errorf("telemetry probe failed before the load: %w (fix the source, or pass --telemetry-optional to run without it)", errors.Join(errs...))
	}
	return t, nil
}

func (t *Telemetry) probeCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, t.cfg.probeTimeout())
}

// openGPU probes the direct GPU sources and starts their sampler.
func (t *Telemetry) openGPU(ctx context.Context, fail func(string, error)) {
	var srcs []telemetry.GPUSource
	var models []string
	count := 0
	probe := func(src telemetry.GPUSource, flag string) bool {
		pctx, cancel := t.probeCtx(ctx)
		defer cancel()
		rs, err := telemetry.ProbeGPUs(pctx, src)
		if len(rs) == 0 {
			if err == nil {
				err = errors.New("no GPU reported")
			}
			fail(src.Name(), fmt.Errorf("%s: %w", flag, err))
			return false
		}
		var seen []string
		n := 0
		for _, r := range rs {
			seen = append(seen, r.GPU.String())
			if t.cfg.GPUSelector.Matches(r.GPU) {
				n++
				if r.GPU.Model != "" && !contains(models, r.GPU.Model) {
					models = append(models, r.GPU.Model)
				}
			}
		}
		if n == 0 {
			fail(src.Name(), fmt.Errorf("%s: --gpu-selector %q matches none of the GPUs of %s (seen: %s)", flag, t.cfg.GPUSelector.String(), src.Name(), strings.Join(seen, "; ")))
			return false
		}
		count += n
		return true
	}
	if t.cfg.NVML {
		src, err := telemetry.OpenNVML()
		if err != nil {
			fail("nvml", fmt.Errorf("--nvml: %w", err))
		} else if probe(src, "--nvml") {
			srcs = append(srcs, src)
			t.nvml = src
		} else {
			_ = src.Close()
		}
	}
	for _, u := range t.cfg.DCGMURLs {
		src, err := telemetry.NewDCGMExporter(u, t.cfg.HTTPClient)
		if err != nil {
			fail("dcgm-exporter "+redact.URL(u), fmt.Errorf("--dcgm-url: %w", err))
			continue
		}
		if probe(src, "--dcgm-url") {
			srcs = append(srcs, src)
		}
	}
	if len(srcs) == 0 {
		return
	}
	gs, err := telemetry.NewGPUSampler(srcs, telemetry.SamplerOptions{Interval: t.cfg.Interval})
	if err == nil {
		err = gs.Start(t.life)
	}
	if err != nil {
		fail("gpu sampler", fmt.Errorf("starting GPU sampling: %w", err))
		return
	}
	t.gpu = gs
	for _, s := range srcs {
		t.gpuNames = append(t.gpuNames, s.Name())
	}
	t.gpuCount, t.gpuModel = count, strings.Join(models, " + ")
	t.lines = append(t.lines, fmt.Sprintf("telemetry: GPU energy from %s (%d GPUs selected: %s; %s), sampled every %v",
		strings.Join(t.gpuNames, ", "), count, orUnknown(t.gpuModel), t.cfg.GPUSelector.String(), t.cfg.Interval))
}

// openPrometheus probes the Prometheus server for DCGM (and Kepler) series.
func (t *Telemetry) openPrometheus(ctx context.Context, fail func(string, error)) {
	if t.cfg.PrometheusURL == "" {
		return
	}
	p, err := telemetry.NewPrometheus(t.cfg.PrometheusURL, t.cfg.HTTPClient)
	if err != nil {
		fail("prometheus "+redact.URL(t.cfg.PrometheusURL), fmt.Errorf("--prometheus: %w", err))
		return
	}
	pctx, cancel := t.probeCtx(ctx)
	defer cancel()
	now := time.Now()
	sel := t.cfg.PrometheusSelector
	var dcgmErr error
	cands := []telemetry.Matchers{sel}
	if alt := aliasMatchers(sel); alt != nil {
		cands = append(cands, alt)
	}
search:
	for _, ms := range cands {
		for _, metric := range []string{telemetry.MetricDCGMEnergy, telemetry.MetricDCGMPower} {
			v, _, err := p.Query(pctx, "count by (modelName, model_name) ("+selector(metric, ms)+")", now)
			if err != nil {
				fail(p.Name(), fmt.Errorf("--prometheus: %w", err))
				return
			}
			n := 0
			var models []string
			for _, s := range v {
				n += int(s.Value)
				m := s.Labels["modelName"]
				if m == "" {
					m = s.Labels["model_name"]
				}
				if m != "" && !contains(models, m) {
					models = append(models, m)
				}
			}
			if n == 0 {
				continue
			}
			t.promDCGM, t.promCounter = true, metric
			if t.gpu == nil {
				t.gpuCount, t.gpuModel = n, strings.Join(models, " + ")
			}
			if ms.String() != sel.String() {
				t.lines = append(t.lines, fmt.Sprintf("telemetry: no series for {%s} in %s; using the other label spelling {%s}", sel, p.Name(), ms))
				t.cfg.PrometheusSelector = ms
			}
			break search
		}
	}
	if !t.promDCGM {
		dcgmErr = fmt.Errorf("--prometheus: %s has no %s nor %s series (is dcgm-exporter scraped by it? check --prometheus-selector)",
			p.Name(), selector(telemetry.MetricDCGMEnergy, sel), selector(telemetry.MetricDCGMPower, sel))
	}
	if t.cfg.Kepler != nil {
		k := *t.cfg.Kepler
		_, kerr := p.KeplerWindow(pctx, now.Add(-2*time.Minute), now, k)
		if kerr != nil {
			fail(p.Name()+" (kepler)", fmt.Errorf("--kepler-*: %w", kerr))
		} else {
			t.kepler = &k
			t.lines = append(t.lines, fmt.Sprintf("telemetry: Kepler energy of namespace=%q pod=%q container=%q from %s", k.Namespace, k.Pod, k.Container, p.Name()))
		}
	}
	if dcgmErr != nil && t.kepler == nil {
		fail(p.Name(), dcgmErr)
		return
	}
	if dcgmErr != nil {
		t.lines = append(t.lines, fmt.Sprintf("telemetry: %v; only Kepler is read from it", dcgmErr))
	}
	t.prom = p
	if t.promDCGM {
		t.lines = append(t.lines, fmt.Sprintf("telemetry: GPU energy from %s, series %s", p.Name(), selector(t.promCounter, t.cfg.PrometheusSelector)))
	}
}

// openServer starts sampling the inference server's /metrics.
func (t *Telemetry) openServer(ctx context.Context, target string, fail func(string, error)) {
	mode := t.cfg.ServerMetrics
	if mode == "" {
		mode = ServerMetricsAuto
	}
	if mode == ServerMetricsOff {
		return
	}
	if t.cfg.serverPrometheus() != "" {
		t.openServerPrometheus(ctx, fail)
		return
	}
	urls := t.cfg.serverMetricsURLs()
	if len(urls) == 0 {
		if target == "" {
			if mode == ServerMetricsOn {
				fail("server metrics", errors.New("--server-metrics on: no target to scrape (give --server-metrics URL)"))
			}
			return
		}
		urls = []string{strings.TrimSuffix(strings.TrimRight(target, "/"), "/v1") + "/metrics"}
	}
	raw := urls[0]
	shown := make([]string, len(urls))
	for i, u := range urls {
		shown[i] = redact.URL(u)
	}
	source := strings.Join(shown, ", ")
	sv, err := telemetry.NewReplicaSampler(urls, t.cfg.HTTPClient, telemetry.SamplerOptions{Interval: t.cfg.Interval})
	if err == nil {
		pctx, cancel := t.probeCtx(ctx)
		err = sv.Sample(pctx)
		cancel()
		if err == nil {
			err = sv.Start(t.life)
		}
	}
	if err != nil && mode == ServerMetricsAuto && telemetry.Transient(err) && sv.StartAnyway(t.life) == nil {
		// The server may serve metrics but failed every try of the
		// probe: keep sampling, so that each benchmark gets what later
		// scrapes read and its telemetry says what is missing.
		t.server, t.serverSource, t.serverURL = sv, source, raw
		t.lines = append(t.lines, fmt.Sprintf("telemetry: server metrics from %s: the probe failed (%v); sampling every %v anyway, each benchmark says what it got", source, err, t.cfg.Interval))
		return
	}
	if err != nil {
		if mode == ServerMetricsAuto {
			t.missing = append(t.missing, report.MissingTelemetry{Source: "server metrics " + source,
				Reason: fmt.Sprintf("not scraped (--server-metrics auto): %v", err)})
			t.lines = append(t.lines, fmt.Sprintf("telemetry: server metrics not scraped: %v", err))
			return
		}
		fail("server metrics "+source, fmt.Errorf("--server-metrics: %w", err))
		return
	}
	t.server, t.serverSource, t.serverURL = sv, source, raw
	t.lines = append(t.lines, fmt.Sprintf("telemetry: server metrics from %s, sampled every %v", source, t.cfg.Interval))
}

// openServerPrometheus checks that the Prometheus of --server-metrics
// prometheus=URL,selector={…} holds an engine's series under the selector.
// Each window finds them again (replicas come and go, vLLM creates its
// histograms at the first request).
func (t *Telemetry) openServerPrometheus(ctx context.Context, fail func(string, error)) {
	raw, sel := t.cfg.serverPrometheus(), t.cfg.ServerMetricsSelector
	p, err := telemetry.NewPrometheus(raw, t.cfg.HTTPClient)
	if err != nil {
		fail("server metrics prometheus "+redact.URL(raw), fmt.Errorf("--server-metrics: %w", err))
		return
	}
	source := p.Name() + " {" + sel.String() + "}"
	pctx, cancel := t.probeCtx(ctx)
	defer cancel()
	ps, err := p.ServerSeries(pctx, sel, time.Now())
	if err != nil {
		fail("server metrics "+source, fmt.Errorf("--server-metrics: %w", err))
		return
	}
	t.serverProm, t.serverSource = p, source
	t.lines = append(t.lines, fmt.Sprintf("telemetry: server metrics (%s) from %s, every replica's series summed over each window", ps.Engine, source))
}

// openCost probes OpenCost, and resolves the GPU count of a per-GPU price.
func (t *Telemetry) openCost(ctx context.Context, fail func(string, error)) {
	cur := t.cfg.currency()
	switch {
	case t.cfg.OpenCostURL != "":
		oc, err := telemetry.NewOpenCost(t.cfg.OpenCostURL, t.cfg.HTTPClient)
		if err != nil {
			fail("opencost "+redact.URL(t.cfg.OpenCostURL), fmt.Errorf("--opencost: %w", err))
			return
		}
		pctx, cancel := t.probeCtx(ctx)
		defer cancel()
		q := t.cfg.OpenCostQuery
		q.End = time.Now()
		q.Start = q.End.Add(-10 * time.Minute)
		if _, err := oc.Allocation(pctx, q); err != nil {
			fail("opencost "+redact.URL(t.cfg.OpenCostURL), fmt.Errorf("--opencost: %w", err))
			return
		}
		t.opencost = oc
		t.lines = append(t.lines, fmt.Sprintf("telemetry: cost from %s (aggregate %s, keys %v, namespace %q), assumed in %s",
			redact.URL(t.cfg.OpenCostURL), orDefault(q.Aggregate, "namespace"), q.Keys, q.Namespace, cur))
	case t.cfg.GPUCostPerHour > 0:
		n := t.cfg.GPUs
		if n == 0 {
			n = t.gpuCount
		}
		if n == 0 {
			fail("cost", errors.New("--gpu-cost-per-hour: the energy source reported no GPU to count; give --gpus N"))
			return
		}
		t.cfg.GPUs = n
		t.lines = append(t.lines, fmt.Sprintf("telemetry: cost %g %s per GPU-hour × %d GPUs = %g %s/h", t.cfg.GPUCostPerHour, cur, n, t.cfg.GPUCostPerHour*float64(n), cur))
	case t.cfg.CostPerHour > 0:
		t.lines = append(t.lines, fmt.Sprintf("telemetry: cost %g %s/h (--cost-per-hour)", t.cfg.CostPerHour, cur))
	}
}

// Active reports whether the run measures anything besides the client's
// tokens, or was asked to: then every benchmark gets goodput.telemetry.
// A run with no telemetry flag against a server without vLLM or SGLang
// metrics is not active, and its report stays as it would be without
// telemetry.
func (t *Telemetry) Active() bool {
	return t.gpu != nil || t.prom != nil || t.server != nil || t.serverProm != nil || t.opencost != nil ||
		t.cfg.HasEnergy() || t.cfg.HasCost() || t.cfg.ServerMetrics == ServerMetricsOn
}

// ServerMetrics is the inference server's /metrics URL the run samples
// (credentials included; the first replica's when there are several) and
// the HTTP client to read it with; "" when the server's metrics are not
// sampled.
func (t *Telemetry) ServerMetrics() (url string, client *http.Client) {
	if t.server == nil {
		return "", nil
	}
	return t.serverURL, t.cfg.HTTPClient
}

// ServerMetricsReplicas is every replica's /metrics URL the run samples
// (credentials included); nil when the server's metrics are not sampled.
func (t *Telemetry) ServerMetricsReplicas() []string {
	if t.server == nil {
		return nil
	}
	if urls := t.cfg.serverMetricsURLs(); len(urls) > 0 {
		return urls
	}
	return []string{t.serverURL}
}

// Lines describes the sources for the console, one line each.
func (t *Telemetry) Lines() []string { return append([]string(nil), t.lines...) }

// Missing lists the sources that were asked for but are not measured.
func (t *Telemetry) Missing() []report.MissingTelemetry {
	return append([]report.MissingTelemetry(nil), t.missing...)
}

// GPUs returns the number of GPUs the energy source selected at probe time
// and their model, e.g. for run metadata.
func (t *Telemetry) GPUs() (int, string) { return t.gpuCount, t.gpuModel }

// Close stops sampling and releases NVML. Windows already computed stay
// valid; safe to call twice.
func (t *Telemetry) Close() {
	if t.gpu != nil {
		t.gpu.Stop()
	}
	if t.server != nil {
		t.server.Stop()
	}
	if t.cancel != nil {
		t.cancel()
	}
	if t.nvml != nil {
		_ = t.nvml.Close()
	}
}

// labelAliases are dcgm-exporter's two label spellings (telemetry.md §9).
var labelAliases = map[string]string{
	"Hostname": "hostname", "hostname": "Hostname",
	"UUID": "uuid", "uuid": "UUID",
	"modelName": "model_name", "model_name": "modelName",
}

// aliasMatchers swaps aliased label names; nil when nothing changes.
func aliasMatchers(ms telemetry.Matchers) telemetry.Matchers {
	out := make(telemetry.Matchers, len(ms))
	changed := false
	for i, m := range ms {
		if alt, ok := labelAliases[m.Name]; ok {
			m.Name, changed = alt, true
		}
		out[i] = m
	}
	if !changed {
		return nil
	}
	return out
}

func selector(metric string, ms telemetry.Matchers) string { return metric + "{" + ms.String() + "}" }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func orUnknown(s string) string { return orDefault(s, "model unknown") }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
