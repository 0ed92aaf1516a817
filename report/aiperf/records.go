package aiperf

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/accum"
)

// Builder computes the AIPerf export of one benchmark of a report
// from its per-request records, AIPerf's way (README.md): every record
// metric from every successful request in the benchmark's measurement
// window, statistics as numpy computes them. Records of other benchmarks
// are skipped, so a whole records file can be streamed through Add. Memory
// is bounded by Options' caps; Add keeps no reference to the record.
type Builder struct {
	rep   *report.Report
	index int
	opts  Options

	runIndex  int
	useWindow bool
	ms, me    float64 // measurement window (Unix seconds, the report's values)
	slos      []aiperfSLOCheck

	vals [apNumRecord]*aiperfValues

	ok, errs, good, oslMismatch int64
	outside, notDispatched      int64
	totalISL, totalOSL          int64
	totalOut, totalReason       int64
	totalErrISL                 int64
	oslCompared                 bool
	perChunkFallback            int64
	minStart, maxEnd            int64
	errors                      errorTally

	// sampled request ids of the report (and their end times), to prove
	// that the records belong to it.
	samples map[uint64]float64
}

type aiperfSLOCheck struct {
	metric    int
	threshold float64 // base unit
	larger    bool
}

// NewBuilder prepares the export of rep.Benchmarks[index]. The
// records it is fed are matched to the benchmark by record.Benchmark =
// its config.run_index, and to its measurement window by GuideLLM's
// overlap rule on the report's measure_start_time/measure_end_time
// (warmup and cooldown excluded, as AIPerf excludes its warmup phase).
func NewBuilder(rep *report.Report, index int, opts Options) (*Builder, error) {
	if index < 0 || index >= len(rep.Benchmarks) {
		return nil, fmt.Errorf("benchmark %d: the report has %d benchmarks", index, len(rep.Benchmarks))
	}
	b := rep.Benchmarks[index]
	if b == nil {
		return nil, fmt.Errorf("benchmark %d is null", index)
	}
	a := &Builder{rep: rep, index: index, opts: opts, runIndex: int(b.Config.RunIndex), errors: errorTally{counts: map[errorKey]int64{}}}
	capVals, capChunks := opts.caps()
	for i := range a.vals {
		d := &aiperfRecordDefs[i]
		c := capVals
		if i == apICL {
			c = capChunks
		}
		a.vals[i] = newAIPerfValues(c, d.resolution, d.offset)
	}
	if sm := b.SchedulerMetrics; sm != nil && sm.MeasureStartTime != nil && sm.MeasureEndTime != nil &&
		!(b.Config.Warmup.IsZero() && b.Config.Cooldown.IsZero()) {
		a.useWindow = true
		a.ms, a.me = float64(*sm.MeasureStartTime), float64(*sm.MeasureEndTime)
	}
	for _, s := range opts.SLOs {
		i, ok := aiperfSLODef(s.Tag)
		if !ok {
			return nil, fmt.Errorf("--goodput: unknown metric %q", s.Tag)
		}
		d := &aiperfRecordDefs[i]
		a.slos = append(a.slos, aiperfSLOCheck{metric: i, threshold: s.Threshold * d.toBase, larger: d.larger})
	}
	a.samples = map[uint64]float64{}
	for _, list := range [][]*report.RequestStats{b.Requests.Successful, b.Requests.Errored, b.Requests.Incomplete} {
		for _, r := range list {
			if r != nil && r.Extras != nil && r.RequestEndTime != nil {
				a.samples[r.Extras.ID] = float64(*r.RequestEndTime)
			}
		}
	}
	return a, nil
}

