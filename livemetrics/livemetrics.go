// Package livemetrics serves a run's own series in the Prometheus
// exposition format while it runs (--metrics-addr), so that a team's
// Prometheus and Grafana see the load beside the server's and the GPUs'
// series: requests by status and error class, requests in flight, TTFT,
// inter-token and end-to-end latency histograms per round, output tokens,
// the current round and its target load, the process's CPU (the Prometheus
// client's process collector) and each finished round's client timer lag.
//
// Enter with Listen, chain Observer in front of the run's other observers
// (it forwards every call to the next one first), and Close when the run
// ends; Close waits for one more scrape when Prometheus has been scraping,
// so that the final counts are collected.
//
//	lm, err := livemetrics.Listen(":9090", livemetrics.Options{InFlight: func() float64 { … }})
//	obs := lm.Observer(progress)
//	defer lm.Close(ctx)
//
// Updates happen once per record, from the runner's collector goroutine,
// with the client library's atomic counters and histograms: nothing is
// added to the request path.
package livemetrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/sweep"
)

// Latency buckets in seconds: vLLM's, so that the client's and the
// server's histograms line up in a dashboard.
var (
	ttftBuckets = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560}
	itlBuckets  = []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80}
	e2eBuckets  = []float64{0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680}
)

// maxLinger bounds Close's wait for a last scrape.
const maxLinger = 60 * time.Second

// Options configures the series that read the engine.
type Options struct {
	// InFlight returns the requests in flight now; nil leaves the gauge
	// out.
	InFlight func() float64
}

// Server is the live /metrics endpoint of one run.
type Server struct {
	reg *prometheus.Registry
	ln  net.Listener
	srv *http.Server

	requests  *prometheus.CounterVec   // round, status, class
	outTokens *prometheus.CounterVec   // round
	ttft      *prometheus.HistogramVec // round
	itl       *prometheus.HistogramVec // round
	e2e       *prometheus.HistogramVec // round
	round     prometheus.Gauge
	target    *prometheus.GaugeVec // kind: rate | concurrency
	info      *prometheus.GaugeVec // round, strategy
	lagP99    prometheus.Gauge
	cores     prometheus.Gauge

	// Per-round children, looked up once per round (collector goroutine).
	cur roundSeries

	mu      sync.Mutex
	scrapes []time.Time // the last two scrape times
	scraped chan struct{}
	done    chan error
}

// roundSeries are the current round's children.
type roundSeries struct {
	label          string
	outTokens      prometheus.Counter
	ttft, itl, e2e prometheus.Observer
	ok             prometheus.Counter
	byStatusClass  map[[2]string]prometheus.Counter
}

// Listen binds addr (":9090", "127.0.0.1:0") and serves GET /metrics on it
// until Close. A bad or busy address is an error naming it.
func Listen(addr string, o Options) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr %q: %w", addr, err)
	}
	s := &Server{reg: prometheus.NewRegistry(), ln: ln, scraped: make(chan struct{}), done: make(chan error, 1)}
	s.register(o)
	mux := http.NewServeMux()
	h := promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{Registry: s.reg})
	mux.Handle("GET /metrics", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		s.noteScrape()
	}))
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

func (s *Server) register(o Options) {
	s.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "goodput_requests_total",
		Help: "Requests finished, by round, status (successful, errored, incomplete) and error class (none when successful)."},
		[]string{"round", "status", "class"})
	s.outTokens = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "goodput_output_tokens_total",
		Help: "Output tokens of the finished requests, by round."}, []string{"round"})
	s.ttft = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "goodput_time_to_first_token_seconds",
		Help: "Time to first token of successful requests, client side, by round.", Buckets: ttftBuckets}, []string{"round"})
	s.itl = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "goodput_inter_token_latency_seconds",
		Help: "Gaps between token-bearing chunks of successful requests, client side, by round.", Buckets: itlBuckets}, []string{"round"})
	s.e2e = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "goodput_e2e_request_latency_seconds",
		Help: "End-to-end latency of successful requests, client side, by round.", Buckets: e2eBuckets}, []string{"round"})
	s.round = prometheus.NewGauge(prometheus.GaugeOpts{Name: "goodput_round", Help: "Index of the round running now (-1 between rounds)."})
	s.round.Set(-1)
	s.target = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "goodput_round_target_load",
		Help: "Target load of the round running now: kind rate (requests per second) or concurrency (streams)."}, []string{"kind"})
	s.info = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "goodput_round_info",
		Help: "1 for the round running now, with its strategy."}, []string{"round", "strategy"})
	s.lagP99 = prometheus.NewGauge(prometheus.GaugeOpts{Name: "goodput_client_timer_lag_p99_seconds",
		Help: "P99 of how late a 5 ms timer fired in the client over the last finished round (CPU starvation)."})
	s.cores = prometheus.NewGauge(prometheus.GaugeOpts{Name: "goodput_client_cores",
		Help: "CPU seconds per second the client used over the last finished round."})
	s.reg.MustRegister(s.requests, s.outTokens, s.ttft, s.itl, s.e2e, s.round, s.target, s.info, s.lagP99, s.cores,
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), collectors.NewGoCollector())
	if o.InFlight != nil {
		s.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "goodput_requests_in_flight",
			Help: "Requests sent and not yet finished."}, o.InFlight))
	}
}

