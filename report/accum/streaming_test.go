package accum

import (
	"testing"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
)

// TestMeasureStreamEtalon checks the deadlines against values computed by
// hand (and by Etalon's get_request_level_deadline_miss_rate on the same
// inter-token times).
func TestMeasureStreamEtalon(t *testing.T) {
	cases := []struct {
		name              string
		start             int64
		times             []int64
		tokens            []int32
		ttft, tbt         int64
		stall             int64
		missed, deadlines int64
	}{
		// gaps 80 60 30 200 50, TTFT deadline 100, TBT 50: on time with
		// slack 20, 10, 30; the 200 gap misses ⌊(200−30)/50⌋ = 3; then on
		// time: 3 missed of 7.
		{"slack carried", 1000, []int64{1080, 1140, 1170, 1370, 1420}, nil, 100, 50, 200, 3, 7},
		// a late first token misses 1 + ⌊(260−100)/50⌋ = 4; a 60 gap 1;
		// a chunk of 3 tokens gives 2 zero gaps (slack 100); 130 on time.
		{"late first token, multi-token chunk", 1000, []int64{1260, 1320, 1450}, []int32{1, 3, 1}, 100, 50, 130, 5, 8},
		// TTFT deadline 0: the first token is not judged (Etalon's
		// should_ignore_first_token).
		{"first token ignored", 500, []int64{1000, 1060, 1090, 1290, 1340}, nil, 0, 50, 200, 4, 6},
		{"no TBT deadline", 0, []int64{10, 20, 45}, nil, 100, 0, 25, 0, 0},
		{"one chunk", 1000, []int64{1010}, nil, 100, 50, 0, 0, 1},
	}
	for _, c := range cases {
		got := MeasureStream(c.start, c.times, c.tokens, c.ttft, c.tbt)
		if got.StallNs != c.stall || got.HasStall != (len(c.times) > 1) || got.Missed != c.missed || got.Deadlines != c.deadlines {
			t.Errorf("%s: got %+v, want stall %d, missed %d of %d", c.name, got, c.stall, c.missed, c.deadlines)
		}
	}
	if f, ok := MeasureStream(1000, cases[0].times, nil, 100, 50).Fluidity(); !ok || f != 1-3.0/7 {
		t.Errorf("fluidity = %v, %v; want 4/7", f, ok)
	}
	if _, ok := (Stream{}).Fluidity(); ok {
		t.Error("a stream without deadlines has a fluidity index")
	}
}

// streamRecord is a successful streamed request dispatched at start with
// chunks at the given offsets (ns).
func streamRecord(id uint64, start int64, offs ...int64) *record.Record {
	r := record.New()
	r.ID, r.Status = id, record.StatusSuccessful
	r.Intended, r.Dispatched, r.Sent = start, start, start
	for _, o := range offs {
		r.ChunkTimes = append(r.ChunkTimes, start+o)
	}
	r.FirstToken, r.FirstOutputToken = r.ChunkTimes[0], r.ChunkTimes[0]
	r.LastToken = r.ChunkTimes[len(offs)-1]
	r.End = r.LastToken + 1e6
	r.OutputTokens, r.OutputSource, r.ServerOutputTokens = len(offs), record.TokensUsage, len(offs)
	r.PromptTokens, r.ServerPromptTokens = 10, 10
	return r
}

func TestAccumulatorStreaming(t *testing.T) {
	const ms = int64(1e6)
	a, err := New(Config{Streaming: &StreamingConfig{TTFTDeadlineNs: 100 * ms, TBTDeadlineNs: 50 * ms, FluidityFloor: 0.8},
		SliceNs: 1000 * ms, Percentiles: []float64{50, 99.9}})
	if err != nil {
		t.Fatal(err)
	}
	base := int64(1_700_000_000) * 1e9
	// smooth: 4 deadlines met; stalled: 2 missed of 5 (fluidity 0.6).
	a.Add(streamRecord(1, base, 50*ms, 100*ms, 150*ms, 200*ms))
	a.Add(streamRecord(2, base+1500*ms, 50*ms, 100*ms, 250*ms, 300*ms))
	b := a.Finish(BenchmarkInfo{})
	q := b.Extras.Streaming
	if q == nil {
		t.Fatal("no streaming extras")
	}
	if q.Requests != 2 || q.LongestStallMs.Max != 150 || q.LongestStallMs.Min != 50 {
		t.Errorf("stalls: requests %d, %+v", q.Requests, q.LongestStallMs)
	}
	if q.DeadlineMisses.Max != 2 || q.FluidityIndex.Min != 0.6 || q.FluidityIndex.Max != 1 || q.AboveFloor != 0.5 {
		t.Errorf("deadlines: misses %+v, fluidity %+v, above floor %v", q.DeadlineMisses, q.FluidityIndex, q.AboveFloor)
	}
	sl := b.Extras.Slices
	if sl == nil || len(sl.Slices) != 2 || sl.Slices[0].Successful != 1 || sl.Slices[1].Successful != 1 {
		t.Fatalf("slices: %+v", sl)
	}
	if got := sl.Slices[1].TTFTMs["p50"]; got != 50 {
		t.Errorf("slice 1 TTFT p50 = %v, want 50", got)
	}
	pt := b.Extras.Percentiles
	if pt == nil || len(pt.Percentiles) != 2 {
		t.Fatalf("percentile table: %+v", pt)
	}
	if v := pt.Metrics["time_to_first_token_ms"]["p99.9"]; v < 49.9 || v > 50.1 {
		t.Errorf("TTFT p99.9 = %v, want 50 (within 0.1%%)", v)
	}
	var none *report.StreamingQuality
	a2, _ := New(Config{})
	a2.Add(streamRecord(1, base, 50*ms, 100*ms))
	if ex := a2.Finish(BenchmarkInfo{}).Extras; ex.Streaming != none || ex.Slices != nil || ex.Percentiles != nil {
		t.Error("streaming, slices or percentiles without being asked for")
	}
}

func TestStreamingBeyondExactCap(t *testing.T) {
	const ms = int64(1e6)
	a, err := New(Config{ExactCap: 3, Streaming: &StreamingConfig{TBTDeadlineNs: 50 * ms}})
	if err != nil {
		t.Fatal(err)
	}
	base := int64(1_700_000_000) * 1e9
	for i := range 5 {
		a.Add(streamRecord(uint64(i+1), base+int64(i)*100*ms, 50*ms, 100*ms))
	}
	ex := a.Finish(BenchmarkInfo{}).Extras
	q := ex.Streaming
	if q.Requests != 5 || q.Kept != 3 || q.LongestStallMs.Count != 3 || ex.Exact {
		t.Errorf("requests %d, kept %d, stall count %v, exact %v", q.Requests, q.Kept, q.LongestStallMs.Count, ex.Exact)
	}
}
