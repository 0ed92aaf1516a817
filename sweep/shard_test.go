package sweep

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/accum"
)

func TestShardShare(t *testing.T) {
	cases := []struct {
		total, count int
		want         []int // share of each index
	}{
		{10, 1, []int{10}},
		{10, 3, []int{4, 3, 3}},
		{10, 4, []int{3, 3, 2, 2}},
		{12, 4, []int{3, 3, 3, 3}},
		{2, 4, []int{1, 1, 0, 0}},
		{0, 3, []int{0, 0, 0}},
		{1, 2, []int{1, 0}},
		{7, 7, []int{1, 1, 1, 1, 1, 1, 1}},
	}
	for _, c := range cases {
		var got []int
		sum := 0
		for i := 0; i < c.count; i++ {
			n := Shard{Index: i, Count: c.count}.Share(c.total)
			got = append(got, n)
			sum += n
		}
		if !slices.Equal(got, c.want) || sum != c.total {
			t.Errorf("Share(%d) over %d shards = %v (sum %d), want %v", c.total, c.count, got, sum, c.want)
		}
	}
}

func TestShardValidate(t *testing.T) {
	for _, s := range []Shard{{0, 0}, {-1, 2}, {2, 2}, {5, 3}} {
		if s.Validate() == nil {
			t.Errorf("%+v: want an error", s)
		}
	}
	for _, s := range []Shard{{0, 1}, {1, 2}, {9, 10}} {
		if err := s.Validate(); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
}

func TestShardStrategy(t *testing.T) {
	cases := []struct {
		name   string
		shard  Shard
		total  loadgen.Strategy
		want   loadgen.Strategy
		offset time.Duration
		empty  bool
		err    error // nil, or the sentinel; errAny for any error
	}{
		{"concurrent first", Shard{0, 3}, loadgen.Strategy{Kind: loadgen.Concurrent, Streams: 10},
			loadgen.Strategy{Kind: loadgen.Concurrent, Streams: 4}, 0, false, nil},
		{"concurrent last", Shard{2, 3}, loadgen.Strategy{Kind: loadgen.Concurrent, Streams: 10, Rampup: time.Second},
			loadgen.Strategy{Kind: loadgen.Concurrent, Streams: 3, Rampup: time.Second}, 0, false, nil},
		{"concurrent empty", Shard{3, 4}, loadgen.Strategy{Kind: loadgen.Concurrent, Streams: 3},
			loadgen.Strategy{Kind: loadgen.Concurrent, Streams: 0}, 0, true, nil},
		{"throughput", Shard{1, 4}, loadgen.Strategy{Kind: loadgen.Throughput, Streams: 10},
			loadgen.Strategy{Kind: loadgen.Throughput, Streams: 3}, 0, false, nil},
		{"constant first", Shard{0, 4}, loadgen.Strategy{Kind: loadgen.Constant, Rate: 8},
			loadgen.Strategy{Kind: loadgen.Constant, Rate: 2}, 0, false, nil},
		{"constant offset", Shard{3, 4}, loadgen.Strategy{Kind: loadgen.Constant, Rate: 8, MaxConcurrency: 10},
			loadgen.Strategy{Kind: loadgen.Constant, Rate: 2, MaxConcurrency: 2}, 375 * time.Millisecond, false, nil},
		{"poisson", Shard{1, 2}, loadgen.Strategy{Kind: loadgen.Poisson, Rate: 5, Seed: 42},
			loadgen.Strategy{Kind: loadgen.Poisson, Rate: 2.5, Seed: Shard{1, 2}.Seed(42)}, 0, false, nil},
		{"single shard unchanged", Shard{0, 1}, loadgen.Strategy{Kind: loadgen.Synchronous},
			loadgen.Strategy{Kind: loadgen.Synchronous}, 0, false, nil},
		{"synchronous", Shard{0, 2}, loadgen.Strategy{Kind: loadgen.Synchronous}, loadgen.Strategy{}, 0, false, ErrSynchronousShards},
		{"replay", Shard{0, 2}, loadgen.Strategy{Kind: loadgen.Replay, Schedule: []time.Duration{0}}, loadgen.Strategy{}, 0, false, ErrReplayShards},
		{"user-centric", Shard{0, 2}, loadgen.Strategy{Kind: loadgen.UserCentric, Rate: 2, Streams: 4}, loadgen.Strategy{}, 0, false, ErrUserCentricShards},
		{"cap below shards", Shard{0, 4}, loadgen.Strategy{Kind: loadgen.Poisson, Rate: 5, MaxConcurrency: 3}, loadgen.Strategy{}, 0, false, errAny},
		{"concurrent prefill", Shard{1, 2}, loadgen.Strategy{Kind: loadgen.Concurrent, Streams: 10, MaxPrefill: 5},
			loadgen.Strategy{Kind: loadgen.Concurrent, Streams: 5, MaxPrefill: 2}, 0, false, nil},
		{"prefill below shards", Shard{0, 4}, loadgen.Strategy{Kind: loadgen.Constant, Rate: 5, MaxPrefill: 3}, loadgen.Strategy{}, 0, false, errAny},
		{"bad shard", Shard{4, 4}, loadgen.Strategy{Kind: loadgen.Concurrent, Streams: 4}, loadgen.Strategy{}, 0, false, errAny},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, off, empty, err := c.shard.Strategy(c.total)
			switch {
			case c.err == errAny && err == nil, c.err != nil && c.err != errAny && !errors.Is(err, c.err):
				t.Fatalf("err %v, want %v", err, c.err)
			case c.err == nil && err != nil:
				t.Fatal(err)
			case c.err != nil:
				return
			}
			if got.Kind != c.want.Kind || got.Streams != c.want.Streams || got.Rate != c.want.Rate ||
				got.MaxConcurrency != c.want.MaxConcurrency || got.Seed != c.want.Seed || got.Rampup != c.want.Rampup ||
				got.MaxPrefill != c.want.MaxPrefill {
				t.Errorf("share %+v, want %+v", got, c.want)
			}
			if off != c.offset || empty != c.empty {
				t.Errorf("offset %v empty %v, want %v %v", off, empty, c.offset, c.empty)
			}
		})
	}
}

