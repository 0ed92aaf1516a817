package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/sweep"
)

func profilePlan(t *testing.T, args ...string) (sweep.List, *draft, error) {
	t.Helper()
	var po profileOptions
	fs := pflag.NewFlagSet("profile", pflag.ContinueOnError)
	profileFlags(&po, fs)
	if err := fs.Parse(append([]string{"--model", "m", "--artifact-dir", t.TempDir()}, args...)); err != nil {
		t.Fatal(err)
	}
	p, _, err := po.draft(fs, func(string) string { return "" })
	if err != nil {
		return nil, nil, err
	}
	return p.Plan.Planner.(sweep.List), p, nil
}

// AIPerf's arrival flags build goodput's shapes: gamma with its
// smoothness, the rate ramp from AIPerf's proportional start, the
// concurrency ramp and a piecewise-linear rate series.
func TestProfileArrivalFlags(t *testing.T) {
	l, p, err := profilePlan(t, "--request-rate", "10", "--arrival-pattern", "gamma", "--arrival-smoothness", "0.25", "--request-rate-ramp-duration", "20")
	if err != nil {
		t.Fatal(err)
	}
	s := l[0]
	if s.Kind != loadgen.Poisson || s.Burstiness != 0.25 || s.Rampup != 20*time.Second || s.RampFrom != 0.05 || p.Plan.Profile.Kind != "poisson" {
		t.Errorf("gamma with a rate ramp: %+v, profile %q", s, p.Plan.Profile.Kind)
	}
	if l, _, err = profilePlan(t, "--request-rate", "3", "--vllm-burstiness", "4", "--request-rate-mode", "gamma"); err != nil || l[0].Burstiness != 4 {
		t.Errorf("--vllm-burstiness: %+v (%v)", l, err)
	}
	if l, _, err = profilePlan(t, "--request-rate", "3", "--arrival-pattern", "gamma"); err != nil || l[0].Burstiness != 0 || l[0].Kind != loadgen.Poisson {
		t.Errorf("gamma of smoothness 1 is poisson: %+v (%v)", l, err)
	}
	l, _, err = profilePlan(t, "--concurrency", "4,8", "--concurrency-ramp-duration", "8")
	if err != nil || l[1].Rampup != 8*time.Second || l[1].StreamStart(1, 8) != time.Second {
		t.Errorf("concurrency ramp: %+v (%v): AIPerf adds a stream every 8 s / 8", l, err)
	}

	path := filepath.Join(t.TempDir(), "rate.json")
	if err := os.WriteFile(path, []byte(`{"points":[{"time_s":0,"qps":5},{"time_s":60,"qps":10}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	l, p, err = profilePlan(t, "--request-rate-series", path, "--benchmark-duration", "90", "--concurrency", "16")
	want := []loadgen.RateSegment{{Duration: time.Minute, From: 5, To: 10}, {Duration: 30 * time.Second, From: 10, To: 10}}
	if err != nil || len(l) != 1 || len(l[0].Series) != 2 || l[0].Series[0] != want[0] || l[0].Series[1] != want[1] || l[0].MaxConcurrency != 16 {
		t.Fatalf("series: %+v (%v)", l, err)
	}
	if p.Plan.Constraints.MaxRequests != 0 || p.Plan.Constraints.MaxDuration != 90*time.Second || p.Plan.Profile.Rate[0] != 750.0/90 {
		t.Errorf("series limits %+v, profile rate %v", p.Plan.Constraints, p.Plan.Profile.Rate)
	}
	if l, p, err = profilePlan(t, "--request-rate-series", path); err != nil || len(l[0].Series) != 1 || p.Plan.Constraints.MaxRequests != 0 {
		t.Errorf("a series without a duration ends at its last point, not at AIPerf's default count: %+v %+v (%v)", l, p.Plan.Constraints, err)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"points":[{"time_s":0,"qps":5},{"time_s":0,"qps":6}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := profilePlan(t, "--request-rate-series", bad); err == nil || !isUsage(err) || !strings.Contains(err.Error(), "--request-rate-series") {
		t.Errorf("points out of order: %v", err)
	}
}
