package loadgen

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
)

// Reading HTTP/1.1 responses for h1Transport.
//
// A connection holds a read buffer only while it holds unread bytes: the
// buffer comes from a pool when bytes arrive (on a stamping connection,
// inside the read itself, so a stream waiting for its next token holds
// none) and goes back once they are consumed. Thousands of idle streams
// so cost no buffer each. A streamed body is handed to the SSE parser
// where it lies in that buffer (readSlice), without a copy.

// Read buffers. A stamping connection takes its buffer inside the
// receive, only when bytes are there, so the buffer can be large (a
// fast stream's wake-up brings many events) at no cost per waiting
// stream. Other connections (TLS, no kernel timestamps) take theirs
// before a read that may block, so theirs is smaller.
var (
	h1ReadBufs = sync.Pool{New: func() any { b := make([]byte, 16<<10); return &b }}
	h1WaitBufs = sync.Pool{New: func() any { b := make([]byte, h1ReadBuffer); return &b }}
)

// pooledReader is a connection that can take its read buffer from a pool
// only once bytes are there to read (stampConn).
type pooledReader interface {
	readPooled(pool *sync.Pool) (buf *[]byte, n int, err error)
}

// Bounds of a response's head and of a chunk-size line.
const (
	h1MaxHead = 1 << 20
	h1MaxLine = 4 << 10
)

var errMalformedChunk = errors.New("malformed chunked encoding")

// buffered returns the unread bytes.
func (pc *h1Conn) buffered() []byte {
	if pc.buf == nil {
		return nil
	}
	return (*pc.buf)[pc.r:pc.w]
}

// consume marks n buffered bytes read, and gives the buffer back once it
// is empty.
func (pc *h1Conn) consume(n int) {
	pc.r += n
	pc.release()
}

// release gives the buffer back to its pool when every byte in it was
// read.
func (pc *h1Conn) release() {
	if pc.buf == nil || pc.r != pc.w {
		return
	}
	if pc.from != nil {
		pc.from.Put(pc.buf)
	}
	pc.buf, pc.from, pc.r, pc.w = nil, nil, 0, 0
}