// Add feeds one record (of any benchmark).
func (a *Builder) Add(r *record.Record) {
	if want, ok := a.samples[r.ID]; ok && r.Benchmark == a.runIndex {
		end := r.End
		if end == 0 {
			end = r.Started()
		}
		if math.Abs(accum.NsToSec(end)-want) < 1e-6 {
			delete(a.samples, r.ID)
		}
	}
	if r.Benchmark != a.runIndex || r.Status == 0 {
		return
	}
	if r.Warmup { // a warmup phase's request: AIPerf leaves it out
		a.outside++
		return
	}
	start := r.Started()
	if start == 0 {
		start = r.End
	}
	if start == 0 {
		return
	}
	if r.Status == record.StatusIncomplete && r.Dispatched == 0 {
		a.notDispatched++
		return
	}
	if a.useWindow {
		end := r.End
		if end == 0 {
			end = start
		}
		if !(accum.NsToSec(end) >= a.ms && accum.NsToSec(start) <= a.me) {
			a.outside++
			return
		}
	}
	isl, islOK := aiperfISL(r, a.opts.TokenCounts)
	if r.Status != record.StatusSuccessful {
		a.errs++
		if islOK {
			a.vals[apErrorISL].add(float64(isl))
			a.totalErrISL += int64(isl)
		}
		a.errors.add(r)
		return
	}
	a.ok++
	var v [apNumRecord]float64
	var has [apNumRecord]bool
	set := func(m int, x float64) {
		v[m], has[m] = x, true
		a.vals[m].add(x)
	}
	// request_latency: the last content chunk (else the end of the
	// response) minus the request start.
	last := r.LastToken
	if last == 0 {
		last = r.End
	}
	rl := last - start
	set(apRequestLatency, float64(rl))
	if a.ok == 1 || start < a.minStart {
		a.minStart = start
	}
	a.maxEnd = max(a.maxEnd, last)
	var ttft int64
	if r.FirstToken != 0 {
		ttft = r.FirstToken - start
		set(apTTFT, float64(ttft))
	}
	if r.FirstOutputToken != 0 {
		set(apTTFO, float64(r.FirstOutputToken-start))
	}
	if ct := r.ChunkTimes; len(ct) >= 2 && ct[1] >= ct[0] {
		set(apTTST, float64(ct[1]-ct[0]))
		monotonic := true
		for i := 1; i < len(ct); i++ {
			if ct[i] < ct[i-1] {
				monotonic = false
				break
			}
		}
		if monotonic {
			for i := 1; i < len(ct); i++ {
				a.vals[apICL].add(float64(ct[i] - ct[i-1]))
			}
		}
	}
	osl, oslOK := aiperfOSL(r, a.opts.TokenCounts)
	if oslOK {
		set(apOSL, float64(osl))
		reason := max(r.ReasoningTokens, 0)
		set(apOutCount, float64(osl-reason))
		set(apReasoning, float64(reason))
		a.totalOSL += int64(osl)
		a.totalOut += int64(osl - reason)
		a.totalReason += int64(reason)
		if r.FirstToken != 0 && osl >= 2 {
			itl := float64(rl-ttft) / float64(a.decodeTokens(r, osl))
			set(apITL, itl)
			if itl != 0 {
				set(apOTPU, 1/(itl*nsToSecFactor))
			}
		}
		if rl > 0 {
			set(apE2E, float64(osl)/(float64(rl)*nsToSecFactor))
		}
		if req := r.RequestedOutputTokens; req > 0 {
			a.oslCompared = true
			set(apOSLDiff, (float64(osl-req)/float64(req))*100.0)
			if math.Abs(float64(osl-req)) > math.Min(float64(req)*(5.0/100), 50) {
				a.oslMismatch++
			}
		}
	}
	if islOK {
		set(apISL, float64(isl))
		a.totalISL += int64(isl)
		if r.FirstToken != 0 && ttft > 0 {
			set(apPrefill, float64(isl)/(float64(ttft)*nsToSecFactor))
		}
	}
	if a.opts.HTTPTrace {
		a.addHTTPTrace(r)
	}
	if len(a.slos) > 0 {
		good := true
		for _, c := range a.slos {
			x := v[c.metric]
			if !has[c.metric] || (c.larger && !(x >= c.threshold)) || (!c.larger && !(x <= c.threshold)) {
				good = false
				break
			}
		}
		if good {
			a.good++
		}
	}
}

// decodeTokens is the divisor of a request's inter_token_latency: the
// output tokens after the first content chunk. AIPerf's is osl-1; with
// --per-chunk-usage, osl less the first token-bearing chunk's tokens by
// the server's continuous usage (record.ChunkTokens), falling back to
// osl-1 when the server reported none, or a count of 0 or of the whole
// output (AIPerf's fallback, counted in goodput_export).
func (a *Builder) decodeTokens(r *record.Record, osl int) int {
	if !a.opts.PerChunkUsage || len(r.ChunkTokens) == 0 || len(r.ChunkTokens) != len(r.ChunkTimes) {
		return osl - 1
	}
	if first := int(r.ChunkTokens[0]); first > 0 && osl-first >= 1 {
		return osl - first
	}
	a.perChunkFallback++
	return osl - 1
}

