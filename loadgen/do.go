package loadgen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/reqtype"
	"github.com/goodput-dev/goodput/sse"
)

// Causes passed to context cancellation, so a failed read can be classified.
var (
	errStall   = errors.New("stall timeout")
	errTimeout = errors.New("request timeout")
)

// conn is the per-request scratch state: reused across the requests one
// goroutine sends, never shared between goroutines in flight.
type conn struct {
	buf    []byte
	body   []byte
	parser *sse.Parser
	text   []byte
	reason []byte
	// reply and tools keep a session turn's answer for its history.
	reply []byte
	tools sse.ToolCallAccumulator
	st    streamState // the response being read
	// prefill is the prefill slot the request holds until its first
	// token (Strategy.MaxPrefill), nil when none.
	prefill limiter
}

// chunks holds decoded chunks. A chunk (560 bytes, and its choices'
// buffers) is taken for one read's events or one response body: a stream
// waiting for its next token holds none.
var chunks = sync.Pool{New: func() any { return new(sse.Chunk) }}

func newConn() *conn { return newConnSized(16 << 10) }

// newConnSized is a conn whose reads take up to buf bytes. The request
// body's buffer grows with the requests sent.
func newConnSized(buf int) *conn {
	return &conn{buf: make([]byte, buf), parser: sse.NewParser()}
}

// newConn is a conn sized for the client: goodput's own client hands the
// parser what a read brought in place (readSlice), so with every target
// on it a stream needs no read buffer of its own.
func (c *Client) newConn() *conn {
	for _, t := range c.targets {
		if t.client != HTTPClientGoodput {
			return newConn()
		}
	}
	return newConnSized(0)
}

// streamState follows one response stream.
type streamState struct {
	c         *Client
	rec       *record.Record
	cn        *conn
	ch        *sse.Chunk // the events' decoded chunk, while feed parses
	now       int64
	done      bool
	finished  bool      // saw a finish_reason
	usage     bool      // saw a usage block
	prevCum   int       // last cumulative completion_tokens
	perChunk  bool      // every token chunk so far carried usage
	rx        rxStamper // the connection's receive timestamps, nil when not used
	kernel    bool      // some arrival came from a kernel receive timestamp
	user      bool      // some arrival fell back to the read time
	fail      record.ErrorClass
	failMsg   string
	maxTokens int
	capture   bool // keep the reply and tool calls (a session turn)
}

// Do sends req and fills rec. ctx cancellation (the end of a benchmark)
// makes the request incomplete; every other failure makes it errored with a
// class. rec must have been Reset; rec.ID, Benchmark and Intended are kept.
//
// Do's goroutine waits for each chunk at the bottom of Do → stream →
// the read, so those frames stay small: at many thousands of streams
// they decide the size of every goroutine's stack (4 KB, not 8). The
// rest (the request, the checks, the failures) is in functions that
// return before the stream is read.
func (c *Client) Do(ctx context.Context, req *Request, rec *record.Record, cn *conn) {
	c.prepare(req, rec, cn)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	wd := watch(c.clock, c.cfg.StallTimeout, c.cfg.RequestTimeout, cancel)
	if wd != nil {
		defer wd.stop()
	}
	tr := c.newTrace()
	defer tr.settle(rec)
	tg := c.pickTarget(rec.ID)
	if len(c.targets) > 1 {
		rec.Target = tg.public
		tg.inflight.Add(1)
		defer tg.inflight.Add(-1)
	}
	resp := c.send(ctx, tg, tr, req, rec, cn)
	if resp == nil {
		return
	}
	defer resp.Body.Close()
	// st follows the arrivals from here on, the headers' first. It is
	// kept in cn, off this frame.
	st := &cn.st
	*st = streamState{c: c, rec: rec, cn: cn, rx: tr.rx, now: rec.Sent, capture: req.turn != nil}
	switch c.accept(resp, st, req) {
	case readStream:
		// The stream needs the body alone: the response's head and its
		// request are garbage while it is read (about 1.6 KB a stream on
		// goodput's client).
		c.stream(ctx, resp.Body, st, wd)
	case readOne:
		c.api.read(c, ctx, resp, st, wd, req)
	case readWhole:
		c.readBody(ctx, resp, st, wd)
	}
	*st = streamState{} // holds no record or connection past the request
}

