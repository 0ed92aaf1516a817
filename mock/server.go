package mock

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// maxBodyBytes bounds a request body.
const maxBodyBytes = 32 << 20

// Server is a mock vLLM server. Create it with New, then either Start it or
// mount Handler in your own http.Server; Close it when done.
type Server struct {
	cfg       Config
	modelJSON string // cfg.Model as a JSON string literal
	fpJSON    string // the personality's system_fingerprint as a JSON string, "" none
	pers      personality
	llama     llamaCounters // llama-server's counters (metrics_llamacpp.go)
	count     func(string) int
	mux       *http.ServeMux
	metrics   *metrics
	stats     counters
	seq       atomic.Uint64 // next request sequence number k
	scrapes   atomic.Uint64 // GET /metrics scrapes so far
	started   time.Time
	streams   sync.Pool // *stream

	prefix    *prefixCache   // nil with Config.PrefixCache off
	control   control        // the control routes' counts (control.go)
	responses *responseStore // nil with Config.StoredResponses 0
	idMode    int            // how the prefix cache derives token ids from text

	engine       *engine     // the capacity model's engine, nil without one
	power        *powerMeter // the GPU power model
	gpu          GPUSpec
	dcgmLabels   []string // label set of each simulated GPU
	gpuFactorSum float64

	ctx    context.Context // canceled by Close
	cancel context.CancelFunc

	mu       sync.Mutex
	closed   bool
	inflight int           // admitted requests still in their handler
	idle     chan struct{} // closed when closed && inflight == 0
	srv      *http.Server
	ln       net.Listener
	served   chan struct{} // closed when srv.Serve returns
	// more are the addresses Listen added: their base URLs and a channel
	// closed when each one's Serve returns.
	moreURLs   []string
	moreServed []chan struct{}
	dcgmSrv    *http.Server // the DCGMAddr listener's server, if any
	dcgmLn     net.Listener
	dcgmDone   chan struct{} // closed when dcgmSrv.Serve returns

	// newSchedule makes a request's token schedule: the seam for a capacity
	// model. New sets it to the independent per-request latency model.
	newSchedule func(st *stream, p *plan, arrival time.Time) tokenSchedule

	// onEmit, when set (by in-package tests and benchmarks), is called once
	// per step written, with the request's sequence number k, the step's
	// deadline and the emission time.
	onEmit func(k uint64, due, emitted time.Time)
}

// counters backs Stats.
type counters struct {
	requests, rejected, completed, tokens         atomic.Uint64
	httpErrors, disconnects, stalls, streamErrors atomic.Uint64
	aborted, abandoned, metricsErrors             atomic.Uint64
}

// Stats counts what the server did since New. Fields are read one by one
// (atomically each), so a snapshot taken under load may be slightly skewed
// between fields.
type Stats struct {
	// Requests counts completion requests that passed validation, were given
	// a sequence number and were admitted (including those then answered
	// with an injected HTTP error).
	Requests uint64
	// Rejected counts completion requests answered with a 4xx by validation
	// (bad JSON, unknown model, n != 1, context too long, ...).
	Rejected uint64
	// Completed counts requests that ended normally (finish_reason stop or length).
	Completed uint64
	// Tokens counts output tokens written to clients (streamed chunks, or
	// the tokens of a non-streaming body once it is written).
	Tokens uint64
	// HTTPErrors, Disconnects, Stalls and StreamErrors count injected faults
	// that actually happened (a stall or stream error positioned after an
	// earlier disconnect does not happen).
	HTTPErrors, Disconnects, Stalls, StreamErrors uint64
	// Aborted counts requests ended early because the client went away or
	// because Close ended them.
	Aborted uint64
	// Abandoned counts, with Config.NoAbort, requests whose client went
	// away before their end and that were generated to their end anyway
	// (they are also in Completed).
	Abandoned uint64
	// PrefixCacheQueries and PrefixCacheHits count prompt tokens looked
	// up in the prefix cache and found there (vllm:prefix_cache_queries
	// and _hits); both 0 with Config.PrefixCache off.
	PrefixCacheQueries, PrefixCacheHits uint64
	// CacheResets, ProfilerStarts and ProfilerStops count the control
	// requests answered 200 (POST /reset_prefix_cache or /flush_cache,
	// /start_profile, /stop_profile: control.go).
	CacheResets, ProfilerStarts, ProfilerStops uint64
	// MetricsErrors counts /metrics scrapes answered 500 by
	// Config.MetricsErrorRate.
	MetricsErrors uint64
	// Running is the number of admitted requests not yet ended (with a
	// capacity model this includes those waiting in its queue).
	Running int64
	// Waiting is the number of requests in the capacity model's waiting
	// queue (0 without one).
	Waiting int64
}

