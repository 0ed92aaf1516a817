package mock

import (
	"encoding/json"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// capacityConfig is DefaultConfig with capacity model m and no jitter in
// the natural output length.
func capacityConfig(m CapacityModel) Config {
	cfg := DefaultConfig()
	cfg.Capacity = &m
	cfg.OutputTokensStdev = 0
	return cfg
}

func smallModel(slots int, base time.Duration) CapacityModel {
	return CapacityModel{MaxNumSeqs: slots, MaxNumBatchedTokens: 256, StepBase: base, StepPerSeq: 100 * time.Microsecond,
		PrefillPerToken: 10 * time.Microsecond, GPUs: 1, GPU: DefaultGPU()}
}

// stampsOf returns the goodput_emit_ns of each payload.
func stampsOf(t *testing.T, payloads []string) []int64 {
	t.Helper()
	out := make([]int64, 0, len(payloads))
	for _, p := range payloads {
		ns, ok := stampOf([]byte(p))
		if !ok {
			t.Fatalf("payload without stamp: %s", p)
		}
		out = append(out, ns)
	}
	return out
}

// TestCapacityGauges: with two slots and five long streams, /metrics and
// Stats show two running and three waiting; Close ends them all, stops the
// engine and leaves no goroutine behind.
func TestCapacityGauges(t *testing.T) {
	before := runtime.NumGoroutine()
	cfg := capacityConfig(smallModel(2, 5*time.Millisecond))
	cfg.KVCacheTokens = 1000
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	client := &http.Client{Transport: tr}
	var wg sync.WaitGroup
	results := make([]sseResult, 5)
	for i := range 5 {
		wg.Go(func() {
			resp, err := client.Post(s.URL()+"/v1/completions", "application/json",
				strings.NewReader(`{"prompt":[1,2,3,4,5,6,7,8,9,10],"max_tokens":30000,"ignore_eos":true,"stream":true}`))
			if err != nil {
				t.Errorf("POST: %v", err)
				return
			}
			results[i] = readSSE(resp.Body)
			resp.Body.Close()
		})
	}
	// Wait until both running sequences are prefilled (KV counts a prompt
	// once prefilled) and the other three are queued.
	if !waitFor(5*time.Second, func() bool {
		return s.Stats().Waiting == 3 && s.engine.running.Load() == 2 && s.engine.kvTokens.Load() >= 22
	}) {
		t.Fatalf("engine did not reach 2 running and 3 waiting: %+v, running %d", s.Stats(), s.engine.running.Load())
	}
	fams := scrape(t, s.URL())
	lbl := map[string]string{"model_name": "goodput-mock"}
	if got := value(t, fams, "vllm:num_requests_running", lbl); got != 2 {
		t.Errorf("vllm:num_requests_running = %v, want 2", got)
	}
	if got := value(t, fams, "vllm:num_requests_waiting", lbl); got != 3 {
		t.Errorf("vllm:num_requests_waiting = %v, want 3", got)
	}
	// Two sequences of 10 prompt tokens and some output, over 1000.
	if kv := value(t, fams, "vllm:kv_cache_usage_perc", lbl); kv < 0.022 || kv > 1 {
		t.Errorf("vllm:kv_cache_usage_perc = %v, want at least 2×(10 prompt + 1 output)/1000", kv)
	}
	if got := value(t, fams, "vllm:num_preemptions_total", lbl); got != 0 {
		t.Errorf("preemptions %v", got)
	}
	if st := s.Stats(); st.Running != 5 {
		t.Errorf("Stats.Running = %d, want the 5 admitted requests", st.Running)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i, r := range results {
		if r.done || r.err == nil {
			t.Errorf("stream %d ended by Close: done=%v err=%v, want an abrupt end", i, r.done, r.err)
		}
	}
	select {
	case <-s.engine.done:
	default:
		t.Error("engine goroutine still running after Close")
	}
	tr.CloseIdleConnections()
	if !waitFor(5*time.Second, func() bool { return runtime.NumGoroutine() <= before+2 }) {
		t.Errorf("goroutines: %d before, %d after Close", before, runtime.NumGoroutine())
	}
}

// TestCapacityStepDeadlines: a lone request's chunks are due at the engine's
// step ends, absolute: the prefill step lasts StepBase + prompt×PrefillPerToken
// and each later step StepBase + StepPerSeq, exactly, however late the
// writes were; concurrent sequences share the same step ends.
func TestCapacityStepDeadlines(t *testing.T) {
	m := smallModel(4, 4*time.Millisecond)
	s, err := New(capacityConfig(m))
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		dues  []time.Time
		emits []time.Time
	)
	s.onEmit = func(_ uint64, due, emitted time.Time) {
		mu.Lock()
		dues, emits = append(dues, due), append(emits, emitted)
		mu.Unlock()
	}
	if err := s.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stop := make(chan struct{})
	calDone := make(chan time.Duration)
	go func() { calDone <- calibrateTimers(stop) }()

	resp := post(t, nil, s.URL()+"/v1/completions", `{"prompt":[1,2,3,4,5,6,7,8,9,10],"max_tokens":100,"ignore_eos":true,"stream":true}`)
	res := readSSE(resp.Body)
	resp.Body.Close()
	close(stop)
	tol := 3*<-calDone + time.Millisecond
	if !res.done || len(res.payloads) != 100 {
		t.Fatalf("%d payloads, done=%v", len(res.payloads), res.done)
	}
	mu.Lock()
	defer mu.Unlock()
	decode := m.StepBase + m.StepPerSeq
	for i := 1; i < len(dues); i++ {
		if d := dues[i].Sub(dues[i-1]); d != decode {
			t.Fatalf("step %d due %v after step %d, want exactly %v", i, d, i-1, decode)
		}
	}
	// Every write at or after its step end; at most 5% later than the
	// timer lateness measured meanwhile allows (a whole-process stall on a
	// shared machine delays a few consecutive writes, which the calibrator
	// may not see).
	late := 0
	for i := range dues {
		l := emits[i].Sub(dues[i])
		if l < 0 {
			t.Errorf("step %d written %v before its step end", i, -l)
		}
		if l > tol {
			late++
		}
	}
	if late > len(dues)/20 {
		t.Errorf("%d of %d steps written more than %v after their step end", late, len(dues), tol)
	}
	stamps := stampsOf(t, res.payloads)
	for i, st := range stamps {
		if st != emits[i].UnixNano() {
			t.Fatalf("chunk %d stamped %d, written at %d", i, st, emits[i].UnixNano())
		}
	}

	// Three concurrent streams: every due time is a step end shared by the
	// sequences in that step.
	dues, emits = dues[:0], emits[:0]
	mu.Unlock()
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			resp := post(t, nil, s.URL()+"/v1/completions", `{"prompt":[1,2,3],"max_tokens":50,"ignore_eos":true,"stream":true}`)
			readSSE(resp.Body)
			resp.Body.Close()
		})
	}
	wg.Wait()
	mu.Lock()
	count := map[time.Time]int{}
	for _, d := range dues {
		count[d]++
	}
	shared := 0
	for _, c := range count {
		if c > 1 {
			shared += c
		}
	}
	if len(dues) != 150 || shared < 100 {
		t.Errorf("%d steps written, %d of them at a step end shared with another stream; want 150 and most shared", len(dues), shared)
	}
}