// prepare fills rec's request figures and renders req's body into cn.
func (c *Client) prepare(req *Request, rec *record.Record, cn *conn) {
	rec.RequestedPromptTokens = req.TargetPromptTokens
	rec.RequestedOutputTokens = req.MaxTokens
	rec.ClientPromptTokens = req.PromptTokens
	rec.Inputs, rec.MediaBytes = req.Inputs(), req.MediaBytes()
	if len(req.Media) > 0 {
		rec.Media, rec.AudioSeconds = req.MediaFigures()
	}
	mi := c.models.pick(rec.ID)
	if len(c.models.names) > 1 {
		rec.Model = c.models.names[mi]
	}
	cn.body = c.appendBody(cn.body[:0], req, c.models.json[mi])
}

// sendTrace follows one request through the transport: the connection it
// got (for receive timestamps) and when its write ended.
type sendTrace struct {
	rx rxStamper
	// connected and reused are set by GotConn, on the request's goroutine
	// (the last connection wins: a retry's).
	connected int64
	reused    bool
	// The transport calls WroteRequest on its writing goroutine, which
	// over HTTP/2 can run on after the response has begun: hence an
	// atomic, read when the response arrives and again at the end.
	sent atomic.Int64
	ct   httptrace.ClientTrace
}

func (c *Client) newTrace() *sendTrace {
	tr := &sendTrace{}
	tr.ct.GotConn = func(info httptrace.GotConnInfo) {
		tr.rx, tr.connected, tr.reused = rxOf(info.Conn), c.clock.Now(), info.Reused
	}
	tr.ct.WroteRequest = func(httptrace.WroteRequestInfo) { tr.sent.Store(c.clock.Now()) }
	return tr
}

// settle gives rec the send time of a request that failed before its
// response.
func (tr *sendTrace) settle(rec *record.Record) {
	if rec.Sent == 0 {
		rec.Sent = tr.sent.Load()
	}
	if rec.Connected == 0 {
		rec.Connected, rec.ConnReused = tr.connected, tr.reused
	}
}

// send sends the request in cn to tg and returns the response, or nil
// with rec failed.
func (c *Client) send(ctx context.Context, tg *target, tr *sendTrace, req *Request, rec *record.Record, cn *conn) *http.Response {
	hreq, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, &tr.ct), http.MethodPost, tg.url, bytes.NewReader(cn.body))
	if err != nil {
		c.fail(rec, record.ErrClient, err.Error())
		return nil
	}
	hreq.Header = c.headers.Clone()
	hreq.Header.Set("X-Request-Id", c.cfg.RequestIDPrefix+strconv.FormatUint(rec.ID, 10))
	if req.turn != nil {
		c.startTurn(hreq, req, rec, cn)
	}
	rec.Dispatched = c.clock.Now()
	resp, err := tg.do(hreq)
	if err != nil {
		c.failCtx(ctx, rec, err)
		return nil
	}
	if resp.ProtoMajor != 1 {
		// HTTP/2 multiplexes streams on one connection, read by the
		// transport's goroutine: a receive time is not this stream's.
		tr.rx = nil
	}
	rec.Sent = tr.sent.Load()
	rec.Connected, rec.ConnReused = tr.connected, tr.reused
	return resp
}

// How accept has a response's body read.
const (
	readNone   = iota // the response failed the request
	readStream        // server-sent events
	readOne           // the one JSON body of a type that never streams
	readWhole         // a non-streamed response
)

// accept stamps the response's headers and checks its status and type;
// it returns how to read the body.
func (c *Client) accept(resp *http.Response, st *streamState, req *Request) int {
	rec, cn := st.rec, st.cn
	st.arrived()
	rec.Headers = st.now
	rec.HTTPStatus = resp.StatusCode
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		c.fail(rec, record.ErrHTTPStatus, fmt.Sprintf("HTTP %d%s", resp.StatusCode, c.errorBody(resp)))
		return readNone
	}
	if c.api.read != nil {
		return readOne
	}
	if c.cfg.NoStream {
		return readWhole
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		msg := fmt.Sprintf("expected Content-Type text/event-stream, got %q", ct)
		if strings.HasPrefix(ct, "application/json") {
			// A JSON error body with status 200 is a stream error, not a protocol one.
			if body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10)); err == nil {
				ch := chunks.Get().(*sse.Chunk)
				defer chunks.Put(ch)
				if sse.DecodeResponse(body, ch) == nil && ch.Err != nil {
					c.fail(rec, record.ErrStreamError, ch.Err.Error())
					return readNone
				}
			}
		}
		c.fail(rec, record.ErrProtocol, msg)
		return readNone
	}
	st.perChunk, st.maxTokens = true, req.MaxTokens
	cn.parser.Reset()
	cn.text, cn.reason = cn.text[:0], cn.reason[:0]
	if _, inPlace := resp.Body.(inPlaceBody); !inPlace && len(cn.buf) == 0 {
		cn.buf = make([]byte, 16<<10)
	}
	return readStream
}