// New validates cfg and returns a server. It does not listen: call Start, or
// serve Handler yourself. With a capacity model it starts the engine
// goroutine, which Close stops: always Close a server.
func New(cfg Config) (*Server, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cfg.ErrorCodes = append([]int(nil), cfg.ErrorCodes...)
	cfg.Model = cfg.resolveModel(cfg.Model)
	cfg.LoRAModules = append([]LoRAModule(nil), cfg.LoRAModules...)
	if cfg.Capacity != nil {
		c := *cfg.Capacity
		cfg.Capacity = &c
	}
	if cfg.GPU != nil {
		g := *cfg.GPU
		cfg.GPU = &g
	}
	s := &Server{
		cfg:       cfg,
		modelJSON: jsonString(cfg.Model),
		fpJSON:    cfg.fingerprintJSON(),
		pers:      cfg.pers(),
		metrics:   newMetrics(),
		started:   time.Now(),
		idle:      make(chan struct{}),
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.count = ApproxTokenCount
	if cfg.PromptTokenCounter != nil {
		user := cfg.PromptTokenCounter
		s.count = func(text string) int { return max(user(text), 0) }
	} else if cfg.PromptTokenIDs != nil {
		ids := cfg.PromptTokenIDs
		s.count = func(text string) int { return len(ids(text)) }
	}
	s.idMode = idsFromSegments
	if cfg.PromptTokenCounter == nil {
		s.idMode = idsFromBytes
	}
	if cfg.PrefixCache {
		capTokens := cfg.PrefixCacheTokens
		if capTokens == 0 {
			capTokens = cfg.KVCacheTokens
		}
		s.prefix = newPrefixCache(cfg.BlockSize, capTokens)
	}
	if cfg.StoredResponses > 0 {
		s.responses = newResponseStore(cfg.StoredResponses)
	}
	s.streams.New = func() any { return newStream() }
	gpus, spec := cfg.gpuSetup()
	s.gpu = spec
	s.dcgmLabels = dcgmLabels(gpus, spec, cfg.Seed)
	for i := range gpus {
		s.gpuFactorSum += gpuFactor(i)
	}
	s.power = newPowerMeter(s.started, spec, cfg.DCGMUpdateInterval)
	if cfg.Capacity != nil {
		s.engine = newEngine(s.cfg.Capacity, s.started, s.power)
		go s.engine.run(s.ctx)
		s.newSchedule = func(st *stream, p *plan, _ time.Time) tokenSchedule {
			q := newSeq(p.prompt-p.cached, p.steps, p.tokens, s.cfg.TokensPerChunk)
			q.cached = p.cached
			st.csched = capacitySchedule{e: s.engine, q: q}
			s.engine.submit(q)
			return &st.csched
		}
	} else {
		s.newSchedule = func(st *stream, p *plan, arrival time.Time) tokenSchedule {
			st.sched.init(st.rng, arrival, p.ttft, s.cfg.ITL, s.cfg.ITLStdev)
			return &st.sched
		}
	}
	s.mux = http.NewServeMux()
	for path, serve := range servedPaths() {
		s.mux.HandleFunc("POST "+path, func(w http.ResponseWriter, r *http.Request) { serve(s, w, r) })
	}
	s.mux.HandleFunc("GET /v1/models", s.serveModels)
	s.mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	s.mux.HandleFunc("GET /version", s.serveVersion)
	pers := cfg.pers()
	if pers.metrics != metricsNone {
		s.mux.HandleFunc("GET /metrics", s.serveMetrics)
	} else {
		s.mux.HandleFunc("/metrics", http.NotFound)
	}
	if pers.props {
		s.mux.HandleFunc("GET /props", s.serveProps)
	}
	if pers.apiVersion {
		s.mux.HandleFunc("GET /api/version", s.serveAPIVersion)
	}
	if pers.tokenize != tokenizeNone {
		s.mux.HandleFunc("POST /tokenize", s.serveTokenize)
		s.mux.HandleFunc("POST /detokenize", s.serveDetokenize)
	}
	if !pers.noControl {
		s.serveControl()
	}
	s.mux.HandleFunc("GET /dcgm/metrics", s.serveDCGM)
	s.mux.HandleFunc("/", serveFallback)
	return s, nil
}

// Config returns the configuration the server runs with.
func (s *Server) Config() Config {
	c := s.cfg
	c.ErrorCodes = append([]int(nil), s.cfg.ErrorCodes...)
	if c.Capacity != nil {
		m := *c.Capacity
		c.Capacity = &m
	}
	if c.GPU != nil {
		g := *c.GPU
		c.GPU = &g
	}
	return c
}

// Handler returns the server's HTTP handler, for mounting in another server
// (for example httptest.NewServer). Close still ends its in-flight streams.
func (s *Server) Handler() http.Handler { return s.mux }

// Start listens on addr and serves in the background; it returns once the
// listener is open (or with the error that prevented it). An empty addr
// means "127.0.0.1:8000" (vLLM's default port), and an addr with an empty
// host (":8000") binds 127.0.0.1, not every interface: pass "0.0.0.0:8000"
// to be reachable from elsewhere. Use "127.0.0.1:0" for a free port. With
// Config.DCGMAddr set it also opens the DCGM listener (see DCGMURL).
func (s *Server) Start(addr string) error {
	addr, err := listenAddr(addr)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("mock: Start after Close")
	}
	if s.ln != nil {
		return fmt.Errorf("mock: already listening on %s", s.ln.Addr())
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("mock: listening on %s: %w", addr, err)
	}
	if s.cfg.DCGMAddr != "" {
		daddr, _ := listenAddr(s.cfg.DCGMAddr) // validated by New
		dln, err := net.Listen("tcp", daddr)
		if err != nil {
			ln.Close()
			return fmt.Errorf("mock: listening on %s for DCGM: %w", daddr, err)
		}
		dmux := http.NewServeMux()
		dmux.HandleFunc("GET /metrics", s.serveDCGM)
		dmux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
		s.dcgmLn = dln
		s.dcgmSrv = &http.Server{Handler: dmux, ReadHeaderTimeout: 30 * time.Second}
		s.dcgmDone = make(chan struct{})
		go func() {
			defer close(s.dcgmDone)
			_ = s.dcgmSrv.Serve(dln)
		}()
	}
	s.ln = ln
	s.srv = &http.Server{Handler: s.mux, ReadHeaderTimeout: 30 * time.Second}
	s.served = make(chan struct{})
	go func() {
		defer close(s.served)
		_ = s.srv.Serve(ln) // returns http.ErrServerClosed after Close
	}()
	return nil
}

