package mock

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// fuzzSeeds are the handler fuzz targets' seed bodies.
var fuzzSeeds = []string{
	`{"messages":[{"role":"user","content":"hi"}],"max_tokens":3,"stream":true}`,
	`{"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"stream":true,"stream_options":{"continuous_usage_stats":true}}`,
	`{"prompt":"hi","max_tokens":2,"ignore_eos":true}`,
	`{"prompt":[1,2,3],"max_tokens":2,"stream":true,"stream_options":{"include_usage":true}}`,
	`{"prompt":[[1,2]],"n":1}`,
	`{"model":"x","prompt":"hi"}`,
	`{"prompt":"hi","max_tokens":-1}`,
	`{"prompt":null,"max_tokens":null}`,
	`{"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"q\"":{}}}}}],"tool_choice":"required","stream":true}`,
	`{"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":"ok"}],"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":{"type":"function","function":{"name":"f"}}}`,
	`{"messages":[{"role":"user","content":"hi"}],"tools":[],"tool_choice":"auto"}`,
	`[1,2]`,
	`{`,
	``,
}

// FuzzHandler feeds arbitrary bodies to both completion endpoints through the
// real handler (zero delays) and checks the response is well formed: a 4xx
// with an OpenAI-style JSON error, a JSON body, or an event stream of valid
// JSON payloads ending with [DONE].
func FuzzHandler(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, true)
		f.Add(s, false)
	}
	cfg := fastConfig()
	cfg.MaxModelLen = 256
	cfg.OutputTokens = 4
	cfg.OutputTokensStdev = 3
	s, err := New(cfg)
	if err != nil {
		f.Fatal(err)
	}
	h := s.Handler()
	f.Fuzz(func(t *testing.T, body string, chat bool) { checkHandler(t, h, body, chat) })
}

// checkHandler sends body to a completion endpoint of h and checks the
// response is well formed.
func checkHandler(t *testing.T, h http.Handler, body string, chat bool) {
	t.Helper()
	{
		path := "/v1/completions"
		if chat {
			path = "/v1/chat/completions"
		}
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		out := rec.Body.Bytes()
		switch ct := rec.Header().Get("Content-Type"); {
		case rec.Code >= 400:
			var e struct {
				Error *struct {
					Message string `json:"message"`
					Code    int    `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal(out, &e); err != nil || e.Error == nil || e.Error.Code != rec.Code || e.Error.Message == "" {
				t.Fatalf("status %d with body %s", rec.Code, out)
			}
		case strings.HasPrefix(ct, "text/event-stream"):
			sc := bufio.NewScanner(bytes.NewReader(out))
			sc.Buffer(nil, 1<<20)
			var last string
			for sc.Scan() {
				line := sc.Text()
				if line == "" {
					continue
				}
				data, ok := strings.CutPrefix(line, "data: ")
				if !ok {
					t.Fatalf("bad SSE line %q", line)
				}
				last = data
				if data != "[DONE]" && !json.Valid([]byte(data)) {
					t.Fatalf("invalid JSON payload %s", data)
				}
			}
			if last != "[DONE]" {
				t.Fatalf("stream does not end with [DONE]: %s", out)
			}
		default:
			if rec.Code != 200 || !json.Valid(out) {
				t.Fatalf("status %d Content-Type %q body %s", rec.Code, ct, out)
			}
		}
	}
}

// FuzzCapacityHandler is FuzzHandler through the capacity model's engine
// (1 µs steps, two slots, a 16-token budget), with faults on, so bodies that
// pass validation queue, prefill in chunks and stream through the batch.
func FuzzCapacityHandler(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, true)
		f.Add(s, false)
	}
	cfg := fastConfig()
	cfg.MaxModelLen = 256
	cfg.OutputTokens = 4
	cfg.OutputTokensStdev = 3
	cfg.StreamErrorRate, cfg.StallRate, cfg.StallDuration = 0.1, 0.1, time.Microsecond
	cfg.Capacity = &CapacityModel{MaxNumSeqs: 2, MaxNumBatchedTokens: 16, StepBase: time.Microsecond, GPUs: 1, GPU: DefaultGPU()}
	s, err := New(cfg)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	h := s.Handler()
	f.Fuzz(func(t *testing.T, body string, chat bool) { checkHandler(t, h, body, chat) })
}
