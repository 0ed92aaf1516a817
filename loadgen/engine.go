package loadgen

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
)

// StopReason says why a benchmark ended.
type StopReason string

// Stop reasons.
const (
	StopMaxDuration  StopReason = "max_duration"
	StopMaxRequests  StopReason = "max_requests"
	StopMaxErrors    StopReason = "max_errors"
	StopMaxErrorRate StopReason = "max_error_rate"
	// StopMaxGlobalErrorRate: GuideLLM's max_global_error_rate.
	StopMaxGlobalErrorRate StopReason = "max_global_error_rate"
	StopDataExhausted      StopReason = "requests_exhausted"
	StopInterrupted        StopReason = "interrupted"
	// StopOverSaturation: GuideLLM's over_saturation constraint fired.
	StopOverSaturation StopReason = "over_saturation"
	// StopServerGone: Constraints.MaxConnectFailures requests in a row
	// could not reach the server.
	StopServerGone StopReason = "server_gone"
)

// A Watcher is a stop condition computed outside the engine (sweep's
// target_moe): it sees every request of one benchmark as it resolves and
// may end the benchmark (scheduling stops; in-flight requests finish).
// Observe is called from the requests' goroutines, concurrently.
type Watcher interface {
	Observe(r *record.Record) (stop bool)
	// Reason is the benchmark's stop reason when Observe stopped it.
	Reason() StopReason
}

// Constraints end a benchmark. Zero values mean "no limit"; at least one of
// MaxDuration and MaxRequests (or a finite source) must end it.
type Constraints struct {
	MaxDuration time.Duration // stop scheduling and cancel in-flight requests
	// Drain, with MaxDuration, lets the requests in flight at MaxDuration
	// finish for up to this long instead of cancelling them at once
	// (--drain): only those still running after it are cancelled.
	// DrainAll lets every one finish.
	Drain       time.Duration
	MaxRequests int // stop creating at N; in-flight requests finish
	MaxErrors   int // stop everything at N errored requests
	// MaxErrorRate stops everything when the share of errored requests in
	// the last ErrorRateWindow processed ones (default 30) reaches it.
	MaxErrorRate    float64
	ErrorRateWindow int
	// MaxGlobalErrorRate stops everything when the errored share of every
	// request processed so far reaches it, once GlobalErrorMin (default
	// 30) have been processed (GuideLLM's max_global_error_rate).
	MaxGlobalErrorRate float64
	GlobalErrorMin     int
	// MaxConnectFailures stops everything after that many requests in a
	// row could not reach the server (see unreachable): a server that went
	// away is not hammered for the rest of the run. 0: never.
	MaxConnectFailures int
	// OverSaturation, when set, watches for an over-saturated server
	// (GuideLLM's over_saturation): stops the benchmark, or only records
	// it (Result.Saturation) in monitor mode.
	OverSaturation *OverSaturation
	// Watcher, when set, watches this benchmark only (a fresh one per
	// benchmark).
	Watcher Watcher
	// Cancel, when set, cancels a share of the requests after a delay
	// (AIPerf's request cancellation; see Cancellation).
	Cancel *Cancellation
}

// Validate checks ranges.
func (c Constraints) Validate() error {
	switch {
	case c.MaxDuration < 0:
		return errors.New("max seconds must not be negative")
	case c.Drain < 0:
		return errors.New("drain must not be negative")
	case c.MaxRequests < 0:
		return errors.New("max requests must not be negative")
	case c.MaxErrors < 0:
		return errors.New("max errors must not be negative")
	case c.MaxErrorRate < 0 || c.MaxErrorRate >= 1:
		return fmt.Errorf("max error rate %v: want a fraction in [0, 1), e.g. 0.05", c.MaxErrorRate)
	case c.ErrorRateWindow < 0:
		return errors.New("error rate window must not be negative")
	case c.MaxGlobalErrorRate < 0 || c.MaxGlobalErrorRate >= 1:
		return fmt.Errorf("max global error rate %v: want a fraction in [0, 1), e.g. 0.05", c.MaxGlobalErrorRate)
	case c.GlobalErrorMin < 0:
		return errors.New("global error rate minimum must not be negative")
	case c.MaxConnectFailures < 0:
		return errors.New("max connect failures must not be negative")
	}
	if c.Cancel != nil {
		if err := c.Cancel.Validate(); err != nil {
			return err
		}
	}
	if c.OverSaturation != nil {
		return c.OverSaturation.Validate()
	}
	return nil
}

