package mock

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// discardWriter is a ResponseWriter that throws the body away and allocates
// nothing once its header map holds the keys the handler sets.
type discardWriter struct {
	h       http.Header
	written int
	flushes int
}

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) WriteHeader(int)             {}
func (d *discardWriter) Write(b []byte) (int, error) { d.written += len(b); return len(b), nil }
func (d *discardWriter) Flush()                      { d.flushes++ }

// stepByStep is a tokenSchedule that knows one step at a time: due(i) is
// unknown until wait(i), and every step is already due once known. The
// writer then writes and flushes each step on its own, without sleeping,
// which exercises the per-step path (and the wait path a capacity model
// uses) as fast as the CPU allows.
type stepByStep struct {
	at    time.Time
	known int
}

func (s *stepByStep) due(i int) (time.Time, bool)         { return s.at, i <= s.known }
func (s *stepByStep) wait(_ context.Context, i int) error { s.known = i; return nil }
func (s *stepByStep) release()                            {}

// TestNoPerTokenAllocations: the allocations of a request do not grow with
// its length, both when every step is written separately (one write and one
// flush per token) and when all are written together.
func TestNoPerTokenAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items at random")
	}
	for _, perStep := range []bool{true, false} {
		cfg := fastConfig()
		s, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if perStep {
			s.newSchedule = func(st *stream, p *plan, arrival time.Time) tokenSchedule {
				return &stepByStep{at: arrival}
			}
		}
		h := s.Handler()
		w := &discardWriter{h: http.Header{}}
		allocs := func(tokens int) float64 {
			body := `{"messages":[{"role":"user","content":"hello"}],"max_tokens":` + itoa(tokens) +
				`,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true}}`
			return testing.AllocsPerRun(20, func() {
				req, _ := http.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(body))
				h.ServeHTTP(w, req)
			})
		}
		short, long := allocs(16), allocs(1024)
		t.Logf("perStep=%v: %.1f allocations per request of 16 tokens, %.1f of 1024 tokens", perStep, short, long)
		// The schedule in the per-step case is allocated per request (1);
		// sync.Pool may drop a pooled stream at a GC (a few). Per-token
		// allocations would add about 1000.
		if long > short+3 {
			t.Errorf("perStep=%v: %.1f allocations for 1024 tokens vs %.1f for 16: allocations grow with tokens", perStep, long, short)
		}
		if perStep && w.flushes < 1024 {
			t.Errorf("per-step schedule flushed %d times, want one flush per step", w.flushes)
		}
		s.Close()
	}
}
