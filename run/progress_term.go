package run

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report/console"
	"github.com/goodput-dev/goodput/sweep"
)

// termProgress draws one progress bar per benchmark on a terminal, with
// elapsed and remaining time or requests, and below it a line of the
// achieved rate, requests in flight, completed and errored, and live TTFT
// P50/P99 and output tok/s. Each line fits the terminal down to 80
// columns (the bar shrinks, the figures take shorter words, the notes
// above the bars wrap). The bars redraw from mpb's own goroutine, reading
// liveStats snapshots.
type termProgress struct {
	w     io.Writer
	live  *liveStats
	p     *mpb.Progress
	bar   *mpb.Bar
	final *atomic.Pointer[liveSnapshot] // the finished bar's frozen figures
	stop  chan struct{}
	done  chan struct{}
}

// newTermProgress draws on w; opts add to mpb's options (a test's
// WithAutoRefresh, to draw off a terminal, where the width is
// progressCols).
func newTermProgress(w io.Writer, live *liveStats, opts ...mpb.ContainerOption) *termProgress {
	opts = append([]mpb.ContainerOption{mpb.WithOutput(w), mpb.WithRefreshRate(250 * time.Millisecond), mpb.WithWidth(progressCols)}, opts...)
	return &termProgress{w: w, live: live, p: mpb.New(opts...)}
}

// progressCols is the narrowest terminal the display is made for, and
// barCols the bar's own width where there is room.
const (
	progressCols = 80
	barCols      = 32
)

// progressLeft is the bar's time: elapsed, and what is left of the
// benchmark's time or requests.
func progressLeft(snap liveSnapshot) string {
	left := ""
	switch {
	case snap.Remaining >= 0:
		left = fmt.Sprintf(" left %s", snap.Remaining.Round(time.Second))
	case snap.RemainingRequests >= 0:
		left = fmt.Sprintf(" left %d req", snap.RemainingRequests)
	}
	return fmt.Sprintf("%s%s", snap.Elapsed.Round(time.Second), left)
}

// progressFigures is the line under the bar, in at most cols columns: the
// long words, else the short ones, else cut.
func progressFigures(snap liveSnapshot, cols int) string {
	ttft := "-"
	if snap.TTFTP50ms >= 0 {
		ttft = fmt.Sprintf("%.0f/%.0f ms", snap.TTFTP50ms, snap.TTFTP99ms)
	}
	line := fmt.Sprintf("  %.1f req/s  in-flight %d  ok %d  err %d  TTFT p50/p99 %s  %.0f out tok/s",
		snap.ReqPerS, snap.InFlight, snap.Completed, snap.Errored, ttft, snap.OutTokPerS)
	if utf8.RuneCountInString(line) <= cols {
		return line
	}
	line = fmt.Sprintf("  %.1f req/s  run %d  ok %d  err %d  TTFT %s  %.0f tok/s",
		snap.ReqPerS, snap.InFlight, snap.Completed, snap.Errored, ttft, snap.OutTokPerS)
	if r := []rune(line); len(r) > cols && cols > 0 {
		return string(r[:cols-1]) + "…"
	}
	return line
}

func (t *termProgress) BenchmarkStart(index int, s loadgen.Strategy, c loadgen.Constraints, start int64) {
	t.live.begin(index, s, c, start)
	total := int64(100)
	if snap := t.live.snapshot(); snap.ProgressMax > 0 {
		total = snap.ProgressMax
	}
	label := fmt.Sprintf("round %s %-16s", t.live.roundLabel(index), s.String())
	if note := t.live.snapshot().Note; note != "" {
		fmt.Fprint(t.p, console.Wrap("  "+note+"\n", progressCols))
	}
	final := &atomic.Pointer[liveSnapshot]{}
	t.final = final
	// A finished bar keeps showing its own round's figures.
	snapshot := func() liveSnapshot {
		if f := final.Load(); f != nil {
			return *f
		}
		return t.live.snapshot()
	}
	t.bar = t.p.AddBar(total, mpb.BarWidth(barCols),
		mpb.PrependDecorators(decor.Name(label, decor.WCSyncSpaceR), decor.Any(func(decor.Statistics) string {
			return progressLeft(snapshot())
		}, decor.WCSyncSpaceR)),
		mpb.BarExtender(mpb.BarFillerFunc(func(w io.Writer, st decor.Statistics) error {
			_, err := fmt.Fprintln(w, progressFigures(snapshot(), st.AvailableWidth))
			return err
		}), false),
	)
	t.stop, t.done = make(chan struct{}), make(chan struct{})
	go t.tick()
}

// tick moves the bar with the benchmark's progress (time or requests).
func (t *termProgress) tick() {
	defer close(t.done)
	tk := time.NewTicker(250 * time.Millisecond)
	defer tk.Stop()
	for {
		select {
		case <-t.stop:
			return
		case <-tk.C:
			if snap := t.live.snapshot(); snap.ProgressMax > 0 {
				t.bar.SetCurrent(min(snap.Progress, snap.ProgressMax-1))
			}
		}
	}
}

func (t *termProgress) Record(r *record.Record) { t.live.add(r) }

func (t *termProgress) BenchmarkEnd(index int, round sweep.Round) {
	close(t.stop)
	<-t.done
	snap := t.live.snapshot()
	snap.InFlight = 0
	t.final.Store(&snap)
	t.bar.SetTotal(-1, true)
	if round.Result.Client.Saturated {
		fmt.Fprint(t.p, console.Wrap(fmt.Sprintf("  round %s: the load generator was saturated (%s); latency figures unreliable\n",
			t.live.roundLabel(index), round.Result.Client.Reason), progressCols))
	}
}

// Close waits for the bars to finish drawing.
func (t *termProgress) Close() { t.p.Wait() }