// fill reads more bytes after the buffered ones (at least one, or an
// error). With nothing buffered, the bytes go into a pooled buffer.
func (pc *h1Conn) fill() error {
	pc.release()
	if pc.buf == nil {
		var bp *[]byte
		var n int
		var err error
		from := &h1ReadBufs
		if pr, ok := pc.Conn.(pooledReader); ok {
			bp, n, err = pr.readPooled(from)
		} else {
			from = &h1WaitBufs
			bp = from.Get().(*[]byte)
			n, err = pc.Conn.Read(*bp)
			if n == 0 {
				from.Put(bp)
				bp = nil
			}
		}
		if n > 0 {
			pc.buf, pc.from, pc.r, pc.w = bp, from, 0, n
			return nil
		}
		if err == nil {
			err = io.ErrNoProgress
		}
		return err
	}
	b := *pc.buf
	if pc.r > 0 {
		pc.w = copy(b, b[pc.r:pc.w])
		pc.r = 0
	}
	if pc.w == len(b) {
		if len(b) >= h1MaxHead {
			return errors.New("malformed HTTP response: head or line too long")
		}
		nb := make([]byte, 2*len(b))
		copy(nb, b[:pc.w])
		if pc.from != nil {
			pc.from.Put(pc.buf)
		}
		pc.buf, pc.from = &nb, nil
		b = nb
	}
	n, err := pc.Conn.Read(b[pc.w:])
	pc.w += n
	if n > 0 {
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}

// readHead reads a response's status line and headers.
func (pc *h1Conn) readHead(req *http.Request) (*http.Response, error) {
	for {
		b := pc.buffered()
		if head, end := headEnd(b); end > 0 {
			resp, err := parseHead(head, req)
			pc.consume(end)
			return resp, err
		}
		if err := pc.fill(); err != nil {
			if err == io.EOF && len(pc.buffered()) > 0 {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

// headEnd finds the blank line that ends a response head in b: the head
// before it, and where the body starts; 0 when b holds no blank line yet.
func headEnd(b []byte) (head []byte, end int) {
	for start := 0; ; {
		i := bytes.IndexByte(b[start:], '\n')
		if i < 0 {
			return nil, 0
		}
		if line := b[start : start+i]; start > 0 && (len(line) == 0 || (len(line) == 1 && line[0] == '\r')) {
			return bytes.TrimRight(b[:start], "\r\n"), start + i + 1
		}
		start += i + 1
	}
}

// parseHead parses a response head (without its final blank line). It
// copies the head once: the status and every header value are substrings
// of that copy, the values of the header's keys share one array (as in
// net/textproto), and common keys are interned by
// textproto.CanonicalMIMEHeaderKey; the head a stream holds while it reads
// its body is then three allocations besides the response.
func parseHead(head []byte, req *http.Request) (*http.Response, error) {
	status, rest := cutLine(string(head))
	proto, statusText, ok := strings.Cut(status, " ")
	if !ok {
		return nil, fmt.Errorf("malformed HTTP response %q", status)
	}
	major, minor, ok := http.ParseHTTPVersion(proto)
	if !ok || major != 1 {
		return nil, fmt.Errorf("malformed HTTP version %q", proto)
	}
	statusText = strings.TrimLeft(statusText, " ")
	code, _, _ := strings.Cut(statusText, " ")
	sc, err := strconv.Atoi(code)
	if len(code) != 3 || err != nil || sc < 100 {
		return nil, fmt.Errorf("malformed HTTP status code %q", code)
	}
	lines := 0
	if rest != "" {
		lines = strings.Count(rest, "\n") + 1
	}
	resp := &http.Response{
		Status: statusText, StatusCode: sc, Proto: proto, ProtoMajor: major, ProtoMinor: minor,
		Header: make(http.Header, lines), Request: req, ContentLength: -1,
	}
	values := make([]string, lines)
	var l, last string
	for rest != "" {
		l, rest = cutLine(rest)
		if l != "" && (l[0] == ' ' || l[0] == '\t') && last != "" {
			// An obsolete folded line continues the previous value.
			vs := resp.Header[last]
			vs[len(vs)-1] += " " + strings.TrimSpace(l)
			continue
		}
		k, v, ok := strings.Cut(l, ":")
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return nil, fmt.Errorf("malformed MIME header line: %q", l)
		}
		last = textproto.CanonicalMIMEHeaderKey(k)
		v = strings.TrimSpace(v)
		if vs, seen := resp.Header[last]; seen {
			// Capped at their length, a key's values are copied here
			// rather than overwrite the next key's.
			resp.Header[last] = append(vs, v)
			continue
		}
		values[0] = v
		resp.Header[last] = values[:1:1]
		values = values[1:]
	}
	connection := strings.ToLower(strings.Join(resp.Header["Connection"], ","))
	resp.Close = strings.Contains(connection, "close") || (minor == 0 && !strings.Contains(connection, "keep-alive"))
	if te := resp.Header["Transfer-Encoding"]; len(te) > 0 {
		last := strings.TrimSpace(strings.ToLower(te[len(te)-1]))
		if i := strings.LastIndexByte(last, ','); i >= 0 {
			last = strings.TrimSpace(last[i+1:])
		}
		if last != "chunked" {
			return nil, fmt.Errorf("malformed HTTP response: unsupported transfer encoding %q", te[len(te)-1])
		}
		resp.TransferEncoding = []string{"chunked"}
		resp.Header.Del("Content-Length")
	} else if cl := resp.Header["Content-Length"]; len(cl) > 0 {
		n, err := strconv.ParseInt(strings.TrimSpace(cl[0]), 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("malformed HTTP response: bad Content-Length %q", cl[0])
		}
		for _, o := range cl[1:] {
			if strings.TrimSpace(o) != strings.TrimSpace(cl[0]) {
				return nil, fmt.Errorf("malformed HTTP response: conflicting Content-Length %q", cl)
			}
		}
		resp.ContentLength = n
	}
	noBody := sc < 200 || sc == http.StatusNoContent || sc == http.StatusNotModified || (req != nil && req.Method == http.MethodHead)
	if noBody {
		resp.ContentLength = 0
		resp.TransferEncoding = nil
	}
	return resp, nil
}

// cutLine returns s's first line, without its line end (LF or CRLF),
// and what follows it.
func cutLine(s string) (line, rest string) {
	line, rest, _ = strings.Cut(s, "\n")
	return strings.TrimSuffix(line, "\r"), rest
}

// Body framings.
const (
	bodyNone    = iota // no body
	bodyLength         // Content-Length bytes
	bodyChunked        // chunked transfer coding
	bodyClose          // until the server closes
)

// body states of a chunked body.
const (
	chunkSize    = iota // before a chunk-size line
	chunkData           // within a chunk's data
	chunkEnd            // before the CRLF after a chunk's data
	chunkTrailer        // within the trailer, after the last chunk
	chunkDone
)

// bodyReader reads a response body from its connection's buffer.
type bodyReader struct {
	pc      *h1Conn
	framing int
	left    int64 // bytes left of the body (bodyLength) or of the chunk
	state   int
	eof     bool
}

func newBodyReader(pc *h1Conn, resp *http.Response) *bodyReader {
	r := &bodyReader{pc: pc}
	switch {
	case len(resp.TransferEncoding) > 0:
		r.framing = bodyChunked
	case resp.ContentLength == 0:
		r.framing, r.eof = bodyNone, true
	case resp.ContentLength > 0:
		r.framing, r.left = bodyLength, resp.ContentLength
	default:
		r.framing = bodyClose
		resp.Close = true
	}
	return r
}

// Read returns body bytes: what is buffered (across chunks), or, with
// nothing buffered, what one read brings.
func (r *bodyReader) Read(p []byte) (int, error) {
	if r.eof {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	pc := r.pc
	switch r.framing {
	case bodyLength, bodyClose:
		if len(pc.buffered()) == 0 {
			if err := pc.fill(); err != nil {
				if err == io.EOF {
					if r.framing == bodyClose {
						r.eof = true
						return 0, io.EOF
					}
					err = io.ErrUnexpectedEOF
				}
				return 0, err
			}
		}
		b := pc.buffered()
		if r.framing == bodyLength && int64(len(b)) > r.left {
			b = b[:r.left]
		}
		n := copy(p, b)
		pc.consume(n)
		if r.framing == bodyLength {
			r.left -= int64(n)
			if r.left == 0 {
				r.eof = true
				return n, io.EOF
			}
		}
		return n, nil
	}
	return r.readChunked(p)
}

// readSlice returns the next body bytes where they lie in the
// connection's buffer, without a copy; they stay valid until the next
// call. It blocks only when nothing is buffered.
func (r *bodyReader) readSlice() ([]byte, error) {
	pc := r.pc
	pc.release()
	if r.eof {
		return nil, io.EOF
	}
	if r.framing != bodyChunked {
		if len(pc.buffered()) == 0 {
			if err := pc.fill(); err != nil {
				if err == io.EOF {
					if r.framing == bodyClose {
						r.eof = true
						return nil, io.EOF
					}
					err = io.ErrUnexpectedEOF
				}
				return nil, err
			}
		}
		b := pc.buffered()
		if r.framing == bodyLength {
			b = b[:min(int64(len(b)), r.left)]
			if r.left -= int64(len(b)); r.left == 0 {
				r.eof = true
			}
		}
		pc.r += len(b)
		return b, nil
	}
	for r.state != chunkDone {
		b := pc.buffered()
		switch r.state {
		case chunkData:
			if len(b) > 0 {
				b = b[:min(int64(len(b)), r.left)]
				pc.r += len(b)
				if r.left -= int64(len(b)); r.left == 0 {
					r.state = chunkEnd
				}
				return b, nil
			}
		case chunkSize, chunkEnd, chunkTrailer:
			if i := bytes.IndexByte(b, '\n'); i >= 0 {
				if err := r.chunkLine(bytes.TrimSuffix(b[:i], []byte("\r"))); err != nil {
					return nil, err
				}
				pc.consume(i + 1)
				continue
			}
			if len(b) > h1MaxLine {
				return nil, errMalformedChunk
			}
		}
		if err := pc.fill(); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	r.eof = true
	return nil, io.EOF
}

// readChunked decodes the chunked coding; it blocks for more bytes only
// when it has none to return.
func (r *bodyReader) readChunked(p []byte) (int, error) {
	pc, n := r.pc, 0
	for n < len(p) && r.state != chunkDone {
		b := pc.buffered()
		switch r.state {
		case chunkData:
			if len(b) > 0 {
				k := copy(p[n:], b[:min(int64(len(b)), r.left)])
				pc.consume(k)
				n += k
				if r.left -= int64(k); r.left == 0 {
					r.state = chunkEnd
				}
				continue
			}
		case chunkSize, chunkEnd, chunkTrailer:
			if i := bytes.IndexByte(b, '\n'); i >= 0 {
				line := bytes.TrimSuffix(b[:i], []byte("\r"))
				if err := r.chunkLine(line); err != nil {
					return n, err
				}
				pc.consume(i + 1)
				continue
			}
			if len(b) > h1MaxLine {
				return n, errMalformedChunk
			}
		}
		if n > 0 {
			return n, nil
		}
		if err := pc.fill(); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return n, err
		}
	}
	if r.state == chunkDone {
		r.eof = true
		return n, io.EOF
	}
	return n, nil
}

// chunkLine handles one line of the chunked coding outside chunk data.
func (r *bodyReader) chunkLine(line []byte) error {
	switch r.state {
	case chunkEnd:
		if len(line) != 0 {
			return errMalformedChunk
		}
		r.state = chunkSize
	case chunkTrailer:
		if len(line) == 0 {
			r.state = chunkDone
		}
	case chunkSize:
		if i := bytes.IndexByte(line, ';'); i >= 0 {
			line = line[:i] // a chunk extension
		}
		line = bytes.TrimRight(line, " \t")
		if len(line) == 0 || len(line) > 16 {
			return errMalformedChunk
		}
		size, err := strconv.ParseInt(string(line), 16, 64)
		if err != nil || size < 0 {
			return errMalformedChunk
		}
		r.left, r.state = size, chunkData
		if size == 0 {
			r.state = chunkTrailer
		}
	}
	return nil
}
