package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/sweep"
)

// logProgress prints one structured line per interval with the running
// benchmark's figures, and one per finished benchmark. It implements
// sweep.Observer; the interval lines come from its own goroutine, reading a
// snapshot under a mutex (never on the request path).
type logProgress struct {
	log      *zap.Logger
	engine   *loadgen.Engine
	interval time.Duration
	total    int // planned rounds, 0 when adaptive

	mu       sync.Mutex
	index    int
	strategy loadgen.Strategy
	start    time.Time
	limit    loadgen.Constraints
	done     int64
	errored  int64
	outToks  int64
	ttft     *hdrhistogram.Histogram
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

func newLogProgress(log *zap.Logger, e *loadgen.Engine, interval time.Duration, total int) *logProgress {
	return &logProgress{log: log, engine: e, interval: interval, total: total, ttft: hdrhistogram.New(1, 3_600_000_000, 3)}
}

func (p *logProgress) BenchmarkStart(index int, s loadgen.Strategy, c loadgen.Constraints, start int64) {
	p.mu.Lock()
	p.index, p.strategy, p.limit, p.start = index, s, c, p.engine.Clock().Time(start)
	p.done, p.errored, p.outToks = 0, 0, 0
	p.ttft.Reset()
	p.stop = make(chan struct{})
	p.mu.Unlock()
	p.log.Info("benchmark started", zap.String("round", p.roundLabel(index)), zap.String("strategy", s.String()),
		zap.Duration("max_duration", c.MaxDuration), zap.Int("max_requests", c.MaxRequests))
	p.wg.Add(1)
	go p.loop(p.stop)
}

func (p *logProgress) roundLabel(i int) string {
	if p.total > 0 {
		return fmt.Sprintf("%d/%d", i+1, p.total)
	}
	return fmt.Sprintf("%d", i+1)
}

func (p *logProgress) Record(r *record.Record) {
	p.mu.Lock()
	p.done++
	if r.Status == record.StatusErrored {
		p.errored++
	}
	if r.Status == record.StatusSuccessful {
		p.outToks += int64(r.OutputTokens)
		if r.FirstToken != 0 {
			_ = p.ttft.RecordValue(max((r.FirstToken-r.Dispatched)/1000, 1))
		}
	}
	p.mu.Unlock()
}

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
	p.mu.Lock()
	el := time.Since(p.start)
	fields := []zap.Field{
		zap.String("round", p.roundLabel(p.index)), zap.String("strategy", p.strategy.String()),
		zap.Duration("elapsed", el.Round(time.Second)),
	}
	if d := p.limit.MaxDuration; d > 0 {
		fields = append(fields, zap.Duration("remaining", max(0, d-el).Round(time.Second)))
	}
	if n := p.limit.MaxRequests; n > 0 {
		fields = append(fields, zap.Int64("remaining_requests", max(0, int64(n)-p.done)))
	}
	secs := el.Seconds()
	fields = append(fields,
		zap.Int64("completed", p.done-p.errored), zap.Int64("errored", p.errored),
		zap.Int64("in_flight", p.engine.Live().InFlight),
		zap.String("req_per_s", fmt.Sprintf("%.2f", float64(p.done)/secs)),
		zap.String("output_tok_per_s", fmt.Sprintf("%.1f", float64(p.outToks)/secs)),
	)
	if p.ttft.TotalCount() > 0 {
		fields = append(fields,
			zap.String("ttft_p50_ms", fmt.Sprintf("%.1f", float64(p.ttft.ValueAtQuantile(50))/1000)),
			zap.String("ttft_p99_ms", fmt.Sprintf("%.1f", float64(p.ttft.ValueAtQuantile(99))/1000)))
	}
	p.mu.Unlock()
	p.log.Info("progress", fields...)
}

func (p *logProgress) BenchmarkEnd(index int, round sweep.Round) {
	close(p.stop)
	p.wg.Wait()
	res := round.Result
	fields := []zap.Field{
		zap.String("round", p.roundLabel(index)), zap.String("strategy", round.Strategy.String()),
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

func zapStr(k, v string) zap.Field { return zap.String(k, v) }
