package measure

import (
	"math"
	"testing"

	"github.com/goodput-dev/goodput/record"
)

const sec = int64(1e9)

// stream makes a streamed request dispatched at d (s from the origin) with
// one chunk per entry of times (s), each carrying per tokens when per > 0
// (server usage), else an even share of out.
func stream(origin int64, d float64, times []float64, out, prompt int, per int32, ok bool) *record.Record {
	r := record.New()
	r.Dispatched = origin + int64(d*1e9)
	for _, x := range times {
		r.ChunkTimes = append(r.ChunkTimes, origin+int64(x*1e9))
		if per > 0 {
			r.ChunkTokens = append(r.ChunkTokens, per)
		}
	}
	r.FirstToken = r.ChunkTimes[0]
	r.End = r.ChunkTimes[len(r.ChunkTimes)-1] + sec/100
	r.OutputTokens, r.PromptTokens = out, prompt
	r.Status = record.StatusSuccessful
	if !ok {
		r.Status = record.StatusErrored
	}
	return r
}

func TestTokenBins(t *testing.T) {
	origin := int64(1_781_604_000) * sec
	var b tokenBins
	b.reset(origin)
	// Request 1: chunks at 0.5 s, 1.5 s, 2.5 s, 3.5 s, 8 output tokens (2 per chunk).
	b.add(stream(origin, 0.4, []float64{0.5, 1.5, 2.5, 3.5}, 8, 100, 0, true))
	// Request 2: 3 chunks with server counts 1, 1, 1 at 2.2, 2.3, 2.4 s; errored.
	b.add(stream(origin, 2.0, []float64{2.2, 2.3, 2.4}, 3, 50, 1, false))
	// Request 3: non-streamed, 10 output tokens spread over [4 s, 6 s].
	r := record.New()
	r.Dispatched, r.End, r.OutputTokens, r.PromptTokens, r.Status = origin+4*sec, origin+6*sec, 10, 20, record.StatusSuccessful
	b.add(r)
	// Never dispatched: ignored.
	nd := record.New()
	nd.OutputTokens = 99
	b.add(nd)

	for _, tc := range []struct {
		name            string
		a, z            float64 // s from origin
		out, prompt     float64
		reqs, succeeded float64
	}{
		{"everything", 0, 10, 8 + 3 + 10, 170, 3, 2},
		// [1, 3]: request 1's chunks at 1.5 and 2.5 (4 tokens), request 2's
		// three (3 tokens, prompt 50 at its first token 2.2 s, end 2.41 s).
		{"middle", 1, 3, 7, 50, 1, 0},
		// [5, 6.05]: half of request 3's spread, and its end at 6 s (prompt
		// at the end), whose bin is [6, 6.05).
		{"spread half", 5, 6.05, 5, 20, 1, 1},
		// [5, 6]: bins are half-open, the end at 6 s is outside.
		{"spread half, end outside", 5, 6, 5, 0, 0, 0},
		// [4.5, 5]: a quarter of request 3.
		{"spread quarter", 4.5, 5, 2.5, 0, 0, 0},
		// An edge inside a 50 ms bin: [1.475, 1.525] holds the 1.5 s chunk
		// in full (its bin [1.5, 1.55) is half inside: counted as half).
		{"edge bin", 1.475, 1.525, 1, 0, 0, 0},
		{"empty", 7, 8, 0, 0, 0, 0},
		{"reversed", 3, 1, 0, 0, 0, 0},
	} {
		s := b.sum(origin+int64(tc.a*1e9), origin+int64(tc.z*1e9))
		if math.Abs(s[colOut]-tc.out) > 1e-9 || math.Abs(s[colPrompt]-tc.prompt) > 1e-9 ||
			math.Abs(s[colReqs]-tc.reqs) > 1e-9 || math.Abs(s[colOK]-tc.succeeded) > 1e-9 {
			t.Errorf("%s: out %g prompt %g reqs %g ok %g; want %g %g %g %g", tc.name,
				s[colOut], s[colPrompt], s[colReqs], s[colOK], tc.out, tc.prompt, tc.reqs, tc.succeeded)
		}
	}
}

// TestTokenBinsCoarsen: a round longer than maxBins × 50 ms merges bins;
// totals are kept and windows aligned to the coarser bins stay exact.
func TestTokenBinsCoarsen(t *testing.T) {
	origin := int64(0)
	var b tokenBins
	b.reset(origin + 1) // bins start 1 ns after 0; Unix 0 is never a real time
	origin++
	// One token every second for 3 × maxBins × 50 ms = 4915.2 s: 98,304
	// bins of 50 ms, 49,152 of 100 ms, so two coarsenings (200 ms).
	n := 3 * maxBins / 20
	for i := 0; i < n; i++ {
		b.add(stream(origin, float64(i), []float64{float64(i) + 0.01}, 1, 0, 0, true))
	}
	if len(b.bins) > maxBins || b.width != 4*initialBinWidth {
		t.Fatalf("%d bins of %v ns", len(b.bins), b.width)
	}
	all := b.sum(origin, origin+int64(n+1)*sec)
	if all[colOut] != float64(n) || all[colReqs] != float64(n) {
		t.Errorf("totals %g tokens %g requests, want %d", all[colOut], all[colReqs], n)
	}
	// [100 s, 200 s) holds the tokens at 100.01 … 199.01.
	if s := b.sum(origin+100*sec, origin+200*sec); math.Abs(s[colOut]-100) > 1e-9 {
		t.Errorf("window tokens %g, want 100", s[colOut])
	}
	// Reset keeps the memory and restarts at 50 ms bins.
	b.reset(origin)
	if len(b.bins) != 0 || b.width != initialBinWidth {
		t.Errorf("reset: %d bins of %d ns", len(b.bins), b.width)
	}
}

// BenchmarkTokenBinsAdd measures the observer's per-record cost (a 256-token
// streamed request, one token per chunk).
func BenchmarkTokenBinsAdd(b *testing.B) {
	origin := int64(1_781_604_000) * sec
	times := make([]float64, 256)
	for i := range times {
		times[i] = 1 + float64(i)*0.02
	}
	r := stream(origin, 0.9, times, 256, 1024, 0, true)
	var bins tokenBins
	bins.reset(origin)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bins.add(r)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/256, "ns/chunk")
}
