package sweep

import (
	"context"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/accum"
	"github.com/goodput-dev/goodput/telemetry"
)

// TestDrainNoAbortMock: against a mock that works on after its client left
// (NoAbort) and answers /metrics with seeded 500s, the runner reads the
// mock's gauges through telemetry.QueueReader and waits for the requests
// the previous round cut; with a bound too short it marks the round busy.
func TestDrainNoAbortMock(t *testing.T) {
	cfg := mock.DefaultConfig()
	cfg.NoAbort = true
	cfg.MetricsErrorRate = 0.1
	cfg.OutputTokensStdev = 0
	cfg.TTFTStdev, cfg.ITLStdev = 0, 0
	srv, err := mock.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	client, err := loadgen.NewClient(loadgen.ClientConfig{Target: srv.URL()}, loadgen.NewClock())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.CloseIdle)
	q, err := telemetry.NewQueueReader(srv.URL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	run := func(maxDrain time.Duration) []Round {
		// 40 tokens at 20 ms after a 100 ms TTFT: 0.9 s per request; a
		// 300 ms round cuts its 4 requests with about 0.6 s to go.
		r := &Runner{
			Engine: loadgen.NewEngine(client), Source: newFixedPrompt(16, 40),
			Constraints: loadgen.Constraints{MaxDuration: 300 * time.Millisecond},
			Report:      accum.Config{SampleSize: -1},
			Info:        accum.BenchmarkInfo{RunID: t.Name()},
			Drain:       &Drain{Gauges: q, Max: maxDrain, Poll: 20 * time.Millisecond},
		}
		rounds, err := r.Run(context.Background(), List{{Kind: loadgen.Concurrent, Streams: 4}, {Kind: loadgen.Concurrent, Streams: 4}})
		if err != nil {
			t.Fatal(err)
		}
		return rounds
	}
	rounds := run(10 * time.Second)
	w := rounds[1].Benchmark.Extras.Drain
	if w == nil || w.Method != report.DrainGauges || w.Busy || *w.Running != 0 || *w.Waiting != 0 || w.WaitedS < 0.2 {
		t.Errorf("drain after a cut round: %+v; want a wait of about 0.6 s ending on an idle server", w)
	}
	rounds = run(50 * time.Millisecond)
	w = rounds[1].Benchmark.Extras.Drain
	if w == nil || !w.Busy || *w.Running == 0 || !rounds[1].Excluded {
		t.Errorf("bounded drain after a cut round: %+v; want busy with requests running", w)
	}
	if w != nil {
		t.Logf("busy start: %s", w.Warning())
	}
}

// TestBackoffsInReport: against a mock that refuses every request at once,
// the closed-loop streams' backoffs reach the round's client-load extras.
func TestBackoffsInReport(t *testing.T) {
	cfg := mock.DefaultConfig()
	cfg.ErrorRate, cfg.ErrorCodes = 1, []int{429}
	srv, err := mock.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	client, err := loadgen.NewClient(loadgen.ClientConfig{Target: srv.URL()}, loadgen.NewClock())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.CloseIdle)
	r := &Runner{
		Engine: loadgen.NewEngine(client), Source: newFixedPrompt(8, 4),
		Constraints: loadgen.Constraints{MaxDuration: 300 * time.Millisecond},
		Report:      accum.Config{SampleSize: -1},
		Info:        accum.BenchmarkInfo{RunID: t.Name()},
	}
	rounds, err := r.Run(context.Background(), List{{Kind: loadgen.Concurrent, Streams: 4}})
	if err != nil {
		t.Fatal(err)
	}
	c := rounds[0].Benchmark.Extras.Client
	if c == nil || c.Backoffs == 0 || int64(c.Backoffs) != rounds[0].Result.Backoffs || c.BackoffS <= 0 {
		t.Errorf("client load %+v; want the %d backoffs of the result", c, rounds[0].Result.Backoffs)
	}
}
