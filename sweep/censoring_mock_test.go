package sweep

import (
	"context"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/accum"
)

// recordCollector keeps a copy of every record of a run.
type recordCollector struct {
	mu   sync.Mutex
	recs []record.Record
}

func (c *recordCollector) BenchmarkStart(int, loadgen.Strategy, loadgen.Constraints, int64) {}
func (c *recordCollector) BenchmarkEnd(int, Round)                                          {}
func (c *recordCollector) Record(r *record.Record) {
	x := *r
	x.ChunkTimes, x.ChunkTokens, x.EmitTimes = slices.Clone(r.ChunkTimes), slices.Clone(r.ChunkTokens), slices.Clone(r.EmitTimes)
	c.mu.Lock()
	c.recs = append(c.recs, x)
	c.mu.Unlock()
}

// cutAt is what a record would have been had its round cancelled it at
// t: a request still running then is incomplete, and keeps only what
// arrived before t.
func cutAt(r record.Record, t int64) record.Record {
	if r.End <= t {
		return r
	}
	r.Status, r.ErrorClass, r.Error, r.End = record.StatusIncomplete, record.ErrCancelled, "cancelled", t
	var times []int64
	var toks []int32
	var emits []int64
	out := 0
	for i, ct := range r.ChunkTimes {
		if ct > t {
			break
		}
		times = append(times, ct)
		if i < len(r.ChunkTokens) {
			toks = append(toks, r.ChunkTokens[i])
			out += int(r.ChunkTokens[i])
		}
		if i < len(r.EmitTimes) {
			emits = append(emits, r.EmitTimes[i])
		}
	}
	r.ChunkTimes, r.ChunkTokens, r.EmitTimes = times, toks, emits
	for _, p := range []*int64{&r.Headers, &r.FirstChunk, &r.FirstToken, &r.FirstOutputToken, &r.LastToken} {
		if *p > t {
			*p = 0
		}
	}
	if r.LastToken != 0 && len(times) > 0 {
		r.LastToken = times[len(times)-1]
	}
	r.Iterations = len(times)
	r.OutputTokens, r.ServerOutputTokens, r.ServerPromptTokens, r.ClientOutputTokens = out, 0, 0, out
	return r
}

// TestCensoringAgainstMock runs 64 streams against 8 server slots for a
// short round with --drain, so that every request in flight at the end
// finishes, and rebuilds the requests sent before a cut both drained (as
// they were) and as if the cut had cancelled them. The censoring-aware (Kaplan–Meier) TTFT
// P99 of the cut round is within 10 % of the drained round's P99, while
// the completed-only P99 (GuideLLM's figure) is lower: the requests that
// waited longest are the ones a cut deletes.
func TestCensoringAgainstMock(t *testing.T) {
	if testing.Short() {
		t.Skip("real-time round (about 6 s); run without -short")
	}
	if raceEnabled {
		t.Skip("timing: the race detector slows the mock's engine")
	}
	tiny, err := mock.Preset(mock.PresetTiny) // max-num-seqs 8
	if err != nil {
		t.Fatal(err)
	}
	url := startCapacityMock(t, tiny)
	client, err := loadgen.NewClient(loadgen.ClientConfig{Target: url}, loadgen.NewClock())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.CloseIdle)
	ctx := context.Background()
	if _, err := client.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	col := &recordCollector{}
	r := &Runner{
		Engine: loadgen.NewEngine(client), Source: newFixedPrompt(64, 32),
		Constraints: loadgen.Constraints{MaxDuration: 3 * time.Second, Drain: 20 * time.Second},
		Report:      accum.Config{SampleSize: -1},
		Info:        accum.BenchmarkInfo{RunID: t.Name()},
		Observer:    col,
	}
	rounds, err := r.Run(ctx, List{{Kind: loadgen.Concurrent, Streams: 64}})
	if err != nil {
		t.Fatal(err)
	}
	res := rounds[0].Result
	if inc := rounds[0].Benchmark.Metrics.RequestTotals.Incomplete; inc != 0 {
		t.Fatalf("%d requests incomplete after the drain", inc)
	}
	// Cut where the first 64 requests (all sent at once) have just all
	// had their first token: the ones still decoding then, which waited
	// longest in the queue, are what a cut deletes from GuideLLM's figure.
	slices.SortFunc(col.recs, func(a, b record.Record) int { return int(a.ID - b.ID) })
	var cut int64
	for _, rec := range col.recs[:min(64, len(col.recs))] {
		cut = max(cut, rec.FirstToken)
	}
	cut += int64(50 * time.Millisecond)
	build := func(id string, f func(record.Record) record.Record) *report.Benchmark {
		acc, err := accum.New(accum.Config{Start: res.Start, SampleSize: -1})
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range col.recs {
			if rec.Dispatched <= cut {
				c := f(rec)
				acc.Add(&c)
			}
		}
		return acc.Finish(accum.BenchmarkInfo{RunID: id, Start: res.Start, End: cut, QueuingEnd: cut, ProcessingEnd: cut, StopTime: cut,
			StopReason: "max_duration", Strategy: rounds[0].Benchmark.Config.Strategy})
	}
	// The same requests, drained (their full records) and cut.
	drained := build("drained", func(r record.Record) record.Record { return r })
	drainedP99 := float64(drained.Extras.Metrics.TimeToFirstTokenMs.Successful.Percentiles.P99)
	b := build("cut", func(r record.Record) record.Record { return cutAt(r, cut) })
	n := int(b.Metrics.RequestTotals.Incomplete)
	completed := float64(b.Extras.Metrics.TimeToFirstTokenMs.Successful.Percentiles.P99)
	km, ok := b.Extras.Censored.TimeToFirstTokenMs.Percentile(99)
	t.Logf("%d requests, %d cut off: drained P99 %.1f ms; cut: Kaplan–Meier P99 %.1f ms (reached %v), completed-only P99 %.1f ms",
		len(col.recs), n, drainedP99, km, ok, completed)
	if n < 16 {
		t.Fatalf("only %d requests were in flight at the end: the round does not test censoring", n)
	}
	if !ok || math.Abs(km-drainedP99) > 0.1*drainedP99 {
		t.Errorf("Kaplan–Meier P99 %.1f ms (reached %v), drained P99 %.1f ms: more than 10%% apart", km, ok, drainedP99)
	}
	if completed >= drainedP99 {
		t.Errorf("completed-only P99 %.1f ms is not below the drained P99 %.1f ms", completed, drainedP99)
	}
}