// Benchmark is one unit of load: a strategy run under constraints.
type Benchmark struct {
	Index       int
	Strategy    Strategy
	Constraints Constraints
	Source      Source
	// StartAt is when scheduling begins (Unix ns on the engine's clock);
	// Run waits for it. 0 starts at once. Shards of a multi-pod run share
	// one StartAt so they start together.
	StartAt int64
	// Warmup, when set, runs before the measured phase (from StartAt);
	// the measured phase starts once the warmup's last request resolved.
	Warmup *Phase
	// Control, when set, is what the benchmark asks of the server: a
	// KV-cache reset before everything, the profiler around the measured
	// phase (control.go).
	Control *Control
}

// Result summarises a finished benchmark from the scheduler's side.
type Result struct {
	Start int64 // when scheduling began (Unix ns)
	// QueuingEnd is when the scheduler stopped creating requests (the
	// first stop condition fired).
	QueuingEnd int64
	// StopTime is when the benchmark's requests stopped counting: the
	// instant a stop that cancels in-flight requests fired (max duration,
	// max errors, max error rate, interrupt), else End (the in-flight
	// requests of a max-requests or exhausted-data stop finish normally).
	StopTime int64
	End      int64 // when the last request resolved

	Created    int64 // requests dispatched
	Successful int64
	Errored    int64
	Incomplete int64
	// NotSent counts requests that were due by the schedule but never
	// dispatched: the open-loop cap was full when the benchmark ended.
	NotSent int64

	StopReason  StopReason
	Interrupted bool
	Client      report.ClientLoad // the client's own load during the benchmark

	// Backoffs counts the pauses closed-loop streams took after
	// consecutive immediate failures (see backoffDelay), and BackoffTime
	// is their total length, summed over streams: a stream-second spent
	// backing off is a second of offered load not sent.
	Backoffs    int64
	BackoffTime time.Duration
	// Saturation is the over-saturation detector's final state; nil
	// without the constraint.
	Saturation *SaturationState
	// Warmup is the warmup phase's own result (Benchmark.Warmup), nil
	// without one.
	Warmup *Result
	// Control are the control requests sent (Benchmark.Control), in
	// order; a profiler stop that failed is here with its error.
	Control []report.ControlCall
}

// Engine runs benchmarks with one client. Records are handed to the out
// channel given to Run; the consumer must call Release on each when done.
type Engine struct {
	client *Client
	clock  *Clock
	ids    atomic.Uint64
	recs   sync.Pool
	conns  sync.Pool
	// Shard offsets record IDs so shards of one run do not collide.
	shard    int
	inflight atomic.Int64
	sent     atomic.Int64
	// procs is the GOMAXPROCS ceiling of the governor, 0 when off.
	procs int
	// gone, when set, is told when a benchmark stops on
	// Constraints.MaxConnectFailures (SetServerGone).
	gone func(ServerGone)
}

// ServerGone describes a benchmark stopped because the server could not
// be reached: Failures requests in a row, the last failing with LastError.
type ServerGone struct {
	Benchmark int
	Failures  int
	LastError string
}

// SetServerGone registers f, called (from a request's goroutine, once per
// benchmark) the moment a benchmark stops on Constraints.MaxConnectFailures,
// so the run can say so as it happens. Call it before the first benchmark.
func (e *Engine) SetServerGone(f func(ServerGone)) { e.gone = f }

// Live is a snapshot of the engine's counters for progress displays.
type Live struct {
	InFlight int64 // requests dispatched and not yet resolved
	Sent     int64 // requests dispatched since the engine was built
}

// Live returns the engine's live counters.
func (e *Engine) Live() Live { return Live{InFlight: e.inflight.Load(), Sent: e.sent.Load()} }

// NewEngine builds an engine on a client.
func NewEngine(c *Client) *Engine {
	e := &Engine{client: c, clock: c.clock}
	e.recs.New = func() any { return record.New() }
	e.conns.New = func() any { return c.newConn() }
	return e
}