// inPlaceBody is goodput's own client's body: it hands over body bytes
// where they lie in the connection's buffer.
type inPlaceBody interface{ readSlice() ([]byte, error) }

// stream reads an event stream to its end.
func (c *Client) stream(ctx context.Context, body io.Reader, st *streamState, wd *watchdog) {
	inPlace, _ := body.(inPlaceBody)
	for !st.done && st.fail == record.ErrNone {
		var data []byte
		var err error
		if inPlace != nil {
			data, err = inPlace.readSlice()
		} else {
			var n int
			n, err = body.Read(st.cn.buf)
			data = st.cn.buf[:n]
		}
		if len(data) > 0 {
			st.feed(data, wd)
		}
		if err == io.EOF {
			st.eof()
			break
		}
		if err != nil {
			if st.fail == record.ErrNone {
				c.failCtx(ctx, st.rec, err)
				c.finishTokens(st)
				return
			}
			break
		}
	}
	c.endStream(body, st)
}

// feed parses the bytes just read.
func (st *streamState) feed(data []byte, wd *watchdog) {
	st.arrived()
	events := st.rec.Iterations
	st.ch = chunks.Get().(*sse.Chunk)
	err := st.cn.parser.Feed(data, st.event)
	chunks.Put(st.ch)
	st.ch = nil
	if err != nil && st.fail == record.ErrNone {
		st.setFail(record.ErrProtocol, err.Error())
	}
	// The stall timeout counts from the last event (a chunk): comment
	// lines (": ping") keep a connection open but are no progress.
	if wd != nil && st.rec.Iterations != events {
		wd.progress(st.now)
	}
}

// eof ends a stream whose body ended.
func (st *streamState) eof() {
	st.now = max(st.c.clock.Now(), st.now)
	st.ch = chunks.Get().(*sse.Chunk)
	err := st.cn.parser.Finish(st.event)
	chunks.Put(st.ch)
	st.ch = nil
	if err != nil && st.fail == record.ErrNone {
		st.setFail(record.ErrProtocol, err.Error())
	}
	if !st.done && st.fail == record.ErrNone && !st.finished {
		st.setFail(record.ErrDisconnect, "stream ended without [DONE] or finish_reason")
	}
}

// endStream settles a stream that ended or failed in its events.
func (c *Client) endStream(body io.Reader, st *streamState) {
	rec := st.rec
	if st.done && st.fail == record.ErrNone {
		if b, ok := body.(interface{ streamComplete() }); ok {
			b.streamComplete()
		}
	}
	// The stream ended when its last bytes arrived.
	rec.End = st.now
	if st.fail != record.ErrNone {
		c.finishTokens(st)
		c.fail(rec, st.fail, st.failMsg)
		return
	}
	c.finishTokens(st)
	if len(rec.ChunkTimes) == 0 && rec.OutputTokens == 0 {
		c.fail(rec, record.ErrEmptyResponse, "response carried no output token")
		return
	}
	rec.Status = record.StatusSuccessful
}

// arrived sets st.now to the arrival time of the bytes just read.
func (st *streamState) arrived() {
	at, lag, kernel := st.c.arrival(st.rx, st.now)
	st.now = at
	switch {
	case kernel:
		st.kernel = true
		st.rec.MaxReadLag = max(st.rec.MaxReadLag, lag)
	case st.rx != nil:
		st.user = true
	}
	st.rec.RxKernel = st.kernel && !st.user
}

func (st *streamState) setFail(class record.ErrorClass, msg string) {
	st.fail, st.failMsg = class, msg
}

