package merge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/accum"
	"github.com/goodput-dev/goodput/report/stats"
)

// mergeStart is the shared start of the synthetic shards.
const mergeStart = int64(1000 * 1e9)

// synthShardRecords makes shard i's records: mostly successful streams
// with random TTFT, chunk counts and gaps, some errored (HTTP 500, no
// tokens) and some cancelled mid-stream.
func synthShardRecords(i, n int) []*record.Record {
	rng := rand.New(rand.NewPCG(uint64(i)+1, 99))
	var out []*record.Record
	for j := 0; j < n; j++ {
		r := record.New()
		r.ID, r.Shard = uint64(j+1), i
		disp := mergeStart + int64(i)*100_000 + int64(j)*int64(20*time.Millisecond) + rng.Int64N(int64(5*time.Millisecond))
		r.Intended = disp - rng.Int64N(int64(2*time.Millisecond))
		r.Dispatched, r.Sent = disp, disp+50_000
		r.PromptTokens = 100 + rng.IntN(50)
		r.ServerPromptTokens = r.PromptTokens
		switch {
		case j%13 == 5:
			r.Status, r.ErrorClass, r.HTTPStatus = record.StatusErrored, record.ErrHTTPStatus, 500
			r.End, r.Iterations = disp+int64(30*time.Millisecond), 1
		default:
			t := disp + int64(20*time.Millisecond) + rng.Int64N(int64(60*time.Millisecond))
			r.FirstChunk, r.FirstToken, r.FirstOutputToken = t, t, t
			k := 4 + rng.IntN(16)
			for c := 0; c < k; c++ {
				if c > 0 {
					t += int64(time.Millisecond) + rng.Int64N(int64(4*time.Millisecond))
				}
				r.ChunkTimes = append(r.ChunkTimes, t)
			}
			r.LastToken, r.End, r.Iterations = t, t+int64(time.Millisecond), k+2
			r.Status, r.OutputTokens, r.OutputSource = record.StatusSuccessful, k, record.TokensUsage
			r.ServerOutputTokens, r.ClientOutputTokens = k, k+rng.IntN(2)
			if j%17 == 7 {
				r.Status, r.ErrorClass = record.StatusIncomplete, record.ErrCancelled
				r.OutputSource, r.ServerOutputTokens, r.ClientOutputTokens = record.TokensChunks, -1, -1
			}
		}
		out = append(out, r)
	}
	return out
}

func byEnd(recs []*record.Record) []*record.Record {
	out := slices.Clone(recs)
	slices.SortStableFunc(out, func(a, b *record.Record) int {
		switch {
		case a.End < b.End:
			return -1
		case a.End > b.End:
			return 1
		}
		return a.Shard - b.Shard
	})
	return out
}

var mergeCons = []report.Constraint{{Kind: report.ConstraintMaxDuration, Seconds: 2}}