// ShardIDBase separates the record ids of the shards of a multi-pod run:
// shard i numbers its records from i × ShardIDBase + 1.
const ShardIDBase = 1_000_000_000_000

// SetShard stamps records with a shard index (multi-pod runs) and starts
// their ids at index × ShardIDBase, so the ids of a run's shards never
// collide. Call it before the first benchmark.
func (e *Engine) SetShard(i int) {
	e.shard = i
	e.ids.Store(uint64(i) * ShardIDBase)
}

// AdaptProcs lets each closed-loop benchmark (synchronous, concurrent,
// throughput) lower GOMAXPROCS below ceiling while the client's own CPU
// use is low, and raise it back as soon as use grows (see procGovernor);
// every benchmark starts at the ceiling and leaves it set. GOMAXPROCS is
// the process's: call this only when one engine runs at a time, and not
// at all when the user fixed GOMAXPROCS. A ceiling of 1 or less leaves
// the setting alone.
func (e *Engine) AdaptProcs(ceiling int) { e.procs = ceiling }

// procsFor returns the governor's ceiling for a benchmark of strategy s:
// 0 (off) for open-loop and user-centric schedules. Their dispatchers
// must run at the intended instants, and on fewer Ps they wait behind the goroutines
// reading responses: at 1,000 poisson requests/s on one P, the median
// dispatch lateness grew from about 150 µs to 230 µs.
func (e *Engine) procsFor(s Strategy) int {
	if s.OpenLoop() || s.Kind == UserCentric {
		return 0
	}
	return e.procs
}

// Clock returns the engine's clock.
func (e *Engine) Clock() *Clock { return e.clock }

// Client returns the engine's client.
func (e *Engine) Client() *Client { return e.client }

// Release returns a record to the engine for reuse.
func (e *Engine) Release(r *record.Record) {
	if cap(r.ChunkTimes) > 1<<16 {
		return // do not keep pathological buffers alive
	}
	r.Reset()
	e.recs.Put(r)
}

func (e *Engine) newRecord(bench int) *record.Record {
	r := e.recs.Get().(*record.Record)
	r.ID = e.ids.Add(1)
	r.Benchmark = bench
	r.Shard = e.shard
	return r
}

// errBenchmarkEnd is the cancellation cause of requests still in flight
// when a benchmark ends.
var errBenchmarkEnd = errors.New("benchmark ended")

// run holds one benchmark's shared state.
type run struct {
	e           *Engine
	b           Benchmark
	ctx         context.Context // cancelled to abort in-flight requests
	abort       context.CancelCauseFunc
	out         chan<- *record.Record
	stopCh      chan struct{}
	stopMu      sync.Mutex // guards the three fields below (set by stop, from any goroutine)
	reason      StopReason
	stopAt      int64 // when scheduling stopped
	abortAt     int64 // when in-flight requests were cancelled, 0 if never
	interrupted atomic.Bool
	wg          sync.WaitGroup
	created     atomic.Int64
	ok          atomic.Int64
	errs        atomic.Int64
	inc         atomic.Int64
	notSent     atomic.Int64
	sentN       atomic.Int64 // requests sent, numbering them for Constraints.Cancel
	backoffs    atomic.Int64
	backoffNs   atomic.Int64

	winMu  sync.Mutex
	window []bool
	winPos int
	winN   int
	winErr int

	// unreachable counts the requests in a row that could not reach the
	// server (Constraints.MaxConnectFailures).
	unreachable atomic.Int64

	mon *monitor

	sat   *saturationDetector // nil without Constraints.OverSaturation
	start int64               // when scheduling began (the detector's time origin)
	// sessSrc is set when the source hands out sessions (session.go);
	// sessions numbers the sessions started.
	sessSrc  SessionSource
	sessions atomic.Int64
	// warmup marks the records of a warmup phase.
	warmup bool
	// prefill caps the requests waiting for their first token
	// (Strategy.MaxPrefill), nil when none.
	prefill limiter
	// done is closed when the phase's requests have all resolved.
	done chan struct{}
}

