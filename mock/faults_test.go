package mock

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

const streamChat10 = `{` + chatMsgs + `,"max_tokens":10,"ignore_eos":true,"stream":true}`

func TestHTTPErrorFault(t *testing.T) {
	tests := []struct {
		codes      []int
		retryAfter string
		typ        string
	}{
		{[]int{429}, "1", "RateLimitError"},
		{[]int{500}, "", "InternalServerError"},
		{[]int{503}, "", "ServiceUnavailableError"},
	}
	for _, tc := range tests {
		cfg := fastConfig()
		cfg.ErrorRate, cfg.ErrorCodes = 1, tc.codes
		s := startServer(t, cfg)
		for _, body := range []string{streamChat10, `{"prompt":"x","max_tokens":3}`} {
			path := "/v1/chat/completions"
			if strings.Contains(body, "prompt") {
				path = "/v1/completions"
			}
			resp := post(t, nil, s.URL()+path, body)
			b := readAll(t, resp)
			var e struct {
				Error struct {
					Type string `json:"type"`
					Code int    `json:"code"`
				} `json:"error"`
			}
			if resp.StatusCode != tc.codes[0] || json.Unmarshal(b, &e) != nil || e.Error.Code != tc.codes[0] || e.Error.Type != tc.typ {
				t.Errorf("codes %v: status %d body %s", tc.codes, resp.StatusCode, b)
			}
			if got := resp.Header.Get("Retry-After"); got != tc.retryAfter {
				t.Errorf("codes %v: Retry-After %q, want %q", tc.codes, got, tc.retryAfter)
			}
		}
		if st := s.Stats(); st.HTTPErrors != 2 || st.Requests != 2 || st.Completed != 0 || st.Tokens != 0 {
			t.Errorf("codes %v: stats %+v", tc.codes, st)
		}
	}

	// Several codes: each response uses one of them, and over 40 requests
	// (fixed seed) both appear.
	cfg := fastConfig()
	cfg.ErrorRate, cfg.ErrorCodes = 1, []int{500, 503}
	s := startServer(t, cfg)
	seen := map[int]int{}
	for range 40 {
		resp := post(t, nil, s.URL()+"/v1/completions", `{"prompt":"x"}`)
		readAll(t, resp)
		seen[resp.StatusCode]++
	}
	if len(seen) != 2 || seen[500] == 0 || seen[503] == 0 {
		t.Errorf("statuses seen: %v, want only and both of 500 and 503", seen)
	}
}

func TestDisconnectFault(t *testing.T) {
	cfg := fastConfig()
	cfg.DisconnectRate = 1
	cfg.ITL = time.Millisecond
	s := startServer(t, cfg)
	for range 10 {
		resp := post(t, nil, s.URL()+"/v1/chat/completions", streamChat10)
		res := readSSE(resp.Body)
		resp.Body.Close()
		// Role chunk + p content chunks with p in [1, 9], then an abrupt close.
		if res.done || res.err == nil {
			t.Fatalf("disconnect: done=%v err=%v, want no [DONE] and a read error", res.done, res.err)
		}
		if n := len(res.payloads) - 1; n < 1 || n > 9 {
			t.Errorf("disconnect after %d token chunks, want 1..9", n)
		}
	}
	// One step: cut at its deadline, before any data.
	resp := post(t, nil, s.URL()+"/v1/completions", `{"prompt":"x","max_tokens":1,"ignore_eos":true,"stream":true}`)
	res := readSSE(resp.Body)
	resp.Body.Close()
	if res.done || res.err == nil || len(res.payloads) != 0 {
		t.Errorf("one-step disconnect: %d payloads done=%v err=%v", len(res.payloads), res.done, res.err)
	}
	// Non-streaming: no response at all.
	if resp, err := http.Post(s.URL()+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"x","max_tokens":5}`)); err == nil {
		b := readAll(t, resp)
		t.Errorf("non-streaming disconnect answered %d %s, want a transport error", resp.StatusCode, b)
	}
	if st := s.Stats(); st.Disconnects != 12 || st.Completed != 0 || st.Running != 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestStallFault(t *testing.T) {
	const (
		stall = 150 * time.Millisecond
		itl   = time.Millisecond
	)
	cfg := fastConfig()
	cfg.StallRate, cfg.StallDuration = 1, stall
	cfg.ITL = itl
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu   sync.Mutex
		dues []time.Time
	)
	s.onEmit = func(_ uint64, due, _ time.Time) { mu.Lock(); dues = append(dues, due); mu.Unlock() }
	if err := s.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	sent := time.Now()
	resp := post(t, nil, s.URL()+"/v1/completions", `{"prompt":"x","max_tokens":10,"ignore_eos":true,"stream":true}`)
	res := readSSE(resp.Body)
	resp.Body.Close()
	if !res.done || len(res.payloads) != 10 {
		t.Fatalf("stalled stream: %d payloads done=%v err=%v, want 10 and [DONE]", len(res.payloads), res.done, res.err)
	}
	// The deadlines: every gap is ITL except one, before step p in [1, 9],
	// which is ITL + stall.
	mu.Lock()
	defer mu.Unlock()
	stalledAt := 0
	for i := 1; i < len(dues); i++ {
		switch gap := dues[i].Sub(dues[i-1]); gap {
		case itl:
		case itl + stall:
			if stalledAt != 0 {
				t.Errorf("second stall before step %d", i)
			}
			stalledAt = i
		default:
			t.Errorf("deadline gap before step %d is %v, want %v or %v", i, gap, itl, itl+stall)
		}
	}
	if stalledAt < 1 || stalledAt > 9 {
		t.Errorf("stall before step %d, want 1..9", stalledAt)
	}
	// The client sees it in the stamps. Chunk p's deadline is p*ITL + stall
	// after chunk 0's, stamps are never early, and chunk 0 was late by at
	// most stamp0 - sent (its deadline, the arrival, is after sent), so
	// stamp_p - stamp_0 >= p*ITL + stall - (stamp_0 - sent).
	var stamps []int64
	for _, p := range res.payloads {
		var v struct {
			Stamp int64 `json:"goodput_emit_ns"`
		}
		if err := json.Unmarshal([]byte(p), &v); err != nil {
			t.Fatal(err)
		}
		stamps = append(stamps, v.Stamp)
	}
	lower := time.Duration(stalledAt)*itl + stall - time.Duration(stamps[0]-sent.UnixNano())
	if d := time.Duration(stamps[stalledAt] - stamps[0]); d < lower {
		t.Errorf("chunk %d stamped %v after chunk 0, want >= %v", stalledAt, d, lower)
	}
	if st := s.Stats(); st.Stalls != 1 || st.Completed != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestStreamErrorFault(t *testing.T) {
	cfg := fastConfig()
	cfg.StreamErrorRate = 1
	s := startServer(t, cfg)
	resp := post(t, nil, s.URL()+"/v1/chat/completions", streamChat10)
	res := readSSE(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !res.done || res.err != nil {
		t.Fatalf("stream error: status %d done=%v err=%v, want 200, [DONE], clean end", resp.StatusCode, res.done, res.err)
	}
	last := res.payloads[len(res.payloads)-1]
	var e struct {
		Error struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Code    int    `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(last), &e); err != nil || e.Error.Code != 500 || e.Error.Type != "InternalServerError" || e.Error.Message == "" {
		t.Errorf("last payload %s, want a vLLM-style error object", last)
	}
	// Role chunk, p in [1, 9] token chunks, the error: no finish_reason.
	if n := len(res.payloads) - 2; n < 1 || n > 9 {
		t.Errorf("error after %d token chunks, want 1..9", n)
	}
	for _, p := range res.payloads {
		if strings.Contains(p, `"finish_reason":"`) {
			t.Errorf("a finish_reason was sent before the error: %s", p)
		}
	}
	// Non-streaming: an HTTP 500 error body.
	resp = post(t, nil, s.URL()+"/v1/completions", `{"prompt":"x","max_tokens":5}`)
	if b := readAll(t, resp); resp.StatusCode != 500 || !strings.Contains(string(b), `"code":500`) {
		t.Errorf("non-streaming stream error: %d %s", resp.StatusCode, b)
	}
	if st := s.Stats(); st.StreamErrors != 2 || st.Completed != 0 {
		t.Errorf("stats %+v", st)
	}
}

