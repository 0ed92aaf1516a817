package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/scorecard"
	"github.com/goodput-dev/goodput/telemetry"
)

// Telemetry and scorecard flags of goodput benchmark: where energy, cost
// and server metrics come from, measured in the same windows as the load
// (package scorecard), and the scorecard file written beside the report.

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
	serverMetrics      string
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
	fs.StringVar(&o.serverMetrics, "server-metrics", string(scorecard.ServerMetricsAuto), "inference server /metrics (KV cache, queue, preemptions, server TTFT/ITL): auto (scrape <target>/metrics when it serves vLLM or SGLang metrics), on (required), off, or a URL")
	fs.StringVar(&o.opencost, "opencost", "", "OpenCost API that prices each window, e.g. http://opencost.opencost:9003")
	fs.StringVar(&o.opencostNamespace, "opencost-namespace", "", "OpenCost: the namespace to price")
	fs.StringVar(&o.opencostLabel, "opencost-label", "", "OpenCost: price the allocations with this label, key=value (e.g. app=vllm)")
	fs.StringVar(&o.opencostAggregate, "opencost-aggregate", "", "OpenCost aggregation (default namespace, or label:<key> with --opencost-label)")
	fs.Float64Var(&o.gpuCostPerHour, "gpu-cost-per-hour", 0, "price of one GPU-hour, multiplied by --gpus (default: the GPUs the energy source selects)")
	fs.Float64Var(&o.costPerHour, "cost-per-hour", 0, "the whole deployment's price per hour (instead of --gpu-cost-per-hour)")
	fs.IntVar(&o.gpus, "gpus", 0, "GPUs priced by --gpu-cost-per-hour")
	fs.StringVar(&o.currency, "currency", scorecard.DefaultCurrency, "ISO 4217 code of the prices (goodput converts nothing)")
	fs.Float64Var(&o.pue, "pue", scorecard.DefaultPUE, "data-centre power usage effectiveness for the PUE-adjusted energy and carbon (default 1: GPU energy only)")
	fs.Float64Var(&o.gridIntensity, "grid-intensity", 0, "grid carbon intensity in gCO2/kWh for the carbon axis (e.g. 40 for France)")
	fs.BoolVar(&o.optional, "telemetry-optional", false, "run even when a telemetry source is unreachable; it is reported as missing")
	fs.DurationVar(&o.interval, "telemetry-interval", telemetry.DefaultInterval, "sampling interval of --dcgm-url, --nvml and the server metrics")
	fs.DurationVar(&o.wait, "telemetry-wait", scorecard.DefaultWait, "longest wait after each window end for a reading past it (dcgm-exporter refreshes every 30 s by default)")
}

