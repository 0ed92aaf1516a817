package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/scorecard/measure"
)

func parseScorecardFlags(t *testing.T, args ...string) (measure.Config, error) {
	t.Helper()
	var o scorecardOptions
	fs := NewFlagSet("benchmark", "benchmark", &bytes.Buffer{})
	scorecardFlags(&o, fs)
	if err := ParseFlags(fs, args); err != nil {
		return measure.Config{}, err
	}
	return o.config(fs)
}

func TestScorecardFlags(t *testing.T) {
	c, err := parseScorecardFlags(t)
	if err != nil {
		t.Fatal(err)
	}
	if c.PUE != 0 || c.Currency != "EUR" || c.ServerMetrics != measure.ServerMetricsAuto || c.HasEnergy() || c.HasCost() {
		t.Errorf("defaults %+v", c)
	}
	c, err = parseScorecardFlags(t, "--dcgm-url", "http://a:9400/metrics", "--dcgm-url", "http://b:9400", "--gpu-selector", "hostname=a,gpu=0",
		"--prometheus", "http://prom:9090", "--prometheus-selector", `Hostname=~"gpu-node-.*"`, "--kepler-namespace", "llm",
		"--gpu-cost-per-hour", "2.7", "--currency", "USD", "--pue", "1.4", "--grid-intensity", "40", "--server-metrics",
		"on", "--telemetry-optional")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.DCGMURLs) != 2 || c.GPUSelector.String() != "hostname=a,gpu=0" || c.PrometheusSelector.String() != `Hostname=~"gpu-node-.*"` ||
		c.Kepler == nil || c.Kepler.Namespace != "llm" || c.GPUCostPerHour != 2.7 || c.Currency != "USD" || c.PUE != 1.4 ||
		c.GridIntensity != 40 || c.ServerMetrics != measure.ServerMetricsOn || !c.Optional {
		t.Errorf("config %+v", c)
	}
	c, err = parseScorecardFlags(t, "--opencost", "http://oc:9003", "--opencost-label", "app=vllm", "--opencost-namespace", "llm", "--server-metrics", "http://vllm:8000/metrics")
	if err != nil {
		t.Fatal(err)
	}
	if q := c.OpenCostQuery; q.Aggregate != "label:app" || len(q.Keys) != 1 || q.Keys[0] != "vllm" || q.Namespace != "llm" || c.ServerMetricsURL != "http://vllm:8000/metrics" {
		t.Errorf("opencost query %+v, server %q", q, c.ServerMetricsURL)
	}
	c, err = parseScorecardFlags(t, "--opencost", "http://oc:9003", "--opencost-namespace", "llm", "--server-metrics=off")
	if err != nil {
		t.Fatal(err)
	}
	if q := c.OpenCostQuery; q.Aggregate != "namespace" || q.Keys[0] != "llm" || c.ServerMetrics != measure.ServerMetricsOff {
		t.Errorf("opencost query %+v", q)
	}
}

// TestScorecardFlagsServerPrometheus: --server-metrics' Prometheus form,
// its selector's commas kept, the URL defaulting to --prometheus.
func TestScorecardFlagsServerPrometheus(t *testing.T) {
	c, err := parseScorecardFlags(t, "--server-metrics", `prometheus=http://prometheus:9090, selector={namespace="llm",app=~"vllm|llm-d"}`)
	if err != nil {
		t.Fatal(err)
	}
	if c.ServerMetrics != measure.ServerMetricsOn || c.ServerMetricsPrometheus != "http://prometheus:9090" ||
		c.ServerMetricsSelector.String() != `namespace="llm",app=~"vllm|llm-d"` || c.ServerMetricsURL != "" {
		t.Errorf("config %+v", c)
	}
	c, err = parseScorecardFlags(t, "--prometheus", "http://p:9090", "--server-metrics", `selector={pod=~"vllm-.*"},prometheus=http://q:9090`)
	if err != nil || c.ServerMetricsPrometheus != "http://q:9090" || c.ServerMetricsSelector.String() != `pod=~"vllm-.*"` {
		t.Errorf("selector first: %+v, %v", c, err)
	}
	c, err = parseScorecardFlags(t, "--prometheus", "http://p:9090", "--server-metrics", `selector=job="vllm",instance!="x"`)
	if err != nil || c.ServerMetricsPrometheus != "" || c.PrometheusURL != "http://p:9090" || len(c.ServerMetricsSelector) != 2 {
		t.Errorf("--prometheus's URL: %+v, %v", c, err)
	}
}

func TestScorecardFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--dcgm-url", "gpu-node:9400"}, `--dcgm-url "gpu-node:9400": want an absolute http:// or https:// URL`},
		{[]string{"--gpu-selector", "rack=1"}, `unknown key "rack"`},
		{[]string{"--prometheus", "http://p", "--prometheus-selector", "Hostname=gpu"}, "--prometheus-selector: label matchers"},
		{[]string{"--prometheus-selector", `a="b"`}, "--prometheus-selector needs --prometheus URL"},
		{[]string{"--kepler-pod", "p"}, "give --prometheus URL"},
		{[]string{"--gpu-selector", "gpu=0"}, "--gpu-selector selects GPUs of --dcgm-url or --nvml"},
		{[]string{"--server-metrics", "sometimes"}, `--server-metrics "sometimes": want auto, on, off`},
		{[]string{"--server-metrics", "prometheus=http://prom:9090"}, `--server-metrics "prometheus=http://prom:9090": no selector: want prometheus=URL,selector={label matchers}`},
		{[]string{"--server-metrics", "prometheus=http://prom:9090,selector={}"}, "empty selector"},
		{[]string{"--server-metrics", "prometheus=http://prom:9090,selector={app=vllm}"}, `label app: value must be double-quoted`},
		{[]string{"--server-metrics", `prometheus=http://prom:9090,selector={app="vllm"`}, "has no closing brace"},
		{[]string{"--server-metrics", `prometheus=http://prom:9090,job="vllm"`}, `unknown key "job"`},
		{[]string{"--server-metrics", `selector={app="vllm"}`}, `--server-metrics selector={app="vllm"}: which Prometheus? give prometheus=URL in it, or --prometheus URL`},
		{[]string{"--server-metrics", `prometheus=prom:9090,selector={app="vllm"}`}, `--server-metrics prometheus= "prom:9090": want an absolute http://`},
		{[]string{"--server-metrics", `prometheus=http://prom:9090,selector={app="vllm"}`, "--server-metrics", "http://vllm:8000/metrics"}, "the Prometheus form is given alone"},
		{[]string{"--opencost-namespace", "x"}, "need --opencost URL"},
		{[]string{"--opencost", "http://oc", "--opencost-label", "vllm"}, `--opencost-label "vllm": want key=value`},
		{[]string{"--opencost", "http://oc", "--gpu-cost-per-hour", "2"}, "choose one price source"},
		{[]string{"--gpu-cost-per-hour", "2", "--cost-per-hour", "8"}, "not both"},
		{[]string{"--gpu-cost-per-hour", "2"}, "--gpu-cost-per-hour needs --gpus N"},
		{[]string{"--gpus", "4"}, "give --gpu-cost-per-hour"},
		{[]string{"--gpu-cost-per-hour", "-1", "--gpus", "1"}, "--gpu-cost-per-hour -1: want a finite number ≥ 0"},
		{[]string{"--currency", "euro"}, `--currency "euro": want an ISO 4217 code`},
		{[]string{"--pue", "0.9"}, "--pue 0.9: want facility energy / IT energy, 1 ≤ PUE ≤ 10"},
		{[]string{"--pue", "0"}, "--pue 0"},
		{[]string{"--grid-intensity", "-5"}, "--grid-intensity -5"},
		{[]string{"--telemetry-interval", "1ms"}, "--telemetry-interval 1ms: want at least 10ms"},
	} {
		_, err := parseScorecardFlags(t, tc.args...)
		if _, ok := err.(UsageError); !ok || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v (%T), want a usage error containing %q", tc.args, err, err, tc.want)
		}
	}
}