// addHTTPTrace adds a successful request's HTTP phases, AIPerf's k6-named
// trace metrics from goodput's phase times: connecting from the request's
// start to its connection (0 on a pooled one; a dial's name resolution
// included) and whether the connection was reused, sending from the
// start (connection set-up included, as AIPerf's request_send_start
// precedes it) to its last byte written, waiting from there to the
// first response event, receiving from there to the end of the
// response, duration from the start to the end. A phase whose times are
// missing or out of order (HTTP/2 can report the write after the
// response began) is left out for that request.
func (a *Builder) addHTTPTrace(r *record.Record) {
	phase := func(m int, from, to int64) {
		if from != 0 && to != 0 && to >= from {
			a.vals[m].add(float64(to - from))
		}
	}
	if r.Connected != 0 {
		reused := 0.0
		if r.ConnReused {
			reused = 1
			a.vals[apHTTPConnecting].add(0) // no connection set up, as AIPerf's
		} else {
			phase(apHTTPConnecting, r.Dispatched, r.Connected)
		}
		a.vals[apHTTPConnReused].add(reused)
	}
	phase(apHTTPSending, r.Dispatched, r.Sent)
	phase(apHTTPWaiting, r.Sent, r.FirstChunk)
	phase(apHTTPReceiving, r.FirstChunk, r.End)
	phase(apHTTPDuration, r.Dispatched, r.End)
}

// aiperfOSL is the request's output sequence length, which includes
// reasoning tokens as AIPerf's does: with TokensClient the client
// tokenizer's count of the streamed text (AIPerf's default), else
// goodput's output token count (the server's usage, else the client
// tokenizer, else one per token-bearing chunk: AIPerf's
// --use-server-token-count). ok is false when the count is unknown.
func aiperfOSL(r *record.Record, counts TokenCounts) (int, bool) {
	if counts == TokensClient && r.ClientOutputTokens >= 0 {
		return r.ClientOutputTokens, true
	}
	switch r.OutputSource {
	case record.TokensUsage, record.TokensTokenizer, record.TokensChunks:
		return r.OutputTokens, true
	}
	if r.OutputTokens > 0 || r.ServerOutputTokens >= 0 || r.ClientOutputTokens >= 0 {
		return r.OutputTokens, true
	}
	return 0, false
}

// aiperfISL is the request's input sequence length: the client's count
// of the prompt text it sent (what AIPerf counts: no chat template), else
// the server's usage prompt_tokens (which includes the template); with
// TokensServer the server's count first.
func aiperfISL(r *record.Record, counts TokenCounts) (int, bool) {
	if counts == TokensServer && r.ServerPromptTokens >= 0 {
		return r.ServerPromptTokens, true
	}
	if r.ClientPromptTokens >= 0 {
		return r.ClientPromptTokens, true
	}
	if r.PromptTokens > 0 || r.ServerPromptTokens >= 0 {
		return r.PromptTokens, true
	}
	return 0, false
}