// faultCounts runs 1000 requests against a fresh server with every fault at
// rate 0.3 and returns its stats and what the client observed.
func faultCounts(t *testing.T, seed uint64) (Stats, [3]int) {
	cfg := fastConfig()
	cfg.Seed = seed
	cfg.ErrorRate, cfg.DisconnectRate, cfg.StallRate, cfg.StreamErrorRate = 0.3, 0.3, 0.3, 0.3
	cfg.StallDuration = time.Microsecond
	s := startServer(t, cfg)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	defer client.CloseIdleConnections()

	var (
		mu       sync.Mutex
		observed [3]int // HTTP errors, disconnects, stream errors
		wg       sync.WaitGroup
		next     = make(chan struct{})
	)
	for range 16 {
		wg.Go(func() {
			for range next {
				resp, err := client.Post(s.URL()+"/v1/completions", "application/json",
					strings.NewReader(`{"prompt":"x","max_tokens":4,"ignore_eos":true,"stream":true}`))
				if err != nil {
					t.Errorf("POST: %v", err)
					continue
				}
				res := readSSE(resp.Body)
				resp.Body.Close()
				mu.Lock()
				switch {
				case resp.StatusCode != 200:
					observed[0]++
				case !res.done:
					observed[1]++
				case strings.Contains(res.payloads[len(res.payloads)-1], `"error"`):
					observed[2]++
				}
				mu.Unlock()
			}
		})
	}
	for range 1000 {
		next <- struct{}{}
	}
	close(next)
	wg.Wait()
	return s.Stats(), observed
}

// TestFaultCountsReproducible: with a fixed seed the fault counts over 1000
// requests are the same run to run, whatever the interleaving of the 16
// concurrent clients, because request k's faults depend only on seed and k.
func TestFaultCountsReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("3000 requests")
	}
	st1, obs1 := faultCounts(t, 42)
	st2, obs2 := faultCounts(t, 42)
	t.Logf("seed 42: stats %+v, client saw %v", st1, obs1)
	faults := func(s Stats) [4]uint64 { return [4]uint64{s.HTTPErrors, s.Disconnects, s.Stalls, s.StreamErrors} }
	if faults(st1) != faults(st2) || obs1 != obs2 {
		t.Errorf("same seed, different counts: %v %v vs %v %v", faults(st1), obs1, faults(st2), obs2)
	}
	if obs1[0] != int(st1.HTTPErrors) || obs1[1] != int(st1.Disconnects) || obs1[2] != int(st1.StreamErrors) {
		t.Errorf("client saw %v, server counted %v", obs1, faults(st1))
	}
	// 1000 draws at 0.3: mean 300, sd 14.5; 5 sd either side.
	if st1.HTTPErrors < 228 || st1.HTTPErrors > 372 {
		t.Errorf("HTTP errors %d, implausible for rate 0.3 over 1000", st1.HTTPErrors)
	}
	st3, _ := faultCounts(t, 43)
	if faults(st3) == faults(st1) {
		t.Errorf("seeds 42 and 43 gave identical fault counts %v", faults(st1))
	}
}
