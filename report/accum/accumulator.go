package accum

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"unicode/utf8"

	"github.com/goodput-dev/goodput/metric"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/stats"
	"github.com/goodput-dev/goodput/slo"
)

// Defaults of Config.
const (
	DefaultExactCap      = 200_000
	DefaultTokenEventCap = 500_000
	DefaultSampleSize    = 20
	// SampleAll is the Config.SampleSize that keeps every request record
	// (GuideLLM's sample_size null; the report says null).
	SampleAll = math.MaxInt
	// pendingChunkCap bounds the chunk timestamps buffered for requests
	// whose place in the window is not known yet (warmup by request count).
	pendingChunkCap = 4 << 20
)

// Config configures an Accumulator. It holds what must be known before
// the first request completes: the warmup/cooldown and the limits they are
// measured against.
type Config struct {
	// Warmup and Cooldown are excluded from the metrics (GuideLLM's
	// TransientPhaseConfig rules; see TransientPhase).
	Warmup, Cooldown report.TransientPhase
	// Constraints are the benchmark's stop conditions; max_duration and
	// max_requests are the limits fractions and phases refer to. They are
	// written to the benchmark's config.
	Constraints []report.Constraint
	// Start is the scheduler start time (Unix ns). Phases in seconds count
	// from it; it is required when such a phase applies.
	Start int64
	// ExactCap is how many per-request summaries are kept (72 bytes
	// each); every distribution is exact up to it. Beyond it, distributions
	// are derived from histograms and time bins and the report says so.
	// 0 means DefaultExactCap.
	ExactCap int
	// TokenEventCap bounds the token events (one per token-bearing chunk,
	// plus one prompt event per request) of the exact
	// output_tokens_per_second and tokens_per_second distributions, which
	// need about 48 bytes per event while they are computed; above it they
	// are computed from time bins instead. 0 means DefaultTokenEventCap.
	TokenEventCap int
	// SampleSize is how many request records per status the report keeps
	// (uniform reservoir sample over the whole benchmark, warmup and
	// cooldown included, as GuideLLM does). 0 means DefaultSampleSize; a
	// negative value keeps none; SampleAll keeps every one.
	SampleSize int
	// Seed seeds the reservoir sampling.
	Seed uint64
	// SLO, when set, judges every request against the SLO's per-request
	// thresholds as it is added, and the benchmark in Finish (Extras.SLO).
	SLO SLO
	// RequestType is the benchmark's request type (chat_completions,
	// text_completions); it keys Extras.PromptOverhead ("unknown" when
	// empty).
	RequestType string
	// PromptOverhead is the chat template overhead the data took off each
	// prompt (--chat-template-overhead): the client expects the server to
	// bill its count of the raw prompt plus this. 0 when none.
	PromptOverhead int
	// InputKind names the inputs of pooling requests in Extras.Inputs:
	// "inputs" (embeddings, the default) or "documents" (rerank, score);
	// InputAudio counts a transcription benchmark's audio seconds.
	InputKind string
	// Models and Targets are the run's models and targets when it has
	// several: the extras then break the window's requests down by each
	// (Extras.ByModel, ByTarget; exact up to ExactCap). Records name
	// theirs (record.Model, Target).
	Models, Targets []string
	// Tokenizer names the client's tokenizer ("" when none), for the
	// token warnings.
	Tokenizer string
	// TokenMismatchWarn is the share of the server's tokens (0.01 = 1 %)
	// by which the server's and the client's counts may differ before
	// Finish warns (Extras.TokenWarnings); 0 means
	// DefaultTokenMismatchWarn, a negative value never warns.
	TokenMismatchWarn float64
	// Confidence is the confidence (0..1) of every distribution's mean
	// and percentile intervals (--confidence); 0 means
	// stats.DefaultConfidence, a negative value computes none.
	Confidence float64
	// Streaming, when set, measures the streams' quality
	// (Extras.Streaming); an SLO on stalls, deadline misses or fluidity
	// sets it when nil.
	Streaming *StreamingConfig
	// SliceNs > 0 cuts the window into slices of that many nanoseconds
	// (Extras.Slices; exact requests only).
	SliceNs int64
	// Percentiles, when set, is the percentile list of Extras.Percentiles
	// and of the slices (each in (0, 100)).
	Percentiles []float64
	// InWindow, when set, decides which requests the measurement window
	// holds, in place of the window's times (which still give the
	// benchmark's duration and rates): the merge of a sharded run counts
	// each request by its own shard's window. start and end are the
	// request's span as a window judges it (its dispatch, else its
	// intended start; its end), Unix ns.
	InWindow func(r *record.Record, start, end int64) bool
}

