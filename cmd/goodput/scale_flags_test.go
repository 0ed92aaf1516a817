package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/mock"
)

// One mock on two loopback addresses (Listen, goodput mock --listen),
// driven through both with connections from two source addresses
// (--local-addrs): every request is served and the by-target breakdown
// names both addresses.
func TestBenchmarkListenAndLocalAddrs(t *testing.T) {
	cfg := mock.DefaultConfig()
	cfg.TTFT, cfg.ITL = 5*time.Millisecond, time.Millisecond
	srv, err := mock.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	if _, err := srv.Listen("127.0.0.2:0"); err != nil {
		t.Fatal(err)
	}
	urls := srv.URLs()
	dir := t.TempDir()
	code, _, stderr := runGoodput(t, "benchmark", "--target", strings.Join(urls, ","), "--local-addrs", "127.0.0.3,127.0.0.4",
		"--rate-type", "concurrent", "--rate", "4", "--data", "prompt_tokens=16,output_tokens=4", "--max-requests", "24",
		"--output-dir", dir, "--run-id", "la", "--outputs", "json")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	bm := clitest.ReadReport(t, filepath.Join(dir, "la", "benchmarks.json")).Benchmarks[0]
	if n := bm.Metrics.RequestTotals.Successful; n < 24 {
		t.Fatalf("%v successful requests, want 24", n)
	}
	if len(bm.Extras.ByTarget) != 2 {
		t.Fatalf("by target %+v, want both addresses", bm.Extras.ByTarget)
	}
	for _, g := range bm.Extras.ByTarget {
		if g.Requests.Successful == 0 {
			t.Errorf("%s got no request", g.Name)
		}
	}
}
