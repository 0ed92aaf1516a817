package mock

import (
	"bufio"
	"sync"
	"testing"
	"time"
)

// BenchmarkEngineStep measures the engine goroutine's work per step with
// 256 running sequences: compose the batch and publish it (power, gauges,
// ring store, the per-step broadcast channel, first-step signals), then
// complete it, without the timer wait. One op is one step. "steady" keeps the same 256 decoding
// sequences; "churn" has 16-step requests with a full waiting queue, so
// every step finishes and admits about 16 sequences (with prefill chunks);
// recycling finished requests into the queue is included (a few ns each).
// It reports wall and process-CPU ns per step and per emitted token.
func BenchmarkEngineStep(b *testing.B) {
	for _, tc := range []struct {
		name  string
		steps int // output steps per request
	}{{"steady", 1 << 30}, {"churn", 16}} {
		b.Run(tc.name, func(b *testing.B) {
			m := CapacityModel{MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, StepBase: time.Millisecond,
				StepPerSeq: time.Microsecond, PrefillPerToken: time.Microsecond, GPUs: 1, GPU: DefaultGPU()}
			e := newEngine(&m, time.Now(), newPowerMeter(time.Now(), m.GPU, time.Second))
			// 768 requests cycle through the engine: finished ones are reset
			// and queued again (oldest first), so the queue stays full
			// without allocating.
			ring := make([]*seq, 768)
			for i := range ring {
				ring[i] = newSeq(128, tc.steps, tc.steps, 1)
				e.b.enqueue(ring[i])
			}
			next := 0 // the oldest request in the ring
			recycle := func() {
				for ring[next].state == seqFinished {
					q := ring[next]
					next = (next + 1) % len(ring)
					q.prefilled, q.emitted, q.kv = 0, 0, 0
					q.first.Store(-1)
					q.done.Store(false)
					e.b.enqueue(q)
				}
			}
			var n int64
			for range 64 { // until the batch is full and, with churn, in steady state
				e.plan(n, n)
				e.b.complete()
				recycle()
				n++
			}
			tokens := 0
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime(b)
			for range b.N {
				_, emitting := e.plan(n, n)
				tokens += emitting
				e.b.complete()
				e.kvTokens.Store(e.b.kv)
				recycle()
				n++
			}
			cpu := cpuTime(b) - cpu0
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/step")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(tokens), "ns/token")
			// Process CPU time, robust to a machine busy with other work.
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/step")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(tokens), "cpu-ns/token")
		})
	}
}

// BenchmarkEngineLoopback runs 256 concurrent 100-token streams through the
// capacity engine over loopback and reports the whole process's CPU per
// token (mock, engine and minimal client together), the throughput, the
// engine's steps per second and how late chunks were written after their
// step end. One op is one round of 256 streams. "step-10ms" is comparable
// with BenchmarkEmissionLateness/aligned (256 streams every 10 ms); in
// "step-2ms" a step emits 256 chunks every 2.26 ms, about what two cores
// can write and read.
func BenchmarkEngineLoopback(b *testing.B) {
	for _, base := range []time.Duration{10 * time.Millisecond, 2 * time.Millisecond} {
		b.Run("step-"+base.String(), func(b *testing.B) { benchEngineLoopback(b, base) })
	}
}

func benchEngineLoopback(b *testing.B, base time.Duration) {
	const (
		streams = 256
		tokens  = 100
	)
	m := CapacityModel{MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, StepBase: base,
		StepPerSeq: time.Microsecond, PrefillPerToken: 0, GPUs: 1, GPU: DefaultGPU()}
	cfg := DefaultConfig()
	cfg.Capacity = &m
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
	c := newMinimalClient(s.URL()+"/v1/completions", `{"prompt":"x","max_tokens":100,"ignore_eos":true,"stream":true}`, streams)
	defer c.http.CloseIdleConnections()
	steps0 := s.engine.planned.Load()
	b.ResetTimer()
	cpu0, t0 := cpuTime(b), time.Now()
	for range b.N {
		var wg sync.WaitGroup
		for range streams {
			wg.Go(func() {
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
	b.ReportMetric(total/wall.Seconds(), "tokens/s")
	b.ReportMetric(float64(cpu.Microseconds())/total, "cpu-µs/token")
	b.ReportMetric(float64(s.engine.planned.Load()-steps0)/wall.Seconds(), "steps/s")
	b.ReportMetric(float64(h.quantile(0.50).Microseconds()), "late-p50-µs")
	b.ReportMetric(float64(h.quantile(0.99).Microseconds()), "late-p99-µs")
}