// confidence is the intervals' confidence, 0 for none.
func (a *Accumulator) confidence() float64 {
	switch c := a.cfg.Confidence; {
	case c == 0:
		return stats.DefaultConfidence
	case c < 0 || c >= 1:
		return 0
	default:
		return c
	}
}

func (c Config) limits() (maxRequests int, maxSeconds float64) {
	for _, k := range c.Constraints {
		switch k.Kind {
		case report.ConstraintMaxDuration:
			maxSeconds = k.Seconds
		case report.ConstraintMaxRequests:
			maxRequests = k.Count
		}
	}
	return maxRequests, maxSeconds
}

// phase is a warmup or cooldown resolved against the limits.
type phase struct {
	active  bool
	secs    *float64
	reqs    *int
	maxReqs int
	maxSecs float64
}

// Accumulator aggregates the records of one benchmark. Add must be called
// from a single goroutine; the Accumulator keeps no reference to the
// records it is given.
type Accumulator struct {
	cfg              Config
	warm, cool       phase
	exactCap         int
	tokenEventCap    int
	sampleSize       int
	rng              *rand.Rand
	adds             int64 // Add calls with a valid record (GuideLLM's processed count)
	invalid          int64
	notDispatched    int64
	minStart, maxEnd int64
	// warmups counts the warmup phase's records (record.Warmup);
	// minMeasured is the earliest start of the others.
	warmups     int64
	minMeasured int64

	warmKnown bool  // the warmup's request transition happened
	warmAt    int64 // start of the (N+1)-th processed request
	coolKnown bool
	coolAt    int64 // end of the request processed when N+1 remained

	sums sumStore
	// byModel and byTarget break the window down (groups.go); nil
	// without several models or targets.
	byModel, byTarget *groupDim
	// audio holds each stored summary's audio seconds (parallel to sums)
	// when InputKind is InputAudio.
	audio []float32
	// media holds the media quantities of the stored summaries that have
	// any, by index in sums (media.go); nil without.
	media       map[int32]*mediaVals
	overCap     int64 // valid, classified records beyond ExactCap
	overOutside int64 // of those, decided outside the window
	binned      *binnedAgg

	hist         [numHist][report.NumStatus]*stats.HistAcc
	pending      []pendingRec
	pendingChunk int
	undecided    int64 // requests beyond ExactCap decided early (pending buffer full)

	reservoir [report.NumStatus][]*sampled
	seen      [report.NumStatus]int64

	made              [report.NumStatus]int64 // processed requests by outcome (all, not windowed)
	delaySum, timeSum float64                 // Σ (Dispatched − Intended), Σ (End − Dispatched), seconds
	delayN, timeN     int64

	classIdx   map[record.ErrorClass]uint8
	classNames []string
	// msgIdx and msgNames number the distinct error messages (one line,
	// cut), so each summary names its message in one byte.
	msgIdx   map[string]uint8
	msgNames []string

	tok tokenCheck // server vs client token counts of in-window requests

	thresholds *slo.RequestThresholds // Config.SLO's per-request thresholds, nil without an SLO
	stream     *streamAgg             // nil unless Config.Streaming (or the SLO) asks for it
	sessions   *sessionAgg            // conversations' turns, nil until the first (sessions.go)
	server     *serverTimeAgg         // servers' own per-request times, nil until the first (servertime.go)
	goodOver   report.GoodputCounts   // in-window requests beyond ExactCap (online decision)

	result *report.Benchmark // set by Finish
}

