package main

import (
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/goodput-dev/goodput/cli"
)

// --metrics-addr serves the run's series while it runs (the endpoint is
// announced on stderr and closed at the end); a malformed address is a
// usage error naming the flag.
func TestMetricsAddrFlag(t *testing.T) {
	target := clitest.Mock(t, nil)
	args := func(extra ...string) []string {
		return append([]string{"benchmark", "--target", target, "--data", "prompt_tokens=8,output_tokens=4", "--rate-type", "concurrent",
			"--rate", "2", "--max-requests", "10", "--outputs", "json", "--output-dir", t.TempDir(), "--server-metrics", "off", "--disable-progress"}, extra...)
	}
	code, _, stderr := runGoodput(t, args("--metrics-addr", "127.0.0.1:0")...)
	if code != cli.ExitOK || !strings.Contains(stderr, "live metrics: serving http://127.0.0.1:") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	code, _, stderr = runGoodput(t, args("--metrics-addr", "9090")...)
	if code != cli.ExitUsage || !strings.Contains(stderr, `--metrics-addr "9090": want [host]:port`) {
		t.Errorf("bad address: exit %d, stderr:\n%s", code, stderr)
	}
}
