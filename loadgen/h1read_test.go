package loadgen

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// pieceConn is a connection that returns data in pieces of the sizes
// given in turn, then EOF.
type pieceConn struct {
	net.Conn
	data   []byte
	pieces []int
	i      int
}

func (c *pieceConn) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := len(c.data)
	if len(c.pieces) > 0 {
		n = max(1, c.pieces[c.i%len(c.pieces)])
		c.i++
	}
	n = min(n, len(p), len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

func (c *pieceConn) SetDeadline(time.Time) error     { return nil }
func (c *pieceConn) SetReadDeadline(time.Time) error { return nil }
func (c *pieceConn) Close() error                    { return nil }

// readH1 reads one response from data, delivered in pieces, with reads of
// readSize bytes (0: in place, readSlice): its status, body and error.
func readH1(data []byte, pieces []int, readSize int, method string) (int, []byte, error) {
	pc := &h1Conn{Conn: &pieceConn{data: data, pieces: pieces}}
	req, _ := http.NewRequest(method, "http://x/", nil)
	var resp *http.Response
	var err error
	for {
		if resp, err = pc.readHead(req); err != nil {
			return 0, nil, err
		}
		if resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			break
		}
	}
	body := newBodyReader(pc, resp)
	var out []byte
	if readSize == 0 { // in place
		for {
			b, err := body.readSlice()
			out = append(out, b...)
			if err == io.EOF {
				return resp.StatusCode, out, nil
			}
			if err != nil {
				return resp.StatusCode, out, err
			}
		}
	}
	p := make([]byte, readSize)
	for {
		n, err := body.Read(p)
		out = append(out, p[:n]...)
		if err == io.EOF {
			return resp.StatusCode, out, nil
		}
		if err != nil {
			return resp.StatusCode, out, err
		}
		if n == 0 {
			return resp.StatusCode, out, errors.New("read returned nothing")
		}
	}
}

// readStd reads the same response with net/http.
func readStd(data []byte, method string) (int, []byte, error) {
	br := bufio.NewReader(bytes.NewReader(data))
	req, _ := http.NewRequest(method, "http://x/", nil)
	for {
		resp, err := http.ReadResponse(br, req)
		if err != nil {
			return 0, nil, err
		}
		if resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			b, err := io.ReadAll(resp.Body)
			return resp.StatusCode, b, err
		}
	}
}

func TestH1ReadsResponses(t *testing.T) {
	sse := "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n"
	cases := []struct {
		name, raw, body string
		status          int
		err             string
	}{
		{"chunked stream", "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" +
			fmt.Sprintf("%x\r\n", len(sse)) + sse + "\r\n" + "c;ext=1\r\ndata: [DONE]\r\n0\r\nX-Trailer: 1\r\n\r\n", sse + "data: [DONE]", 200, ""},
		{"content length", "HTTP/1.1 429 Too Many Requests\r\nContent-Length: 5\r\n\r\nslow!", "slow!", 429, ""},
		{"until close", "HTTP/1.0 200 OK\r\n\r\nall of it", "all of it", 200, ""},
		{"interim response first", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n", "", 204, ""},
		{"bare line feeds", "HTTP/1.1 200 OK\nContent-Length: 2\n\nok", "ok", 200, ""},
		{"cut in a chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc", "abc", 200, "unexpected EOF"},
		{"cut in the head", "HTTP/1.1 200 OK\r\nContent-", "", 0, "unexpected EOF"},
		{"bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "", 200, "malformed chunked encoding"},
		{"bad status", "HTTP/1.1 2x0 OK\r\n\r\n", "", 0, "malformed HTTP status code"},
		{"HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\n", "", 0, "malformed HTTP"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Every way of cutting the bytes into reads, and of reading the
			// body, gives the same result.
			for _, pieces := range [][]int{nil, {1}, {2, 3}, {7}} {
				for _, size := range []int{0, 1, 3, 1024} {
					status, body, err := readH1([]byte(c.raw), pieces, size, "POST")
					if status != c.status || string(body) != c.body || (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
						t.Fatalf("pieces %v, reads of %d: status %d, body %q, error %v; want %d, %q, %q", pieces, size, status, body, err, c.status, c.body, c.err)
					}
				}
			}
		})
	}
}

// TestH1ResponseHead checks the head as callers see it: the status as
// net/http gives it, canonical keys, repeated keys in order (their values
// share one array, which must not let one key's value overwrite
// another's), and folded lines joined.
func TestH1ResponseHead(t *testing.T) {
	raw := "HTTP/1.1 200 OK\r\nx-a: 1\r\nB:  2 \r\nX-A: 3\r\nc: x\r\n  y\r\nX-A: 4\r\nd:\r\nContent-Length: 0\r\n\r\n"
	resp, err := (&h1Conn{Conn: &pieceConn{data: []byte(raw)}}).readHead(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := http.Header{"X-A": {"1", "3", "4"}, "B": {"2"}, "C": {"x y"}, "D": {""}, "Content-Length": {"0"}}
	if resp.Status != "200 OK" || fmt.Sprint(resp.Header) != fmt.Sprint(want) {
		t.Fatalf("status %q, header %v; want \"200 OK\", %v", resp.Status, resp.Header, want)
	}
	std, err := http.ReadResponse(bufio.NewReader(strings.NewReader(raw)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(std.Header) != fmt.Sprint(resp.Header) {
		t.Errorf("net/http reads header %v", std.Header)
	}
	resp, err = (&h1Conn{Conn: &pieceConn{data: []byte("HTTP/1.1 204\r\n\r\n")}}).readHead(nil)
	if err != nil || resp.Status != "204" || len(resp.Header) != 0 {
		t.Fatalf("status %q, header %v, error %v; want \"204\", none, nil", resp.Status, resp.Header, err)
	}
}

// FuzzH1Response reads arbitrary responses cut into arbitrary reads: the
// reader never panics or loops, and where both it and net/http read a
// whole response they agree on the status and the body.
func FuzzH1Response(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"), []byte{1, 2}, uint8(3))
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc"), []byte{}, uint8(0))
	f.Add([]byte("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 500 Oops\r\n\r\nbody"), []byte{5}, uint8(1))
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3;a=b\r\nabc\r\n0\r\nT: 1\r\n\r\n"), []byte{9, 1}, uint8(2))
	f.Fuzz(func(t *testing.T, data, cuts []byte, readSize uint8) {
		pieces := make([]int, len(cuts))
		for i, c := range cuts {
			pieces[i] = int(c)
		}
		status, body, err := readH1(data, pieces, int(readSize), "POST")
		stdStatus, stdBody, stdErr := readStd(data, "POST")
		if err == nil && stdErr == nil && (status != stdStatus || !bytes.Equal(body, stdBody)) {
			t.Fatalf("goodput: %d %q; net/http: %d %q", status, body, stdStatus, stdBody)
		}
	})
}