// Histogram slots: one per metric row (metric.Latency.Slot), then the
// chunk gaps.
const (
	hGapNoTok = metric.N + iota // gaps of requests without per-chunk token counts
	hGapTok                     // gaps of requests with per-chunk token counts
	hTokNorm                    // per-token gaps of requests with per-chunk token counts
	numHist
)

type pendingRec struct {
	s      RequestSummary
	idx    int // index in sums, -1 when beyond ExactCap
	times  []int64
	tokens []int32
	counts tokenCounts
	media  *mediaVals
}

// New returns an Accumulator for one benchmark.
func New(cfg Config) (*Accumulator, error) {
	a := &Accumulator{cfg: cfg, exactCap: cfg.ExactCap, tokenEventCap: cfg.TokenEventCap, sampleSize: cfg.SampleSize,
		byModel: newGroupDim(cfg.Models), byTarget: newGroupDim(cfg.Targets)}
	if a.exactCap <= 0 {
		a.exactCap = DefaultExactCap
	}
	if a.tokenEventCap <= 0 {
		a.tokenEventCap = DefaultTokenEventCap
	}
	switch {
	case a.sampleSize == 0:
		a.sampleSize = DefaultSampleSize
	case a.sampleSize < 0:
		a.sampleSize = 0
	}
	for _, c := range cfg.Constraints {
		if _, err := c.MarshalJSON(); err != nil {
			return nil, err
		}
	}
	maxReqs, maxSecs := cfg.limits()
	for i, t := range []report.TransientPhase{cfg.Warmup, cfg.Cooldown} {
		name := [2]string{"warmup", "cooldown"}[i]
		if t.Percent != nil && (*t.Percent < 0 || *t.Percent >= 1 || math.IsNaN(*t.Percent)) {
			return nil, fmt.Errorf("%s: percent must be in [0, 1), got %v", name, *t.Percent)
		}
		if t.Value != nil && (*t.Value < 0 || math.IsNaN(*t.Value) || math.IsInf(*t.Value, 0)) {
			return nil, fmt.Errorf("%s: value must be a finite number >= 0, got %v", name, *t.Value)
		}
		p := phase{maxReqs: maxReqs, maxSecs: maxSecs}
		p.secs, p.reqs = t.Limits(maxReqs, maxSecs)
		p.active = p.secs != nil || p.reqs != nil
		if p.secs != nil && cfg.Start == 0 {
			return nil, fmt.Errorf("%s in seconds needs Config.Start (the scheduler start time)", name)
		}
		if i == 0 {
			a.warm = p
		} else {
			a.cool = p
		}
	}
	a.rng = rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
	a.classIdx = map[record.ErrorClass]uint8{}
	a.classNames = []string{""}
	a.msgIdx = map[string]uint8{}
	a.msgNames = []string{""}
	if cfg.SLO != nil {
		t := cfg.SLO.Thresholds()
		a.thresholds = &t
		if cfg.Streaming == nil && t.Streaming() {
			a.cfg.Streaming = &StreamingConfig{}
		}
	}
	if c := a.cfg.Streaming; c != nil {
		a.stream = &streamAgg{cfg: *c, cap: a.exactCap}
	}
	return a, nil
}