// runPhase executes one phase; warmup marks its records.
func (e *Engine) runPhase(ctx context.Context, b Benchmark, out chan<- *record.Record, warmup bool) (Result, error) {
	rctx, abort := context.WithCancelCause(context.WithoutCancel(ctx))
	defer abort(nil)
	r := &run{e: e, b: b, ctx: rctx, abort: abort, out: out, stopCh: make(chan struct{}), mon: newMonitor(e.clock, e.procsFor(b.Strategy)), warmup: warmup}
	if w := b.Constraints.ErrorRateWindow; b.Constraints.MaxErrorRate > 0 {
		if w == 0 {
			w = 30
		}
		r.window = make([]bool, w)
	}
	if b.StartAt != 0 {
		if err := sleepUntil(ctx, e.clock, b.StartAt); err != nil {
			return Result{Start: b.StartAt, End: e.clock.Now(), StopReason: StopInterrupted, Interrupted: true}, nil
		}
	}
	start := e.clock.Now()
	if b.StartAt != 0 {
		start = b.StartAt
	}
	retries0, closed0 := e.client.connStats()
	r.start = start
	if o := b.Constraints.OverSaturation; o != nil {
		r.sat = newSaturationDetector(*o)
	}
	r.mon.start()
	r.done = make(chan struct{})
	defer close(r.done)
	r.prefill = newLimiter(b.Strategy.MaxPrefill, b.Strategy.PrefillRampup, e.clock, start, r.done)
	if d := b.Constraints.MaxDuration; d > 0 {
		// The deadline counts from the scheduled start, so shards that
		// share a StartAt also share their end, however late one woke.
		drain := b.Constraints.Drain
		t := time.AfterFunc(max(0, e.clock.Until(start+int64(d))), func() { r.stop(StopMaxDuration, drain <= 0) })
		defer t.Stop()
		if drain > 0 && drain != DrainAll {
			t2 := time.AfterFunc(max(0, e.clock.Until(start+int64(d+drain))), func() { r.stop(StopMaxDuration, true) })
			defer t2.Stop()
		}
	}
	watchDone := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			r.stop(StopInterrupted, true)
		case <-watchDone:
		}
	}()
	if ss, ok := b.Source.(SessionSource); ok {
		if err := r.startSessions(ss); err != nil {
			return Result{}, err
		}
	}
	switch {
	case b.Strategy.Kind == UserCentric:
		r.users(start)
	case r.sessSrc != nil && b.Strategy.OpenLoop():
		r.openSessions(r.sessSrc, start)
	case b.Strategy.OpenLoop():
		r.openLoop(start)
	default:
		r.closedLoop()
	}
	r.wg.Wait()
	if r.sessSrc != nil {
		// Sessions in flight when the data ran out finished their turns:
		// the schedule ended with the last of them.
		r.stop(StopDataExhausted, false)
	}
	close(watchDone)
	r.stopMu.Lock()
	res := Result{
		Start: start, QueuingEnd: r.stopAt, StopTime: r.abortAt, End: e.clock.Now(),
		Created: r.created.Load(), Successful: r.ok.Load(), Errored: r.errs.Load(), Incomplete: r.inc.Load(),
		NotSent: r.notSent.Load(), StopReason: r.reason, Interrupted: r.interrupted.Load(),
		Backoffs: r.backoffs.Load(), BackoffTime: time.Duration(r.backoffNs.Load()),
	}
	r.stopMu.Unlock()
	if res.StopTime == 0 {
		res.StopTime = res.End
	}
	res.Client = r.mon.finish()
	res.Client.HTTPClient = e.client.httpClientLabel()
	retries, closed := e.client.connStats()
	res.Client.ConnRetries, res.Client.ClosedIdleConns = report.Int(retries-retries0), report.Int(closed-closed0)
	if r.sat != nil {
		res.Saturation = r.sat.state()
	}
	return res, nil
}

// stop ends scheduling once; with abort it also cancels in-flight requests.
func (r *run) stop(reason StopReason, abort bool) {
	now := r.e.clock.Now()
	r.stopMu.Lock()
	if r.stopAt == 0 {
		r.reason, r.stopAt = reason, now
		close(r.stopCh)
	}
	if abort && r.abortAt == 0 {
		r.abortAt = now
		r.mon.aborted.Store(now)
	}
	r.stopMu.Unlock()
	if reason == StopInterrupted {
		r.interrupted.Store(true)
	}
	if abort {
		r.abort(errBenchmarkEnd)
	}
}

