package mock

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// fastConfig is DefaultConfig with no delays and no jitter.
func fastConfig() Config {
	c := DefaultConfig()
	c.TTFT, c.TTFTStdev, c.ITL, c.ITLStdev = 0, 0, 0, 0
	c.OutputTokensStdev = 0
	return c
}

// startServer starts a server on a free loopback port and closes it at the
// end of the test.
func startServer(t testing.TB, cfg Config) *Server {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if err := s.Start("127.0.0.1:0"); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// post sends a JSON body and returns the response; the caller closes its body.
func post(t testing.TB, client *http.Client, url, body string) *http.Response {
	t.Helper()
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	return resp
}

// sseResult is a parsed event stream.
type sseResult struct {
	payloads []string // the data of every event except [DONE]
	done     bool     // [DONE] was seen
	err      error    // the read error that ended the stream early, if any
}

// readSSE reads an event stream to its end.
func readSSE(r io.Reader) sseResult {
	var res sseResult
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			if !errors.Is(err, io.EOF) || line != "" {
				res.err = err
			}
			return res
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			res.err = errors.New("unexpected SSE line: " + line)
			return res
		}
		if data == "[DONE]" {
			res.done = true
			continue
		}
		res.payloads = append(res.payloads, data)
	}
}

// waitFor polls cond every 5 ms until it holds or timeout passes.
func waitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func readAll(t testing.TB, resp *http.Response) []byte {
	t.Helper()
	defer resp.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		t.Fatalf("reading body: %v", err)
	}
	return buf.Bytes()
}
