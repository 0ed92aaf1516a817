package main

import (
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/sweep"
)

// The arrival flags build the strategies they name, and their errors name
// the flag.
func TestBenchmarkArrivalFlags(t *testing.T) {
	base := []string{"--target", "http://127.0.0.1:1", "--data", "prompt_tokens=8,output_tokens=4", "--max-seconds", "5"}
	with := func(extra ...string) []string { return append(append([]string{}, base...), extra...) }
	plan := func(t *testing.T, args ...string) sweep.List {
		t.Helper()
		_, p, _, err := benchPlan(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		list, ok := p.planner.(sweep.List)
		if !ok {
			t.Fatalf("planner %T", p.planner)
		}
		return list
	}
	l := plan(t, with("--rate-type", "poisson", "--rate", "4,8", "--burstiness", "0.5")...)
	if len(l) != 2 || l[0].Burstiness != 0.5 || l[1].Rate != 8 || l[1].Burstiness != 0.5 {
		t.Errorf("--burstiness: %+v", l)
	}
	l = plan(t, with("--rate-type", "poisson", "--rate", "8", "--rampup", "10")...)
	if l[0].Rampup != 0 {
		t.Errorf("--rampup alone ramped a poisson rate (GuideLLM does not): %+v", l[0])
	}
	l = plan(t, with("--rate-type", "poisson", "--rate", "8", "--rampup", "10", "--rampup-shape", "exponential", "--rampup-from", "0.5")...)
	if s := l[0]; s.Rampup != 10*time.Second || s.RampShape != loadgen.RampExponential || s.RampFrom != 0.5 {
		t.Errorf("--rampup-shape exponential: %+v", s)
	}
	l = plan(t, with("--rate-type", "concurrent", "--rate", "16", "--rampup", "4", "--rampup-shape", "exponential")...)
	if s := l[0]; s.RampShape != loadgen.RampExponential || s.StreamStart(8, 16) != 3*time.Second {
		t.Errorf("exponential stream ramp: %+v starts stream 8 at %v", s, s.StreamStart(8, 16))
	}
	l = plan(t, "--target", "http://127.0.0.1:1", "--data", "prompt_tokens=8,output_tokens=4", "--rate-type", "constant", "--rate-series", "2:10s,0..8:5s")
	if s := l[0]; len(l) != 1 || len(s.Series) != 2 || s.Series[1] != (loadgen.RateSegment{Duration: 5 * time.Second, From: 0, To: 8}) || s.MeanRate() != 40.0/15 {
		t.Errorf("--rate-series (no --max-seconds: the series ends the benchmark): %+v", l)
	}
	_, p, _, err := benchPlan(t, with("--rate-type", "sweep", "--sweep-strategy", "poisson", "--burstiness", "2")...)
	if g, ok := p.planner.(sweep.GuideLLMSweep); err != nil || !ok || g.Burstiness != 2 {
		t.Errorf("sweep --burstiness: %#v (%v)", p.planner, err)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{with("--rate-type", "constant", "--rate", "4", "--burstiness", "0.5"), "--burstiness shapes poisson gaps"},
		{with("--rate-type", "sweep", "--burstiness", "0.5"), "--burstiness shapes poisson gaps"},
		{with("--rate-type", "poisson", "--rate", "4", "--rampup-shape", "linear"), "--rampup SECONDS"},
		{with("--rate-type", "constant", "--rate", "4", "--rampup", "5", "--rampup-shape", "exponential"), "--rampup-from RATE > 0"},
		{with("--rate-type", "synchronous", "--rampup", "5", "--rampup-from", "2"), "--rampup-shape and --rampup-from apply to"},
		{with("--rate-type", "constant", "--rate", "4", "--rate-series", "2:5s"), "--rate-series replaces --rate"},
		{with("--rate-type", "poisson", "--rampup", "3", "--rate-series", "2:5s"), "--rate-series replaces --rampup"},
		{with("--rate-type", "concurrent", "--rate", "4", "--rate-series", "2:5s"), "--rate-series needs --rate-type constant or poisson"},
		{with("--rate-type", "constant", "--rate-series", "0:5s"), "--rate-series: constant: the rate series sends no request"},
		{with("--rate-type", "constant", "--rate-series", "2:5s,3"), "--rate-series: rate series step 2"},
	} {
		_, _, _, err := benchPlan(t, c.args...)
		if err == nil || !isUsage(err) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v, want a one-line usage error containing %q", c.args[len(base):], err, c.want)
		}
	}
}

// Flags not given leave the default run id's key as it was.
func TestArrivalKeyOnlyWhenGiven(t *testing.T) {
	o, _, _, err := benchPlan(t, "--target", "http://127.0.0.1:1", "--data", "prompt_tokens=8", "--max-seconds", "5", "--rate-type", "poisson", "--rate", "2")
	if err != nil {
		t.Fatal(err)
	}
	plain := o.experimentKey().config("m")
	if strings.Count(plain, "|") != 9 {
		t.Errorf("key %q grew a field", plain)
	}
	o, _, _, _ = benchPlan(t, "--target", "http://127.0.0.1:1", "--data", "prompt_tokens=8", "--max-seconds", "5", "--rate-type", "poisson", "--rate", "2", "--burstiness", "0.5")
	if k := o.experimentKey().config("m"); k == plain || !strings.HasPrefix(k, plain+"|") {
		t.Errorf("burstiness key %q, plain %q", k, plain)
	}
}
