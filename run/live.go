package run

import (
	"fmt"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/record"
)

// liveStats keeps the running benchmark's figures for the progress
// displays. It is fed from the run's collector goroutine (never from the
// request path) and read by the display under a mutex.
type liveStats struct {
	engine *loadgen.Engine
	total  int // planned rounds, 0 when adaptive

	mu       sync.Mutex
	index    int
	strategy loadgen.Strategy
	limit    loadgen.Constraints
	start    time.Time
	done     int64
	errored  int64
	outToks  int64
	ttft     *hdrhistogram.Histogram
	note     string // the plan's state (a knee search's bracket)
	// warmups counts the warmup phase's records, left out of the figures;
	// measuring says the measured phase's first record came, and start
	// then moved to its start.
	warmups   int64
	measuring bool
}

// liveSnapshot is what a display shows.
type liveSnapshot struct {
	Round, Strategy, Note string
	Elapsed               time.Duration
	Remaining             time.Duration // -1 when not time-bound
	RemainingRequests     int64         // -1 when not request-bound
	Completed, Errored    int64
	InFlight              int64
	ReqPerS, OutTokPerS   float64
	TTFTP50ms, TTFTP99ms  float64 // -1 before the first token
	MaxRequests           int
	MaxDuration           time.Duration
	Progress, ProgressMax int64 // for a bar: elapsed ms or requests done, and its limit
}

func newLiveStats(e *loadgen.Engine, total int) *liveStats {
	return &liveStats{engine: e, total: total, ttft: hdrhistogram.New(1, 3_600_000_000, 3)}
}

func (l *liveStats) begin(index int, s loadgen.Strategy, c loadgen.Constraints, start int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.index, l.strategy, l.limit, l.start = index, s, c, l.engine.Clock().Time(start)
	l.done, l.errored, l.outToks = 0, 0, 0
	l.warmups, l.measuring = 0, false
	l.ttft.Reset()
}

// setNote sets the plan's state shown with the next rounds.
func (l *liveStats) setNote(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.note = s
}

func (l *liveStats) add(r *record.Record) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r.Warmup {
		l.warmups++
		return
	}
	if l.warmups > 0 && !l.measuring {
		// The limits count from the measured phase's start.
		l.measuring, l.start = true, l.engine.Clock().Time(r.Started())
	}
	l.done++
	switch r.Status {
	case record.StatusErrored:
		l.errored++
	case record.StatusSuccessful:
		l.outToks += int64(r.OutputTokens)
		if r.FirstToken != 0 {
			_ = l.ttft.RecordValue(max((r.FirstToken-r.Dispatched)/1000, 1))
		}
	}
}

func (l *liveStats) roundLabel(i int) string {
	if l.total > 0 {
		return fmt.Sprintf("%d/%d", i+1, l.total)
	}
	return fmt.Sprintf("%d", i+1)
}

func (l *liveStats) snapshot() liveSnapshot {
	l.mu.Lock()
	defer l.mu.Unlock()
	el := max(time.Since(l.start), time.Millisecond)
	s := liveSnapshot{
		Round: l.roundLabel(l.index), Strategy: l.strategy.String(), Note: l.note, Elapsed: el,
		Remaining: -1, RemainingRequests: -1,
		Completed: l.done - l.errored, Errored: l.errored, InFlight: l.engine.Live().InFlight,
		ReqPerS: float64(l.done) / el.Seconds(), OutTokPerS: float64(l.outToks) / el.Seconds(),
		TTFTP50ms: -1, TTFTP99ms: -1, MaxRequests: l.limit.MaxRequests, MaxDuration: l.limit.MaxDuration,
	}
	if d := l.limit.MaxDuration; d > 0 {
		s.Remaining = max(0, d-el)
		s.Progress, s.ProgressMax = min(el, d).Milliseconds(), d.Milliseconds()
	}
	if n := l.limit.MaxRequests; n > 0 {
		s.RemainingRequests = max(0, int64(n)-l.done)
		// A request-bound run shows requests when that limit is the nearer.
		if s.ProgressMax == 0 || float64(l.done)/float64(n) > float64(s.Progress)/float64(s.ProgressMax) {
			s.Progress, s.ProgressMax = min(l.done, int64(n)), int64(n)
		}
	}
	if l.ttft.TotalCount() > 0 {
		s.TTFTP50ms = float64(l.ttft.ValueAtQuantile(50)) / 1000
		s.TTFTP99ms = float64(l.ttft.ValueAtQuantile(99)) / 1000
	}
	return s
}
