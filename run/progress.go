package run

import (
	"fmt"
	"io"
	"sync"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/sweep"
)

// logProgress prints one structured log line per interval with the running
// benchmark's figures, and one per finished benchmark: the display for
// non-terminals (a Kubernetes Job's log). It implements sweep.Observer.
type logProgress struct {
	log      *zap.Logger
	live     *liveStats
	interval time.Duration
	stop     chan struct{}
	wg       sync.WaitGroup
}

func newLogger(w io.Writer, format string) *zap.Logger {
	enc := zap.NewProductionEncoderConfig()
	enc.TimeKey, enc.EncodeTime = "ts", zapcore.ISO8601TimeEncoder
	enc.EncodeDuration = zapcore.StringDurationEncoder
	var encoder zapcore.Encoder
	if format == "json" {
		encoder = zapcore.NewJSONEncoder(enc)
	} else {
		enc.EncodeLevel = zapcore.CapitalLevelEncoder
		encoder = zapcore.NewConsoleEncoder(enc)
	}
	return zap.New(zapcore.NewCore(encoder, zapcore.AddSync(w), zapcore.InfoLevel))
}

// newLogProgress logs every interval; interval 0 logs only the start and
// the end of each benchmark (--disable-progress off a terminal).
func newLogProgress(log *zap.Logger, live *liveStats, interval time.Duration) *logProgress {
	return &logProgress{log: log, live: live, interval: interval}
}

func (p *logProgress) BenchmarkStart(index int, s loadgen.Strategy, c loadgen.Constraints, start int64) {
	p.live.begin(index, s, c, start)
	fields := []zap.Field{zap.String("round", p.live.roundLabel(index)), zap.String("strategy", s.String()),
		zap.Duration("max_duration", c.MaxDuration), zap.Int("max_requests", c.MaxRequests)}
	if note := p.live.snapshot().Note; note != "" {
		fields = append(fields, zap.String("plan", note))
	}
	p.log.Info("benchmark started", fields...)
	p.stop = make(chan struct{})
	if p.interval > 0 {
		p.wg.Add(1)
		go p.loop(p.stop)
	}
}

func (p *logProgress) Record(r *record.Record) { p.live.add(r) }

func (p *logProgress) loop(stop chan struct{}) {
	defer p.wg.Done()
	t := time.NewTicker(p.interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			p.line()
		}
	}
}

func (p *logProgress) line() {
	s := p.live.snapshot()
	fields := []zap.Field{zap.String("round", s.Round), zap.String("strategy", s.Strategy), zap.Duration("elapsed", s.Elapsed.Round(time.Second))}
	if s.Remaining >= 0 {
		fields = append(fields, zap.Duration("remaining", s.Remaining.Round(time.Second)))
	}
	if s.RemainingRequests >= 0 {
		fields = append(fields, zap.Int64("remaining_requests", s.RemainingRequests))
	}
	fields = append(fields,
		zap.Int64("completed", s.Completed), zap.Int64("errored", s.Errored), zap.Int64("in_flight", s.InFlight),
		zap.String("req_per_s", fmt.Sprintf("%.2f", s.ReqPerS)), zap.String("output_tok_per_s", fmt.Sprintf("%.1f", s.OutTokPerS)))
	if s.TTFTP50ms >= 0 {
		fields = append(fields, zap.String("ttft_p50_ms", fmt.Sprintf("%.1f", s.TTFTP50ms)), zap.String("ttft_p99_ms", fmt.Sprintf("%.1f", s.TTFTP99ms)))
	}
	p.log.Info("progress", fields...)
}

func (p *logProgress) BenchmarkEnd(index int, round sweep.Round) {
	close(p.stop)
	p.wg.Wait()
	res := round.Result
	fields := []zap.Field{
		zap.String("round", p.live.roundLabel(index)), zap.String("strategy", round.Strategy.String()),
		zap.String("stop_reason", string(res.StopReason)),
		zap.Int64("successful", res.Successful), zap.Int64("errored", res.Errored), zap.Int64("incomplete", res.Incomplete),
		zap.Duration("duration", time.Duration(res.End-res.Start).Round(time.Millisecond)),
	}
	if res.NotSent > 0 {
		fields = append(fields, zap.Int64("not_sent", res.NotSent))
	}
	if res.Client.Saturated {
		fields = append(fields, zap.String("client_saturated", res.Client.Reason))
		p.log.Warn("benchmark finished; latency figures unreliable: the load generator was saturated", fields...)
		return
	}
	p.log.Info("benchmark finished", fields...)
}
