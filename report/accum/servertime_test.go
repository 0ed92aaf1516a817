package accum

import (
	"testing"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
)

// TestServerTime: three successful streamed requests with llama-server
// timings, one without, one errored with timings. By hand:
//
//	TTFT (ms)  prompt_ms  predicted_n  predicted_ms  TTFT − prompt_ms  decode/token
//	   50         40          5            40               10              10
//	   30         27          1             0                3               —
//	   80         60          3            12               20               6
//
// prefill p50 40, mean 42.33…; decode per token {6, 10}; remainder
// {3, 10, 20}, mean 11; prefill share 127/160.
func TestServerTime(t *testing.T) {
	const ms = int64(1e6)
	a, err := New(Config{Start: base, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	add := func(id uint64, status record.Status, ttft int64, tm *record.ServerTimings) {
		r := record.New()
		r.ID, r.Status = id, status
		r.Intended, r.Dispatched = base+int64(id)*ms, base+int64(id)*ms
		first := r.Dispatched + ttft*ms
		r.ChunkTimes = []int64{first, first + 10*ms}
		r.FirstChunk, r.FirstToken, r.FirstOutputToken, r.LastToken, r.End = first, first, first, first+10*ms, first+10*ms
		r.PromptTokens, r.OutputTokens, r.OutputSource = 100, 2, record.TokensUsage
		if status == record.StatusErrored {
			r.ErrorClass, r.HTTPStatus = record.ErrStreamError, 200
		}
		if tm != nil {
			r.ServerTimings = *tm
		}
		a.Add(r)
	}
	tm := func(prompt, predicted, n int64) *record.ServerTimings {
		st := record.UnknownServerTimings()
		st.PromptNS, st.PredictedNS, st.PredictedTokens = prompt*ms, predicted*ms, int(n)
		return &st
	}
	add(1, record.StatusSuccessful, 50, tm(40, 40, 5))
	add(2, record.StatusSuccessful, 30, tm(27, 0, 1))
	add(3, record.StatusSuccessful, 80, tm(60, 12, 3))
	add(4, record.StatusSuccessful, 70, nil)
	add(5, record.StatusErrored, 20, tm(500, 0, 1))
	b := a.Finish(BenchmarkInfo{RunID: "s", Start: base})
	st := b.Extras.ServerTime
	if st == nil {
		t.Fatal("no server_time")
	}
	if st.Requests != 3 || st.Source != "timings" || st.TTFTBelowPrefill != 0 {
		t.Fatalf("requests %d source %q below %d, want 3 timings 0", st.Requests, st.Source, st.TTFTBelowPrefill)
	}
	check := func(name string, q *report.Quantiles, count int64, mean, p50, max float64) {
		t.Helper()
		if q == nil {
			t.Fatalf("%s missing", name)
		}
		if int64(q.Count) != count || !stNear(float64(q.Mean), mean) || !stNear(float64(q.P50), p50) || !stNear(float64(q.Max), max) {
			t.Errorf("%s = %+v, want count %d mean %v p50 %v max %v", name, *q, count, mean, p50, max)
		}
	}
	check("prefill_ms", st.PrefillMs, 3, 127.0/3, 40, 60)
	check("decode_per_token_ms", st.DecodePerTokenMs, 2, 8, 6, 10)
	check("ttft_outside_prefill_ms", st.TTFTOutsidePrefillMs, 3, 11, 10, 20)
	if st.PrefillShareOfTTFT == nil || !stNear(float64(*st.PrefillShareOfTTFT), 127.0/160) {
		t.Errorf("prefill share %v, want %v", st.PrefillShareOfTTFT, 127.0/160)
	}

	// Without timings there is no key.
	a, _ = New(Config{Start: base, Seed: 1})
	r := record.New()
	r.ID, r.Status, r.Dispatched, r.End = 1, record.StatusSuccessful, base, base+ms
	a.Add(r)
	if b := a.Finish(BenchmarkInfo{RunID: "s", Start: base}); b.Extras.ServerTime != nil {
		t.Fatalf("server_time without timings: %+v", b.Extras.ServerTime)
	}
}

func stNear(a, b float64) bool { d := a - b; return d < 1e-9 && d > -1e-9 }