func (r *run) stopped() bool {
	select {
	case <-r.stopCh:
		return true
	default:
		return false
	}
}

// execute sends one request and hands its record on. It reports whether
// the request failed immediately (see immediateFailure).
func (r *run) execute(req *Request, rec *record.Record, cn *conn) (immediate bool) {
	r.send(req, rec, cn)
	return r.settle(rec)
}

// send sends one request and fills its record.
func (r *run) send(req *Request, rec *record.Record, cn *conn) {
	n := r.e.inflight.Add(1)
	r.e.sent.Add(1)
	if r.sat != nil {
		r.saturated(r.sat.observeStart(float64(r.e.clock.Now()-r.start)/1e9, float64(n)))
	}
	ctx, release := r.b.Constraints.Cancel.cancelCtx(r.ctx, uint64(r.sentN.Add(1)))
	r.e.client.Do(ctx, req, rec, cn)
	cn.givePrefill()
	release()
	r.e.inflight.Add(-1)
	if r.sat != nil && rec.FirstToken != 0 && rec.Dispatched != 0 {
		r.saturated(r.sat.observeTTFT(float64(rec.FirstToken-r.start)/1e9, float64(rec.FirstToken-rec.Dispatched)/1e9))
	}
	if w := r.b.Constraints.Watcher; w != nil && w.Observe(rec) {
		r.stop(w.Reason(), false)
	}
}

// settle counts a sent request's outcome and hands its record on; it
// reports whether the request failed immediately (see immediateFailure).
func (r *run) settle(rec *record.Record) (immediate bool) {
	switch rec.Status {
	case record.StatusSuccessful:
		r.ok.Add(1)
	case record.StatusErrored:
		if n := r.errs.Add(1); r.b.Constraints.MaxErrors > 0 && n >= int64(r.b.Constraints.MaxErrors) {
			r.stop(StopMaxErrors, true)
		}
	default:
		r.inc.Add(1)
	}
	if r.window != nil && rec.Status != record.StatusIncomplete {
		r.observeErrorRate(rec.Status == record.StatusErrored)
	}
	if max := r.b.Constraints.MaxGlobalErrorRate; max > 0 {
		r.observeGlobalErrorRate(max)
	}
	if max := r.b.Constraints.MaxConnectFailures; max > 0 {
		r.observeReach(rec, max)
	}
	r.mon.observe(rec)
	immediate = immediateFailure(rec)
	rec.Warmup = r.warmup
	r.out <- rec // rec belongs to the consumer from here on
	return immediate
}

// saturated stops the benchmark on an over-saturation alert, unless the
// constraint only monitors.
func (r *run) saturated(alert bool) {
	if alert && !r.b.Constraints.OverSaturation.Monitor {
		r.stop(StopOverSaturation, true)
	}
}

func (r *run) observeErrorRate(errored bool) {
	r.winMu.Lock()
	if r.winN == len(r.window) && r.window[r.winPos] {
		r.winErr--
	}
	r.window[r.winPos] = errored
	if errored {
		r.winErr++
	}
	r.winPos = (r.winPos + 1) % len(r.window)
	if r.winN < len(r.window) {
		r.winN++
	}
	trip := r.winN == len(r.window) && float64(r.winErr)/float64(r.winN) >= r.b.Constraints.MaxErrorRate
	r.winMu.Unlock()
	if trip {
		r.stop(StopMaxErrorRate, true)
	}
}

// observeGlobalErrorRate stops the benchmark when the errored share of
// the requests processed so far (successful, errored and incomplete, as
// GuideLLM counts them) reaches max, once the minimum were processed.
func (r *run) observeGlobalErrorRate(max float64) {
	errs := r.errs.Load()
	n := r.ok.Load() + errs + r.inc.Load()
	min := int64(r.b.Constraints.GlobalErrorMin)
	if min == 0 {
		min = 30
	}
	if n >= min && float64(errs)/float64(n) >= max {
		r.stop(StopMaxGlobalErrorRate, true)
	}
}

