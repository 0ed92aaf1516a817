package sweep

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/accum"
	"github.com/goodput-dev/goodput/telemetry"
)

// gaugeLog is a QueueGauges that keeps every successful read's running
// plus waiting requests, in order.
type gaugeLog struct {
	QueueGauges
	mu    sync.Mutex
	reads []float64
}

func (g *gaugeLog) Queue(ctx context.Context) (float64, float64, error) {
	run, wait, err := g.QueueGauges.Queue(ctx)
	if err == nil {
		g.mu.Lock()
		g.reads = append(g.reads, run+wait)
		g.mu.Unlock()
	}
	return run, wait, err
}

// TestDrainNoAbortMock: against a mock that works on after its client left
// (NoAbort) and answers /metrics with seeded 500s, the runner reads the
// mock's gauges through telemetry.QueueReader and waits for the requests
// the previous round cut; with a bound too short it marks the round busy.
//
// The wait is judged by what the gauges said, not by the wall clock: the
// drain saw the cut requests running and ended on a read of an idle
// server (or, bounded, on a busy one). The cut requests have 4.7 s of work
// left, far more than the runner takes to summarise the round before the
// drain's first read (up to 3.5 s seen under -race on a loaded 2-core
// machine: the summary's histograms, not the mock, which keeps counting a
// NoAbort request until its last token).
func TestDrainNoAbortMock(t *testing.T) {
	if testing.Short() {
		t.Skip("waits seconds for the requests a round cut")
	}
	// run starts its own mock and runs two rounds with the drain bounded
	// by maxDrain; Close ends the cut requests, so no attempt waits for
	// the leftovers of another.
	run := func(maxDrain time.Duration) ([]Round, []float64) {
		cfg := mock.DefaultConfig()
		cfg.NoAbort = true
		cfg.MetricsErrorRate = 0.1
		cfg.OutputTokensStdev = 0
		cfg.TTFTStdev, cfg.ITLStdev = 0, 0
		cfg.ITL = 100 * time.Millisecond
		srv, err := mock.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Start("127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		client, err := loadgen.NewClient(loadgen.ClientConfig{Target: srv.URL()}, loadgen.NewClock())
		if err != nil {
			t.Fatal(err)
		}
		defer client.CloseIdle()
		q, err := telemetry.NewQueueReader(srv.URL(), nil)
		if err != nil {
			t.Fatal(err)
		}
		// 50 tokens 100 ms apart after a 100 ms TTFT: 5 s per request; a
		// 300 ms round cuts its 4 requests with 4.7 s to go.
		g := &gaugeLog{QueueGauges: q}
		r := &Runner{
			Engine: loadgen.NewEngine(client), Source: newFixedPrompt(16, 50),
			Constraints: loadgen.Constraints{MaxDuration: 300 * time.Millisecond},
			Report:      accum.Config{SampleSize: -1},
			Info:        accum.BenchmarkInfo{RunID: t.Name()},
			Drain:       &Drain{Gauges: g, Max: maxDrain, Poll: 20 * time.Millisecond},
		}
		rounds, err := r.Run(context.Background(), List{{Kind: loadgen.Concurrent, Streams: 4}, {Kind: loadgen.Concurrent, Streams: 4}})
		if err != nil {
			t.Fatal(err)
		}
		w := rounds[1].Benchmark.Extras.Drain
		if w == nil || w.Method != report.DrainGauges {
			t.Fatalf("drain before round 1: %+v; want a wait by the server's gauges", w)
		}
		// Reads before round 0 find the mock idle; the drain before round
		// 1 must find the 4 cut requests, which had their first tokens.
		var streaming report.Int
		if d := rounds[0].Benchmark.Metrics.TimeToFirstTokenMs; d != nil && d.Incomplete != nil {
			streaming = d.Incomplete.Count
		}
		if !slices.ContainsFunc(g.reads, func(n float64) bool { return n > 0 }) {
			t.Fatalf("maxDrain %v: the mock's gauges never showed the %d cut requests with their first tokens: gauge reads %v", maxDrain, streaming, g.reads)
		}
		return rounds, g.reads
	}
	rounds, reads := run(10 * time.Second)
	w := rounds[1].Benchmark.Extras.Drain
	if w.Busy || *w.Running != 0 || *w.Waiting != 0 || w.WaitedS <= 0 || reads[len(reads)-1] != 0 || rounds[1].Excluded {
		t.Errorf("drain after a cut round: %+v, gauge reads %v; want a wait ending on an idle server", w, reads)
	}
	t.Logf("drain after a cut round: waited %.3f s; gauge reads %v", float64(w.WaitedS), reads)
	// With 50 ms the bound runs out while the cut requests still run.
	rounds, reads = run(50 * time.Millisecond)
	w = rounds[1].Benchmark.Extras.Drain
	if !w.Busy || *w.Running == 0 || !rounds[1].Excluded || reads[len(reads)-1] == 0 {
		t.Errorf("bounded drain after a cut round: %+v, gauge reads %v; want busy with requests running", w, reads)
	}
	t.Logf("busy start: %s", w.Warning())
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
