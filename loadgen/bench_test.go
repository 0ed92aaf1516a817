package loadgen

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
)

// BenchmarkStreamZeroDelay drives a zero-delay in-process mock with 64
// streams of 128 tokens. The CPU figures include the mock (same process);
// scripts/bench.sh measures the client alone against a separate mock.
func BenchmarkStreamZeroDelay(b *testing.B) {
	cfg := mock.DefaultConfig()
	cfg.TTFT, cfg.TTFTStdev, cfg.ITL, cfg.ITLStdev = 0, 0, 0, 0
	srv, err := mock.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	c, err := NewClient(ClientConfig{Target: srv.URL(), Model: cfg.Model}, NewClock())
	if err != nil {
		b.Fatal(err)
	}
	e := NewEngine(c)
	out := make(chan *record.Record, 4096)
	var tokens int64
	done := make(chan struct{})
	go func() {
		for r := range out {
			tokens += int64(r.OutputTokens)
			e.Release(r)
		}
		close(done)
	}()
	b.ResetTimer()
	cpu0, t0 := processCPU(), time.Now()
	res, err := e.Run(context.Background(), Benchmark{
		Strategy: Strategy{Kind: Concurrent, Streams: 64}, Constraints: Constraints{MaxRequests: max(b.N, 64)},
		Source: fixedSource{NewRequest("", "hello", 128)},
	}, out)
	close(out)
	<-done
	if err != nil {
		b.Fatal(err)
	}
	cpu, wall := processCPU()-cpu0, time.Since(t0).Seconds()
	b.ReportMetric(float64(tokens)/wall, "tok/s")
	b.ReportMetric(float64(res.Successful)/wall, "req/s")
	b.ReportMetric(cpu*1e6/float64(tokens), "cpu-µs/tok(client+mock)")
	if res.Errored > 0 {
		b.Fatalf("%d errors", res.Errored)
	}
}

// BenchmarkPoissonDispatchLateness reports how late the open-loop
// dispatcher sends poisson-scheduled requests against a zero-delay mock.
func BenchmarkPoissonDispatchLateness(b *testing.B) {
	for _, rate := range []float64{100, 1000, 5000} {
		b.Run(fmt.Sprintf("rate=%v", rate), func(b *testing.B) {
			cfg := mock.DefaultConfig()
			cfg.TTFT, cfg.TTFTStdev, cfg.ITL, cfg.ITLStdev, cfg.OutputTokens, cfg.OutputTokensStdev = 0, 0, 0, 0, 4, 0
			srv, err := mock.New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			if err := srv.Start("127.0.0.1:0"); err != nil {
				b.Fatal(err)
			}
			defer srv.Close()
			c, err := NewClient(ClientConfig{Target: srv.URL(), Model: cfg.Model}, NewClock())
			if err != nil {
				b.Fatal(err)
			}
			e := NewEngine(c)
			out := make(chan *record.Record, 4096)
			var late []int64
			done := make(chan struct{})
			go func() {
				for r := range out {
					late = append(late, r.Dispatched-r.Intended)
					e.Release(r)
				}
				close(done)
			}()
			n := int(rate * 2) // two seconds of schedule
			_, err = e.Run(context.Background(), Benchmark{
				Strategy: Strategy{Kind: Poisson, Rate: rate, Seed: 7}, Constraints: Constraints{MaxRequests: n},
				Source: fixedSource{NewRequest("", "x", 4)},
			}, out)
			close(out)
			<-done
			if err != nil {
				b.Fatal(err)
			}
			slices.Sort(late)
			q := func(p float64) float64 { return float64(late[int(p*float64(len(late)-1))]) / 1e3 }
			b.ReportMetric(q(0.5), "late-p50-µs")
			b.ReportMetric(q(0.99), "late-p99-µs")
			b.ReportMetric(float64(late[len(late)-1])/1e3, "late-max-µs")
		})
	}
}
