package mock

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/goodput-dev/goodput/reqtype"
)

// Content types and header values, shared read-only by every response.
var (
	eventStreamCT = []string{"text/event-stream; charset=utf-8"}
	jsonCT        = []string{"application/json"}
	retryAfter    = []string{"1"}
)

// maxBatchSteps bounds the steps written by one write: already-due steps
// beyond it go out in the next write, with their own stamp.
const maxBatchSteps = 256

// maxPooledBuffer is the largest buffer a pooled stream keeps between
// requests; larger ones (a huge body, a long non-streaming answer) are
// dropped so that memory does not stay at its peak.
const maxPooledBuffer = 1 << 20

// putStream returns st to the pool.
func (s *Server) putStream(st *stream) {
	if cap(st.buf) > maxPooledBuffer {
		st.buf = nil
	}
	if cap(st.body) > maxPooledBuffer {
		st.body = nil
	}
	s.streams.Put(st)
}

// outcome is how a request ended.
type outcome int

const (
	outFinished    outcome = iota // all steps written (stop or length)
	outClientGone                 // the client went away
	outClosing                    // Close ended it
	outDisconnect                 // injected disconnect
	outStreamError                // injected stream error
)

// The generation APIs, served by serveCompletion.
var (
	_ = serves(reqtype.APIChat, func(s *Server, w http.ResponseWriter, r *http.Request) { s.serveCompletion(w, r, apiChat) })
	_ = serves(reqtype.APICompletions, func(s *Server, w http.ResponseWriter, r *http.Request) { s.serveCompletion(w, r, apiCompletions) })
	_ = serves(reqtype.APIResponses, func(s *Server, w http.ResponseWriter, r *http.Request) { s.serveCompletion(w, r, apiResponses) })
	_ = serves(reqtype.APIMessages, func(s *Server, w http.ResponseWriter, r *http.Request) { s.serveCompletion(w, r, apiMessages) })
)

// serveCompletion serves POST /v1/chat/completions, /v1/completions,
// /v1/responses and /v1/messages: one latency model, each API's own
// shapes.
func (s *Server) serveCompletion(w http.ResponseWriter, r *http.Request, api apiKind) {
	arrival := time.Now()
	st := s.streams.Get().(*stream)
	defer s.putStream(st)

	body, err := readBody(r, st.body[:0])
	st.body = body[:0]
	if err != nil {
		s.stats.rejected.Add(1)
		writeError(w, api, badRequest("", "reading request body: %v", err))
		return
	}
	req, apiErr := parseBody(body, api, &s.cfg, s.promptCounter())
	if apiErr == nil {
		apiErr = s.resolveHistory(&req)
	}
	if apiErr == nil {
		apiErr = req.checkLimits(&s.cfg)
	}
	if apiErr != nil {
		s.stats.rejected.Add(1)
		writeError(w, api, apiErr)
		return
	}
	if !s.enter() {
		writeError(w, api, shuttingDown())
		return
	}
	defer s.leave()

	k := s.seq.Add(1) - 1
	seedRNG(&st.pcg, s.cfg.Seed, k)
	p := makePlan(&s.cfg, &req, k, st.rng)
	s.stats.requests.Add(1)
	if p.httpError != 0 {
		s.stats.httpErrors.Add(1)
		if p.httpError == http.StatusTooManyRequests {
			w.Header()["Retry-After"] = retryAfter
		}
		writeError(w, api, injectedError(p.httpError))
		return
	}

	if s.prefix != nil {
		st.hashes, st.chain = hashPrompt(&req, s.prefix.size, s.idMode, st.hashes, st.chain)
		p.cached = s.prefix.lookup(st.hashes, req.promptTokens)
	}

	// ctx ends when the client goes away or Close begins; with NoAbort
	// only when Close begins.
	parent := r.Context()
	if s.cfg.NoAbort {
		parent = context.WithoutCancel(parent)
	}
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	stopAfter := context.AfterFunc(s.ctx, cancel)
	defer stopAfter()

	tool := chooseTool(&s.cfg, &req, k)
	if tool >= 0 && req.tools[tool].hosted {
		// A built-in tool: the server runs it, then answers in text.
		tool = -1
		if !sleepCtx(ctx, s.cfg.ServerToolTime) {
			s.stats.aborted.Add(1)
			return
		}
	}

	m := s.metrics
	m.running.Add(1)
	m.kvTokens.Add(int64(req.promptTokens))
	if s.engine == nil {
		s.power.add(1)
	}
	sched := s.newSchedule(st, &p, arrival)
	st.r = renderer{
		api: api, chat: req.chat, k: k, idHi: p.idHi, idLo: p.idLo, created: arrival.Unix(), modelJSON: s.responseModel(&req), fpJSON: s.fpJSON,
		tpc: s.cfg.TokensPerChunk, tokens: p.tokens, prompt: req.promptTokens, finish: p.finish,
		stamp: s.cfg.Stamp, contUsage: req.continuousUsage, cached: p.cached, cacheOn: s.prefix != nil,
		timings: s.pers.timings, usageChunk: req.includeUsage, zeroUsage: s.pers.zeroChunkUsage,
	}
	if tool >= 0 {
		st.r.setTool(req.tools[tool])
	}

	st.first, st.last = time.Time{}, time.Time{}
	out, emittedTokens, gone := s.run(w, ctx, r.Context(), st, &p, &req, sched, arrival)
	admitted := s.admittedAt(st, arrival)

	sched.release()
	if !st.first.IsZero() {
		s.llama.predicted.Add(uint64(emittedTokens))
		s.llama.predictedNs.Add(int64(st.last.Sub(st.first)))
	}
	if s.engine == nil {
		s.power.add(-1)
	}
	m.running.Add(-1)
	m.kvTokens.Add(-int64(req.promptTokens + emittedTokens))
	switch out {
	case outFinished:
		s.stats.completed.Add(1)
		if gone {
			s.stats.abandoned.Add(1)
		}
		m.e2e.observeN(time.Since(arrival), 1)
		m.phases.observe(arrival, admitted, st.first, time.Now())
		if p.finish == "length" {
			m.success[reasonLength].Add(1)
		} else {
			m.success[reasonStop].Add(1)
		}
	case outStreamError:
		s.stats.streamErrors.Add(1)
		m.success[reasonError].Add(1)
	case outDisconnect:
		s.stats.disconnects.Add(1)
		m.success[reasonAbort].Add(1)
	case outClientGone, outClosing:
		s.stats.aborted.Add(1)
		m.success[reasonAbort].Add(1)
	}
	if out == outFinished && req.stream && !gone && s.pers.closeAfterStream {
		closeAfterResponse(w)
	}
	if out == outDisconnect || out == outClosing {
		// Tear the connection down without finishing the response: the
		// client sees an abrupt close, no [DONE], no chunked terminator.
		panic(http.ErrAbortHandler)
	}
}