// unreachable reports whether rec failed without reaching a server: the
// connection was refused or could not be made, or it was reset before
// any response header arrived.
func unreachable(rec *record.Record) bool {
	return rec.Status == record.StatusErrored && (rec.ErrorClass == record.ErrConnect ||
		rec.ErrorClass == record.ErrDisconnect && rec.Headers == 0 && rec.FirstChunk == 0)
}

// observeReach counts the requests in a row that could not reach the
// server and stops the benchmark at max of them. A response of any kind
// (a success, an HTTP error, a broken stream) restarts the count; a
// cancelled or timed-out request leaves it as it is.
func (r *run) observeReach(rec *record.Record, max int) {
	switch {
	case unreachable(rec):
		if r.unreachable.Add(1) == int64(max) {
			r.stop(StopServerGone, true)
			if r.e.gone != nil {
				r.e.gone(ServerGone{Benchmark: r.b.Index, Failures: max, LastError: rec.Error})
			}
		}
	case rec.Status == record.StatusSuccessful || rec.Headers != 0 || rec.FirstChunk != 0 || rec.ErrorClass == record.ErrHTTPStatus:
		r.unreachable.Store(0)
	}
}

// closedLoop runs N streams that each send when their last request ended.
func (r *run) closedLoop() {
	n := r.b.Strategy.Workers()
	for w := 0; w < n; w++ {
		r.wg.Add(1)
		go func(w int) {
			defer r.wg.Done()
			if !r.awaitStreamStart(w, n) {
				return
			}
			cn := r.e.conns.Get().(*conn)
			defer r.e.conns.Put(cn)
			if r.sessSrc != nil {
				r.sessionStream(r.sessSrc, cn)
				return
			}
			r.requestStream(cn)
		}(w)
	}
}

// claim takes the benchmark's next request, or stops the benchmark when
// its request limit or its source is exhausted.
func (r *run) claim() (*Request, bool) {
	i := r.created.Add(1) - 1
	if maxReq := int64(r.b.Constraints.MaxRequests); maxReq > 0 && i >= maxReq {
		r.created.Add(-1)
		r.stop(StopMaxRequests, false)
		return nil, false
	}
	req, ok := r.b.Source.Request(uint64(i))
	if !ok {
		r.created.Add(-1)
		r.stop(StopDataExhausted, false)
		return nil, false
	}
	return req, true
}

// awaitStreamStart waits for stream w of n to start (a rampup); false
// when the benchmark stopped first.
func (r *run) awaitStreamStart(w, n int) bool {
	d := r.b.Strategy.StreamStart(w, n)
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	select {
	case <-t.C:
		return true
	case <-r.stopCh:
		t.Stop()
		return false
	}
}

// requestStream sends one request after another until the benchmark
// stops. Its goroutine waits for every chunk below this frame, so the
// frame stays small (see Client.Do).
func (r *run) requestStream(cn *conn) {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	fails := 0 // consecutive immediate failures
	for !r.stopped() {
		if !r.takePrefill(cn) {
			return
		}
		req, ok := r.claim()
		if !ok {
			cn.givePrefill()
			return
		}
		rec := r.e.newRecord(r.b.Index)
		rec.Intended = r.e.clock.Now()
		if !r.execute(req, rec, cn) {
			fails = 0
			continue
		}
		fails++
		if !r.backoff(backoffDelay(fails), timer) {
			return
		}
	}
}

// Backoff of a closed-loop stream after consecutive immediate failures: a
// full server (every request refused at once with 429 or 503, or the
// connection refused) is measured, not flooded. Without it 16 streams sent
// about 22,000 requests/s against an all-429 mock on loopback. The first
// pause is 1 ms, so an isolated refusal among successes costs the stream
// almost nothing; it doubles per further failure up to 1 s, reached after
// 11 failures (about 1 s in all), the Retry-After vLLM and the mock send
// with a 429, so a persistent refusal settles at about one request per
// second per stream and a recovered server is seen within a second. Any
// request that is not an immediate failure resets the sequence: the
// server took it on. The pauses have no jitter: streams start at
// different times and fail at different times, and a fixed schedule keeps
// the rate bounded by a formula.
const (
	backoffFirst = time.Millisecond
	backoffMax   = time.Second
)