var errAny = errors.New("any error")

// TestConstantShardsInterleave: n constant-rate shards at r/n, each
// offset by i/r, send at exactly the instants of one constant stream of
// rate r.
func TestConstantShardsInterleave(t *testing.T) {
	const n, rate = 3, 30.0
	total := loadgen.Strategy{Kind: loadgen.Constant, Rate: rate}
	var sends []time.Duration
	for i := 0; i < n; i++ {
		s, off, _, err := Shard{i, n}.Strategy(total)
		if err != nil {
			t.Fatal(err)
		}
		p, err := loadgen.NewPacer(s)
		if err != nil {
			t.Fatal(err)
		}
		for j := uint64(0); j < 10; j++ {
			d, _ := p.Next(j)
			sends = append(sends, off+d)
		}
	}
	slices.Sort(sends)
	for k, d := range sends {
		want := time.Duration(math.Round(float64(k) / rate * 1e9))
		if diff := d - want; diff < -time.Microsecond || diff > time.Microsecond {
			t.Fatalf("send %d at %v, want %v (a single stream of rate %v)", k, d, want, rate)
		}
	}
}

func TestShardSeedDistinct(t *testing.T) {
	seen := map[uint64]int{}
	for i := 0; i < 64; i++ {
		s := Shard{i, 64}.Seed(42)
		if j, dup := seen[s]; dup {
			t.Fatalf("shards %d and %d share seed %d", j, i, s)
		}
		seen[s] = i
	}
	if got := (Shard{0, 1}).Seed(42); got != 42 {
		t.Fatalf("a single shard keeps the run's seed: got %d", got)
	}
}