// TestCapacityFaults composes the faults with the batch engine.
func TestCapacityFaults(t *testing.T) {
	t.Run("HTTP error rejects before admission", func(t *testing.T) {
		cfg := capacityConfig(smallModel(1, 2*time.Millisecond))
		cfg.ErrorRate, cfg.ErrorCodes = 1, []int{503}
		s := startServer(t, cfg)
		for range 3 {
			resp := post(t, nil, s.URL()+"/v1/completions", `{"prompt":"x","max_tokens":5,"stream":true}`)
			readAll(t, resp)
			if resp.StatusCode != 503 {
				t.Fatalf("status %d, want 503", resp.StatusCode)
			}
		}
		if n := s.engine.planned.Load(); n != -1 {
			t.Errorf("the engine ran %d steps for rejected requests", n+1)
		}
	})

	// The next two check due times, which are engine time: they do not
	// move when a busy machine delays a write, only when it delays the
	// engine's inputs (a release), which the margins allow for.
	t.Run("disconnect frees the slot", func(t *testing.T) {
		const steps = 200
		cfg := capacityConfig(smallModel(1, 4*time.Millisecond))
		cfg.DisconnectRate = 1
		// A seed under which request 0 disconnects early, at step p < 20.
		req := request{limit: steps, maxTokens: steps, explicitMax: true, ignoreEOS: true}
		p0 := 0
		for seed := uint64(0); ; seed++ {
			st := newStream()
			cfg.Seed = seed
			seedRNG(&st.pcg, seed, 0)
			if p0 = makePlan(&cfg, &req, 0, st.rng).disconnectAt; p0 < 20 {
				break
			}
		}
		s, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var (
			mu   sync.Mutex
			dues [2][]time.Time
		)
		s.onEmit = func(k uint64, due, _ time.Time) { mu.Lock(); dues[k] = append(dues[k], due); mu.Unlock() }
		if err := s.Start("127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var wg sync.WaitGroup
		for i := range 2 {
			wg.Go(func() {
				if i == 1 && !waitFor(5*time.Second, func() bool { return s.engine.running.Load() == 1 }) {
					t.Error("first request never ran") // sent once the first holds the only slot
				}
				resp := post(t, nil, s.URL()+"/v1/completions", `{"prompt":"x","max_tokens":200,"ignore_eos":true,"stream":true}`)
				readSSE(resp.Body)
				resp.Body.Close()
			})
		}
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		a, b := dues[0], dues[1]
		if len(a) != p0 || len(b) == 0 {
			t.Fatalf("first request wrote %d steps (disconnect at step %d), second %d", len(a), p0, len(b))
		}
		// The second request waited for the slot: it got it after the first
		// one's disconnect, at step p, long before the first one's 200 steps
		// would have ended.
		step := s.cfg.Capacity.StepBase + s.cfg.Capacity.StepPerSeq
		if got := b[0].Sub(a[0]); got <= time.Duration(p0-1)*step || got >= time.Duration(steps-1)*step {
			t.Errorf("second request's first step due %v after the first's, want between the disconnect (%v) and the first's natural end (%v)",
				got, time.Duration(p0)*step, time.Duration(steps-1)*step)
		}
		if st := s.Stats(); st.Disconnects != 2 || st.Waiting != 0 {
			t.Errorf("stats %+v", st)
		}
	})

	t.Run("stall delays the stream, not the batch", func(t *testing.T) {
		const stall = 150 * time.Millisecond
		cfg := capacityConfig(smallModel(4, 4*time.Millisecond))
		cfg.StallRate, cfg.StallDuration = 0.5, stall
		// Pick a seed under which request 0 stalls and request 1 does not.
		req := request{limit: 40, maxTokens: 40, explicitMax: true, ignoreEOS: true}
		pStall := 0
		for seed := uint64(0); ; seed++ {
			st := newStream()
			cfg.Seed = seed
			seedRNG(&st.pcg, seed, 0)
			p0 := makePlan(&cfg, &req, 0, st.rng)
			seedRNG(&st.pcg, seed, 1)
			p1 := makePlan(&cfg, &req, 1, st.rng)
			if p0.stallAt != noFault && p1.stallAt == noFault {
				pStall = p0.stallAt
				break
			}
		}
		s, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var (
			mu   sync.Mutex
			dues [2][]time.Time
		)
		s.onEmit = func(k uint64, due, _ time.Time) { mu.Lock(); dues[k] = append(dues[k], due); mu.Unlock() }
		if err := s.Start("127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var wg sync.WaitGroup
		for i := range 2 {
			wg.Go(func() {
				if i == 1 && !waitFor(5*time.Second, func() bool { return s.Stats().Requests == 1 }) {
					t.Error("first request not admitted")
				}
				resp := post(t, nil, s.URL()+"/v1/completions", `{"prompt":"x","max_tokens":40,"ignore_eos":true,"stream":true}`)
				readSSE(resp.Body)
				resp.Body.Close()
			})
		}
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		// Both streams' steps are engine step ends (the stalled one's shifted
		// by the stall from step p on): every gap is a step time, at most
		// StepBase + 4 × StepPerSeq + a prompt token, except the stalled
		// stream's gap into step p, which also holds the stall.
		model := smallModel(4, 4*time.Millisecond)
		maxStep := model.stepTime(4, 1)
		for k, d := range dues {
			if len(d) != 40 {
				t.Fatalf("stream %d wrote %d steps", k, len(d))
			}
			for i := 1; i < len(d); i++ {
				gap := d[i].Sub(d[i-1])
				want := maxStep
				if k == 0 && i == pStall {
					want += stall
					if gap < stall {
						t.Errorf("stalled stream's gap into step %d is %v, want the %v stall plus a step", i, gap, stall)
					}
				}
				if gap > want {
					t.Errorf("stream %d: gap into step %d is %v, more than %v", k, i, gap, want)
				}
			}
		}
		if st := s.Stats(); st.Stalls != 1 || st.Completed != 2 {
			t.Errorf("stats %+v", st)
		}
	})

	t.Run("stream error frees the slot", func(t *testing.T) {
		cfg := capacityConfig(smallModel(1, 2*time.Millisecond))
		cfg.StreamErrorRate = 1
		s := startServer(t, cfg)
		for range 3 {
			resp := post(t, nil, s.URL()+"/v1/completions", `{"prompt":"x","max_tokens":20,"ignore_eos":true,"stream":true}`)
			res := readSSE(resp.Body)
			resp.Body.Close()
			if !res.done || !strings.Contains(res.payloads[len(res.payloads)-1], `"error"`) {
				t.Fatalf("stream error: %v", res.payloads)
			}
		}
		if !waitFor(2*time.Second, func() bool { return s.engine.running.Load() == 0 && s.Stats().Waiting == 0 }) {
			t.Errorf("slots not freed: running %d", s.engine.running.Load())
		}
	})
}

// TestCapacityResponseShapes: chat and completions, streaming with
// continuous usage, and non-streaming bodies carry the same tokens and usage
// with the capacity model as without.
func TestCapacityResponseShapes(t *testing.T) {
	m := smallModel(4, time.Millisecond)
	for _, capacity := range []bool{false, true} {
		cfg := fastConfig()
		if capacity {
			cfg.Capacity = &m
		}
		cfg.TokensPerChunk = 3
		s := startServer(t, cfg)
		resp := post(t, nil, s.URL()+"/v1/chat/completions",
			`{"messages":[{"role":"user","content":"12345678"}],"max_tokens":10,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true}}`)
		res := readSSE(resp.Body)
		resp.Body.Close()
		// Role chunk, ceil(10/3) = 4 token chunks, usage chunk.
		if !res.done || len(res.payloads) != 6 {
			t.Fatalf("capacity=%v: %d payloads, done %v", capacity, len(res.payloads), res.done)
		}
		var last struct {
			Usage struct {
				PromptTokens     int `json:"prompt_tokens"`
				CompletionTokens int `json:"completion_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(res.payloads[4]), &last); err != nil || last.Usage.CompletionTokens != 10 || last.Usage.PromptTokens != 2 {
			t.Errorf("capacity=%v: last token chunk %s", capacity, res.payloads[4])
		}
		resp = post(t, nil, s.URL()+"/v1/completions", `{"prompt":"12345678","max_tokens":7,"ignore_eos":true}`)
		body := readAll(t, resp)
		if !strings.Contains(string(body), `"completion_tokens":7`) || !strings.Contains(string(body), `"finish_reason":"length"`) {
			t.Errorf("capacity=%v: non-streaming body %s", capacity, body)
		}
		if st := s.Stats(); st.Tokens != 17 || st.Completed != 2 {
			t.Errorf("capacity=%v: stats %+v", capacity, st)
		}
	}
}

// TestCapacityTokensPerChunk: with TokensPerChunk 4 a sequence emits four
// tokens per engine step.
func TestCapacityTokensPerChunk(t *testing.T) {
	m := smallModel(2, 2*time.Millisecond)
	cfg := capacityConfig(m)
	cfg.TokensPerChunk = 4
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var dues []time.Time
	var mu sync.Mutex
	s.onEmit = func(_ uint64, due, _ time.Time) { mu.Lock(); dues = append(dues, due); mu.Unlock() }
	if err := s.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	resp := post(t, nil, s.URL()+"/v1/completions", `{"prompt":"x","max_tokens":40,"ignore_eos":true,"stream":true}`)
	res := readSSE(resp.Body)
	resp.Body.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(res.payloads) != 10 || len(dues) != 10 || int(s.engine.planned.Load()) != 9 {
		t.Errorf("%d chunks, %d steps written, engine ran %d steps; want 10 of each", len(res.payloads), len(dues), s.engine.planned.Load()+1)
	}
	if !slices.IsSortedFunc(dues, time.Time.Compare) {
		t.Error("due times out of order")
	}
}