func mergeScenario(t testing.TB) *report.Scenario {
	t.Helper()
	sc, err := report.NewScenario(report.SpecInput{
		Backend:     report.Backend{Target: "http://127.0.0.1:8000", Model: "m", Stream: true},
		Profile:     report.Profile{Kind: "concurrent", Streams: []int{6}},
		Constraints: mergeCons,
		Data:        []report.SyntheticText{{PromptTokens: 128, OutputTokens: 16}},
		Seed:        42, SampleSize: 5,
	})
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// shardFixture is a set of synthetic shard reports with their records.
type shardFixture struct {
	files []File
	recs  [][]*record.Record
	jsonl [][]byte
}

// buildShards writes n shard reports of one round (concurrent, 2 streams
// per shard, a 2 s time-bound round) through JSON, as goodput benchmark
// does, with their records as JSON Lines.
func buildShards(t testing.TB, n, perShard int) *shardFixture {
	t.Helper()
	counts := make([]int, n)
	for i := range counts {
		counts[i] = perShard
	}
	return buildShardSet(t, counts)
}

// buildShardSet builds shards with the given numbers of requests; a shard
// with none is an empty shard (no share of the round), as RunShard writes
// it.
func buildShardSet(t testing.TB, perShards []int) *shardFixture {
	t.Helper()
	return buildShardSetStops(t, perShards, nil)
}

// buildShardSetStops is buildShardSet with each shard's stop (the
// engine's stop time, Unix ns) given by stopAt; nil stops every shard at
// the round's 2 s deadline.
func buildShardSetStops(t testing.TB, perShards []int, stopAt func(shard int, recs []*record.Record) int64) *shardFixture {
	t.Helper()
	fx := &shardFixture{}
	n := len(perShards)
	for i, perShard := range perShards {
		recs := synthShardRecords(i, perShard)
		acc, err := accum.New(accum.Config{Start: mergeStart, Constraints: mergeCons, SampleSize: 5, Seed: uint64(i)})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		enc := record.NewEncoder(&buf)
		var end int64
		counts := accum.SchedulerCounts{Created: perShard, Processed: perShard}
		for _, r := range byEnd(recs) {
			acc.Add(r)
			if err := enc.Encode(r); err != nil {
				t.Fatal(err)
			}
			end = max(end, r.End)
			switch r.Status {
			case record.StatusSuccessful:
				counts.Successful++
			case record.StatusErrored:
				counts.Errored++
			default:
				counts.Cancelled++
			}
		}
		if err := enc.Flush(); err != nil {
			t.Fatal(err)
		}
		stop := int64(mergeStart + 2e9)
		if stopAt != nil {
			stop = stopAt(i, recs)
		}
		info := accum.BenchmarkInfo{RunID: "run-m", Strategy: report.Strategy{Type: report.StrategyConcurrent, Streams: 2, WorkerCount: 2},
			Start: mergeStart, End: end, StopTime: stop, QueuingEnd: stop, ProcessingEnd: end,
			StopReason: report.ConstraintMaxDuration, Workers: 2, Scheduler: counts}
		empty := perShard == 0
		if empty { // as sweep's emptyRound finishes it
			info = accum.BenchmarkInfo{RunID: "run-m", Strategy: report.Strategy{Type: report.StrategyConcurrent, Streams: 2 * n, WorkerCount: 2 * n},
				Start: mergeStart, End: mergeStart, ProcessingEnd: mergeStart, StopReason: "no_shard_share", Workers: 1}
		}
		b := acc.Finish(info)
		b.Extras.Shard = &report.ShardRound{Shard: report.Int(i), Count: report.Int(n), ScheduledStartNs: report.Int(mergeStart), ScheduledEndNs: report.Int(mergeStart + 2e9),
			Total: report.Strategy{Type: report.StrategyConcurrent, Streams: 2 * n, WorkerCount: 2 * n}, Empty: empty,
			StartNs: report.Int(mergeStart), StopNs: report.Int(info.StopTime), EndNs: report.Int(info.End)}
		rep := report.NewReport("test", mergeScenario(t), b)
		rep.Run = &report.RunExtras{Version: report.ExtrasVersion, RunID: "run-m", Shard: &report.ShardInfo{
			Index: report.Int(i), Count: report.Int(n), ConfigHash: "cafe", RunID: "run-m", StartAt: "1970-01-01T00:16:40Z", StartAtNs: report.Int(mergeStart),
			RoundSeconds: 2, Rounds: 1, Seed: 42}}
		raw, err := rep.MarshalJSONBytes()
		if err != nil {
			t.Fatal(err)
		}
		name := "shard-" + string(rune('0'+i)) + ".json"
		back, err := report.Decode(bytes.NewReader(raw), name)
		if err != nil {
			t.Fatal(err)
		}
		data := buf.Bytes()
		fx.files = append(fx.files, File{Name: name, Report: back, RecordsName: strings.TrimSuffix(name, ".json") + ".jsonl",
			Records: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }})
		fx.recs = append(fx.recs, recs)
		fx.jsonl = append(fx.jsonl, data)
	}
	return fx
}

// reference is the benchmark one process would write for all the shards'
// requests: one accumulator fed every record in completion order, with the
// whole run's configuration and the shards' counters added.
func (fx *shardFixture) reference(t *testing.T) *report.Benchmark {
	t.Helper()
	n := len(fx.files)
	acc, err := accum.New(accum.Config{Start: mergeStart, Constraints: mergeCons, SampleSize: 5, Seed: 42, ExactCap: accum.DefaultExactCap})
	if err != nil {
		t.Fatal(err)
	}
	var all []*record.Record
	for i, recs := range fx.recs {
		for _, r := range recs {
			c := *r
			c.ID = uint64(i)*1_000_000_000_000 + r.ID
			all = append(all, &c)
		}
	}
	var end int64
	counts := accum.SchedulerCounts{}
	for _, r := range byEnd(all) {
		acc.Add(r)
		end = max(end, r.End)
		counts.Created++
		counts.Processed++
		switch r.Status {
		case record.StatusSuccessful:
			counts.Successful++
		case record.StatusErrored:
			counts.Errored++
		default:
			counts.Cancelled++
		}
	}
	stop := mergeStart + 2e9
	return acc.Finish(accum.BenchmarkInfo{RunID: "run-m", Strategy: report.Strategy{Type: report.StrategyConcurrent, Streams: 2 * n, WorkerCount: 2 * n},
		Profile: json.RawMessage("{}"), Backend: json.RawMessage("{}"), Requests: json.RawMessage("{}"),
		Environment: json.RawMessage(`{"kind":"goodput","distributed":true,"shards":3}`),
		Start:       mergeStart, End: end, StopTime: stop, QueuingEnd: stop, ProcessingEnd: end,
		StopReason: report.ConstraintMaxDuration, Workers: 2 * n, Scheduler: counts})
}

