package sweep

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/record"
)

// ttftRecord is a successful request with the given TTFT (ms), dispatched
// i × 10 ms into the benchmark.
func ttftRecord(i int, ms float64) *record.Record {
	r := record.New()
	r.Status = record.StatusSuccessful
	r.Dispatched = 1e18 + int64(i)*1e7
	r.FirstToken = r.Dispatched + int64(ms*1e6)
	r.End = r.FirstToken + 1e6
	return r
}

func TestTargetMOEStopsAtMargin(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		spec       string
		minN, maxN int
	}{
		// mean 100 ms, sd 20: a 5 % margin at 95 % needs n ≈ (1.96·20/5)² ≈ 62.
		{"metric=time_to_first_token_ms,statistic=mean,moe=0.05", 40, 100},
		// p95 cannot be bounded above before 59 samples at 95 %.
		{"metric=time_to_first_token_ms,statistic=p95,moe=0.1,check_interval=1", 59, 2000},
	} {
		cfg, err := ParseTargetMOE(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		w := cfg.watcher()
		n := 0
		for ; n < 5000; n++ {
			if w.Observe(ttftRecord(n, 100+20*rng.NormFloat64())) {
				n++
				break
			}
		}
		res := w.result()
		if n < c.minN || n > c.maxN || !res.Reached || int(res.Samples) != n {
			t.Errorf("%s: stopped after %d (want %d..%d): %+v", c.spec, n, c.minN, c.maxN, res)
			continue
		}
		if float64(*res.RelativeMOE) > cfg.MOE || *res.Lower > *res.Estimate || *res.Upper < *res.Estimate {
			t.Errorf("%s: interval [%v, %v] around %v, margin %v", c.spec, *res.Lower, *res.Upper, *res.Estimate, *res.RelativeMOE)
		}
	}
	// before min_samples nothing is decided; the estimate of what is
	// still needed grows with the margin asked.
	cfg, _ := ParseTargetMOE("statistic=mean,moe=0.01,min_samples=30")
	w := cfg.watcher()
	for i := range 30 {
		if w.Observe(ttftRecord(i, 100+20*rng.NormFloat64())) {
			t.Fatal("a 1 % margin reached on 30 samples of sd 20 %")
		}
	}
	res := w.result()
	if res.Reached || res.RequiredSamples < 500 || res.EstimatedRemainingS == nil || *res.EstimatedRemainingS <= 0 {
		t.Errorf("unreached: %+v", res)
	}
	if math.Abs(float64(*res.Estimate)-100) > 15 {
		t.Errorf("estimate %v", *res.Estimate)
	}
}

func TestParseTargetMOE(t *testing.T) {
	c, err := ParseTargetMOE("kind=target_moe,metric=request_latency,statistic=p999,moe=0.1,confidence=0.9,min_samples=50,check_interval=5,stopping_scope=all")
	if err != nil || c.Metric != "request_latency" || c.q != 0.999 || c.MOE != 0.1 || c.Confidence != 0.9 || c.MinSamples != 50 || c.CheckInterval != 5 || !c.ScopeAll {
		t.Errorf("%+v %v", c, err)
	}
	for _, bad := range []string{"metric=itl", "statistic=p97", "moe=0", "confidence=1", "min_samples=0", "stopping_scope=some", "x", "speed=1"} {
		if _, err := ParseTargetMOE(bad); err == nil || !strings.Contains(err.Error(), "want") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
