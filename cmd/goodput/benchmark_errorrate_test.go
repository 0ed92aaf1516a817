package main

import (
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/mock"
)

// --fail-on-error-rate R: exit 3 naming the benchmark when its error rate
// exceeds R (the report is written all the same), 0 otherwise; without the
// flag a run whose every request failed still exits 0, as GuideLLM's.
func TestFailOnErrorRate(t *testing.T) {
	refusing := startTestMock(t, func(c *mock.Config) { c.ErrorRate, c.ErrorCodes = 1, []int{429} })
	healthy := startTestMock(t, nil)
	args := func(target string, extra ...string) []string {
		return append([]string{"benchmark", "--target", target, "--data", "prompt_tokens=8,output_tokens=4", "--rate-type", "concurrent",
			"--rate", "2", "--max-requests", "20", "--outputs", "json", "--output-dir", t.TempDir(), "--server-metrics", "off", "--disable-progress"}, extra...)
	}
	code, _, stderr := runGoodput(t, args(refusing, "--fail-on-error-rate", "0.5")...)
	if code != exitErrorRate || !strings.Contains(stderr, "benchmark 0 (concurrent 2): error rate 100.0% exceeds --fail-on-error-rate 0.5") {
		t.Errorf("all requests refused: exit %d, stderr:\n%s", code, stderr)
	}
	if code, _, stderr := runGoodput(t, args(refusing)...); code != exitOK {
		t.Errorf("all requests refused, no gate: exit %d, stderr:\n%s", code, stderr)
	}
	if code, _, stderr := runGoodput(t, args(healthy, "--fail-on-error-rate", "0")...); code != exitOK {
		t.Errorf("no error, gate 0: exit %d, stderr:\n%s", code, stderr)
	}
}