// Export computes the AIPerf export. It fails when the report sampled
// requests of this benchmark that the records never contained (the
// records belong to another run).
func (a *Builder) Export() (*Export, error) {
	if n := len(a.samples); n > 0 {
		return nil, fmt.Errorf("benchmark %d: %d of the report's sampled requests are not in the records (or end at other times): the records file does not belong to this report", a.index, n)
	}
	x, err := aiperfHeader(a.rep, a.index, a.opts, "records")
	if err != nil {
		return nil, err
	}
	prov := x.Goodput
	prov.InWindow = a.ok + a.errs
	prov.OutsideWindow = a.outside
	prov.NotDispatched = a.notDispatched
	if ex := a.rep.Benchmarks[a.index].Extras; ex != nil {
		rq, windowed := ex.Requests, a.useWindow || ex.WarmupPhase != nil
		switch {
		case windowed && int64(rq.InWindow) != prov.InWindow:
			prov.Exact = false
			prov.InexactReasons = append(prov.InexactReasons, fmt.Sprintf(
				"%d records are in the measurement window, the report counts %d: the window's edges (Unix seconds in the report) placed a request differently", prov.InWindow, rq.InWindow))
		case !windowed && int64(rq.Recorded-rq.Invalid-rq.NotDispatched) != prov.InWindow:
			prov.Exact = false
			prov.InexactReasons = append(prov.InexactReasons, fmt.Sprintf(
				"the records file has %d sent requests of this benchmark, the report recorded %d", prov.InWindow, rq.Recorded-rq.Invalid-rq.NotDispatched))
		}
	}
	add := func(m int) {
		vs := a.vals[m]
		if vs.count() == 0 {
			return
		}
		if m == apReasoning && a.totalReason == 0 {
			return // not a reasoning model: AIPerf has no reasoning metrics then
		}
		st := vs.stats()
		if !st.exact {
			prov.Exact = false
			prov.InexactReasons = append(prov.InexactReasons, fmt.Sprintf(
				"%s: %d values exceeded the exact cap of %d; its percentiles come from an HDR histogram (3 significant digits)", aiperfRecordDefs[m].tag, st.n-int64(vs.cap), vs.cap))
			if st.clamped > 0 {
				prov.InexactReasons = append(prov.InexactReasons, fmt.Sprintf("%s: %d values were outside the histogram's range", aiperfRecordDefs[m].tag, st.clamped))
			}
		}
		x.Metrics = append(x.Metrics, recordMetric(&aiperfRecordDefs[m], st))
	}
	for m := range apNumRecord {
		add(m)
	}
	sc := func(tag string, v float64) { x.Metrics = append(x.Metrics, scalarMetric(tag, v)) }
	sc("request_count", float64(a.ok))
	sc("error_request_count", float64(a.errs))
	if a.ok > 0 {
		durNs := a.maxEnd - a.minStart
		sc("benchmark_duration", float64(durNs)*nsToSecFactor)
		if a.vals[apISL].count() > 0 {
			sc("total_isl", float64(a.totalISL))
		}
		if a.vals[apOSL].count() > 0 {
			sc("total_osl", float64(a.totalOSL))
			sc("total_output_tokens", float64(a.totalOut))
			if a.totalReason > 0 {
				sc("total_reasoning_tokens", float64(a.totalReason))
			}
		}
		if durNs > 0 {
			dur := float64(durNs) * nsToSecFactor
			sc("request_throughput", float64(a.ok)/dur)
			if a.vals[apOSL].count() > 0 {
				sc("output_token_throughput", float64(a.totalOSL)/dur)
				sc("total_token_throughput", float64(a.totalISL+a.totalOSL)/dur)
			}
			if len(a.slos) > 0 {
				sc("goodput", float64(a.good)/dur)
			}
		}
		if a.oslCompared {
			sc("osl_mismatch_count", float64(a.oslMismatch))
		}
		if len(a.slos) > 0 {
			sc("good_request_count", float64(a.good))
		}
	} else if len(a.slos) > 0 {
		sc("good_request_count", 0)
	}
	if a.errs > 0 && a.vals[apErrorISL].count() > 0 {
		sc("total_error_isl", float64(a.totalErrISL))
	}
	addSessionMetrics(x, a.rep.Benchmarks[a.index])
	x.ErrorSummary = a.errors.summary()
	prov.PerChunkUsageFallback = a.perChunkFallback
	return x, nil
}

// FromRecords builds the export of rep.Benchmarks[index] from a
// stream of records: next fills the record and returns io.EOF at the end
// (record.Decoder.Decode has that shape). Records of other benchmarks are
// read and skipped.
func FromRecords(rep *report.Report, index int, next func(*record.Record) error, opts Options) (*Export, error) {
	a, err := NewBuilder(rep, index, opts)
	if err != nil {
		return nil, err
	}
	r := record.New()
	for {
		err := next(r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		a.Add(r)
	}
	return a.Export()
}

// FromJSONL builds the export of rep.Benchmarks[index] from a
// records file in goodput's JSON Lines layout (record.Encoder). Lines of
// other benchmarks are recognised by their leading "benchmark" key and
// skipped without decoding, so exporting every benchmark of a run, one
// pass each, decodes each record once. Errors name the file and line.
func FromJSONL(rep *report.Report, index int, r io.Reader, name string, opts Options) (*Export, error) {
	a, err := NewBuilder(rep, index, opts)
	if err != nil {
		return nil, err
	}
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, 64<<10), 64<<20)
	rec := record.New()
	line := 0
	for s.Scan() {
		line++
		b := s.Bytes()
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		if bm, ok := lineBenchmark(b); ok && bm != a.runIndex {
			continue
		}
		if err := record.UnmarshalLine(b, rec); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		a.Add(rec)
	}
	if err := s.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	return a.Export()
}