func TestShardConstraintsAndPhase(t *testing.T) {
	total := loadgen.Constraints{MaxDuration: 10 * time.Second, MaxRequests: 3, MaxErrors: 3}
	for i, want := range []int{1, 1, 1, 0} {
		c, empty := Shard{i, 4}.Constraints(total)
		if c.MaxRequests != want || empty != (want == 0) || c.MaxErrors != 3 || c.MaxDuration != 10*time.Second {
			t.Errorf("shard %d: %+v empty %v, want %d requests", i, c, empty, want)
		}
	}
	v := func(x float64) *float64 { return &x }
	cases := []struct {
		name     string
		phase    report.TransientPhase
		maxReqs  int
		maxSecs  float64
		want     *float64 // Value after the split (nil: unchanged pointer semantics checked by equality)
		wantErr  bool
		unchange bool
	}{
		{"requests split", report.TransientPhase{Value: v(10), Mode: report.PhaseRequests}, 100, 0, v(4), false, false},
		{"bare number as requests", report.TransientPhase{Value: v(10)}, 100, 0, v(4), false, false},
		{"seconds kept", report.TransientPhase{Value: v(10)}, 100, 60, nil, false, true},
		{"percent kept", report.TransientPhase{Percent: v(0.1)}, 100, 0, nil, false, true},
		{"both refused", report.TransientPhase{Value: v(10), Mode: report.PhaseBoth}, 100, 60, nil, true, false},
	}
	for _, c := range cases {
		got, err := Shard{0, 3}.Phase(c.phase, c.maxReqs, c.maxSecs)
		switch {
		case c.wantErr:
			if err == nil {
				t.Errorf("%s: want an error", c.name)
			}
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.unchange:
			if got.Value != c.phase.Value || got.Percent != c.phase.Percent {
				t.Errorf("%s: changed to %v", c.name, got)
			}
		case got.Value == nil || *got.Value != *c.want:
			t.Errorf("%s: value %v, want %v", c.name, got.Value, *c.want)
		}
	}
}

