package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/scorecard"
)

func parseScorecardFlags(t *testing.T, args ...string) (scorecard.Config, error) {
	t.Helper()
	var o scorecardOptions
	fs := newFlagSet("benchmark", "benchmark", &bytes.Buffer{})
	scorecardFlags(&o, fs)
	if err := parseFlags(fs, args); err != nil {
		return scorecard.Config{}, err
	}
	return o.config(fs)
}

func TestScorecardFlags(t *testing.T) {
	c, err := parseScorecardFlags(t)
	if err != nil {
		t.Fatal(err)
	}
	if c.PUE != 0 || c.Currency != "EUR" || c.ServerMetrics != scorecard.ServerMetricsAuto || c.HasEnergy() || c.HasCost() {
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
		c.GridIntensity != 40 || c.ServerMetrics != scorecard.ServerMetricsOn || !c.Optional {
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
	if q := c.OpenCostQuery; q.Aggregate != "namespace" || q.Keys[0] != "llm" || c.ServerMetrics != scorecard.ServerMetricsOff {
		t.Errorf("opencost query %+v", q)
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
		if _, ok := err.(usageError); !ok || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v (%T), want a usage error containing %q", tc.args, err, err, tc.want)
		}
	}
}

// TestOpenTelemetryBeforeLoad: an unreachable source fails the probe
// (before any load) naming the source; --telemetry-optional runs on and
// says what is missing.
func TestOpenTelemetryBeforeLoad(t *testing.T) {
	s := httptest.NewServer(http.NotFoundHandler())
	dead := s.URL
	s.Close()
	cfg, err := parseScorecardFlags(t, "--dcgm-url", dead+"/metrics", "--server-metrics=off")
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	e := &env{stdout: &bytes.Buffer{}, stderr: &errb}
	if _, err := openTelemetry(context.Background(), e, cfg, ""); err == nil || !strings.Contains(err.Error(), "dcgm-exporter "+dead+"/metrics") {
		t.Fatalf("error %v, want one naming the exporter", err)
	}
	cfg.Optional = true
	tel, err := openTelemetry(context.Background(), e, cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Close()
	if !strings.Contains(errb.String(), "telemetry: dcgm-exporter "+dead+"/metrics is missing") {
		t.Errorf("stderr %q", errb.String())
	}
}

func TestScorecardFiles(t *testing.T) {
	dir := t.TempDir()
	files := &runFiles{dir: dir, runID: "r1"}
	p, err := scorecardPath(files)
	if err != nil || p != filepath.Join(dir, "scorecard-r1.json") {
		t.Fatalf("path %q %v", p, err)
	}
	if p0, err := scorecardPath(&runFiles{runID: "r1"}); p0 != "" || err != nil {
		t.Errorf("console-only run: %q %v", p0, err)
	}
	b := &report.Benchmark{Config: report.BenchmarkConfig{RunID: "r1"}, Goodput: &report.Extras{}}
	b.Metrics.OutputTokensPerSecond = &report.StatusDistributionSummary{Successful: &report.DistributionSummary{Mean: 100, Count: 1}}
	rep := report.NewReport("test", nil, b)
	rep.Goodput = &report.RunExtras{RunID: "r1"}
	var out bytes.Buffer
	if _, err := writeScorecard(&out, p, rep); err != nil {
		t.Fatal(err)
	}
	if _, _, err := scorecard.Read(p); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"scorecard r1: highest-throughput round (no SLO judged)", "cost: n/a (", "energy: n/a (", "wrote " + p} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("summary lacks %q:\n%s", s, out.String())
		}
	}
	if _, err := scorecardPath(files); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("existing scorecard: %v", err)
	}
	files.overwriteAll = true
	if _, err := scorecardPath(files); err != nil {
		t.Errorf("--force: %v", err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
}
