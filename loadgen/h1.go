package loadgen

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// HTTP clients: which implementation sends the requests of a target
// (ClientConfig.HTTPClient).
const (
	// HTTPClientAuto picks HTTPClientGoodput for plain HTTP and for TLS
	// with HTTP/2 disabled, when no proxy is configured for the target;
	// HTTPClientNet otherwise (HTTP/2, proxies).
	HTTPClientAuto = "auto"
	// HTTPClientGoodput is goodput's own HTTP/1.1 client (h1Transport).
	HTTPClientGoodput = "goodput"
	// HTTPClientNet is Go's net/http client.
	HTTPClientNet = "net/http"
)

// h1Transport is goodput's own HTTP/1.1 client for streamed responses.
// The goroutine that sends a request writes it and reads its response
// itself: no goroutine per connection (net/http keeps a reader and a
// writer on each), a 4 KiB read buffer per connection, the request
// written from a pooled buffer in one write, and cancellation through
// context.AfterFunc (a deadline that unblocks the read) rather than a
// watcher. It speaks plain HTTP and TLS (ALPN http/1.1), never through a
// proxy; net/http serves HTTP/2 and proxies.
type h1Transport struct {
	dial        func(ctx context.Context, network, addr string) (net.Conn, error)
	tls         *tls.Config
	tlsTimeout  time.Duration
	maxIdle     int // idle connections kept per host
	idleTimeout time.Duration
	pools       sync.Map // host:port and scheme → *h1Pool
	// retries counts requests sent again on a freshly dialled connection
	// after their reused one turned out closed (RoundTrip); closedIdle
	// counts idle connections found closed by the server when taken
	// (h1Conn.alive). Neither is an error of the run.
	retries, closedIdle atomic.Int64
}

// h1ReadBuffer is the read buffer of a connection that takes it before
// a read that may block (see h1ReadBufs).
const h1ReadBuffer = 4 << 10

// h1Pool holds one host's idle connections, most recent last.
type h1Pool struct {
	mu   sync.Mutex
	idle []*h1Conn
}

// h1Conn is one connection and its read buffer.
type h1Conn struct {
	net.Conn
	// buf[r:w] are the bytes read and not yet consumed; buf is nil when
	// there are none (h1read.go), from the pool it came from.
	buf    *[]byte
	from   *sync.Pool
	r, w   int
	pool   *h1Pool
	t      *h1Transport
	idleAt time.Time
	reused bool
	// rest is the end of the last response's body, after its stream
	// was complete: the chunked encoding's last chunk, which usually
	// arrives just after the stream's final event. It is read when the
	// connection is next taken (drain), by then long arrived, so that a
	// request never waits for it.
	rest io.Reader
}

// Close closes the connection and gives its buffer back.
func (pc *h1Conn) Close() error {
	if pc.buf != nil && pc.from != nil {
		pc.from.Put(pc.buf)
	}
	pc.buf, pc.from, pc.r, pc.w = nil, nil, 0, 0
	return pc.Conn.Close()
}

// Bounds of reading the rest of a finished response before reusing its
// connection: more, or later, and the connection is closed instead.
const (
	h1DrainLimit = 64 << 10
	h1DrainWait  = 100 * time.Millisecond
)

// drain reads the rest of the previous response; false when the
// connection cannot be reused.
func (pc *h1Conn) drain() bool {
	if pc.rest == nil {
		return true
	}
	rest := pc.rest
	pc.rest = nil
	if pc.SetReadDeadline(time.Now().Add(h1DrainWait)) != nil {
		return false
	}
	n, err := io.Copy(io.Discard, io.LimitReader(rest, h1DrainLimit+1))
	return err == nil && n <= h1DrainLimit && len(pc.buffered()) == 0 && pc.SetReadDeadline(time.Time{}) == nil
}

var h1WriteBufs = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}

// errH1Closed is the error of a read from a closed body.
var errH1Closed = errors.New("read on closed response body")