// event handles one SSE event of the stream.
func (st *streamState) event(ev *sse.Event) error {
	rec, ch := st.rec, st.ch
	if st.done || st.fail != record.ErrNone {
		st.counted()
		return nil
	}
	err := st.c.api.decode(ev.Data, ch)
	if err == nil && ch.Keepalive() {
		return nil // like a comment line: no chunk, no progress
	}
	st.counted()
	if err != nil {
		st.setFail(record.ErrProtocol, "malformed chunk: "+err.Error())
		return nil
	}
	if ch.Err != nil {
		st.setFail(record.ErrStreamError, ch.Err.Error())
		return nil
	}
	// [DONE] carries nothing else; a Responses or Messages terminal event
	// may carry usage and the finish reason.
	st.done = ch.Done
	if rec.ResponseID == "" && len(ch.ID) > 0 {
		rec.ResponseID = string(ch.ID)
	}
	hasToken := ch.HasToken()
	if ch.Usage.Present {
		st.usage = true
		if !ch.Usage.NoPrompt {
			rec.ServerPromptTokens = ch.Usage.PromptTokens
		}
		rec.ServerOutputTokens = ch.Usage.CompletionTokens
		if ch.Usage.CachedTokens >= 0 {
			rec.CachedTokens = ch.Usage.CachedTokens
		}
		if ch.Usage.ReasoningTokens >= 0 {
			rec.ReasoningTokens = ch.Usage.ReasoningTokens
		}
	}
	if ch.Timings.Present {
		rec.ServerTimings = serverTimings(&ch.Timings)
	}
	if hasToken {
		rec.ChunkTimes = append(rec.ChunkTimes, st.now)
		if rec.FirstToken == 0 {
			rec.FirstToken = st.now
			st.cn.givePrefill()
		}
		if rec.FirstOutputToken == 0 && (len(ch.Content) > 0 || len(ch.Refusal) > 0 || ch.ToolCalls > 0 || len(ch.ToolArgs) > 0) {
			rec.FirstOutputToken = st.now
		}
		rec.LastToken = st.now
		if ch.EmitNS != 0 {
			rec.EmitTimes = append(rec.EmitTimes, ch.EmitNS)
		}
		if st.perChunk && ch.Usage.Present {
			rec.ChunkTokens = append(rec.ChunkTokens, int32(ch.Usage.CompletionTokens-st.prevCum))
			st.prevCum = ch.Usage.CompletionTokens
		} else {
			st.perChunk = false
		}
		if st.c.cfg.KeepText || st.c.cfg.CountTokens != nil {
			st.cn.text = append(st.cn.text, ch.Content...)
			st.cn.text = append(st.cn.text, ch.Refusal...)
			st.cn.text = append(st.cn.text, ch.ToolArgs...)
			st.cn.reason = append(st.cn.reason, ch.Reasoning...)
		}
		// A server that streams far past what was asked is broken; stop it
		// rather than hang the run.
		if st.maxTokens > 0 && len(rec.ChunkTimes) > 2*st.maxTokens+64 {
			st.setFail(record.ErrProtocol, st.c.overrun(2*st.maxTokens+64, st.maxTokens))
		}
	} else if ch.Usage.Present && ch.NumChoices > 0 {
		st.prevCum = ch.Usage.CompletionTokens
	}
	if st.capture {
		st.cn.reply = append(st.cn.reply, ch.Content...)
		st.cn.tools.Add(ch)
	}
	if len(ch.FinishReason) > 0 {
		st.finished = true
		if rec.FinishReason == "" {
			rec.FinishReason = string(ch.FinishReason)
		}
	}
	return nil
}

// overrun is the error of a stream that went far past its output limit:
// the server did not read the field the limit was sent in, and the flag
// that sends it in another is named.
func (c *Client) overrun(chunks, limit int) string {
	sent := strings.Join(c.maxFields, " and ")
	msg := fmt.Sprintf("server streamed more than %d token chunks for an output limit of %d sent as %s", chunks, limit, sent)
	switch {
	case c.cfg.Endpoint != EndpointChat && c.cfg.Endpoint != EndpointCompletions:
		return msg
	case !slices.Contains(c.maxFields, "max_tokens"):
		return msg + ", which it does not read: --max-tokens-field max_tokens sends it in the form Ollama and other compatible servers read"
	case c.cfg.Endpoint == EndpointChat && !slices.Contains(c.maxFields, "max_completion_tokens"):
		return msg + ", which it does not read: --max-tokens-field max_completion_tokens sends it in the form OpenAI's reasoning models read (the default sends both)"
	}
	return msg + ": it reads none of them; --extra-body can send the server's own limit field"
}

