package sweep

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report/accum"
)

// stampedWriter remembers when its first write happened.
type stampedWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	first time.Time
}

func (w *stampedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.first.IsZero() {
		w.first = time.Now()
	}
	return w.buf.Write(p)
}

// TestRecordsReachTheFileDuringTheRun: the records of a running benchmark
// are flushed every RecordsFlushEvery, not only at its end, so a killed
// process (an evicted pod) keeps what it measured. A 3 s benchmark of
// small records (far below the encoder's buffer) must write its first
// bytes at least a second before it ends.
func TestRecordsReachTheFileDuringTheRun(t *testing.T) {
	cfg := mock.DefaultConfig()
	cfg.TTFT, cfg.TTFTStdev, cfg.ITL, cfg.ITLStdev = 5*time.Millisecond, 0, time.Millisecond, 0
	srv, err := mock.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	client, err := loadgen.NewClient(loadgen.ClientConfig{Target: srv.URL(), Model: mock.DefaultModel}, loadgen.NewClock())
	if err != nil {
		t.Fatal(err)
	}
	w := &stampedWriter{}
	r := &Runner{Engine: loadgen.NewEngine(client), Source: newFixedPrompt(8, 4), Report: accum.Config{SampleSize: 5},
		Constraints: loadgen.Constraints{MaxDuration: 3 * time.Second}, Records: record.NewEncoder(w)}
	rounds, err := r.Run(context.Background(), List{{Kind: loadgen.Constant, Rate: 20}})
	if err != nil {
		t.Fatal(err)
	}
	end := time.Now()
	w.mu.Lock()
	first := w.first
	w.mu.Unlock()
	if first.IsZero() || end.Sub(first) < time.Second {
		t.Fatalf("first records written %v before the end of a 3 s benchmark (%d requests): want ≥ 1 s, flushed while running",
			end.Sub(first), rounds[0].Result.Created)
	}
}
