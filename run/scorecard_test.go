package run

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
	"github.com/goodput-dev/goodput/scorecard/measure"
	"github.com/goodput-dev/goodput/telemetry"
)

// TestOpenTelemetryBeforeLoad: an unreachable source fails the probe
// (before any load) naming the source; --telemetry-optional runs on and
// says what is missing.
func TestOpenTelemetryBeforeLoad(t *testing.T) {
	s := httptest.NewServer(http.NotFoundHandler())
	dead := s.URL
	s.Close()
	cfg := measure.Config{DCGMURLs: []string{dead + "/metrics"}, ServerMetrics: measure.ServerMetricsOff,
		Currency: scorecard.DefaultCurrency, Interval: telemetry.DefaultInterval, Wait: measure.DefaultWait}
	var errb bytes.Buffer
	e := &errb
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
	p, err := scorecardPath(files, false)
	if err != nil || p != filepath.Join(dir, "scorecard-r1.json") {
		t.Fatalf("path %q %v", p, err)
	}
	if p0, err := scorecardPath(&runFiles{runID: "r1"}, false); p0 != "" || err != nil {
		t.Errorf("console-only run: %q %v", p0, err)
	}
	b := &report.Benchmark{Config: report.BenchmarkConfig{RunID: "r1"}, Extras: &report.Extras{}}
	b.Metrics.OutputTokensPerSecond = &report.StatusDistributionSummary{Successful: &report.DistributionSummary{Mean: 100, Count: 1}}
	rep := report.NewReport("test", nil, b)
	rep.Run = &report.RunExtras{RunID: "r1"}
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
	if _, err := scorecardPath(files, false); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("existing scorecard: %v", err)
	}
	files.overwriteAll = true
	if _, err := scorecardPath(files, false); err != nil {
		t.Errorf("--force: %v", err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
}