// counted counts an event as a chunk.
func (st *streamState) counted() {
	st.rec.Iterations++
	if st.rec.FirstChunk == 0 {
		st.rec.FirstChunk = st.now
	}
}

// finishTokens settles the token counts of a finished or failed stream.
func (c *Client) finishTokens(st *streamState) {
	rec := st.rec
	if !st.perChunk || len(rec.ChunkTokens) != len(rec.ChunkTimes) {
		rec.ChunkTokens = rec.ChunkTokens[:0]
	}
	chunks := len(rec.ChunkTimes)
	if len(rec.ChunkTokens) > 0 {
		chunks = 0
		for _, n := range rec.ChunkTokens {
			chunks += int(n)
		}
	}
	// The client's own count needs a tokenizer: a count of chunks is the
	// fallback for OutputTokens, not a token count, so without one the
	// client's count is unknown (-1), never 0 or the chunks.
	client := -1
	if c.cfg.CountTokens != nil {
		client = 0
		if len(st.cn.text) > 0 || len(st.cn.reason) > 0 {
			client = c.cfg.CountTokens(string(st.cn.text)) + c.cfg.CountTokens(string(st.cn.reason))
		}
	}
	rec.ClientOutputTokens = client
	switch {
	case st.usage:
		rec.OutputTokens, rec.OutputSource = rec.ServerOutputTokens, record.TokensUsage
	case c.cfg.CountTokens != nil:
		rec.OutputTokens, rec.OutputSource = client, record.TokensTokenizer
	default:
		rec.OutputTokens, rec.OutputSource = chunks, record.TokensChunks
	}
	if rec.ServerPromptTokens >= 0 {
		rec.PromptTokens = rec.ServerPromptTokens
	} else if rec.ClientPromptTokens >= 0 {
		rec.PromptTokens = rec.ClientPromptTokens
	}
	if c.cfg.KeepText {
		rec.OutputText, rec.ReasoningText = string(st.cn.text), string(st.cn.reason)
	}
}

// readBody handles a non-streaming response.
func (c *Client) readBody(ctx context.Context, resp *http.Response, st *streamState, wd *watchdog) {
	rec, cn := st.rec, st.cn
	if !c.readAll(ctx, resp, st, wd) {
		return
	}
	ch := chunks.Get().(*sse.Chunk)
	defer chunks.Put(ch)
	if err := c.api.decodeAll(cn.text, ch); err != nil {
		c.fail(rec, record.ErrProtocol, "malformed response: "+err.Error())
		return
	}
	if ch.Err != nil {
		c.fail(rec, record.ErrStreamError, ch.Err.Error())
		return
	}
	rec.ResponseID, rec.FinishReason = string(ch.ID), string(ch.FinishReason)
	if st.capture {
		cn.reply = append(cn.reply, ch.Content...)
		cn.tools.Add(ch)
	}
	text := append([]byte(nil), ch.Content...)
	text = append(text, ch.Refusal...)
	text = append(text, ch.ToolArgs...)
	reason := append([]byte(nil), ch.Reasoning...)
	if ch.Usage.Present {
		st.usage = true
		rec.ServerPromptTokens, rec.ServerOutputTokens = ch.Usage.PromptTokens, ch.Usage.CompletionTokens
		if ch.Usage.CachedTokens >= 0 {
			rec.CachedTokens = ch.Usage.CachedTokens
		}
		if ch.Usage.ReasoningTokens >= 0 {
			rec.ReasoningTokens = ch.Usage.ReasoningTokens
		}
	}
	if ch.Timings.Present {
		rec.ServerTimings = serverTimings(&ch.Timings)
	}
	cn.text, cn.reason = append(cn.text[:0], text...), append(cn.reason[:0], reason...)
	c.finishTokens(st)
	if !st.usage && c.cfg.CountTokens == nil {
		// Without usage or a tokenizer one body says nothing about its
		// token count: leave it unknown rather than invent a figure.
		rec.OutputTokens, rec.OutputSource = 0, record.TokensUnknown
	}
	if len(text) == 0 && len(reason) == 0 && rec.OutputTokens == 0 {
		c.fail(rec, record.ErrEmptyResponse, "response carried no output")
		return
	}
	rec.Status = record.StatusSuccessful
}