// RoundTrip sends req on an idle or new connection and returns once the
// response's headers are read; its body is read from the connection by
// the caller.
//
// Servers close keep-alive connections whenever they like, some (llama.cpp's
// llama-server) after every streamed response while advertising keep-alive.
// Two defences keep that from failing requests. An idle connection is
// checked before it is reused (h1Conn.alive, as urllib3 and httpcore do):
// one the server closed is dropped. And a request that still meets a closed
// connection (the server closed it after the check) is sent once more, on a
// freshly dialled connection, when all of these hold:
//   - the connection was reused (it had carried a whole response before);
//   - not one byte of the response arrived;
//   - the write failed, or the first read found the connection's end
//     (EOF or a reset): the server had closed the connection, so it did
//     not read the request.
//
// Anything else (a first connection that fails, a response cut after
// some byte, a timeout) is the request's error: a request the server may
// have acted on is never sent twice. A server that read the request and
// died before answering looks like a closed connection and is sent the
// request again; net/http has the same window for its replayable requests.
func (t *h1Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return nil, fmt.Errorf("unsupported protocol scheme %q", req.URL.Scheme)
	}
	trace := httptrace.ContextClientTrace(ctx)
	for attempt := 0; ; attempt++ {
		pc, err := t.conn(ctx, req.URL.Scheme, canonicalAddr(req.URL), attempt > 0)
		if err != nil {
			return nil, err
		}
		if trace != nil && trace.GotConn != nil {
			trace.GotConn(httptrace.GotConnInfo{Conn: pc.Conn, Reused: pc.reused})
		}
		resp, early, err := pc.roundTrip(ctx, req, trace)
		if err == nil {
			return resp, nil
		}
		pc.Close()
		if !early || !pc.reused || attempt > 0 || ctx.Err() != nil {
			return nil, err
		}
		if req.Body != nil && req.Body != http.NoBody {
			if req.GetBody == nil {
				return nil, err
			}
			if req.Body, err = req.GetBody(); err != nil {
				return nil, err
			}
		}
		t.retries.Add(1)
	}
}

// canonicalAddr is u's host:port, the scheme's port when u names none.
func canonicalAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// conn returns an idle connection to addr, or dials one (always with
// fresh).
func (t *h1Transport) conn(ctx context.Context, scheme, addr string, fresh bool) (*h1Conn, error) {
	key := scheme + "://" + addr
	p, ok := t.pools.Load(key)
	if !ok {
		p, _ = t.pools.LoadOrStore(key, &h1Pool{})
	}
	pool := p.(*h1Pool)
	for !fresh {
		pc := pool.take()
		if pc == nil {
			break
		}
		if (t.idleTimeout > 0 && time.Since(pc.idleAt) > t.idleTimeout) || !pc.drain() {
			pc.Close()
			continue
		}
		if !pc.alive() {
			t.closedIdle.Add(1)
			pc.Close()
			continue
		}
		pc.reused = true
		return pc, nil
	}
	// The dial and the TLS handshake run deep in the net and crypto
	// packages: on a goroutine of their own, so that they do not double
	// the stack the request's goroutine keeps while it streams.
	dialed := make(chan dialResult, 1)
	go func() {
		c, err := t.dialConn(ctx, scheme, addr)
		dialed <- dialResult{c, err}
	}()
	d := <-dialed
	if d.err != nil {
		return nil, d.err
	}
	return &h1Conn{Conn: d.c, pool: pool, t: t}, nil
}

type dialResult struct {
	c   net.Conn
	err error
}

