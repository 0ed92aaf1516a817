package sweep

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/loadgen"
)

// GuideLLM's shapes leave no arrival extras (existing reports stay as
// they were); the others are recorded, and the strategy object keeps a
// reading GuideLLM accepts.
func TestReportArrival(t *testing.T) {
	for _, s := range []loadgen.Strategy{
		{Kind: loadgen.Constant, Rate: 4, Rampup: time.Second},
		{Kind: loadgen.Poisson, Rate: 4, Burstiness: 1},
		{Kind: loadgen.Concurrent, Streams: 8, Rampup: time.Second, RampShape: loadgen.RampLinear},
	} {
		if a := reportArrival(s); a != nil {
			t.Errorf("%v: arrival %+v, want none", s, a)
		}
	}
	series := []loadgen.RateSegment{{Duration: 2 * time.Second, From: 1, To: 5}, {Duration: 2 * time.Second, From: 10, To: 10}}
	for _, c := range []struct {
		s    loadgen.Strategy
		want string
	}{
		{loadgen.Strategy{Kind: loadgen.Poisson, Rate: 4, Burstiness: 0.5},
			`{"process":"gamma","burstiness":0.5}`},
		{loadgen.Strategy{Kind: loadgen.Poisson, Rate: 4, Rampup: 3 * time.Second},
			`{"process":"poisson","ramp":{"shape":"linear","duration_s":3.0,"from":0.0,"to":4.0,"unit":"rate"}}`},
		{loadgen.Strategy{Kind: loadgen.Concurrent, Streams: 8, Rampup: time.Second, RampShape: loadgen.RampExponential},
			`{"ramp":{"shape":"exponential","duration_s":1.0,"from":1.0,"to":8.0,"unit":"streams"}}`},
		{loadgen.Strategy{Kind: loadgen.Constant, Series: series},
			`{"process":"constant","series":[{"duration_s":2.0,"from_rate":1.0,"to_rate":5.0},{"duration_s":2.0,"from_rate":10.0,"to_rate":10.0}]}`},
		{loadgen.Strategy{Kind: loadgen.UserCentric, Rate: 2, Streams: 15},
			`{"process":"user_centric","users":15,"turn_gap_s":7.5}`},
		{loadgen.Strategy{Kind: loadgen.Concurrent, Streams: 8, MaxPrefill: 2},
			`{"max_prefill":2}`},
		{loadgen.Strategy{Kind: loadgen.Constant, Rate: 10, MaxConcurrency: 100, CapRampup: 60 * time.Second, MaxPrefill: 5, PrefillRampup: 30 * time.Second},
			`{"process":"constant","max_prefill":5,"prefill_ramp":{"shape":"linear","duration_s":30.0,"from":1.0,"to":5.0,"unit":"slots"},"cap_ramp":{"shape":"linear","duration_s":60.0,"from":1.0,"to":100.0,"unit":"slots"}}`},
	} {
		b, err := json.Marshal(reportArrival(c.s))
		if err != nil || string(b) != c.want {
			t.Errorf("%v: %s (%v), want %s", c.s, b, err, c.want)
		}
		rs := reportStrategy(c.s)
		if err := rs.Validate(); err != nil {
			t.Errorf("%v: strategy %+v: %v", c.s, rs, err)
		}
		if len(c.s.Series) > 0 && rs.Rate != 6.5 {
			t.Errorf("series written at rate %v, want its mean 26/4 = 6.5", rs.Rate)
		}
	}
}

func TestShapedShards(t *testing.T) {
	series := []loadgen.RateSegment{{Duration: time.Second, From: 30, To: 60}}
	for _, s := range []loadgen.Strategy{
		{Kind: loadgen.Poisson, Rate: 30, Burstiness: 0.5},
		{Kind: loadgen.Constant, Series: series},
		{Kind: loadgen.Constant, Rate: 30, Rampup: time.Second, RampShape: loadgen.RampExponential, RampFrom: 3},
	} {
		if _, _, _, err := (Shard{1, 3}).Strategy(s); !errors.Is(err, ErrShapeShards) {
			t.Errorf("%v across 3 shards: %v, want ErrShapeShards", s, err)
		}
	}
	share, _, _, err := Shard{1, 3}.Strategy(loadgen.Strategy{Kind: loadgen.Poisson, Series: series, Seed: 1})
	if err != nil || share.Series[0].From != 10 || share.Series[0].To != 20 || share.Seed == 1 {
		t.Fatalf("poisson series share %+v (%v), want a third of the rate and its own seed", share, err)
	}
	share, _, _, err = Shard{0, 2}.Strategy(loadgen.Strategy{Kind: loadgen.Poisson, Rate: 30, Rampup: time.Second, RampShape: loadgen.RampExponential, RampFrom: 4})
	if err != nil || share.Rate != 15 || share.RampFrom != 2 {
		t.Fatalf("poisson exponential ramp share %+v (%v), want half the rate and half the start", share, err)
	}
}

func TestPlannersCarryBurstiness(t *testing.T) {
	k := KneeSearch{Axis: AxisRate, Kind: loadgen.Poisson, Burstiness: 0.5}.withDefaults()
	if err := k.Validate(); err != nil {
		t.Fatal(err)
	}
	if s := k.strategy(4); s.Burstiness != 0.5 || s.Validate() != nil {
		t.Fatalf("knee round %+v", s)
	}
	for _, bad := range []KneeSearch{
		{Axis: AxisRate, Kind: loadgen.Constant, Burstiness: 0.5},
		{Axis: AxisConcurrency, Burstiness: 0.5},
		{Axis: AxisRate, Kind: loadgen.Poisson, Burstiness: -1},
	} {
		if bad.withDefaults().Validate() == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	if (GuideLLMSweep{Kind: loadgen.Constant, Burstiness: 2}).Validate() == nil {
		t.Error("a constant sweep took a burstiness")
	}
	if err := (GuideLLMSweep{Kind: loadgen.Poisson, Burstiness: 2}).Validate(); err != nil {
		t.Error(err)
	}
}

func TestShardRoundRecordsTotalArrival(t *testing.T) {
	series := []loadgen.RateSegment{{Duration: time.Second, From: 30, To: 60}}
	p := &ShardPlan{Config: ShardConfig{Shard: Shard{1, 3}}, Rounds: []ShardRound{{Total: loadgen.Strategy{Kind: loadgen.Poisson, Series: series}}}}
	r := p.roundInfo(0, loadgen.Result{})
	if a := r.TotalArrival; a == nil || len(a.Series) != 1 || a.Series[0].ToRate != 60 {
		t.Fatalf("total arrival %+v, want the run's series", a)
	}
}