// backoffDelay returns the pause after the n-th consecutive immediate
// failure (n >= 1): min(backoffFirst × 2^(n-1), backoffMax).
func backoffDelay(n int) time.Duration {
	d := backoffFirst
	for i := 1; i < n && d < backoffMax; i++ {
		d *= 2
	}
	return min(d, backoffMax)
}

// immediateFailure reports whether rec failed before the server took the
// request on: a non-2xx status or a connection that could not be made.
// Such failures come back at once from a full or absent server, and a
// closed loop would resend at the speed of the loopback.
func immediateFailure(rec *record.Record) bool {
	return rec.Status == record.StatusErrored && (rec.ErrorClass == record.ErrHTTPStatus || rec.ErrorClass == record.ErrConnect)
}

// backoff pauses a closed-loop stream for d, or until the benchmark stops
// (then it returns false), and records the pause.
func (r *run) backoff(d time.Duration, timer *time.Timer) bool {
	t0 := r.e.clock.Now()
	timer.Reset(d)
	var ok bool
	select {
	case <-timer.C:
		ok = true
	case <-r.stopCh:
		timer.Stop()
	}
	r.backoffs.Add(1)
	r.backoffNs.Add(r.e.clock.Now() - t0)
	return ok
}

// openLoop dispatches requests at the pacer's times, never waiting for
// responses, up to the in-flight cap.
func (r *run) openLoop(start int64) {
	pacer, err := NewPacer(r.b.Strategy)
	if err != nil {
		r.stop(StopDataExhausted, false)
		return
	}
	sem := newLimiter(r.b.Strategy.Workers(), r.b.Strategy.CapRampup, r.e.clock, start, r.done)
	maxReq := uint64(r.b.Constraints.MaxRequests)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var i uint64
	for ; ; i++ {
		if maxReq > 0 && i >= maxReq {
			r.stop(StopMaxRequests, false)
			return
		}
		off, ok := pacer.Next(i)
		if !ok {
			r.stop(StopDataExhausted, false)
			return
		}
		due := start + int64(off)
		// The request is built while its send time approaches, so
		// building it (a prompt's text, its token count) costs no
		// lateness unless the schedule is already behind.
		req, ok := r.b.Source.Request(i)
		if !ok {
			r.stop(StopDataExhausted, false)
			return
		}
		if r.e.clock.Until(due) > 0 {
			if !waitUntil(r.e.clock, due, r.stopCh, timer) {
				return
			}
		} else if r.stopped() {
			break
		}
		// The in-flight slot first, then the prefill slot (AIPerf's
		// order); a wait for either is the request's lateness.
		if !sem.take(r.stopCh) {
			r.countNotSent(pacer, i, start)
			return
		}
		if !r.prefill.take(r.stopCh) {
			sem.give()
			r.countNotSent(pacer, i, start)
			return
		}
		if r.stopped() {
			r.prefill.give()
			sem.give()
			r.countNotSent(pacer, i, start)
			return
		}
		r.created.Add(1)
		rec := r.e.newRecord(r.b.Index)
		rec.Intended = due
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			cn := r.e.conns.Get().(*conn)
			cn.holdPrefill(r.prefill)
			r.execute(req, rec, cn)
			r.e.conns.Put(cn)
			<-sem
		}()
	}
	r.countNotSent(pacer, i, start)
}

// countNotSent counts request i and every later one that was already due
// when the benchmark stopped but was never dispatched.
func (r *run) countNotSent(p Pacer, i uint64, start int64) {
	r.stopMu.Lock()
	limit := r.stopAt - start
	r.stopMu.Unlock()
	n := int64(1)
	maxReq := uint64(r.b.Constraints.MaxRequests)
	for j := i + 1; n < 10_000_000 && (maxReq == 0 || j < maxReq); j++ {
		off, ok := p.Next(j)
		if !ok || int64(off) > limit {
			break
		}
		n++
	}
	r.notSent.Add(n)
}

// sleepUntil waits until the Unix-ns instant at, or until ctx ends, with
// waitUntil's precision: shards of one run must begin together.
func sleepUntil(ctx context.Context, c *Clock, at int64) error {
	t := time.NewTimer(time.Hour)
	t.Stop()
	if !waitUntil(c, at, ctx.Done(), t) {
		return ctx.Err()
	}
	return nil
}