// config turns the flags into the scorecard configuration. Errors are
// usage errors naming the flag and the accepted form.
func (o *scorecardOptions) config(fs *pflag.FlagSet) (scorecard.Config, error) {
	c := scorecard.Config{
		DCGMURLs: o.dcgmURLs, NVML: o.nvml, PrometheusURL: o.prometheus,
		OpenCostURL: o.opencost, GPUCostPerHour: o.gpuCostPerHour, CostPerHour: o.costPerHour, GPUs: o.gpus,
		Currency: o.currency, GridIntensity: o.gridIntensity, Optional: o.optional, Interval: o.interval, Wait: o.wait,
	}
	var err error
	if c.GPUSelector, err = telemetry.ParseGPUSelector(o.gpuSelector); err != nil {
		return c, usagef("--gpu-selector: %v", err)
	}
	if c.PrometheusSelector, err = telemetry.ParseMatchers(o.prometheusSelector); err != nil {
		return c, usagef("--prometheus-selector: %v", err)
	}
	if o.keplerNamespace != "" || o.keplerPod != "" || o.keplerContainer != "" {
		c.Kepler = &telemetry.KeplerSelector{Namespace: o.keplerNamespace, Pod: o.keplerPod, Container: o.keplerContainer}
	}
	switch sm := strings.TrimSpace(o.serverMetrics); strings.ToLower(sm) {
	case "auto", "":
		c.ServerMetrics = scorecard.ServerMetricsAuto
	case "on", "true":
		c.ServerMetrics = scorecard.ServerMetricsOn
	case "off", "false":
		c.ServerMetrics = scorecard.ServerMetricsOff
	default:
		if !strings.HasPrefix(sm, "http://") && !strings.HasPrefix(sm, "https://") {
			return c, usagef("--server-metrics %q: want auto, on, off or an http(s) URL", sm)
		}
		c.ServerMetrics, c.ServerMetricsURL = scorecard.ServerMetricsOn, sm
	}
	if o.opencost == "" && (o.opencostNamespace != "" || o.opencostLabel != "" || o.opencostAggregate != "") {
		return c, usagef("--opencost-namespace, --opencost-label and --opencost-aggregate need --opencost URL")
	}
	q := telemetry.CostQuery{Aggregate: o.opencostAggregate}
	if o.opencostLabel != "" {
		k, v, ok := strings.Cut(o.opencostLabel, "=")
		if !ok || strings.TrimSpace(k) == "" || strings.TrimSpace(v) == "" {
			return c, usagef("--opencost-label %q: want key=value, e.g. app=vllm", o.opencostLabel)
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
		return c, usagef("--telemetry-interval %v: want a duration of at least 10ms, e.g. 1s", o.interval)
	}
	if fs == nil || fs.Changed("pue") {
		c.PUE = o.pue
		if c.PUE == 0 {
			return c, usagef("--pue 0: want facility energy / IT energy, 1 ≤ PUE ≤ 10 (e.g. 1.4)")
		}
	}
	if err := c.Validate(); err != nil {
		return c, usagef("%v", err)
	}
	return c, nil
}

// openTelemetry probes every telemetry source before the load and starts
// sampling; it prints one line per source to stderr. A failing source is
// an error naming it (exit 1) unless --telemetry-optional.
func openTelemetry(ctx context.Context, e *env, cfg scorecard.Config, target string) (*scorecard.Telemetry, error) {
	tel, err := scorecard.Open(ctx, cfg, target)
	if err != nil {
		return nil, err
	}
	for _, l := range tel.Lines() {
		fmt.Fprintln(e.stderr, l)
	}
	return tel, nil
}

// finishTelemetry waits for the last windows' readings (each at most
// --telemetry-wait after its end) and writes every benchmark's
// goodput.telemetry. It is not cut short by the run's interrupt: the
// completed rounds' telemetry belongs in the partial report.
func finishTelemetry(ctx context.Context, e *env, obs *scorecard.Observer, wait time.Duration) {
	if wait <= 0 {
		wait = scorecard.DefaultWait
	}
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), wait+30*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		obs.Finish(fctx)
	}()
	select {
	case <-done:
		return
	case <-time.After(time.Second):
		fmt.Fprintf(e.stderr, "telemetry: waiting for readings after the last window (at most --telemetry-wait %v)\n", wait)
	}
	<-done
}

// scorecardPath is where the run's scorecard goes: scorecard-<run-id>.json
// beside the report. "" when the run writes no files. An existing file is
// refused without --force, before the load.
func scorecardPath(files *runFiles) (string, error) {
	if files == nil || files.dir == "" {
		return "", nil
	}
	p := filepath.Join(files.dir, scorecard.FileName(files.runID))
	if _, err := os.Stat(p); err == nil && !files.overwriteAll {
		return "", usagef("%s exists; a run never overwrites another (use another --run-id, or --force)", p)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("scorecard file: %w", err)
	}
	return p, nil
}

// writeScorecard builds the scorecard from the finished report, writes it
// to path (atomically; nothing when path is "") and prints its summary to
// w.
func writeScorecard(w io.Writer, path string, rep *report.Report) (*scorecard.File, error) {
	card, err := scorecard.Build(rep)
	if err != nil {
		return nil, err
	}
	if path != "" {
		if err := writeFileAtomic(path, card.Write); err != nil {
			return nil, err
		}
	}
	if w != nil {
		if err := scorecard.WriteSummary(w, card, path); err != nil {
			return nil, err
		}
	}
	return card, nil
}