// dialConn dials addr, and shakes hands over TLS for https.
func (t *h1Transport) dialConn(ctx context.Context, scheme, addr string) (net.Conn, error) {
	c, err := t.dial(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if scheme == "https" {
		host, _, _ := net.SplitHostPort(addr)
		cfg := t.tls.Clone()
		if cfg.ServerName == "" {
			cfg.ServerName = host
		}
		cfg.NextProtos = []string{"http/1.1"}
		tc := tls.Client(c, cfg)
		hctx, cancel := ctx, context.CancelFunc(func() {})
		if t.tlsTimeout > 0 {
			hctx, cancel = context.WithTimeout(ctx, t.tlsTimeout)
		}
		err := tc.HandshakeContext(hctx)
		cancel()
		if err != nil {
			c.Close()
			return nil, err
		}
		c = tc
	}
	return c, nil
}

func (p *h1Pool) take() *h1Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.idle)
	if n == 0 {
		return nil
	}
	pc := p.idle[n-1]
	p.idle[n-1] = nil
	p.idle = p.idle[:n-1]
	return pc
}

// put keeps pc for the next request, or closes it when the pool is full.
func (p *h1Pool) put(pc *h1Conn) {
	pc.idleAt = time.Now()
	p.mu.Lock()
	if len(p.idle) < pc.t.maxIdle {
		p.idle = append(p.idle, pc)
		pc = nil
	}
	p.mu.Unlock()
	if pc != nil {
		pc.Close()
	}
}

// closeIdle closes every idle connection.
func (t *h1Transport) closeIdle() {
	t.pools.Range(func(_, v any) bool {
		p := v.(*h1Pool)
		p.mu.Lock()
		idle := p.idle
		p.idle = nil
		p.mu.Unlock()
		for _, pc := range idle {
			pc.Close()
		}
		return true
	})
}

// aLongTimeAgo is a deadline in the past: it unblocks a read at once.
var aLongTimeAgo = time.Unix(1, 0)

// roundTrip writes req and reads the response's headers. early says the
// request failed before any byte of a response arrived (a reused
// connection the server had closed).
func (pc *h1Conn) roundTrip(ctx context.Context, req *http.Request, trace *httptrace.ClientTrace) (resp *http.Response, early bool, err error) {
	stop := context.AfterFunc(ctx, func() { pc.SetDeadline(aLongTimeAgo) })
	defer func() {
		if err != nil {
			stop()
		}
	}()
	bp := h1WriteBufs.Get().(*[]byte)
	b, err := appendRequest((*bp)[:0], req)
	if err == nil {
		_, err = pc.Write(b)
	}
	if cap(b) <= 64<<10 {
		*bp = b[:0]
		h1WriteBufs.Put(bp)
	}
	if err != nil {
		return nil, true, err
	}
	if trace != nil && trace.WroteRequest != nil {
		trace.WroteRequest(httptrace.WroteRequestInfo{})
	}
	for first := true; ; first = false {
		resp, err = pc.readHead(req)
		if err != nil {
			return nil, first && (err == io.EOF || isReset(err)), err
		}
		// Interim responses (100 Continue, 103 Early Hints) precede the
		// real one.
		if resp.StatusCode < 100 || resp.StatusCode > 199 || resp.StatusCode == http.StatusSwitchingProtocols {
			break
		}
	}
	body := newBodyReader(pc, resp)
	resp.Body = &h1Body{pc: pc, body: body, stop: stop, keep: !resp.Close && !req.Close}
	return resp, false, nil
}

func isReset(err error) bool {
	var ne *net.OpError
	return errors.As(err, &ne) && strings.Contains(ne.Err.Error(), "reset")
}