// readAll reads a whole response body into st.cn.text and sets its end;
// false when the request failed.
func (c *Client) readAll(ctx context.Context, resp *http.Response, st *streamState, wd *watchdog) bool {
	rec, cn := st.rec, st.cn
	cn.text = cn.text[:0]
	for {
		if len(cn.text) == cap(cn.text) {
			cn.text = append(cn.text, 0)[:len(cn.text)]
		}
		n, err := resp.Body.Read(cn.text[len(cn.text):cap(cn.text)])
		cn.text = cn.text[:len(cn.text)+n]
		if n > 0 {
			st.arrived()
			if rec.FirstChunk == 0 {
				rec.FirstChunk = st.now
			}
			if wd != nil {
				wd.progress(st.now)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			c.failCtx(ctx, rec, err)
			return false
		}
		if len(cn.text) > 64<<20 {
			c.fail(rec, record.ErrProtocol, "response body larger than 64 MiB")
			return false
		}
	}
	rec.End = max(st.now, rec.Headers)
	rec.Iterations = 1
	return true
}

// fail marks rec errored with a class and message.
func (c *Client) fail(rec *record.Record, class record.ErrorClass, msg string) {
	if rec.End == 0 {
		rec.End = c.clock.Now()
	}
	rec.Status, rec.ErrorClass = record.StatusErrored, class
	// Redact before truncating, so no prefix of a secret survives.
	msg = c.Redact(msg)
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	rec.Error = msg
}

// failCtx classifies a transport or read error, using the context's cause
// to tell a run cancellation from a stall or timeout.
func (c *Client) failCtx(ctx context.Context, rec *record.Record, err error) {
	switch cause := context.Cause(ctx); {
	case cause == errStall:
		c.fail(rec, record.ErrStall, fmt.Sprintf("no chunk for %s", c.cfg.StallTimeout))
		return
	case cause == errTimeout:
		c.fail(rec, record.ErrTimeout, fmt.Sprintf("request took longer than %s", c.cfg.RequestTimeout))
		return
	case cause != nil:
		// The run cancelled the request (benchmark end, interrupt).
		if rec.End == 0 {
			rec.End = c.clock.Now()
		}
		rec.Status, rec.ErrorClass, rec.Error = record.StatusIncomplete, record.ErrCancelled, "cancelled: "+cause.Error()
		return
	}
	c.fail(rec, classify(err), rootCause(err))
}

// classify maps a transport or read error to an error class.
func classify(err error) record.ErrorClass {
	var ne net.Error
	var oe *net.OpError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH),
		untrustedCert(err):
		return record.ErrConnect
	case errors.As(err, &oe) && oe.Op == "dial":
		if oe.Timeout() {
			return record.ErrTimeout
		}
		return record.ErrConnect
	case errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return record.ErrTimeout
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.Is(err, net.ErrClosed):
		return record.ErrDisconnect
	}
	s := err.Error()
	if strings.Contains(s, "server closed") || strings.Contains(s, "connection reset") || strings.Contains(s, "EOF") {
		return record.ErrDisconnect
	}
	if strings.Contains(s, "malformed HTTP") || strings.Contains(s, "tls:") || strings.Contains(s, "x509:") {
		return record.ErrProtocol
	}
	return record.ErrDisconnect
}

// errorBody returns ": <message>" from an error response body (at most a few
// hundred bytes, OpenAI error shape understood), or "".
func (c *Client) errorBody(resp *http.Response) string {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return ""
	}
	var ch sse.Chunk
	if sse.DecodeResponse(b, &ch) == nil && ch.Err != nil && ch.Err.Message != "" {
		return ": " + oneLine(c.Redact(ch.Err.Message))
	}
	return ": " + oneLine(c.Redact(string(b)))
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// The generation APIs: a JSON body of the model, the prompt in the API's
// form, the stream and output-limit fields.
var (
	_ = register(reqtype.APIChat, &api{decode: sse.DecodeChunk, decodeAll: sse.DecodeResponse,
		body: generation(func(b []byte, r *Request) []byte { return append(b, r.chat()...) }, true, 0)})
	_ = register(reqtype.APICompletions, &api{decode: sse.DecodeChunk, decodeAll: sse.DecodeResponse,
		body: generation(func(b []byte, r *Request) []byte { return append(b, r.prompt()...) }, true, 0)})
	_ = register(reqtype.APIResponses, &api{decode: sse.DecodeResponsesEvent, decodeAll: sse.DecodeResponsesBody,
		body: generation(func(b []byte, r *Request) []byte { return append(append(b, `"input":`...), r.responses()...) }, false, 0)})
	_ = register(reqtype.APIMessages, &api{decode: sse.DecodeMessagesEvent, decodeAll: sse.DecodeMessagesBody, auth: anthropicAuth,
		body: generation(func(b []byte, r *Request) []byte { return append(b, r.anthropic()...) }, false, DefaultMessagesMaxTokens)})
)