func benchJSON(t *testing.T, b *report.Benchmark) string {
	t.Helper()
	raw, err := report.MarshalCompact(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// TestMergeFromRecordsIsExact: merging shards with their records gives,
// byte for byte, the benchmark one accumulator fed every request writes.
func TestMergeFromRecordsIsExact(t *testing.T) {
	t.Parallel()
	fx := buildShards(t, 3, 60)
	rep, err := Shards(context.Background(), fx.files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mi := rep.Run.Merge
	if mi.Path != PathRecords || !mi.Exact || mi.Shards != 3 || rep.Run.RunID != "run-m" || rep.Run.Shard != nil {
		t.Fatalf("merge info %+v", mi)
	}
	got, want := rep.Benchmarks[0], fx.reference(t)
	if g, w := benchJSON(t, got), benchJSON(t, want); g != w {
		t.Fatalf("merged benchmark differs from the single-accumulator one:\n got %.600s\nwant %.600s", g, w)
	}
	if got.Metrics.RequestTotals.Total != 180 || !got.Extras.Exact {
		t.Fatalf("totals %+v exact %v", got.Metrics.RequestTotals, got.Extras.Exact)
	}
	// Sampled ids are distinct across shards.
	seen := map[string]bool{}
	for _, r := range slices.Concat(got.Requests.Successful, got.Requests.Errored, got.Requests.Incomplete) {
		if seen[r.RequestID] {
			t.Fatalf("duplicate request id %s", r.RequestID)
		}
		seen[r.RequestID] = true
	}
	checkGuideLLM(t, rep)
}

// TestMergeCountsEachShardsWindow: two shards of 80 requests each, both
// stopped just before their 81st request went out (one a little after the
// other: the union of their windows holds the earlier one's 81st). Merged
// from records, the run counts exactly the 160 requests the shards
// counted, each by its own shard's window, and the 81st requests stay
// recorded outside it.
func TestMergeCountsEachShardsWindow(t *testing.T) {
	t.Parallel()
	fx := buildShardSetStops(t, []int{81, 81}, func(_ int, recs []*record.Record) int64 { return recs[80].Dispatched - 1 })
	var sum report.StatusCounts
	for i, f := range fx.files {
		b := f.Report.Benchmarks[0]
		if b.Metrics.RequestTotals.Total != 80 || b.Extras.Requests.Recorded != 81 {
			t.Fatalf("shard %d counted %d of %d recorded requests, want 80 of 81", i, b.Metrics.RequestTotals.Total, b.Extras.Requests.Recorded)
		}
		c := b.Metrics.RequestTotals
		sum.Successful, sum.Errored, sum.Incomplete, sum.Total = sum.Successful+c.Successful, sum.Errored+c.Errored, sum.Incomplete+c.Incomplete, sum.Total+c.Total
	}
	if a, b := fx.recs[0][80].Dispatched, fx.recs[1][80].Dispatched; max(a, b)-1 < min(a, b) {
		t.Fatalf("the shards' 81st requests (%d, %d) do not fall inside the union of the windows: the test shows nothing", a, b)
	}
	rep, err := Shards(context.Background(), fx.files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := rep.Benchmarks[0]
	if got := *b.Metrics.RequestTotals; rep.Run.Merge.Path != PathRecords || got.Total != 160 || got != sum {
		t.Fatalf("merged from %s: %+v, want the shards' sum %+v (160)", rep.Run.Merge.Path, got, sum)
	}
	if b.Extras.Requests.Recorded != 162 {
		t.Fatalf("merged: %d recorded, want 162", b.Extras.Requests.Recorded)
	}
	// Each shard's accumulator placed its 81st request in its histograms
	// before its stop was known (a shard's own inexact reason, which the
	// merge repeats); the merge adds none of its own.
	for _, r := range b.Extras.InexactReasons {
		if !strings.HasPrefix(r, "shard ") {
			t.Errorf("the merge's own inexact reason: %s", r)
		}
	}
	checkGuideLLM(t, rep)
}

// TestMergeEmptyShard: a shard with no share of the round (more shards
// than streams) is a valid empty shard, and both merge paths take it.
func TestMergeEmptyShard(t *testing.T) {
	t.Parallel()
	fx := buildShardSet(t, []int{30, 30, 0})
	if b := fx.files[2].Report.Benchmarks[0]; b.Metrics.RequestTotals.Total != 0 || !b.Extras.Shard.Empty {
		t.Fatalf("empty shard %+v", b.Metrics.RequestTotals)
	}
	checkGuideLLM(t, fx.files[2].Report)
	for _, records := range []bool{true, false} {
		files := slices.Clone(fx.files)
		if !records {
			for i := range files {
				files[i].Records = nil
			}
		}
		rep, err := Shards(context.Background(), files, Options{})
		if err != nil {
			t.Fatal(err)
		}
		b := rep.Benchmarks[0]
		if b.Metrics.RequestTotals.Total != 60 || b.Extras.StopReason != report.ConstraintMaxDuration || len(rep.Run.Merge.Rounds[0].Shards) != 3 {
			t.Fatalf("records %v: totals %+v, stop %q", records, b.Metrics.RequestTotals, b.Extras.StopReason)
		}
		checkGuideLLM(t, rep)
	}
}

// TestMergeFromHistograms: without records, counts and sums add exactly,
// moments are exact, percentiles of histogram metrics are within the
// histograms' precision of the exact ones and equal, exactly, to those of
// one histogram fed every sample.
func TestMergeFromHistograms(t *testing.T) {
	t.Parallel()
	fx := buildShards(t, 3, 60)
	for i := range fx.files {
		fx.files[i].Records = nil
	}
	rep, err := Shards(context.Background(), fx.files, Options{NoRecordsReason: "test"})
	if err != nil {
		t.Fatal(err)
	}
	mi := rep.Run.Merge
	if mi.Path != PathHistograms || mi.Exact || mi.Reason != "test" {
		t.Fatalf("merge info %+v", mi)
	}
	got, want := rep.Benchmarks[0], fx.reference(t)
	if got.Extras.Exact || len(got.Extras.InexactReasons) < 4 {
		t.Fatalf("exact %v, reasons %q", got.Extras.Exact, got.Extras.InexactReasons)
	}
	if *got.Metrics.RequestTotals != *want.Metrics.RequestTotals || got.Extras.Requests != want.Extras.Requests ||
		!mapsEqual(got.Extras.Errors.ByClass, want.Extras.Errors.ByClass) || got.Extras.Errors.ErrorRate != want.Extras.Errors.ErrorRate {
		t.Fatalf("counts: got %+v %+v, want %+v %+v", got.Metrics.RequestTotals, got.Extras.Requests, want.Metrics.RequestTotals, want.Extras.Requests)
	}
	if got.Extras.TokenMismatch.Compared != want.Extras.TokenMismatch.Compared || got.Extras.TokenMismatch.Equal != want.Extras.TokenMismatch.Equal {
		t.Fatalf("token mismatch %+v, want %+v", got.Extras.TokenMismatch, want.Extras.TokenMismatch)
	}
	// Per-request latencies keep intervals, from the merged histogram: the
	// exact ones widened by at most its precision, never narrowed.
	for _, pair := range [][2]*report.DistributionSummary{
		{got.Extras.Metrics.TimeToFirstTokenMs.Successful, want.Extras.Metrics.TimeToFirstTokenMs.Successful},
		{got.Extras.Metrics.RequestLatency.Successful, want.Extras.Metrics.RequestLatency.Successful},
	} {
		g, w := pair[0].PercentileCIs, pair[1].PercentileCIs
		if g == nil || pair[0].MeanCI == nil || w == nil {
			t.Fatalf("merged intervals missing: %+v", pair[0])
		}
		gl, wl := g.P50.Lower, w.P50.Lower
		gu, wu := g.P50.Upper, w.P50.Upper
		if gl == nil || gu == nil || *gl > *wl || *gu < *wu || float64(*gl) < float64(*wl)*0.998 || float64(*gu) > float64(*wu)*1.002 {
			t.Errorf("merged p50 interval %+v, exact %+v", g.P50, w.P50)
		}
	}
	// Each histogram-backed distribution equals, percentile for percentile,
	// the one a single histogram fed every in-window sample gives, and its
	// moments equal the exact ones.
	var all []*record.Record
	for _, recs := range fx.recs {
		all = append(all, recs...)
	}
	ttft := func(s *accum.RequestSummary) (int64, bool) { return s.TTFTNs() }
	lat := func(s *accum.RequestSummary) (int64, bool) { return s.LatencyNs() }
	late := func(s *accum.RequestSummary) (int64, bool) { return s.LatenessNs() }
	cases := []struct {
		name      string
		got, want *report.StatusDistributionSummary
		single    *report.StatusDistributionSummary
	}{
		{"time_to_first_token_ms", got.Metrics.TimeToFirstTokenMs, want.Metrics.TimeToFirstTokenMs, singleHist(all, ttft, true, 1e6)},
		{"request_latency", got.Metrics.RequestLatency, want.Metrics.RequestLatency, singleHist(all, lat, true, 1e9)},
		{"goodput time_to_first_token_ms", got.Extras.Metrics.TimeToFirstTokenMs, want.Extras.Metrics.TimeToFirstTokenMs, singleHist(all, ttft, false, 1e6)},
		{"goodput dispatch_lateness_ms", got.Extras.Metrics.DispatchLatenessMs, want.Extras.Metrics.DispatchLatenessMs, singleHist(all, late, false, 1e6)},
		{"goodput itl_per_gap_ms", got.Extras.Metrics.ITLPerGapMs, want.Extras.Metrics.ITLPerGapMs, want.Extras.Metrics.ITLPerGapMs},
		{"goodput time_to_second_token_ms", got.Extras.Metrics.TimeToSecondTokenMs, want.Extras.Metrics.TimeToSecondTokenMs, want.Extras.Metrics.TimeToSecondTokenMs},
		{"inter_token_latency_ms", got.Metrics.InterTokenLatencyMs, want.Metrics.InterTokenLatencyMs, nil},
		{"time_per_output_token_ms", got.Metrics.TimePerOutputTokenMs, want.Metrics.TimePerOutputTokenMs, nil},
	}
	for _, c := range cases {
		for st := uint8(0); st <= report.NumStatus; st++ {
			g, w := c.got.ByStatus(st), c.want.ByStatus(st)
			if g.Count != w.Count || g.Min != w.Min || g.Max != w.Max || !closeRel(float64(g.Mean), float64(w.Mean), 1e-9) ||
				math.Abs(float64(g.StdDev-w.StdDev)) > 1e-6*(math.Abs(float64(w.Mean))+float64(w.StdDev)) {
				t.Errorf("%s status %d moments: got %v %v %v %v %v, want %v %v %v %v %v", c.name, st,
					g.Count, g.Mean, g.StdDev, g.Min, g.Max, w.Count, w.Mean, w.StdDev, w.Min, w.Max)
			}
			if c.single == nil {
				continue
			}
			if s := c.single.ByStatus(st); percentileList(g) != percentileList(s) || g.Mode != s.Mode {
				t.Errorf("%s status %d: percentiles %v mode %v, one histogram of every sample gives %v mode %v",
					c.name, st, percentileList(g), g.Mode, percentileList(s), s.Mode)
			}
		}
	}
	// Errored requests have no TTFT: GuideLLM counts them as 0.
	if e := got.Metrics.TimeToFirstTokenMs.Errored; e.Count == 0 || e.Max != 0 || *e.Percentiles.P50 != 0 {
		t.Fatalf("errored TTFT %+v", e)
	}
	// Windows: the union of the shards' (identical here).
	if *got.StartTime != *want.StartTime || *got.EndTime != *want.EndTime {
		t.Fatalf("window %v..%v, want %v..%v", *got.StartTime, *got.EndTime, *want.StartTime, *want.EndTime)
	}
	if n := len(got.Requests.Successful); n != 5 {
		t.Fatalf("%d sampled successful requests, want the sample size 5", n)
	}
	checkGuideLLM(t, rep)
}

// singleHist summarises one histogram per status fed the value f gives
// every valid record (with zeroFill, GuideLLM's 0 for records without
// one), as the accumulator's histograms do.
func singleHist(recs []*record.Record, f func(*accum.RequestSummary) (int64, bool), zeroFill bool, scale float64) *report.StatusDistributionSummary {
	var accs [report.NumStatus]*stats.HistAcc
	for st := range accs {
		accs[st] = stats.NewHistAcc()
	}
	for _, r := range recs {
		s, ok := accum.Summarize(r)
		if !ok {
			continue
		}
		st := map[record.Status]uint8{record.StatusSuccessful: report.StatusSuccessful, record.StatusErrored: report.StatusErrored, record.StatusIncomplete: report.StatusIncomplete}[r.Status]
		if v, ok := f(&s); ok {
			accs[st].Record(v, 1)
		} else if zeroFill {
			accs[st].Record(0, 1)
		}
	}
	return accum.StatusFromAccs(accs, scale, 0)
}

func closeRel(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(math.Abs(b), 1e-300) || a == b
}

func mapsEqual(a, b map[string]report.Int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestHistSummaryEqualsSingleHistogram: percentiles from histograms merged
// from shards equal those of one histogram fed every sample, exactly.
func TestHistSummaryEqualsSingleHistogram(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := 0; trial < 20; trial++ {
		all := stats.NewHistAcc()
		parts := make([]*stats.HistAcc, 1+trial%5)
		for i := range parts {
			parts[i] = stats.NewHistAcc()
		}
		n := 1 + rng.IntN(5000)
		for j := 0; j < n; j++ {
			v := int64(math.Exp(rng.NormFloat64()*2+16)) + 1 // log-normal ns, ~ms scale
			w := int64(1 + rng.IntN(3))
			all.Record(v, w)
			parts[rng.IntN(len(parts))].Record(v, w)
		}
		var encs []string
		var sums []*report.DistributionSummary
		for _, p := range parts {
			if p.Total == 0 {
				continue
			}
			s, err := stats.EncodeHistogram(p.Hist)
			if err != nil {
				t.Fatal(err)
			}
			encs = append(encs, s)
			d := p.Summary(1e6)
			sums = append(sums, &d)
		}
		h, err := stats.MergeHistograms(encs...)
		if err != nil {
			t.Fatal(err)
		}
		mom := momentSummary(sums)
		got := histSummary(mom, h, 0, histClamp{min: mom.Min, max: mom.Max, lo: math.Round(float64(mom.Min) * 1e6), hi: math.Round(float64(mom.Max) * 1e6), scale: 1e6})
		want := all.Summary(1e6)
		if percentileList(&got) != percentileList(&want) || got.Mode != want.Mode || got.Median != want.Median ||
			got.Min != want.Min || got.Max != want.Max || got.Count != want.Count {
			t.Fatalf("trial %d: merged %+v\nsingle %+v", trial, got, want)
		}
		if !closeRel(float64(got.Mean), float64(want.Mean), 1e-12) || !closeRel(float64(got.StdDev), float64(want.StdDev), 1e-9) {
			t.Fatalf("trial %d: mean %v sd %v, want %v %v", trial, got.Mean, got.StdDev, want.Mean, want.StdDev)
		}
	}
}

func TestMixtureAndSumSummaries(t *testing.T) {
	t.Parallel()
	point := func(v float64, n int64) *report.DistributionSummary {
		d := stats.ZeroSummary(n)
		for k := range report.PercentileProbs {
			d.Percentiles.Set(k, v)
		}
		d.Mean, d.Median, d.Mode, d.Min, d.Max, d.TotalSum = report.Float(v), report.Float(v), report.Float(v), report.Float(v), report.Float(v), report.Float(v*float64(n))
		return &d
	}
	// One request at 10 and three at 20: 25% at 10.
	m := mixtureSummary([]*report.DistributionSummary{point(10, 1), point(20, 3), nil})
	want := [11]float64{10, 10, 10, 10, 10, 20, 20, 20, 20, 20, 20}
	if percentileList(&m) != want || m.Mean != 17.5 || m.Variance != 18.75 || m.Count != 4 || m.Min != 10 || m.Max != 20 || m.Mode != 20 || m.TotalSum != 70 {
		t.Fatalf("mixture %+v", m)
	}
	// Identical shards keep their percentiles.
	if s := mixtureSummary([]*report.DistributionSummary{point(5, 2), point(5, 7)}); percentileList(&s) != percentileList(point(5, 9)) || s.Count != 9 {
		t.Fatalf("identical mixture %+v", s)
	}
	// Two shards of 2 and 3 req/s side by side: 5 req/s.
	s := sumSummary([]*report.DistributionSummary{point(2, 10), point(3, 15), point(0, 0)})
	if percentileList(&s) != percentileList(point(5, 1)) || s.Mean != 5 || s.Count != 25 || s.TotalSum != 125 || s.StdDev != 0 {
		t.Fatalf("sum %+v", s)
	}
	if e := mixtureSummary(nil); e.Count != 0 || e.Percentiles.P50 == nil {
		t.Fatalf("empty %+v", e)
	}
}

// edit rewrites a shard's report through its JSON (as a user or another
// run would leave it on disk).
func edit(t *testing.T, f File, name string, change func(m map[string]any)) File {
	t.Helper()
	raw, err := f.Report.MarshalJSONBytes()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // keep Unix-ns integers exact
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	change(m)
	raw, _ = json.Marshal(m)
	r, err := report.Decode(bytes.NewReader(raw), name)
	if err != nil {
		t.Fatal(err)
	}
	return File{Name: name, Report: r}
}

func path(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		switch v := m[k].(type) {
		case map[string]any:
			m = v
		case []any:
			m = v[0].(map[string]any)
		}
	}
	return m
}

func TestMergeRefusals(t *testing.T) {
	t.Parallel()
	fx := buildShards(t, 3, 20)
	f := fx.files
	for i := range f {
		f[i].Records = nil
	}
	cases := []struct {
		name   string
		files  []File
		file   string // the file the message must name ("" for none)
		substr string
	}{
		{"missing", []File{f[0], f[2]}, "", "missing shard 1 of 3"},
		{"duplicate", []File{f[0], f[1], f[2], edit(t, f[1], "copy.json", func(map[string]any) {})}, "copy.json", "duplicate shard index 1"},
		{"another configuration", []File{f[0], f[1], edit(t, f[2], "other.json", func(m map[string]any) {
			path(m, "goodput", "shard")["config_hash"] = "beef"
		})}, "other.json", "configuration hash beef differs"},
		{"other count", []File{f[0], f[1], edit(t, f[2], "four.json", func(m map[string]any) {
			path(m, "goodput", "shard")["count"] = 4
		})}, "four.json", "shard count 4"},
		{"late", []File{f[0], edit(t, f[1], "late.json", func(m map[string]any) {
			sm := path(m, "benchmarks", "scheduler_metrics")
			v, _ := sm["request_start_time"].(json.Number).Float64()
			sm["request_start_time"] = v + 2
		}), f[2]}, "late.json", "late shard"},
		{"windows apart", []File{f[0], edit(t, f[1], "apart.json", func(m map[string]any) {
			b := path(m, "benchmarks")
			st, _ := b["start_time"].(json.Number).Float64()
			en, _ := b["end_time"].(json.Number).Float64()
			b["start_time"], b["end_time"] = st+100, en+100
		}), f[2]}, "apart.json", "does not overlap"},
		{"not a shard", []File{f[0], edit(t, f[1], "plain.json", func(m map[string]any) {
			delete(path(m, "goodput"), "shard")
		}), f[2]}, "plain.json", "not a shard report"},
		{"incomplete", []File{f[0], f[1], edit(t, f[2], "short.json", func(m map[string]any) {
			m["benchmarks"] = []any{}
		})}, "short.json", "has 0 benchmarks"},
		{"none", nil, "", "no shard reports"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Shards(context.Background(), c.files, Options{})
			var mr *Refusal
			if !errors.As(err, &mr) {
				t.Fatalf("err %v, want a refusal", err)
			}
			msg := err.Error()
			if mr.File != c.file || !strings.Contains(msg, c.substr) || strings.Contains(msg, "\n") {
				t.Fatalf("refusal %q (file %q), want one line naming %q containing %q", msg, mr.File, c.file, c.substr)
			}
		})
	}
	// Records that belong to another shard are refused.
	fx2 := buildShards(t, 2, 20)
	fx2.files[0].Records, fx2.files[1].Records = fx2.files[1].Records, fx2.files[0].Records
	if _, err := Shards(context.Background(), fx2.files, Options{}); err == nil || !strings.Contains(err.Error(), "shard 1's") {
		t.Fatalf("swapped records: %v", err)
	}
}

// checkGuideLLM runs GuideLLM v0.7.3's loader rules on a merged report
// (not under -short: two python3 processes per report).
func checkGuideLLM(t *testing.T, r *report.Report) {
	t.Helper()
	if testing.Short() {
		return // the loader rules run in make check
	}
	checker := filepath.Join("..", "testdata", "guidellm_v2_check.py")
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Log("python3 not found: GuideLLM loader check skipped")
		return
	}
	if _, err := os.Stat(checker); err != nil {
		t.Logf("checker not found: %v", err)
		return
	}
	p := filepath.Join(t.TempDir(), "merged.json")
	raw, err := r.MarshalJSONBytes()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, checker, p).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "OK" {
		t.Fatalf("GuideLLM loader check: %v\n%s", err, out)
	}
	// Strict mode: only the keys GuideLLM's loader drops on purpose.
	out, _ = exec.Command(py, checker, "--strict", p).CombinedOutput()
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line != "OK" && !strings.HasPrefix(line, "metadata.goodput_version: ") && !strings.HasPrefix(line, "goodput: ") && !strings.HasSuffix(line, " violations") {
			t.Fatalf("GuideLLM strict check: %s\n%s", line, out)
		}
	}
}