// Listen serves the same endpoints on one more address, after Start: one
// client IP reaches one server address and port from at most its
// ephemeral ports (about 28,000 by Linux's default), so tens of thousands
// of streams need several. It returns the address's base URL.
func (s *Server) Listen(addr string) (string, error) {
	addr, err := listenAddr(addr)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return "", errors.New("mock: Listen after Close")
	case s.srv == nil:
		return "", errors.New("mock: Listen before Start")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("mock: listening on %s: %w", addr, err)
	}
	done := make(chan struct{})
	s.moreURLs = append(s.moreURLs, "http://"+ln.Addr().String())
	s.moreServed = append(s.moreServed, done)
	srv := s.srv
	go func() {
		defer close(done)
		_ = srv.Serve(ln) // closed with srv by Close
	}()
	return s.moreURLs[len(s.moreURLs)-1], nil
}

// URLs returns the base URL of every address served: Start's, then
// Listen's in order.
func (s *Server) URLs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return nil
	}
	return append([]string{"http://" + s.ln.Addr().String()}, s.moreURLs...)
}

// listenAddr applies Start's defaults to addr.
func listenAddr(addr string) (string, error) {
	if addr == "" {
		return "127.0.0.1:8000", nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("mock: listen address %q: want host:port, e.g. 127.0.0.1:8000: %w", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// URL returns "http://HOST:PORT" of the listener, or "" before Start.
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return ""
	}
	return "http://" + s.ln.Addr().String()
}

// Close stops the server promptly: it stops accepting, ends every in-flight
// stream abruptly (the client sees the connection close without [DONE]) and
// returns once every handler has returned. Calling it again is a no-op.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	if s.inflight == 0 {
		close(s.idle)
	}
	srv, served, more := s.srv, s.served, s.moreServed
	dsrv, ddone := s.dcgmSrv, s.dcgmDone
	s.mu.Unlock()

	s.cancel() // wakes every admitted handler and stops the engine
	var err error
	if srv != nil {
		err = srv.Close() // closes the listeners and every connection
		<-served
		for _, d := range more {
			<-d
		}
	}
	if dsrv != nil {
		if derr := dsrv.Close(); err == nil {
			err = derr
		}
		<-ddone
	}
	<-s.idle
	if s.engine != nil {
		<-s.engine.done
	}
	if err != nil {
		return fmt.Errorf("mock: closing: %w", err)
	}
	return nil
}

