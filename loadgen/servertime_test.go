package loadgen

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/report/accum"
)

// Against the mock's llamacpp personality, which reports llama-server's
// timings from its own schedule (prompt_ms from admission to the first
// token, predicted_ms from the first token to the last), every record
// carries them, and TTFT splits into the server's prefill and a remainder
// that is the loopback's request and response transit: never negative
// (the server's interval lies inside the client's) and small. The
// report's figures add up: mean prefill + mean remainder = mean TTFT.
func TestServerTimingsFromLlamaCpp(t *testing.T) {
	const (
		ttft   = 60 * time.Millisecond
		itl    = 4 * time.Millisecond
		tokens = 8
		n      = 8
	)
	srv := startMock(t, func(c *mock.Config) {
		c.Personality = mock.PersonalityLlamaCpp
		c.TTFT, c.ITL, c.OutputTokens, c.Stamp = ttft, itl, tokens, true
	})
	e := newEngine(t, ClientConfig{Target: srv.URL(), HTTPClient: HTTPClientGoodput})
	res, recs := collect(t, e, context.Background(), Benchmark{
		Strategy:    Strategy{Kind: Synchronous},
		Constraints: Constraints{MaxRequests: n},
		Source:      fixedSource{NewRequest("", "x", tokens)},
	})
	if len(recs) != n || res.Successful != n {
		t.Fatalf("%d records, %d successful", len(recs), res.Successful)
	}
	a, err := accum.New(accum.Config{Start: recs[0].Dispatched, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var sumTTFT float64
	for _, r := range recs {
		st := r.ServerTimings
		if !st.Present || st.PredictedTokens != tokens || st.PromptTokens != r.ServerPromptTokens || st.CachedTokens != 0 {
			t.Fatalf("timings %+v, usage prompt %d", st, r.ServerPromptTokens)
		}
		// The mock's schedule: the first token TTFT after admission (no
		// queue at one stream), the others ITL apart. Its clock is read
		// to the microsecond and a sleeping goroutine wakes late, never
		// early.
		if st.PromptNS < int64(ttft)-1000 || st.PromptNS > int64(ttft+40*time.Millisecond) {
			t.Errorf("prompt_ns %d, want %v plus scheduling slack", st.PromptNS, ttft)
		}
		// predicted_ms runs from the first token's emission to the last's,
		// as the mock's emit stamps show (to its microsecond clock). Later
		// steps keep to the schedule when the first was late, so a step
		// may be shorter than ITL; the last token is never early.
		if d := r.EmitTimes[len(r.EmitTimes)-1] - r.EmitTimes[0] - st.PredictedNS; d < -2000 || d > 2000 {
			t.Errorf("predicted_ns %d, emit stamps %d apart", st.PredictedNS, r.EmitTimes[len(r.EmitTimes)-1]-r.EmitTimes[0])
		}
		if per := st.PredictedNS / (tokens - 1); per > int64(itl+20*time.Millisecond) {
			t.Errorf("decode %d ns per token, want %v within slack", per, itl)
		}
		if total := st.PromptNS + st.PredictedNS; total < int64(ttft+(tokens-1)*itl)-1000 {
			t.Errorf("prompt + predicted %d ns, before the schedule's last token at %v", total, ttft+(tokens-1)*itl)
		}
		clientTTFT := r.FirstToken - r.Dispatched
		rest := clientTTFT - st.PromptNS
		// The loopback's transit both ways: request write to handler
		// (the emit stamp less prompt_ms is the admission) and the first
		// chunk's emission to its arrival.
		in := r.EmitTimes[0] - st.PromptNS - r.Dispatched
		out := r.FirstToken - r.EmitTimes[0]
		if rest < 0 || rest > int64(50*time.Millisecond) {
			t.Errorf("TTFT %d − prompt %d = %d ns, want within [0, 50 ms)", clientTTFT, st.PromptNS, rest)
		}
		if in < -int64(time.Millisecond) || out < -int64(time.Millisecond) || math.Abs(float64(in+out-rest)) > 1 {
			t.Errorf("transit in %d + out %d ns ≠ TTFT − prompt %d", in, out, rest)
		}
		sumTTFT += float64(clientTTFT) / 1e6
		a.Add(r)
	}
	b := a.Finish(accum.BenchmarkInfo{RunID: "t", Start: recs[0].Dispatched})
	s := b.Extras.ServerTime
	if s == nil || s.Requests != n || s.PrefillMs == nil || s.TTFTOutsidePrefillMs == nil || s.DecodePerTokenMs == nil {
		t.Fatalf("server_time %+v", s)
	}
	mean := sumTTFT / n
	if got := float64(s.PrefillMs.Mean) + float64(s.TTFTOutsidePrefillMs.Mean); math.Abs(got-mean) > 1e-6 {
		t.Errorf("prefill %v + rest %v = %v ms, mean TTFT %v", s.PrefillMs.Mean, s.TTFTOutsidePrefillMs.Mean, got, mean)
	}
	if tt := b.Metrics.TimeToFirstTokenMs; tt == nil || tt.Successful == nil || math.Abs(float64(tt.Successful.Mean)-mean) > 1e-6 {
		t.Errorf("report TTFT %+v, records' mean %v ms", tt, mean)
	}
	t.Logf("prefill mean %.3f ms, decode %.3f ms/token, TTFT − prefill mean %.3f ms (P99 %.3f)",
		s.PrefillMs.Mean, s.DecodePerTokenMs.Mean, s.TTFTOutsidePrefillMs.Mean, s.TTFTOutsidePrefillMs.P99)
}