// lineBenchmark reads the benchmark index of a JSON Lines record from its
// leading keys, {"id":N,"benchmark":B,…}, as record.Encoder writes them;
// ok is false for any other shape (the caller then decodes the line).
func lineBenchmark(b []byte) (int, bool) {
	rest, ok := bytes.CutPrefix(b, []byte(`{"id":`))
	if !ok {
		return 0, false
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	rest, ok = bytes.CutPrefix(rest[i:], []byte(`,"benchmark":`))
	if !ok || i == 0 {
		return 0, false
	}
	n, j := 0, 0
	for ; j < len(rest) && j < 10 && rest[j] >= '0' && rest[j] <= '9'; j++ {
		n = n*10 + int(rest[j]-'0')
	}
	if j == 0 || j >= len(rest) || (rest[j] != ',' && rest[j] != '}') {
		return 0, false
	}
	return n, true
}

// errorKey groups errored requests as AIPerf's error_summary does.
type errorKey struct {
	code    int
	typ     string
	message string
}

// maxErrorMessages bounds the distinct error messages kept per benchmark;
// further messages are counted under their type with a fixed message.
const maxErrorMessages = 100

type errorTally struct {
	counts map[errorKey]int64
	msgs   int
}

// aiperfErrorTypes maps goodput's error classes to the type names written
// in error_summary.
var aiperfErrorTypes = map[record.ErrorClass]string{
	record.ErrHTTPStatus:    "HTTPError",
	record.ErrConnect:       "ConnectionError",
	record.ErrTimeout:       "TimeoutError",
	record.ErrStall:         "StallTimeoutError",
	record.ErrDisconnect:    "ServerDisconnectedError",
	record.ErrStreamError:   "StreamError",
	record.ErrProtocol:      "ProtocolError",
	record.ErrEmptyResponse: "EmptyResponseError",
	record.ErrCancelled:     "RequestCancellationError",
	record.ErrClient:        "ClientError",
}

func aiperfErrorType(c record.ErrorClass) string {
	if t, ok := aiperfErrorTypes[c]; ok {
		return t
	}
	if c == record.ErrNone {
		return "UnknownError"
	}
	return string(c)
}

func (t *errorTally) add(r *record.Record) {
	k := errorKey{typ: aiperfErrorType(r.ErrorClass), message: r.Error}
	if r.ErrorClass == record.ErrHTTPStatus {
		// Only an HTTP error has a code: a disconnect or stall after a
		// 200 is no error of status 200.
		k.code = r.HTTPStatus
	}
	if r.ErrorClass == record.ErrCancelled || (r.Status == record.StatusIncomplete && r.ErrorClass == record.ErrNone) {
		k.code, k.typ = 499, aiperfErrorTypes[record.ErrCancelled] // AIPerf's code for a cancelled request
	}
	if k.message == "" {
		k.message = r.Status.String()
	}
	if _, ok := t.counts[k]; !ok {
		if t.msgs >= maxErrorMessages {
			k.message = fmt.Sprintf("(other messages: more than %d distinct)", maxErrorMessages)
		} else {
			t.msgs++
		}
	}
	t.counts[k]++
}

// summary lists the groups by count (largest first), then code, type and
// message.
func (t *errorTally) summary() []ErrorCount {
	out := make([]ErrorCount, 0, len(t.counts))
	for k, n := range t.counts {
		d := ErrorDetails{Type: k.typ, Message: k.message}
		if k.code != 0 {
			c := k.code
			d.Code = &c
		}
		out = append(out, ErrorCount{Details: d, Count: n})
	}
	slices.SortFunc(out, func(x, y ErrorCount) int {
		if x.Count != y.Count {
			if x.Count > y.Count {
				return -1
			}
			return 1
		}
		cx, cy := 0, 0
		if x.Details.Code != nil {
			cx = *x.Details.Code
		}
		if y.Details.Code != nil {
			cy = *y.Details.Code
		}
		if cx != cy {
			return cx - cy
		}
		if c := strings.Compare(x.Details.Type, y.Details.Type); c != 0 {
			return c
		}
		return strings.Compare(x.Details.Message, y.Details.Message)
	})
	return out
}
