// Package promtest starts a real Prometheus server (the Debian package's
// binary) for integration tests: on 127.0.0.1, scraping one target every
// second (Start) or several at a chosen interval (StartScrape), killed
// when the test ends. Without the binary the test is
// skipped with a message saying how to install it, unless $GOODPUT_CI is
// set: CI installs it (.ci/run), so there a missing binary fails.
package promtest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Logs collects the server's output for failure messages.
type Logs struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *Logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Start runs prometheus scraping target (host:port) at path every second
// and returns its base URL once /-/ready answers, and its logs.
func Start(t testing.TB, ctx context.Context, target, path string) (string, *Logs) {
	t.Helper()
	return StartScrape(t, ctx, Scrape{Path: path, Targets: []string{target}})
}

// Scrape is what StartScrape's Prometheus scrapes.
type Scrape struct {
	Job      string        // the job label; default dcgm-exporter
	Path     string        // default /metrics
	Interval time.Duration // default 1s (also the scrape timeout)
	Targets  []string      // host:port each
}

// StartScrape runs prometheus scraping every target of sc, like Start.
func StartScrape(t testing.TB, ctx context.Context, sc Scrape) (string, *Logs) {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		msg := "prometheus binary not found in PATH; install the Debian package (apt-get install -y --no-install-recommends prometheus) to run this integration test"
		if os.Getenv("GOODPUT_CI") != "" {
			t.Fatal(msg + " ($GOODPUT_CI is set: CI must run it)")
		}
		t.Skip(msg)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	dir := t.TempDir()
	if sc.Path == "" {
		sc.Path = "/metrics"
	}
	if sc.Job == "" {
		sc.Job = "dcgm-exporter"
	}
	if sc.Interval <= 0 {
		sc.Interval = time.Second
	}
	targets := ""
	for i, tg := range sc.Targets {
		if i > 0 {
			targets += ", "
		}
		targets += fmt.Sprintf("%q", tg)
	}
	iv := fmt.Sprintf("%dms", sc.Interval.Milliseconds())
	cfg := fmt.Sprintf(`global:
  scrape_interval: %s
  scrape_timeout: %s
  evaluation_interval: 1s
scrape_configs:
  - job_name: %s
    metrics_path: %s
    static_configs:
      - targets: [%s]
`, iv, iv, sc.Job, sc.Path, targets)
	cfgPath := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	logs := &Logs{}
	cmd := exec.Command(bin, "--config.file="+cfgPath, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting prometheus: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	base := "http://" + addr
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		resp, err := http.Get(base + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base, logs
			}
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("prometheus not ready: %v (last: %v)\n%s", ctx.Err(), err, logs.String())
		}
	}
}