func TestNewShardPlan(t *testing.T) {
	start := time.Date(2026, 6, 16, 12, 0, 0, 0, time.UTC).UnixNano()
	list := List{{Kind: loadgen.Constant, Rate: 4}, {Kind: loadgen.Constant, Rate: 8}}
	p, err := NewShardPlan(ShardConfig{Shard: Shard{1, 2}, Planner: list,
		Constraints: loadgen.Constraints{MaxDuration: 30 * time.Second}, StartAt: start, Gap: 5 * time.Second, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	// Round k starts at start + k × (30 s + 5 s); shard 1 of 2 at rate r is
	// offset 1/r and its duration shortened so the deadline is shared.
	want := []struct {
		start, end int64
		off        time.Duration
		rate       float64
	}{
		{start, start + 30e9, 250 * time.Millisecond, 2},
		{start + 35e9, start + 65e9, 125 * time.Millisecond, 4},
	}
	for k, w := range want {
		r := p.Rounds[k]
		if r.Start != w.start || r.End != w.end || r.Offset != w.off || r.Strategy.Rate != w.rate ||
			r.Constraints.MaxDuration != 30*time.Second-w.off || r.Empty {
			t.Errorf("round %d: %+v", k, r)
		}
	}
	info := p.Info("abc", "run-1")
	if info.Index != 1 || info.Count != 2 || info.StartAt != "2026-06-16T12:00:00Z" || info.RoundSeconds != 30 ||
		info.GapSeconds != 5 || info.Rounds != 2 || info.Seed != 7 || info.ConfigHash != "abc" || info.RunID != "run-1" {
		t.Errorf("info %+v", info)
	}

	bad := []struct {
		name string
		cfg  ShardConfig
	}{
		{"adaptive", ShardConfig{Shard: Shard{0, 2}, Planner: adaptive{}, StartAt: start}},
		{"rounds without duration", ShardConfig{Shard: Shard{0, 2}, Planner: list, StartAt: start, Constraints: loadgen.Constraints{MaxRequests: 10}}},
		{"no start", ShardConfig{Shard: Shard{0, 2}, Planner: list[:1], Constraints: loadgen.Constraints{MaxRequests: 10}}},
		{"synchronous", ShardConfig{Shard: Shard{0, 2}, Planner: List{{Kind: loadgen.Synchronous}}, StartAt: start, Constraints: loadgen.Constraints{MaxRequests: 10}}},
		{"negative gap", ShardConfig{Shard: Shard{0, 2}, Planner: list[:1], StartAt: start, Gap: -1, Constraints: loadgen.Constraints{MaxRequests: 10}}},
	}
	for _, c := range bad {
		if _, err := NewShardPlan(c.cfg); err == nil {
			t.Errorf("%s: want an error", c.name)
		}
	}
	if _, err := NewShardPlan(bad[0].cfg); !errors.Is(err, ErrAdaptiveShards) {
		t.Errorf("adaptive: %v", err)
	}
	// More shards than requests: the extra shard's round is empty.
	p, err = NewShardPlan(ShardConfig{Shard: Shard{2, 3}, Planner: List{{Kind: loadgen.Concurrent, Streams: 4}},
		Constraints: loadgen.Constraints{MaxRequests: 2}, StartAt: start})
	if err != nil || !p.Rounds[0].Empty || p.Rounds[0].End != 0 {
		t.Fatalf("empty shard: %+v %v", p, err)
	}
}

type adaptive struct{}

func (adaptive) Next([]Round) (loadgen.Strategy, bool, error) { return loadgen.Strategy{}, false, nil }

// TestRunShard runs shard 1 of 2 of a two-round run against the mock: a
// constant-rate round the engine starts at the shared instant plus the
// shard's offset (its intended send times follow the timetable exactly),
// then a concurrent round of one stream this shard has no share of (a
// valid empty benchmark, no records).
func TestRunShard(t *testing.T) {
	cfg := mock.DefaultConfig()
	cfg.TTFT, cfg.TTFTStdev, cfg.ITL, cfg.ITLStdev = 5*time.Millisecond, 0, time.Millisecond, 0
	srv, err := mock.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	clock := loadgen.NewClock()
	client, err := loadgen.NewClient(loadgen.ClientConfig{Target: srv.URL(), Model: mock.DefaultModel, ConnectTimeout: time.Second}, clock)
	if err != nil {
		t.Fatal(err)
	}
	start := clock.Now() + int64(200*time.Millisecond)
	plan, err := NewShardPlan(ShardConfig{Shard: Shard{1, 2}, Planner: List{{Kind: loadgen.Constant, Rate: 20}, {Kind: loadgen.Concurrent, Streams: 1}},
		Constraints: loadgen.Constraints{MaxDuration: 500 * time.Millisecond}, StartAt: start, Gap: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	engine := loadgen.NewEngine(client)
	engine.SetShard(1)
	obs := &countObserver{}
	r := &Runner{Engine: engine, Source: newFixedPrompt(8, 4), Report: accum.Config{SampleSize: 5},
		Info: accum.BenchmarkInfo{RunID: "shard-test"}, Records: record.NewEncoder(&buf), Observer: obs}
	noise := measureNoise()
	rounds, err := r.RunShard(context.Background(), plan)
	if worst := noise(); errors.Is(err, ErrShardLate) && worst > MaxShardLateness/4 {
		t.Skipf("machine too busy for a timetable: a 1 ms sleep woke %v late (%v)", worst, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(rounds) != 2 {
		t.Fatalf("%d rounds", len(rounds))
	}
	b0, b1 := rounds[0].Benchmark, rounds[1].Benchmark
	at := start + int64(50*time.Millisecond) // shard 1 of 2 at 20/s: offset 1/20 s
	if sr := b0.Extras.Shard; sr == nil || int64(sr.ScheduledStartNs) != start || int64(sr.OffsetNs) != int64(50*time.Millisecond) ||
		int64(sr.StartNs) != at || sr.Round != 0 || sr.Empty {
		t.Fatalf("round 0 shard entry %+v", b0.Extras.Shard)
	}
	if b0.Config.RunIndex != 0 || b1.Config.RunIndex != 1 || b0.Config.ID == b1.Config.ID {
		t.Fatalf("run indexes %d %d, ids %s %s", b0.Config.RunIndex, b1.Config.RunIndex, b0.Config.ID, b1.Config.ID)
	}
	if sr := b1.Extras.Shard; sr == nil || !sr.Empty || int64(sr.ScheduledStartNs) != start+int64(time.Second) ||
		b1.Extras.StopReason != EmptyStopReason || b1.Metrics.RequestTotals.Total != 0 || b1.Config.Strategy.Streams != 1 {
		t.Fatalf("round 1 %+v, stop %q", b1.Extras.Shard, b1.Extras.StopReason)
	}
	// Records: round 0's only, stamped with the shard, intended exactly at
	// the shard's timetable: at + j × 100 ms, inside the shared deadline.
	dec := record.NewDecoder(&buf, "records")
	var intended []int64
	for rec := record.New(); ; {
		err := dec.Decode(rec)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Benchmark != 0 || rec.Shard != 1 {
			t.Fatalf("record of benchmark %d shard %d", rec.Benchmark, rec.Shard)
		}
		intended = append(intended, rec.Intended)
	}
	slices.Sort(intended)
	// Sends due up to the stop: 5 in the 450 ms to the shared deadline
	// (more when the engine woke late: its deadline counts from its wake).
	stop := int64(b0.Extras.Shard.StopNs)
	due := int((stop-at)/int64(100*time.Millisecond)) + 1
	t.Logf("stop %v after the shared deadline; %d sends due", time.Duration(stop-(start+int64(500*time.Millisecond))), due)
	if n := len(intended); n < due-1 || n > due || int64(b0.Extras.Requests.Recorded) != int64(n) || n < 5 {
		t.Fatalf("%d records (report %d), want the %d due by the stop", n, b0.Extras.Requests.Recorded, due)
	}
	for j, v := range intended {
		if want := at + int64(j)*int64(100*time.Millisecond); v != want {
			t.Fatalf("send %d intended at %+d ns from its schedule", j, v-want)
		}
	}
	if obs.starts != [2]int{1, 1} || obs.ends != [2]int{1, 1} || obs.records != len(intended) {
		t.Fatalf("observer saw starts %v ends %v records %d", obs.starts, obs.ends, obs.records)
	}
}

type countObserver struct {
	starts, ends [2]int
	records      int
}

func (o *countObserver) BenchmarkStart(i int, _ loadgen.Strategy, _ loadgen.Constraints, _ int64) {
	o.starts[i]++
}
func (o *countObserver) Record(*record.Record)       { o.records++ }
func (o *countObserver) BenchmarkEnd(i int, _ Round) { o.ends[i]++ }

// measureNoise samples how late a 1 ms sleep wakes until the returned
// function is called, which returns the worst lateness seen.
func measureNoise() func() time.Duration {
	stop, out := make(chan struct{}), make(chan time.Duration)
	go func() {
		var worst time.Duration
		for {
			select {
			case <-stop:
				out <- worst
				return
			default:
			}
			t0 := time.Now()
			time.Sleep(time.Millisecond)
			worst = max(worst, time.Since(t0)-time.Millisecond)
		}
	}()
	return func() time.Duration {
		close(stop)
		return <-out
	}
}

// TestRunShardSources: each round draws from its own source (Runner.Sources)
// although RunShard runs every round as a runner's first.
func TestRunShardSources(t *testing.T) {
	cfg := mock.DefaultConfig()
	cfg.TTFT, cfg.TTFTStdev, cfg.ITL, cfg.ITLStdev = time.Millisecond, 0, 0, 0
	srv, err := mock.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	clock := loadgen.NewClock()
	client, err := loadgen.NewClient(loadgen.ClientConfig{Target: srv.URL(), Model: mock.DefaultModel, ConnectTimeout: time.Second}, clock)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewShardPlan(ShardConfig{Shard: Shard{0, 2}, Planner: List{{Kind: loadgen.Concurrent, Streams: 2}, {Kind: loadgen.Concurrent, Streams: 2}},
		Constraints: loadgen.Constraints{MaxDuration: 200 * time.Millisecond, MaxRequests: 4}, StartAt: clock.Now() + int64(50*time.Millisecond), Gap: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var asked []int
	r := &Runner{Engine: loadgen.NewEngine(client), Report: accum.Config{SampleSize: -1},
		Sources: func(round int) loadgen.Source { asked = append(asked, round); return newFixedPrompt(4+round, 2) }}
	noise := measureNoise()
	rounds, err := r.RunShard(context.Background(), plan)
	if worst := noise(); errors.Is(err, ErrShardLate) && worst > MaxShardLateness/4 {
		t.Skipf("machine too busy for a timetable: a 1 ms sleep woke %v late (%v)", worst, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(asked, []int{0, 1}) || len(rounds) != 2 {
		t.Fatalf("sources asked for rounds %v", asked)
	}
	for k, rd := range rounds {
		if got := rd.Benchmark.Metrics.PromptTokenCount.Successful.Mean; got != report.Float(4+k) {
			t.Errorf("round %d: prompt tokens %v, want round %d's source (%d)", k, got, k, 4+k)
		}
	}
}