// sleepCtx waits d, or until ctx ends (false).
func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// readBody reads the request body into buf (reused), up to maxBodyBytes.
func readBody(r *http.Request, buf []byte) ([]byte, error) {
	if r.ContentLength > maxBodyBytes {
		return buf, fmt.Errorf("body of %d bytes exceeds the %d-byte limit", r.ContentLength, maxBodyBytes)
	}
	if n := int(r.ContentLength); n > 0 && cap(buf) <= n {
		buf = make([]byte, 0, n+512) // room for the read that returns io.EOF
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if len(buf) > maxBodyBytes {
			return buf, fmt.Errorf("body exceeds the %d-byte limit", maxBodyBytes)
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// run emits the request's steps on their deadlines and returns how it ended,
// how many output tokens it generated and, with NoAbort, whether the client
// (whose request context is client) went away before the end: from then on
// the steps are generated and counted but not written.
func (s *Server) run(w http.ResponseWriter, ctx, client context.Context, st *stream, p *plan, req *request, sched tokenSchedule, arrival time.Time) (outcome, int, bool) {
	m := s.metrics
	var flusher http.Flusher
	if req.stream {
		flusher, _ = w.(http.Flusher)
		h := w.Header()
		h["Content-Type"] = eventStreamCT
		if s.pers.keepAlive != "" {
			h.Set("Keep-Alive", s.pers.keepAlive)
		}
		w.WriteHeader(http.StatusOK)
		if flusher != nil {
			flusher.Flush() // headers go out at once, as vLLM's StreamingResponse does
		}
		st.r.initHead(st.head)
		st.head = st.r.head
	}

	var (
		emitted   int           // steps done
		generated int           // tokens generated so far
		shift     time.Duration // injected stall, applied to steps >= p.stallAt
		last      time.Time     // emission time of the previous step
		gone      bool          // NoAbort: the client went away, nothing more is written
		answered  bool          // finishAnswer has run
	)
	for emitted < p.steps {
		if emitted == p.stallAt {
			shift = s.cfg.StallDuration
			s.stats.stalls.Add(1)
		}
		at, err := dueAt(ctx, sched, emitted)
		if err != nil {
			return s.stopReason(), generated, gone
		}
		at = at.Add(shift)
		if emitted == p.steps-1 && emitted != p.disconnectAt && emitted != p.streamErrAt {
			// The answer's bookkeeping, while waiting for the last step
			// rather than between its deadline and its write.
			s.finishAnswer(st, req)
			answered = true
		}
		if err := sleepUntil(ctx, st.timer, at); err != nil {
			return s.stopReason(), generated, gone
		}
		if emitted == p.disconnectAt {
			return outDisconnect, generated, gone
		}
		if emitted == p.streamErrAt {
			stamp := time.Now().UnixNano()
			if req.stream {
				st.buf = st.r.appendStreamError(st.buf[:0], emitted, stamp)
				if _, err := w.Write(st.buf); err == nil && flusher != nil {
					flusher.Flush()
				}
			} else {
				writeError(w, req.api, &apiError{status: http.StatusInternalServerError, typ: "InternalServerError", message: "goodput mock: injected stream error"})
			}
			return outStreamError, generated, gone
		}

		// Gather every further step already due, up to the next fault and
		// at most maxBatchSteps (which bounds the write buffer).
		now := time.Now()
		st.dues = append(st.dues[:0], at)
		end := emitted + 1
		for end < p.steps && end-emitted < maxBatchSteps && end != p.disconnectAt && end != p.streamErrAt && end != p.stallAt {
			t, known := sched.due(end)
			t = t.Add(shift)
			if !known || t.After(now) {
				break
			}
			st.dues = append(st.dues, t)
			end++
		}

		if end == p.steps && !answered { // the last step came in a batch
			s.finishAnswer(st, req)
			answered = true
		}
		stamp := time.Now()
		ns := stamp.UnixNano()
		tokens := min(end*s.cfg.TokensPerChunk, p.tokens) - generated
		first := st.first
		if emitted == 0 {
			first = stamp
		}
		if end == p.steps && st.r.timings {
			st.r.setTimings(s.admittedAt(st, arrival), first, stamp)
		}
		if req.stream {
			b := st.buf[:0]
			if emitted == 0 {
				b = st.r.appendOpening(b, ns)
			}
			for i := emitted; i < end; i++ {
				b = st.r.appendStepChunk(b, i, p.steps, ns)
			}
			if end == p.steps {
				b = st.r.appendClosing(b, req.includeUsage, ns)
			}
			st.buf = b
			if s.cfg.NoAbort && !gone && client.Err() != nil {
				gone = true
			}
			if !gone {
				if _, err := w.Write(b); err != nil {
					if !s.cfg.NoAbort {
						return outClientGone, generated, false
					}
					gone = true
				} else {
					if flusher != nil {
						flusher.Flush()
					}
					s.stats.tokens.Add(uint64(tokens))
				}
			}
		}

		if emitted == 0 {
			st.first = stamp
			s.llama.firstStep(req.promptTokens, p.cached, stamp.Sub(s.admittedAt(st, arrival)))
			m.ttft.observeN(stamp.Sub(arrival), 1)
			m.promptTokens.Add(uint64(req.promptTokens))
			m.itl.observeN(0, uint64(end-emitted-1))
		} else {
			m.itl.observeN(stamp.Sub(last), 1)
			m.itl.observeN(0, uint64(end-emitted-1))
		}
		m.generationTokens.Add(uint64(tokens))
		m.kvTokens.Add(int64(tokens))
		if s.onEmit != nil {
			for _, d := range st.dues {
				s.onEmit(p.k, d, stamp)
			}
		}
		generated += tokens
		last = stamp
		st.last = stamp
		s.llama.decodes.Add(uint64(end - emitted))
		s.llama.held(req.promptTokens + generated)
		emitted = end
	}

	if s.cfg.NoAbort && !req.stream && client.Err() != nil {
		gone = true
	}
	if !req.stream && !gone {
		st.buf = st.r.appendBody(st.buf[:0], time.Now().UnixNano())
		h := w.Header()
		h["Content-Type"] = jsonCT
		h.Set("Content-Length", strconv.Itoa(len(st.buf)))
		w.WriteHeader(http.StatusOK)
		if _, err := w.Write(st.buf); err != nil {
			if !s.cfg.NoAbort {
				return outClientGone, generated, false
			}
			gone = true
		} else {
			s.stats.tokens.Add(uint64(p.tokens))
		}
	}
	return outFinished, generated, gone
}

// stopReason maps a wait error to an outcome.
func (s *Server) stopReason() outcome {
	if s.ctx.Err() != nil {
		return outClosing
	}
	return outClientGone
}

// dueAt returns the deadline of step i, waiting for the schedule to know it.
func dueAt(ctx context.Context, sched tokenSchedule, i int) (time.Time, error) {
	if at, known := sched.due(i); known {
		return at, nil
	}
	if err := sched.wait(ctx, i); err != nil {
		return time.Time{}, err
	}
	at, known := sched.due(i)
	if !known {
		return time.Time{}, fmt.Errorf("mock: schedule still does not know step %d after waiting", i)
	}
	return at, nil
}

// sleepUntil waits until at, or until ctx ends.
func sleepUntil(ctx context.Context, timer *time.Timer, at time.Time) error {
	d := time.Until(at)
	if d <= 0 {
		return nil
	}
	timer.Reset(d)
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		timer.Stop()
		return ctx.Err()
	}
}

// stream is the reusable per-request state, pooled so that a request in
// steady state allocates nothing per chunk.
type stream struct {
	pcg    rand.PCG
	rng    *rand.Rand
	sched  independentSchedule
	csched capacitySchedule
	first  time.Time // when step 0 was emitted (zero before)
	last   time.Time // when the last step so far was emitted
	r      renderer
	head   []byte
	buf    []byte
	body   []byte
	dues   []time.Time
	timer  *time.Timer
	hashes []uint64          // the prompt's block hashes
	chain  []*storedResponse // its stored history, oldest first
}

func newStream() *stream {
	st := &stream{timer: time.NewTimer(time.Hour)}
	st.timer.Stop()
	st.rng = rand.New(&st.pcg)
	return st
}
