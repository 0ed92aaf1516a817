package cli

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
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
		list, ok := p.Plan.Planner.(sweep.List)
		if !ok {
			t.Fatalf("planner %T", p.Plan.Planner)
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
	if g, ok := p.Plan.Planner.(sweep.GuideLLMSweep); err != nil || !ok || g.Burstiness != 2 {
		t.Errorf("sweep --burstiness: %#v (%v)", p.Plan.Planner, err)
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

// The default run id hashes the typed config: two spellings of one rate
// list are one experiment, an arrival shape is another.
func TestRunIDKeyIsTyped(t *testing.T) {
	key := func(args ...string) string {
		t.Helper()
		_, p, spec, err := benchPlan(t, append([]string{"--target", "http://127.0.0.1:1", "--data", "prompt_tokens=8", "--max-seconds", "5", "--rate-type", "poisson"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		p.shard = spec
		k, err := p.runConfig().ExperimentKey("m")
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	plain := key("--rate", "2,4")
	if k := key("--rate", "2, 4.0"); k != plain {
		t.Errorf("--rate \"2, 4.0\" is another experiment than --rate 2,4:\n%s\n%s", k, plain)
	}
	if k := key("--rate", "2,4", "--burstiness", "0.5"); k == plain {
		t.Errorf("--burstiness 0.5 left the key unchanged: %s", k)
	}
}

// A rate series runs end to end: it ends the benchmark by itself, every
// request is due on the series' schedule, and the report keeps GuideLLM's
// reading (constant at the mean rate) with the series in goodput's extras.
func TestBenchmarkRateSeriesEndToEnd(t *testing.T) {
	url := clitest.Mock(t, nil)
	dir := t.TempDir()
	code, _, stderr := runGoodput(t, "benchmark", "--target", url, "--rate-type", "constant", "--rate-series", "40:0.5s,0:0.25s,20:0.5s",
		"--data", "prompt_tokens=16,output_tokens=4", "--output-dir", dir, "--run-id", "r", "--outputs", "json,jsonl", "--disable-progress")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rep, err := report.Read(filepath.Join(dir, "r", "benchmarks.json"))
	if err != nil {
		t.Fatal(err)
	}
	b := rep.Benchmarks[0]
	st := b.Config.Strategy
	if st.Type != "constant" || math.Abs(st.Rate-30/1.25) > 1e-9 || b.Metrics.RequestTotals.Total != 30 {
		t.Fatalf("strategy %+v, %v requests: want constant at 24 req/s, 30 requests", st, b.Metrics.RequestTotals.Total)
	}
	a := b.Extras.Arrival
	if a == nil || a.Process != "constant" || len(a.Series) != 3 || a.Series[1].DurationS != 0.25 || a.Series[2].FromRate != 20 {
		t.Fatalf("arrival extras %+v", a)
	}
	if b.Extras.StopReason != string(loadgen.StopDataExhausted) {
		t.Errorf("stop reason %q", b.Extras.StopReason)
	}
	f, err := os.Open(filepath.Join(dir, "r", "requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := record.NewDecoder(f, "requests.jsonl")
	var due []time.Duration
	for r := record.New(); dec.Decode(r) == nil; {
		due = append(due, time.Duration(r.Intended))
	}
	slices.Sort(due)
	var per [3]int
	for _, d := range due {
		switch off := d - due[0]; {
		case off < 500*time.Millisecond:
			per[0]++
		case off < 750*time.Millisecond:
			per[1]++
		default:
			per[2]++
		}
	}
	if per != [3]int{20, 0, 10} {
		t.Errorf("requests due per segment %v, want [20 0 10]", per)
	}
}