// Add aggregates one completed request. It copies what it needs; r may be
// reused by the caller as soon as Add returns. Records without a status or
// without any timestamp are counted as invalid and otherwise ignored.
func (a *Accumulator) Add(r *record.Record) {
	if r == nil {
		return
	}
	s, ok := Summarize(r)
	var st uint8
	switch r.Status {
	case record.StatusSuccessful:
		st = report.StatusSuccessful
	case record.StatusErrored:
		st = report.StatusErrored
	case record.StatusIncomplete:
		st = report.StatusIncomplete
	default:
		ok = false
	}
	if !ok {
		a.invalid++
		return
	}
	s.status = st
	s.errClass = a.classOf(r.ErrorClass)
	if a.cfg.InWindow != nil {
		if a.cfg.InWindow(r, s.start, s.end) {
			s.flags |= flagWindowIn
		} else {
			s.flags |= flagWindowOut
		}
	}
	if r.Warmup {
		// A warmup phase's request (AIPerf's): never in the window.
		s.flags = s.flags&^flagWindowIn | flagWindowOut
		a.warmups++
	}
	if st != report.StatusSuccessful {
		s.errMsg = a.msgOf(r.Error)
	}
	if a.thresholds != nil {
		var sq *Stream
		if a.stream != nil {
			q := a.measure(&s, r.ChunkTimes, r.ChunkTokens)
			sq = &q
		}
		s.flags |= verdictFlags(judge(a.thresholds, &s, r.ChunkTimes, sq))
	}
	a.adds++
	a.made[st]++
	a.transitions(&s)
	if r.Session.ID != "" {
		if a.sessions == nil {
			a.sessions = newSessionAgg(a.exactCap)
		}
		a.sessions.add(r, &s, a.thresholds != nil)
	}
	a.addServerTime(r, &s)
	if st == report.StatusIncomplete && !s.dispatched() {
		// GuideLLM drops requests cancelled before they started.
		a.notDispatched++
		return
	}
	if a.minStart == 0 || s.start < a.minStart {
		a.minStart = s.start
	}
	if !r.Warmup && (a.minMeasured == 0 || s.start < a.minMeasured) {
		a.minMeasured = s.start
	}
	if s.end > a.maxEnd {
		a.maxEnd = s.end
	}
	if v, ok := s.LatenessNs(); ok {
		a.delaySum += float64(v) / 1e9
		a.delayN++
	}
	if v, ok := s.LatencyNs(); ok {
		a.timeSum += float64(v) / 1e9
		a.timeN++
	}
	a.sample(r, &s)
	mv := mediaOf(r)

	over := a.sums.len() >= a.exactCap
	switch a.decide(&s) {
	case decIn:
		s.flags |= flagOnlineIn
		a.feedHist(&s, r.ChunkTimes, r.ChunkTokens, countsOf(r))
		if over {
			a.binnedAdd(&s, mv)
			countGood(&a.goodOver, &s)
		}
	case decOut:
		if over {
			a.overOutside++
		}
	case decPending:
		if a.pendingChunk+len(r.ChunkTimes) > pendingChunkCap {
			// Decided as outside: Finish checks stored requests against
			// the final window; beyond ExactCap it can only count them.
			if over {
				a.undecided++
			}
			break
		}
		p := pendingRec{s: s, idx: -1, times: append([]int64(nil), r.ChunkTimes...), counts: countsOf(r), media: mv}
		if !over {
			p.idx = a.sums.len()
		}
		if len(r.ChunkTokens) == len(r.ChunkTimes) {
			p.tokens = append([]int32(nil), r.ChunkTokens...)
		}
		a.pendingChunk += len(p.times)
		a.pending = append(a.pending, p)
	}
	if over {
		a.overCap++
		return
	}
	a.groupsOf(r)
	a.storeMedia(a.sums.len(), mv)
	a.sums.append(s)
}

// maxMessageLen is the longest error message the report keeps, in bytes.
const maxMessageLen = 200

// msgOf numbers an error message, made one line and cut; 0 for none, or
// once 254 distinct messages are numbered (the rest go uncounted).
func (a *Accumulator) msgOf(m string) uint8 {
	if m == "" {
		return 0
	}
	m = OneLineMessage(m, maxMessageLen)
	if i, ok := a.msgIdx[m]; ok {
		return i
	}
	if len(a.msgNames) >= 255 {
		return 0
	}
	i := uint8(len(a.msgNames))
	a.msgIdx[m] = i
	a.msgNames = append(a.msgNames, m)
	return i
}