// anthropicAuth sends the API key as the Messages API wants it, with its
// version.
func anthropicAuth(h http.Header, key string) {
	if key != "" {
		h.Set("X-Api-Key", key)
	}
	if h.Get("Anthropic-Version") == "" {
		h.Set("Anthropic-Version", AnthropicVersion)
	}
}

// generation is a generation API's body: content appends its prompt;
// openai marks the two OpenAI APIs that take stream_options and
// ignore_eos; defaultMax is an output limit the API requires.
func generation(content func([]byte, *Request) []byte, openai bool, defaultMax int) func(*Client, []byte, *Request, []byte) []byte {
	return func(c *Client, b []byte, req *Request, model []byte) []byte {
		return c.appendGeneration(b, req, model, content, openai, defaultMax)
	}
}

// appendBody renders the request body for req.
func (c *Client) appendBody(b []byte, req *Request, model []byte) []byte {
	return c.api.body(c, b, req, model)
}

// appendGeneration renders a generation API's JSON body.
func (c *Client) appendGeneration(b []byte, req *Request, model []byte, content func([]byte, *Request) []byte, openai bool, defaultMax int) []byte {
	b = append(b, `{"model":`...)
	b = append(b, model...)
	b = append(b, ',')
	if c.parts != nil {
		api := EndpointChat
		if c.rt.API == reqtype.APIResponses {
			api = EndpointResponses
		}
		b = appendWithParts(b, api, req, c.parts)
	} else {
		b = content(b, req)
	}
	if req.turn != nil {
		b = c.appendTurnFields(b, req)
	}
	has := func(k string) bool {
		for _, f := range c.extra {
			if f.key == k {
				return true
			}
		}
		return false
	}
	if !has("stream") {
		if c.cfg.NoStream {
			b = append(b, `,"stream":false`...)
		} else {
			b = append(b, `,"stream":true`...)
		}
	}
	// Responses and Messages streams carry usage at their end unasked,
	// and their APIs have no ignore_eos (--extra-body can add one).
	if openai && !c.cfg.NoStream && !c.cfg.NoStreamUsage && !has("stream_options") {
		b = append(b, `,"stream_options":{"include_usage":true,"continuous_usage_stats":true}`...)
	}
	limit := req.MaxTokens
	if limit <= 0 {
		limit = defaultMax
	}
	// An --extra-body that sets one of the limit's fields sets the limit.
	own := limit > 0
	for _, f := range c.maxFields {
		own = own && !has(f)
	}
	if own {
		for _, f := range c.maxFields {
			b = append(b, ',', '"')
			b = append(b, f...)
			b = append(b, '"', ':')
			b = strconv.AppendInt(b, int64(limit), 10)
		}
		if openai && req.MaxTokens > 0 && !c.cfg.NoIgnoreEOS && !has("ignore_eos") {
			b = append(b, `,"ignore_eos":true`...)
		}
	}
	return c.closeBody(b)
}

func appendJSONStr(b []byte, s string) []byte { return record.AppendJSONString(b, s) }

// serverTimings converts a response's timings (milliseconds, -1 unknown)
// to the record's form (nanoseconds). A later chunk's timings replace an
// earlier one's: llama-server with timings_per_token sends them on every
// chunk, the last being the request's.
func serverTimings(t *sse.Timings) record.ServerTimings {
	st := record.UnknownServerTimings()
	st.PromptTokens, st.CachedTokens, st.PredictedTokens = t.PromptN, t.CacheN, t.PredictedN
	if t.PromptMs >= 0 {
		st.PromptNS = int64(math.Round(t.PromptMs * 1e6))
	}
	if t.PredictedMs >= 0 {
		st.PredictedNS = int64(math.Round(t.PredictedMs * 1e6))
	}
	return st
}
