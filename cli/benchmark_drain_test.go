package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/sweep"
)

// --fail-on-error-rate R: exit 3 naming the benchmark when its error rate
// exceeds R (the report is written all the same), 0 otherwise; without the
// flag a run whose every request failed exits 4 (ExitNoSuccess), and 0
// with --allow-all-errors, as GuideLLM's.
func TestFailOnErrorRate(t *testing.T) {
	refusing := clitest.Mock(t, func(c *mock.Config) { c.ErrorRate, c.ErrorCodes = 1, []int{429} })
	healthy := clitest.Mock(t, nil)
	args := func(target string, extra ...string) []string {
		return append([]string{"benchmark", "--target", target, "--data", "prompt_tokens=8,output_tokens=4", "--rate-type", "concurrent",
			"--rate", "2", "--max-requests", "20", "--outputs", "json", "--output-dir", t.TempDir(), "--server-metrics", "off", "--disable-progress"}, extra...)
	}
	code, _, stderr := runGoodput(t, args(refusing, "--fail-on-error-rate", "0.5")...)
	if code != ExitErrorRate || !strings.Contains(stderr, "benchmark 0 (concurrent 2): error rate 100.0% exceeds --fail-on-error-rate 0.5") {
		t.Errorf("all requests refused: exit %d, stderr:\n%s", code, stderr)
	}
	if code, _, stderr := runGoodput(t, args(refusing, "--fail-on-error-rate", "50%")...); code != ExitErrorRate {
		t.Errorf("all requests refused, gate 50%%: exit %d, stderr:\n%s", code, stderr)
	}
	if code, _, stderr := runGoodput(t, args(refusing)...); code != ExitNoSuccess || !strings.Contains(stderr, "every request got HTTP 429") {
		t.Errorf("all requests refused, no gate: exit %d, stderr:\n%s", code, stderr)
	}
	if code, _, stderr := runGoodput(t, args(refusing, "--allow-all-errors")...); code != ExitOK {
		t.Errorf("all requests refused, --allow-all-errors: exit %d, stderr:\n%s", code, stderr)
	}
	if code, _, stderr := runGoodput(t, args(healthy, "--fail-on-error-rate", "0")...); code != ExitOK {
		t.Errorf("no error, gate 0: exit %d, stderr:\n%s", code, stderr)
	}
}

// The drain flags: an unsharded run waits at least --round-gap only when
// it is given (default 0, so existing timing is unchanged unless the
// server is busy), at most --max-drain, and --judge-busy-rounds keeps
// busy rounds in verdicts; goodput profile waits with the defaults.
func TestDrainFlags(t *testing.T) {
	parse := func(args ...string) *draft {
		t.Helper()
		var o benchOptions
		fs := pflag.NewFlagSet("benchmark", pflag.ContinueOnError)
		benchFlags(&o, fs)
		base := []string{"--target", "http://127.0.0.1:1", "--data", "prompt_tokens=8,output_tokens=4", "--rate-type", "concurrent", "--rate", "1,2", "--max-requests", "4"}
		if err := fs.Parse(append(base, args...)); err != nil {
			t.Fatal(err)
		}
		o.getenv = func(string) string { return "" }
		p, err := o.validateAll(fs)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if d := parse().Plan.Drain; d == nil || d.Gap != 0 || d.Max != sweep.DefaultMaxDrain || d.KeepBusy {
		t.Errorf("defaults: %+v; want no floor, the default bound, busy rounds left out", d)
	}
	if d := parse("--round-gap", "2s", "--max-drain", "30s", "--judge-busy-rounds").Plan.Drain; d == nil || d.Gap != 2*time.Second || d.Max != 30*time.Second || !d.KeepBusy {
		t.Errorf("given: %+v", d)
	}
	var po profileOptions
	fs := pflag.NewFlagSet("profile", pflag.ContinueOnError)
	profileFlags(&po, fs)
	if err := fs.Parse([]string{"-m", "m", "--concurrency", "1,2"}); err != nil {
		t.Fatal(err)
	}
	p, _, err := po.draft(fs, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if d := p.Plan.Drain; d == nil || d.Gap != 0 || d.Max != sweep.DefaultMaxDrain || d.KeepBusy {
		t.Errorf("profile: %+v; want the benchmark's defaults", d)
	}
}