func TestBenchmarkIDMatchesFinish(t *testing.T) {
	t.Parallel()
	acc, err := accum.New(accum.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if b := acc.Finish(accum.BenchmarkInfo{RunID: "run-7", RunIndex: 3}); b.Config.ID != report.BenchmarkID("run-7", 3) {
		t.Fatalf("Finish derives %q, BenchmarkID gives %q", b.Config.ID, report.BenchmarkID("run-7", 3))
	}
}

// FuzzMergeShardReport merges two good shards with a third read from
// arbitrary bytes: the merge either succeeds or fails with one line, and
// never panics.
func FuzzMergeShardReport(f *testing.F) {
	fx := buildShards(f, 3, 8)
	raw, err := fx.files[2].Report.MarshalJSONBytes()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
	f.Add([]byte(strings.Replace(string(raw), `"index": 2`, `"index": 7`, 1)))
	f.Add([]byte(strings.Replace(string(raw), `"rounds": 1`, `"rounds": 0`, 1)))
	f.Add([]byte(`{"metadata":{"version":2,"goodput_version":"x"},"benchmarks":[{"goodput":{"shard":{}}}],"goodput":{"shard":{"count":3,"index":2,"rounds":1,"config_hash":"cafe","start_at_ns":1000000000000,"round_seconds":2}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := report.Decode(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			return
		}
		for _, records := range []bool{false, true} {
			files := []File{fx.files[0], fx.files[1], {Name: "fuzz.json", Report: r}}
			if records {
				files[2].Records = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(fx.jsonl[2])), nil }
			} else {
				files[0].Records, files[1].Records = nil, nil
			}
			if _, err := Shards(context.Background(), files, Options{}); err != nil && strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error: %q", err)
			}
		}
	})
}

// BenchmarkMergeShards merges 4 shards of 2,000 requests each, from the
// records and from the histograms.
func BenchmarkMergeShards(b *testing.B) {
	fx := buildShards(b, 4, 2000)
	for _, records := range []bool{true, false} {
		name := "histograms"
		if records {
			name = "records"
		}
		b.Run(name, func(b *testing.B) {
			files := slices.Clone(fx.files)
			if !records {
				for i := range files {
					files[i].Records = nil
				}
			}
			for b.Loop() {
				if _, err := Shards(context.Background(), files, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/8000, "µs/request")
		})
	}
}

// The shards' prompt-token comparisons add up and their overheads mix per
// request type; shards without them leave the keys absent.
func TestMergePromptTokens(t *testing.T) {
	t.Parallel()
	point := func(v float64, n report.Int) *report.DistributionSummary {
		d := stats.ZeroSummary(int64(n))
		d.Mean, d.Median, d.Mode, d.Min, d.Max, d.TotalSum = report.Float(v), report.Float(v), report.Float(v), report.Float(v), report.Float(v), report.Float(v*float64(n))
		for k := range report.PercentileProbs {
			d.Percentiles.Set(k, v)
		}
		return &d
	}
	shard := func(n report.Int, diff float64) *report.Benchmark {
		d := point(diff, n)
		o := point(diff, n)
		return &report.Benchmark{Extras: &report.Extras{
			PromptTokenMismatch: &report.TokenMismatch{Compared: n, ServerHigher: n, Difference: d},
			PromptOverhead:      map[string]*report.PromptOverhead{"chat_completions": {Applied: 0, Tokens: o}},
		}}
	}
	var ex report.Extras
	mergePromptTokens(&ex, []*report.Benchmark{shard(3, 5), shard(1, 5)})
	pm, ov := ex.PromptTokenMismatch, ex.PromptOverhead["chat_completions"]
	if pm == nil || pm.Compared != 4 || pm.ServerHigher != 4 || pm.Difference.Mean != 5 || ov == nil || ov.Tokens.Count != 4 || ov.Tokens.Mean != 5 {
		t.Errorf("merged prompt mismatch %+v, overhead %+v", pm, ex.PromptOverhead)
	}
	var none report.Extras
	mergePromptTokens(&none, []*report.Benchmark{{Extras: &report.Extras{}}})
	if none.PromptTokenMismatch != nil || none.PromptOverhead != nil {
		t.Errorf("shards without prompt counts: %+v %+v", none.PromptTokenMismatch, none.PromptOverhead)
	}
}

// TestMergeClient: the shards' client loads combine as documented: CPU,
// cores and procs add, lags are the worst shard's, GOGC the largest, the
// HTTP client named once or "mixed", saturated if any shard was.
func TestMergeClient(t *testing.T) {
	t.Parallel()
	bench := func(c report.ClientLoad) *report.Benchmark {
		return &report.Benchmark{Extras: &report.Extras{Client: &c}}
	}
	got := mergeClient([]*report.Benchmark{
		bench(report.ClientLoad{CPUSeconds: 1, WallSeconds: 10, Cores: 0.1, MaxProcs: 2, SchedLagP99us: 30, GOGC: 50, HTTPClient: "goodput"}),
		{}, // a shard without goodput's figures
		{Extras: &report.Extras{}},
		bench(report.ClientLoad{CPUSeconds: 2, WallSeconds: 12, Cores: 0.2, MaxProcs: 4, SchedLagP99us: 20, GOGC: 100, HTTPClient: "goodput",
			Saturated: true, Reason: "timer lag"}),
	})
	if got == nil {
		t.Fatal("no merged client load")
	}
	if got.CPUSeconds != 3 || got.WallSeconds != 12 || math.Abs(float64(got.Cores)-0.3) > 1e-9 || got.MaxProcs != 6 {
		t.Errorf("cpu %v wall %v cores %v procs %v, want 3, 12, 0.3, 6", got.CPUSeconds, got.WallSeconds, got.Cores, got.MaxProcs)
	}
	if got.SchedLagP99us != 30 || got.GOGC != 100 || got.HTTPClient != "goodput" {
		t.Errorf("sched lag %v, gogc %d, http client %q; want 30, 100, goodput", got.SchedLagP99us, got.GOGC, got.HTTPClient)
	}
	if !got.Saturated || !strings.Contains(got.Reason, "shard 3: timer lag") {
		t.Errorf("saturated %v, reason %q", got.Saturated, got.Reason)
	}
}