// OneLineMessage is m on one line (runs of white space made one space),
// cut to at most n bytes on a rune boundary with "…" when longer.
func OneLineMessage(m string, n int) string {
	m = strings.Join(strings.Fields(m), " ")
	if len(m) <= n {
		return m
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(m[cut]) {
		cut--
	}
	return m[:cut] + "…"
}

// topMessages is the most common message of each error class, from
// counts by (class index, message index).
func (a *Accumulator) topMessages(counts map[[2]uint8]int64) map[string]report.ErrorMessage {
	var out map[string]report.ErrorMessage
	for k, n := range counts {
		if k[1] == 0 {
			continue
		}
		name := a.classNames[k[0]]
		if name == "" {
			name = "unknown"
		}
		cur, ok := out[name]
		msg := a.msgNames[k[1]]
		if ok && (int64(cur.Count) > n || int64(cur.Count) == n && cur.Message <= msg) {
			continue
		}
		if out == nil {
			out = map[string]report.ErrorMessage{}
		}
		out[name] = report.ErrorMessage{Message: msg, Count: report.Int(n)}
	}
	return out
}

func (a *Accumulator) classOf(c record.ErrorClass) uint8 {
	if c == record.ErrNone {
		return 0
	}
	if i, ok := a.classIdx[c]; ok {
		return i
	}
	if len(a.classNames) >= 255 {
		c = "other"
		if i, ok := a.classIdx[c]; ok {
			return i
		}
	}
	i := uint8(len(a.classNames))
	a.classIdx[c] = i
	a.classNames = append(a.classNames, string(c))
	return i
}

// transitions records the request-count transitions of the warmup and
// cooldown: GuideLLM ends a warmup of N requests at the start of the
// (N+1)-th processed request, and starts a cooldown of N requests at the
// end of the request processed when N+1 of the max-requests limit
// remained.
func (a *Accumulator) transitions(s *RequestSummary) {
	if a.warm.reqs != nil && !a.warmKnown && a.adds == int64(*a.warm.reqs)+1 {
		a.warmKnown, a.warmAt = true, s.start
		a.resolvePending(func(p *RequestSummary) bool { return a.decide(p) == decIn })
	}
	if a.cool.reqs != nil && !a.coolKnown && a.adds == int64(a.cool.maxReqs-*a.cool.reqs-1) {
		a.coolKnown, a.coolAt = true, s.end
	}
}

type decision uint8

const (
	decIn decision = iota
	decOut
	decPending
)

// decide says whether a request is in the measurement window as far as it
// is known now (used for the histograms, which cannot be filtered later).
func (a *Accumulator) decide(s *RequestSummary) decision {
	switch {
	case s.flags&flagWindowIn != 0:
		return decIn
	case s.flags&flagWindowOut != 0:
		return decOut
	}
	ms, msKnown := a.onlineMeasureStart()
	if !msKnown {
		return decPending
	}
	if s.end < ms {
		return decOut
	}
	if me, ok := a.onlineMeasureEnd(); ok && s.start > me {
		return decOut
	}
	return decIn
}

// onlineMeasureStart is the warmup end if it is known now; without a
// warmup every request passes the start test (known, at minus infinity).
func (a *Accumulator) onlineMeasureStart() (int64, bool) {
	w := a.warm
	if !w.active {
		return math.MinInt64, true
	}
	durAt := int64(0)
	if w.secs != nil {
		durAt = a.cfg.Start + SecToNs(*w.secs)
	}
	if w.reqs == nil {
		return durAt, true
	}
	if !a.warmKnown {
		return 0, false
	}
	if w.secs != nil {
		return max(a.warmAt, durAt), true
	}
	return a.warmAt, true
}

// onlineMeasureEnd is the cooldown start if it is known now. Before a
// request-count cooldown starts, requests are taken to start before it.
func (a *Accumulator) onlineMeasureEnd() (int64, bool) {
	c := a.cool
	if !c.active {
		return 0, false
	}
	durAt := int64(0)
	if c.secs != nil {
		durAt = a.cfg.Start + SecToNs(c.maxSecs-*c.secs)
	}
	if c.reqs == nil {
		return durAt, true
	}
	if !a.coolKnown {
		return 0, false
	}
	if c.secs != nil {
		return min(a.coolAt, durAt), true
	}
	return a.coolAt, true
}

func SecToNs(s float64) int64 { return int64(math.Round(s * 1e9)) }

// resolvePending decides the buffered requests once the warmup end is
// known (or, at Finish, once it is known never to come).
func (a *Accumulator) resolvePending(in func(*RequestSummary) bool) {
	for i := range a.pending {
		p := &a.pending[i]
		if !in(&p.s) {
			continue
		}
		p.s.flags |= flagOnlineIn
		a.feedHist(&p.s, p.times, p.tokens, p.counts)
		if p.idx >= 0 {
			a.sums.at(p.idx).flags |= flagOnlineIn
		} else {
			a.binnedAdd(&p.s, p.media)
			countGood(&a.goodOver, &p.s)
		}
	}
	a.pending, a.pendingChunk = nil, 0
}

// measure is a request's streaming quality under Config.Streaming.
func (a *Accumulator) measure(s *RequestSummary, times []int64, tokens []int32) Stream {
	start := int64(0)
	if s.dispatched() {
		start = s.start
	}
	c := a.stream.cfg
	return MeasureStream(start, times, tokens, c.TTFTDeadlineNs, c.TBTDeadlineNs)
}

func (a *Accumulator) histAcc(h int, st uint8) *stats.HistAcc {
	x := a.hist[h][st]
	if x == nil {
		x = stats.NewHistAcc()
		a.hist[h][st] = x
	}
	return x
}

// feedHist records an in-window request in the histograms and the token
// count checks.
func (a *Accumulator) feedHist(s *RequestSummary, times []int64, tokens []int32, tc tokenCounts) {
	st := s.status
	a.tok.add(tc, a.cfg.PromptOverhead, st == report.StatusSuccessful)
	r := s.timing(times)
	for _, l := range metric.All {
		if l.Stream && a.stream == nil {
			continue
		}
		if v, ok := l.Value(r); ok {
			a.histAcc(l.Slot, st).Record(int64(math.Round(v)), l.Samples(r.OutputTokens))
		}
	}
	if a.stream != nil && st == report.StatusSuccessful {
		a.stream.add(a.measure(s, times, tokens))
	}
	if len(times) < 2 {
		return
	}
	if len(tokens) != len(times) {
		h := a.histAcc(hGapNoTok, st)
		for i := 1; i < len(times); i++ {
			h.Record(times[i]-times[i-1], 1)
		}
		return
	}
	hg, ht := a.histAcc(hGapTok, st), a.histAcc(hTokNorm, st)
	for i := 1; i < len(times); i++ {
		g := times[i] - times[i-1]
		hg.Record(g, 1)
		if n := int64(tokens[i]); n > 0 {
			ht.Record((g+n/2)/n, n)
		}
	}
}

// sampled is a request kept for the report's request records.
type sampled struct {
	s                                                RequestSummary
	id                                               uint64
	errClass                                         record.ErrorClass
	errMsg, responseID, finishReason, output, reason string
	firstChunk, sent, headers                        int64
	cached, reasoningTokens, srv, cli                int
	source                                           record.TokenSource
	session                                          record.Session
	media                                            *mediaVals
}

// sample keeps r in its status's reservoir (Algorithm R, seeded).
func (a *Accumulator) sample(r *record.Record, s *RequestSummary) {
	if a.sampleSize == 0 {
		return
	}
	st := s.status
	a.seen[st]++
	slot := -1
	if len(a.reservoir[st]) < a.sampleSize {
		slot = len(a.reservoir[st])
		a.reservoir[st] = append(a.reservoir[st], nil)
	} else if j := a.rng.Int64N(a.seen[st]); j < int64(a.sampleSize) {
		slot = int(j)
	}
	if slot < 0 {
		return
	}
	a.reservoir[st][slot] = &sampled{
		s: *s, id: r.ID, errClass: r.ErrorClass, errMsg: r.Error,
		responseID: r.ResponseID, finishReason: r.FinishReason,
		output: r.OutputText, reason: r.ReasoningText,
		firstChunk: r.FirstChunk, sent: r.Sent, headers: r.Headers,
		cached: r.CachedTokens, reasoningTokens: r.ReasoningTokens, source: r.OutputSource,
		srv: r.ServerOutputTokens, cli: r.ClientOutputTokens, session: r.Session, media: mediaOf(r),
	}
}