// enter admits a request handler; it fails once Close has begun.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.inflight++
	return true
}

func (s *Server) leave() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inflight--
	if s.closed && s.inflight == 0 {
		close(s.idle)
	}
}

// admitOne admits a request answered in one body (pooling, images,
// transcriptions), numbering it and counting it running; while the server
// closes it answers 503 instead. The caller defers done.
func (s *Server) admitOne(w http.ResponseWriter) (k uint64, done func(), ok bool) {
	if !s.enter() {
		writeAPIError(w, shuttingDown())
		return 0, nil, false
	}
	k = s.seq.Add(1) - 1
	s.stats.requests.Add(1)
	s.metrics.running.Add(1)
	return k, func() { s.metrics.running.Add(-1); s.leave() }, true
}

// holdUntil holds a one-body response until at: false when the client
// left first (the request counts as aborted); a closing server aborts the
// handler.
func (s *Server) holdUntil(r *http.Request, at time.Time) bool {
	timer := time.NewTimer(time.Until(at))
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-r.Context().Done():
		s.stats.aborted.Add(1)
		return false
	case <-s.ctx.Done():
		s.stats.aborted.Add(1)
		panic(http.ErrAbortHandler)
	}
}

// shuttingDown is the answer to a request that arrives while Close runs.
func shuttingDown() *apiError {
	return &apiError{status: http.StatusServiceUnavailable, typ: "ServiceUnavailableError", message: "goodput mock: server is shutting down"}
}

// Stats returns the server's counters.
func (s *Server) Stats() Stats {
	st := Stats{
		Requests:      s.stats.requests.Load(),
		Rejected:      s.stats.rejected.Load(),
		Completed:     s.stats.completed.Load(),
		Tokens:        s.stats.tokens.Load(),
		HTTPErrors:    s.stats.httpErrors.Load(),
		Disconnects:   s.stats.disconnects.Load(),
		Stalls:        s.stats.stalls.Load(),
		StreamErrors:  s.stats.streamErrors.Load(),
		Aborted:       s.stats.aborted.Load(),
		Abandoned:     s.stats.abandoned.Load(),
		MetricsErrors: s.stats.metricsErrors.Load(),
		Running:       s.metrics.running.Load(),
		Waiting:       s.waitingGauge(),
	}
	st.CacheResets, st.ProfilerStarts, st.ProfilerStops = s.control.resets.Load(), s.control.starts.Load(), s.control.stops.Load()
	if c := s.prefix; c != nil {
		st.PrefixCacheQueries, st.PrefixCacheHits = c.queries.Load(), c.hits.Load()
	}
	return st
}

// promptCounter is how requests' prompts are counted (and, for the prefix
// cache, tokenized with PromptTokenIDs when given).
func (s *Server) promptCounter() promptCounter {
	pc := promptCounter{count: s.count}
	if s.cfg.PromptTokenIDs != nil && s.prefix != nil {
		pc.encode = s.cfg.PromptTokenIDs
	}
	return pc
}

func (s *Server) waitingGauge() int64 {
	if s.engine == nil {
		return 0
	}
	return s.engine.waiting.Load()
}
