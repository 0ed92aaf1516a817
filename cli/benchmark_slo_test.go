package cli

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/slo"
	"github.com/goodput-dev/goodput/sweep"
)

// sweepFlagSet parses args with the sweep flags.
func sweepFlagSet(t *testing.T, args ...string) (*sweepOptions, error) {
	t.Helper()
	var o sweepOptions
	fs := NewFlagSet("benchmark", "benchmark", &bytes.Buffer{})
	addSweepFlags(fs, &o)
	if err := ParseFlags(fs, args); err != nil {
		return nil, err
	}
	return &o, o.validate(fs, rateTypeOf(args))
}

// rateTypeOf reads a --rate-type=X pseudo-argument the tests pass after
// "--" (the real flag belongs to the benchmark options).
func rateTypeOf(args []string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "rt="); ok {
			return v
		}
	}
	return ""
}

func isUsage(err error) bool {
	var u UsageError
	return errors.As(err, &u)
}

func TestSweepFlagsValidate(t *testing.T) {
	o, err := sweepFlagSet(t)
	if err != nil {
		t.Fatal(err)
	}
	if s := o.spec(); !s.Default || s.String() != slo.DefaultSpec {
		t.Errorf("default SLO %q %v", s, s.Default)
	}
	o, err = sweepFlagSet(t, "--slo", "e2e_p99=2s, error_rate=1%")
	if err != nil || o.spec().String() != "e2e_p99=2000ms,error_rate=1%" || o.spec().Default {
		t.Errorf("--slo: %v %q", err, o.spec())
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--slo", "ttft_p100=1s"}, `--slo: SLO item "ttft_p100=1s": key "ttft_p100": percentile "p100" is not available`},
		{[]string{"--target-load-tok-s", "-5"}, "--target-load-tok-s -5: want output tokens per second > 0"},
		{[]string{"--stopping-scope", "some"}, `--stopping-scope "some": want current or all`},
		{[]string{"--sweep-strategy", "burst"}, `--sweep-strategy "burst": want constant or poisson`},
		{[]string{"--knee-axis", "rate", "--", "rt=concurrent"}, "--knee-axis is only used with --rate-type knee"},
		{[]string{"--knee-max-rounds", "3", "--", "rt=sweep"}, "--knee-max-rounds is only used with --rate-type knee"},
		{[]string{"--sweep-strategy", "poisson", "--", "rt=constant"}, "--sweep-strategy is only used with --rate-type sweep or --rate-type knee --knee-axis rate"},
		{[]string{"--sweep-strategy", "poisson", "--", "rt=knee"}, "--sweep-strategy is only used with"},
	} {
		_, err := sweepFlagSet(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !isUsage(err) {
			t.Errorf("%v: %v, want a usage error containing %q", tc.args, err, tc.want)
		}
	}
	for _, args := range [][]string{
		{"--sweep-strategy", "poisson", "--", "rt=sweep"},
		{"--sweep-strategy", "poisson", "--knee-axis", "rate", "--", "rt=knee"},
		{"--knee-tolerance", "0.1", "--", "rt=knee"},
	} {
		if _, err := sweepFlagSet(t, args...); err != nil {
			t.Errorf("%v: %v", args, err)
		}
	}
}

func TestSweepPlanner(t *testing.T) {
	base := plannerBase{rampup: 2 * time.Second, seed: 42, warmup: report.TransientPhase{}, cooldown: report.TransientPhase{}}
	o, err := sweepFlagSet(t, "--sweep-strategy", "poisson", "--", "rt=sweep")
	if err != nil {
		t.Fatal(err)
	}
	p, prof, err := o.planner("sweep", []float64{6}, base)
	if err != nil {
		t.Fatal(err)
	}
	g, ok := p.(sweep.GuideLLMSweep)
	if !ok || g.Size != 6 || g.Kind != loadgen.Poisson || g.Rampup != 2*time.Second || g.Seed != 42 || g.MaxConcurrency != 0 {
		t.Errorf("planner %#v", p)
	}
	if prof.Kind != "sweep" || prof.SweepSize != 6 || prof.StrategyType != "poisson" || prof.MaxConcurrency != 512 || prof.RampupDuration != 2 {
		t.Errorf("profile %+v", prof)
	}
	if s, _, _ := p.Next(nil); s.Kind != loadgen.Synchronous {
		t.Errorf("first round %v", s)
	}
	// --stopping-scope all wraps the planner.
	o, _ = sweepFlagSet(t, "--stopping-scope", "all")
	p, _, err = o.planner("sweep", nil, base)
	if _, plain := p.(sweep.GuideLLMSweep); err != nil || plain || sweep.Planned(p) != 10 {
		t.Errorf("stopping scope all: %T %v", p, err)
	}
	// It applies to lists too.
	list := sweep.List{{Kind: loadgen.Constant, Rate: 1}, {Kind: loadgen.Constant, Rate: 2}}
	stopped := []sweep.Round{{Strategy: list[0], Result: loadgen.Result{StopReason: loadgen.StopMaxErrorRate}}}
	if _, ok, _ := o.stopOn(list).Next(stopped); ok {
		t.Error("--stopping-scope all: a list goes on after a max_error_rate stop")
	}
	current, _ := sweepFlagSet(t)
	if _, ok, _ := current.stopOn(list).Next(stopped); !ok {
		t.Error("--stopping-scope current: a list stops after a max_error_rate stop")
	}
	for _, tc := range []struct {
		rates []float64
		want  string
	}{
		{[]float64{1}, "--rate 1: with --rate-type sweep it is the number of rounds, a whole number from 2 to 1000 (default 10)"},
		{[]float64{2.5}, "--rate 2.5: with --rate-type sweep"},
		{[]float64{4, 8}, "--rate-type sweep takes one --rate: the number of rounds (default 10)"},
	} {
		_, _, err := o.planner("sweep", tc.rates, base)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !isUsage(err) {
			t.Errorf("%v: %v, want %q", tc.rates, err, tc.want)
		}
	}
	if _, _, err := o.planner("constant", nil, base); err == nil || !isUsage(err) {
		t.Errorf("constant: %v", err)
	}
	if !isSweepRateType("knee") || !isSweepRateType("sweep") || isSweepRateType("poisson") {
		t.Error("isSweepRateType")
	}
}

func TestKneePlanner(t *testing.T) {
	base := plannerBase{maxConcurrency: 256, seed: 7}
	o, err := sweepFlagSet(t, "--knee-tolerance", "0.1", "--knee-max-rounds", "12", "--knee-factor", "3", "--", "rt=knee")
	if err != nil {
		t.Fatal(err)
	}
	p, prof, err := o.planner("knee", []float64{4}, base)
	if err != nil {
		t.Fatal(err)
	}
	k, ok := p.(sweep.KneeSearch)
	if !ok || k.Axis != sweep.AxisConcurrency || k.Start != 4 || k.Tolerance != 0.1 || k.MaxRounds != 12 || k.Factor != 3 || k.MaxConcurrency != 256 {
		t.Errorf("planner %#v", p)
	}
	if prof.Kind != "concurrent" || !slices.Equal(prof.Streams, []int{4}) {
		t.Errorf("profile %+v", prof)
	}
	if o.search == nil || o.search.Start != 4 {
		t.Errorf("search %+v, want the knee search kept for the final profile", o.search)
	}
	// A rate search.
	o, _ = sweepFlagSet(t, "--knee-axis", "rate", "--knee-max-rate", "50", "--sweep-strategy", "poisson", "--", "rt=knee")
	p, prof, err = o.planner("knee", []float64{0.5}, plannerBase{seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if k := p.(sweep.KneeSearch); k.Axis != sweep.AxisRate || k.Start != 0.5 || k.MaxRate != 50 || k.Kind != loadgen.Poisson {
		t.Errorf("rate planner %#v", k)
	}
	if prof.Kind != "poisson" || !slices.Equal(prof.Rate, []float64{0.5}) {
		t.Errorf("rate profile %+v", prof)
	}
	for _, tc := range []struct {
		args  []string
		rates []float64
		base  plannerBase
		want  string
	}{
		{[]string{"--knee-axis", "tokens"}, nil, plannerBase{}, `--knee-axis "tokens": want concurrency or rate`},
		{[]string{"--knee-tolerance", "0"}, nil, plannerBase{}, "--knee-tolerance 0: want a fraction 0 < x < 1"},
		{[]string{"--knee-max-rounds", "0"}, nil, plannerBase{}, "--knee-max-rounds 0: want at least 1"},
		{[]string{"--knee-factor", "1"}, nil, plannerBase{}, "--knee-factor 1: want a number > 1"},
		{[]string{"--knee-max-rate", "0"}, nil, plannerBase{}, "--knee-max-rate 0: want req/s > 0"},
		{nil, []float64{2.5}, plannerBase{}, "--rate 2.5: with --rate-type knee it is the first concurrency, a whole number ≥ 1 (default 1)"},
		{[]string{"--knee-axis", "rate"}, []float64{-1}, plannerBase{}, "--rate -1: with --rate-type knee --knee-axis rate it is the first rate in req/s, > 0"},
		{nil, []float64{1, 2}, plannerBase{}, "--rate-type knee takes at most one --rate"},
		{nil, []float64{64}, plannerBase{maxConcurrency: 32}, "--rate-type knee: knee start 64 is above the search's limit (max concurrency 32)"},
	} {
		o, err := sweepFlagSet(t, append(tc.args, "--", "rt=knee")...)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		_, _, err = o.planner("knee", tc.rates, tc.base)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !isUsage(err) {
			t.Errorf("%v %v: %v, want %q", tc.args, tc.rates, err, tc.want)
		}
	}
}
