package mock

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the process's user + system CPU time.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// minimalClient streams completions over loopback with net/http and counts
// the `data:` lines of each response, reusing one reader per worker.
type minimalClient struct {
	http *http.Client
	url  string
	body []byte
}

func newMinimalClient(url, body string, conns int) *minimalClient {
	tr := &http.Transport{MaxIdleConns: conns, MaxIdleConnsPerHost: conns, DisableCompression: true}
	return &minimalClient{http: &http.Client{Transport: tr}, url: url, body: []byte(body)}
}

// do sends one request and returns the number of `data:` lines (including
// [DONE]) and the error that ended it early, if any.
func (c *minimalClient) do(br *bufio.Reader) (int, error) {
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(c.body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	br.Reset(resp.Body)
	lines := 0
	for {
		line, err := br.ReadSlice('\n')
		if len(line) >= 5 && string(line[:5]) == "data:" {
			lines++
		}
		if err == io.EOF {
			return lines, nil
		}
		if err != nil && err != bufio.ErrBufferFull {
			return lines, err
		}
	}
}

// runLoad sends b.N requests from `workers` concurrent streams and returns
// the wall time and the process CPU time they took.
func runLoad(b *testing.B, c *minimalClient, workers, wantLines int) (wall, cpu time.Duration) {
	var (
		next   atomic.Int64
		wg     sync.WaitGroup
		failed atomic.Int64
	)
	b.ResetTimer()
	cpu0, t0 := cpuTime(b), time.Now()
	for range workers {
		wg.Go(func() {
			br := bufio.NewReaderSize(nil, 64<<10)
			for next.Add(1) <= int64(b.N) {
				n, err := c.do(br)
				if err != nil || n != wantLines {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	wall, cpu = time.Since(t0), cpuTime(b)-cpu0
	b.StopTimer()
	if f := failed.Load(); f > 0 {
		b.Fatalf("%d of %d requests failed or were short", f, b.N)
	}
	return wall, cpu
}

// BenchmarkLoopbackStreams drives the mock over loopback with 64 concurrent
// 128-token streams and zero delays. One op is one request. With zero delays
// every token is due at once, so a stream is one write; the
// chat-write-per-token case makes the schedule reveal one step at a time
// (stepByStep), so each token is its own write and flush, the mock's most
// expensive path. It reports
// tokens/s and requests/s of mock + minimal client together, and CPU µs per
// token of the whole process (mock and client both).
func BenchmarkLoopbackStreams(b *testing.B) {
	const (
		workers = 64
		tokens  = 128
	)
	const chatBody = `{"model":"goodput-mock","messages":[{"role":"user","content":"Say something long."}],"max_tokens":128,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`
	for _, tc := range []struct {
		name, path, body string
		lines            int  // data: lines per response
		perStep          bool // one write and flush per token instead of one per stream
	}{
		{"chat", "/v1/chat/completions", chatBody, 1 + tokens + 1 + 1, false}, // role, tokens, usage, [DONE]
		{"completions", "/v1/completions",
			`{"model":"goodput-mock","prompt":"Say something long.","max_tokens":128,"ignore_eos":true,"stream":true}`,
			tokens + 1, false},
		{"chat-write-per-token", "/v1/chat/completions", chatBody, 1 + tokens + 1 + 1, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s, err := New(fastConfig())
			if err != nil {
				b.Fatal(err)
			}
			if tc.perStep {
				s.newSchedule = func(st *stream, p *plan, arrival time.Time) tokenSchedule {
					return &stepByStep{at: arrival}
				}
			}
			if err := s.Start("127.0.0.1:0"); err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			c := newMinimalClient(s.URL()+tc.path, tc.body, workers)
			defer c.http.CloseIdleConnections()
			b.ReportAllocs()
			wall, cpu := runLoad(b, c, workers, tc.lines)
			total := float64(b.N) * tokens
			b.ReportMetric(total/wall.Seconds(), "tokens/s")
			b.ReportMetric(float64(b.N)/wall.Seconds(), "req/s")
			b.ReportMetric(float64(cpu.Microseconds())/total, "cpu-µs/token")
			if st := s.Stats(); st.Tokens != uint64(total) {
				b.Errorf("server wrote %d tokens, want %d", st.Tokens, uint64(total))
			}
		})
	}
}

// latencyHistogram counts durations in 10 µs bins up to 100 ms, with atomics,
// so the emit hook adds no lock to the mock's loop.
type latencyHistogram struct {
	bins [10001]atomic.Uint64
	n    atomic.Uint64
	max  atomic.Int64
}

func (h *latencyHistogram) add(d time.Duration) {
	i := min(max(int(d/(10*time.Microsecond)), 0), len(h.bins)-1)
	h.bins[i].Add(1)
	h.n.Add(1)
	for {
		m := h.max.Load()
		if int64(d) <= m || h.max.CompareAndSwap(m, int64(d)) {
			return
		}
	}
}

// quantile returns the upper edge of the bin holding quantile q.
func (h *latencyHistogram) quantile(q float64) time.Duration {
	target := uint64(q * float64(h.n.Load()))
	var cum uint64
	for i := range h.bins {
		cum += h.bins[i].Load()
		if cum > target {
			return time.Duration(i+1) * 10 * time.Microsecond
		}
	}
	return time.Duration(len(h.bins)) * 10 * time.Microsecond
}

// BenchmarkEmissionLateness runs 256 concurrent streams at ITL 10 ms (TTFT
// 10 ms, 100 tokens, no jitter) and reports how late the mock writes each
// chunk: emission time - deadline, P50, P99 and max, over every step. One op
// is one round of 256 streams (about 1 s). In "aligned" all streams start
// together, so every 10 ms all 256 chunks fall due at the same instant (the
// worst case: the last write of each burst waits for the 255 before it and
// for the client reading them, in this same process); in "staggered" the
// starts are spread evenly over one ITL, as open-loop arrivals would be.
func BenchmarkEmissionLateness(b *testing.B) {
	for _, staggered := range []bool{false, true} {
		name := "aligned"
		if staggered {
			name = "staggered"
		}
		b.Run(name, func(b *testing.B) { benchLateness(b, staggered) })
	}
}

func benchLateness(b *testing.B, staggered bool) {
	const (
		streams = 256
		tokens  = 100
		itl     = 10 * time.Millisecond
	)
	cfg := fastConfig()
	cfg.TTFT, cfg.ITL = itl, itl
	s, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	var h latencyHistogram
	s.onEmit = func(_ uint64, due, emitted time.Time) { h.add(emitted.Sub(due)) }
	if err := s.Start("127.0.0.1:0"); err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	c := newMinimalClient(s.URL()+"/v1/completions",
		`{"prompt":"x","max_tokens":100,"ignore_eos":true,"stream":true}`, streams)
	defer c.http.CloseIdleConnections()

	b.ResetTimer()
	cpu0, t0 := cpuTime(b), time.Now()
	for range b.N {
		var wg sync.WaitGroup
		start := time.Now()
		for i := range streams {
			wg.Go(func() {
				if staggered {
					time.Sleep(time.Until(start.Add(time.Duration(i) * itl / streams)))
				}
				br := bufio.NewReaderSize(nil, 16<<10)
				if n, err := c.do(br); err != nil || n != tokens+1 {
					b.Errorf("stream: %d lines, %v", n, err)
				}
			})
		}
		wg.Wait()
	}
	wall, cpu := time.Since(t0), cpuTime(b)-cpu0
	b.StopTimer()
	total := float64(b.N * streams * tokens)
	b.ReportMetric(float64(h.quantile(0.50).Microseconds()), "late-p50-µs")
	b.ReportMetric(float64(h.quantile(0.99).Microseconds()), "late-p99-µs")
	b.ReportMetric(float64(time.Duration(h.max.Load()).Microseconds()), "late-max-µs")
	b.ReportMetric(total/wall.Seconds(), "tokens/s")
	b.ReportMetric(float64(cpu.Microseconds())/total, "cpu-µs/token")
}