// appendRequest renders req's request line, headers and body.
func appendRequest(b []byte, req *http.Request) ([]byte, error) {
	hasBody := req.Body != nil && req.Body != http.NoBody
	size := int64(0)
	var body []byte // a body of unknown length, read first
	if hasBody {
		size = req.ContentLength
		if size <= 0 {
			var err error
			if body, err = io.ReadAll(req.Body); err != nil {
				return b, fmt.Errorf("reading the request body: %w", err)
			}
			size = int64(len(body))
		}
	}
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	b = append(b, req.Method...)
	b = append(b, ' ')
	b = append(b, req.URL.RequestURI()...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = appendHeaderValue(b, host)
	b = append(b, "\r\n"...)
	if req.Header.Get("User-Agent") == "" {
		b = append(b, "User-Agent: Go-http-client/1.1\r\n"...)
	}
	if u := req.URL.User; u != nil && req.Header.Get("Authorization") == "" {
		pass, _ := u.Password()
		b = append(b, "Authorization: Basic "...)
		b = base64.StdEncoding.AppendEncode(b, []byte(u.Username()+":"+pass))
		b = append(b, "\r\n"...)
	}
	for k, vs := range req.Header {
		if !validHeaderName(k) {
			return b, fmt.Errorf("invalid header name %q", k)
		}
		for _, v := range vs {
			b = append(b, k...)
			b = append(b, ": "...)
			b = appendHeaderValue(b, v)
			b = append(b, "\r\n"...)
		}
	}
	if hasBody || req.Method == http.MethodPost || req.Method == http.MethodPut {
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, size, 10)
		b = append(b, "\r\n"...)
	}
	if req.Close {
		b = append(b, "Connection: close\r\n"...)
	}
	b = append(b, "\r\n"...)
	if !hasBody {
		return b, nil
	}
	defer req.Body.Close()
	if body != nil {
		return append(b, body...), nil
	}
	// Read straight into the buffer, after the head.
	b = slices.Grow(b, int(size))
	if _, err := io.ReadFull(req.Body, b[len(b):len(b)+int(size)]); err != nil {
		return b, fmt.Errorf("reading the request body: %w", err)
	}
	return b[:len(b)+int(size)], nil
}

// appendHeaderValue appends v with line breaks replaced by spaces (a
// header value cannot carry them), as net/http writes headers.
func appendHeaderValue(b []byte, v string) []byte {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\r' || c == '\n' {
			c = ' '
		}
		b = append(b, c)
	}
	return b
}

func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c <= ' ' || c >= 0x7f || c == ':' {
			return false
		}
	}
	return true
}

// h1Body is a response body read from its connection. The connection
// goes back to the pool when the body was read to its end and the server
// keeps it open; closing the body earlier closes the connection (a stream
// cut short cannot be drained cheaply).
type h1Body struct {
	pc   *h1Conn
	body *bodyReader
	stop func() bool
	keep bool
	done bool
	eof  bool
	// complete: the stream reached its end ([DONE] or a finish reason),
	// so what is left of the body is framing (see h1Conn.rest).
	complete bool
}

// streamComplete notes that the stream reached its end: closing the body
// then keeps the connection.
func (b *h1Body) streamComplete() { b.complete = true }

func (b *h1Body) Read(p []byte) (int, error) {
	switch {
	case b.eof:
		return 0, io.EOF
	case b.done:
		return 0, errH1Closed
	}
	n, err := b.body.Read(p)
	if err == io.EOF {
		b.eof = true
		b.finish(true)
	}
	return n, err
}

// readSlice is Read without a copy (bodyReader.readSlice).
func (b *h1Body) readSlice() ([]byte, error) {
	switch {
	case b.eof:
		return nil, io.EOF
	case b.done:
		return nil, errH1Closed
	}
	s, err := b.body.readSlice()
	if err == io.EOF {
		b.eof = true
		b.finish(true)
	}
	return s, err
}

func (b *h1Body) Close() error {
	if !b.done {
		b.finish(false)
	}
	return nil
}

func (b *h1Body) finish(eof bool) {
	b.done = true
	b.pc.release()
	cancelled := !b.stop()
	switch {
	case cancelled || !b.keep:
	case eof && len(b.pc.buffered()) == 0:
		b.pc.pool.put(b.pc)
		return
	case !eof && b.complete:
		b.pc.rest = b.body
		b.pc.pool.put(b.pc)
		return
	}
	b.pc.Close()
}