// Addr is the address served, e.g. "127.0.0.1:9090".
func (s *Server) Addr() string { return s.ln.Addr().String() }

func (s *Server) noteScrape() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scrapes = append(s.scrapes, time.Now())
	if len(s.scrapes) > 2 {
		s.scrapes = s.scrapes[1:]
	}
	close(s.scraped)
	s.scraped = make(chan struct{})
}

// Close stops serving. When the endpoint has been scraped at least twice,
// it first waits for a scrape that starts after the call (at most twice the
// last scrape interval, and never more than a minute, or until ctx ends),
// so that the run's final counts reach Prometheus.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	var wait time.Duration
	if len(s.scrapes) == 2 {
		wait = min(2*s.scrapes[1].Sub(s.scrapes[0]), maxLinger)
	}
	s.mu.Unlock()
	if wait > 0 {
		deadline := time.Now().Add(wait)
		from := time.Now()
		for {
			s.mu.Lock()
			last, ch := s.scrapes[len(s.scrapes)-1], s.scraped
			s.mu.Unlock()
			if last.After(from) {
				break
			}
			t := time.NewTimer(time.Until(deadline))
			select {
			case <-ch:
				t.Stop()
				continue
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
			}
			break
		}
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(sctx)
	if serr := <-s.done; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

// Observer returns a sweep.Observer that updates the series and forwards
// every call to next (nil for none) first.
func (s *Server) Observer(next sweep.Observer) sweep.Observer { return &observer{s: s, next: next} }

type observer struct {
	s    *Server
	next sweep.Observer
}

func (o *observer) BenchmarkStart(index int, st loadgen.Strategy, c loadgen.Constraints, start int64) {
	if o.next != nil {
		o.next.BenchmarkStart(index, st, c, start)
	}
	s := o.s
	lbl := strconv.Itoa(index)
	s.cur = roundSeries{label: lbl, outTokens: s.outTokens.WithLabelValues(lbl), ttft: s.ttft.WithLabelValues(lbl),
		itl: s.itl.WithLabelValues(lbl), e2e: s.e2e.WithLabelValues(lbl),
		ok: s.requests.WithLabelValues(lbl, record.StatusSuccessful.String(), "none"), byStatusClass: map[[2]string]prometheus.Counter{}}
	s.round.Set(float64(index))
	s.target.Reset()
	switch {
	case (st.OpenLoop() || st.Kind == loadgen.UserCentric) && st.MeanRate() > 0:
		s.target.WithLabelValues("rate").Set(st.MeanRate())
	case st.Kind == loadgen.Synchronous:
		s.target.WithLabelValues("concurrency").Set(1)
	case st.Streams > 0:
		s.target.WithLabelValues("concurrency").Set(float64(st.Streams))
	}
	s.info.Reset()
	s.info.WithLabelValues(lbl, st.String()).Set(1)
}

func (o *observer) Record(r *record.Record) {
	if o.next != nil {
		o.next.Record(r)
	}
	switch {
	case r.Status == 0, r.Status == record.StatusIncomplete && r.Dispatched == 0:
		return // never started: GuideLLM's reports (and goodput's) leave these out
	}
	c := &o.s.cur
	if c.ok == nil { // a record outside a round: count it under its own index
		o.BenchmarkStart(r.Benchmark, loadgen.Strategy{}, loadgen.Constraints{}, 0)
	}
	if r.OutputTokens > 0 {
		c.outTokens.Add(float64(r.OutputTokens))
	}
	if r.Status != record.StatusSuccessful {
		k := [2]string{r.Status.String(), string(r.ErrorClass)}
		if k[1] == "" {
			k[1] = "none"
		}
		ctr := c.byStatusClass[k]
		if ctr == nil {
			ctr = o.s.requests.WithLabelValues(c.label, k[0], k[1])
			c.byStatusClass[k] = ctr
		}
		ctr.Inc()
		return
	}
	c.ok.Inc()
	start := r.Started()
	if r.FirstToken > 0 && r.FirstToken >= start {
		c.ttft.Observe(float64(r.FirstToken-start) / 1e9)
	}
	if r.End > 0 && r.End >= start {
		c.e2e.Observe(float64(r.End-start) / 1e9)
	}
	for i := 1; i < len(r.ChunkTimes); i++ {
		if d := r.ChunkTimes[i] - r.ChunkTimes[i-1]; d >= 0 {
			c.itl.Observe(float64(d) / 1e9)
		}
	}
}

func (o *observer) BenchmarkEnd(index int, round sweep.Round) {
	if o.next != nil {
		o.next.BenchmarkEnd(index, round)
	}
	s := o.s
	s.round.Set(-1)
	s.target.Reset()
	s.info.Reset()
	if b := round.Benchmark; b != nil && b.Extras != nil && b.Extras.Client != nil {
		cl := b.Extras.Client
		s.lagP99.Set(float64(cl.SchedLagP99us) / 1e6)
		s.cores.Set(float64(cl.Cores))
	}
}
