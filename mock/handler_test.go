package mock

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/reqtype"
)

var (
	idRe      = regexp.MustCompile(`"id":"(chatcmpl|cmpl)-[0-9a-f]{32}"`)
	createdRe = regexp.MustCompile(`"created":[0-9]+`)
	stampRe   = regexp.MustCompile(`,"goodput_emit_ns":[0-9]+`)
)

// normalize replaces the parts of a payload that vary from run to run.
func normalize(s string) string {
	s = idRe.ReplaceAllString(s, `"id":"$1-ID"`)
	s = createdRe.ReplaceAllString(s, `"created":0`)
	return stampRe.ReplaceAllString(s, "")
}

const (
	chatHead  = `{"id":"chatcmpl-ID","object":"chat.completion.chunk","created":0,"model":"goodput-mock","choices":[`
	complHead = `{"id":"cmpl-ID","object":"text_completion","created":0,"model":"goodput-mock","choices":[`
	roleChunk = chatHead + `{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]`
	// The chat messages below hold "hello world!": 12 bytes, ceil(12/4) = 3
	// prompt tokens. The completion prompt "hi" is ceil(2/4) = 1 token.
	chatMsgs = `"messages":[{"role":"user","content":"hello world!"}]`
)

func chatDelta(text, finish string) string {
	if finish == "" {
		return chatHead + `{"index":0,"delta":{"content":"` + text + `"},"logprobs":null,"finish_reason":null}]`
	}
	return chatHead + `{"index":0,"delta":{"content":"` + text + `"},"logprobs":null,"finish_reason":"` + finish + `","stop_reason":null}]`
}

func complText(text, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return complHead + `{"index":0,"text":"` + text + `","logprobs":null,"finish_reason":` + f + `,"stop_reason":null}]`
}

func usage(p, c int) string {
	return `"usage":{"prompt_tokens":` + itoa(p) + `,"total_tokens":` + itoa(p+c) + `,"completion_tokens":` + itoa(c) + `}`
}

// usageFinal is the final usage: with the prefix cache's cached tokens
// (none: every case runs on a fresh server).
func usageFinal(p, c int) string {
	u := usage(p, c)
	return u[:len(u)-1] + `,"prompt_tokens_details":{"cached_tokens":0}}`
}

func nowNs() int64 { return time.Now().UnixNano() }

func itoa(v int) string { return string(appendInt(nil, int64(v))) }

// TestStreamShapes checks every payload of a stream byte for byte (ids,
// created and stamps normalized). Each case runs on a fresh server so that
// its request is k = 0, whose token texts are vocab[0], vocab[1], ...:
// " the", " of", " and", " to", " in".
func TestStreamShapes(t *testing.T) {
	tests := []struct {
		name   string
		path   string
		body   string
		mutate func(*Config)
		want   []string
	}{
		{
			name: "chat ignore_eos max_tokens no usage",
			path: "/v1/chat/completions",
			body: `{"model":"goodput-mock",` + chatMsgs + `,"max_tokens":3,"ignore_eos":true,"stream":true}`,
			want: []string{roleChunk + "}", chatDelta(" the", "") + "}", chatDelta(" of", "") + "}", chatDelta(" and", "length") + "}"},
		},
		{
			name: "chat include_usage",
			path: "/v1/chat/completions",
			body: `{` + chatMsgs + `,"max_tokens":2,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`,
			want: []string{roleChunk + "}", chatDelta(" the", "") + "}", chatDelta(" of", "length") + "}",
				chatHead + "]," + usageFinal(3, 2) + "}"},
		},
		{
			name: "chat continuous usage (include_usage defaults to true with stream_options)",
			path: "/v1/chat/completions",
			body: `{` + chatMsgs + `,"max_tokens":2,"ignore_eos":true,"stream":true,"stream_options":{"continuous_usage_stats":true}}`,
			want: []string{roleChunk + "," + usage(3, 0) + "}", chatDelta(" the", "") + "," + usage(3, 1) + "}",
				chatDelta(" of", "length") + "," + usage(3, 2) + "}", chatHead + "]," + usageFinal(3, 2) + "}"},
		},
		{
			name: "chat continuous usage needs include_usage",
			path: "/v1/chat/completions",
			body: `{` + chatMsgs + `,"max_tokens":1,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":false,"continuous_usage_stats":true}}`,
			want: []string{roleChunk + "}", chatDelta(" the", "length") + "}"},
		},
		{
			name: "max_completion_tokens wins over max_tokens in chat",
			path: "/v1/chat/completions",
			body: `{` + chatMsgs + `,"max_tokens":5,"max_completion_tokens":2,"ignore_eos":true,"stream":true}`,
			want: []string{roleChunk + "}", chatDelta(" the", "") + "}", chatDelta(" of", "length") + "}"},
		},
		{
			name:   "natural length below max_tokens stops",
			path:   "/v1/chat/completions",
			body:   `{` + chatMsgs + `,"max_tokens":10,"stream":true}`,
			mutate: func(c *Config) { c.OutputTokens = 2 },
			want:   []string{roleChunk + "}", chatDelta(" the", "") + "}", chatDelta(" of", "stop") + "}"},
		},
		{
			name:   "max_tokens below natural length cuts with length",
			path:   "/v1/chat/completions",
			body:   `{` + chatMsgs + `,"max_tokens":1,"stream":true}`,
			mutate: func(c *Config) { c.OutputTokens = 50 },
			want:   []string{roleChunk + "}", chatDelta(" the", "length") + "}"},
		},
		{
			name:   "ignore_eos without max_tokens keeps the natural length",
			path:   "/v1/chat/completions",
			body:   `{` + chatMsgs + `,"ignore_eos":true,"stream":true}`,
			mutate: func(c *Config) { c.OutputTokens = 1 },
			want:   []string{roleChunk + "}", chatDelta(" the", "stop") + "}"},
		},
		{
			name: "completions include_usage",
			path: "/v1/completions",
			body: `{"model":"goodput-mock","prompt":"hi","max_tokens":2,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`,
			want: []string{complText(" the", "") + "}", complText(" of", "length") + "}", complHead + "]," + usageFinal(1, 2) + "}"},
		},
		{
			name: "completions ignore max_completion_tokens, as vLLM",
			path: "/v1/completions",
			body: `{"prompt":[1,2,3,4],"max_tokens":2,"max_completion_tokens":1,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`,
			want: []string{complText(" the", "") + "}", complText(" of", "length") + "}", complHead + "]," + usageFinal(4, 2) + "}"},
		},
		{
			name:   "tokens per chunk with continuous usage",
			path:   "/v1/completions",
			body:   `{"prompt":["hi"],"max_tokens":5,"ignore_eos":true,"stream":true,"stream_options":{"continuous_usage_stats":true}}`,
			mutate: func(c *Config) { c.TokensPerChunk = 2 },
			want: []string{complText(" the of", "") + "," + usage(1, 2) + "}", complText(" and to", "") + "," + usage(1, 4) + "}",
				complText(" in", "length") + "," + usage(1, 5) + "}", complHead + "]," + usageFinal(1, 5) + "}"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := fastConfig()
			cfg.Stamp = false
			if tc.mutate != nil {
				tc.mutate(&cfg)
			}
			s := startServer(t, cfg)
			resp := post(t, nil, s.URL()+tc.path, tc.body)
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %s", resp.StatusCode, readAll(t, resp))
			}
			if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream; charset=utf-8" {
				t.Errorf("Content-Type = %q", ct)
			}
			res := readSSE(resp.Body)
			if res.err != nil || !res.done {
				t.Fatalf("stream ended with err=%v done=%v", res.err, res.done)
			}
			if len(res.payloads) != len(tc.want) {
				t.Fatalf("got %d payloads, want %d:\n%s", len(res.payloads), len(tc.want), strings.Join(res.payloads, "\n"))
			}
			for i, p := range res.payloads {
				if !json.Valid([]byte(p)) {
					t.Errorf("payload %d is not valid JSON: %s", i, p)
				}
				if got := normalize(p); got != tc.want[i] {
					t.Errorf("payload %d:\n got %s\nwant %s", i, got, tc.want[i])
				}
			}
		})
	}
}

func TestNonStreamingBodies(t *testing.T) {
	tests := []struct {
		name, path, body, want string
		tokens                 uint64
	}{
		{
			name:   "chat",
			path:   "/v1/chat/completions",
			body:   `{` + chatMsgs + `,"max_tokens":3,"ignore_eos":true}`,
			want:   `{"id":"chatcmpl-ID","object":"chat.completion","created":0,"model":"goodput-mock","choices":[{"index":0,"message":{"role":"assistant","content":" the of and","tool_calls":[]},"logprobs":null,"finish_reason":"length","stop_reason":null}],` + usageFinal(3, 3) + `,"prompt_logprobs":null}`,
			tokens: 3,
		},
		{
			name: "chat with image, audio and video parts (the text's tokens only)",
			path: "/v1/chat/completions",
			body: `{"messages":[{"role":"user","content":[{"type":"text","text":"hello world!"},{"type":"image_url","image_url":{"url":"data:image/png;base64,UE5H"}},` +
				`{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}},{"type":"video_url","video_url":{"url":"data:video/mp4;base64,TVA0"}}]}],"max_tokens":3,"ignore_eos":true}`,
			want:   `{"id":"chatcmpl-ID","object":"chat.completion","created":0,"model":"goodput-mock","choices":[{"index":0,"message":{"role":"assistant","content":" the of and","tool_calls":[]},"logprobs":null,"finish_reason":"length","stop_reason":null}],` + usageFinal(3, 3) + `,"prompt_logprobs":null}`,
			tokens: 3,
		},
		{
			name:   "completions",
			path:   "/v1/completions",
			body:   `{"prompt":"hi","max_tokens":2,"ignore_eos":true,"stream":false}`,
			want:   `{"id":"cmpl-ID","object":"text_completion","created":0,"model":"goodput-mock","choices":[{"index":0,"text":" the of","logprobs":null,"finish_reason":"length","stop_reason":null,"prompt_logprobs":null}],` + usageFinal(1, 2) + `}`,
			tokens: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t, fastConfig())
			resp := post(t, nil, s.URL()+tc.path, tc.body)
			body := string(readAll(t, resp))
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("status %d, Content-Type %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			if !stampRe.MatchString(body) {
				t.Errorf("body has no goodput_emit_ns stamp: %s", body)
			}
			if got := normalize(body); got != tc.want {
				t.Errorf("body:\n got %s\nwant %s", got, tc.want)
			}
			if st := s.Stats(); st.Requests != 1 || st.Completed != 1 || st.Tokens != tc.tokens {
				t.Errorf("stats after one request: %+v", st)
			}
		})
	}
}

// TestStampsOnEveryPayload checks that every JSON payload of a stream
// carries an integer goodput_emit_ns close to now, and none when Stamp is off.
func TestStampsOnEveryPayload(t *testing.T) {
	for _, stamp := range []bool{true, false} {
		cfg := fastConfig()
		cfg.Stamp = stamp
		s := startServer(t, cfg)
		before := nowNs()
		resp := post(t, nil, s.URL()+"/v1/chat/completions", `{`+chatMsgs+`,"max_tokens":4,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`)
		res := readSSE(resp.Body)
		resp.Body.Close()
		after := nowNs()
		if len(res.payloads) != 6 {
			t.Fatalf("stamp=%v: %d payloads, want role + 4 tokens + usage = 6", stamp, len(res.payloads))
		}
		for i, p := range res.payloads {
			var v struct {
				Stamp *int64 `json:"goodput_emit_ns"`
			}
			if err := json.Unmarshal([]byte(p), &v); err != nil {
				t.Fatalf("payload %d: %v", i, err)
			}
			switch {
			case stamp && v.Stamp == nil:
				t.Errorf("payload %d has no stamp: %s", i, p)
			case stamp && (*v.Stamp < before || *v.Stamp > after):
				t.Errorf("payload %d stamp %d outside the request's wall-clock window [%d, %d]", i, *v.Stamp, before, after)
			case !stamp && v.Stamp != nil:
				t.Errorf("Stamp=false but payload %d has a stamp: %s", i, p)
			}
		}
	}
}

func TestRequestErrors(t *testing.T) {
	tests := []struct {
		name, method, path, body string
		status                   int
		wantType, wantParam      string // error.type and error.param ("" = null)
		wantMessage              string // substring of error.message
	}{
		{"unknown model", "POST", "/v1/chat/completions", `{"model":"gpt-9",` + chatMsgs + `}`, 404, "NotFoundError", "model", "The model `gpt-9` does not exist."},
		{"bad JSON", "POST", "/v1/chat/completions", `{"messages":[`, 400, "BadRequestError", "", "not a valid JSON"},
		{"wrong type", "POST", "/v1/completions", `{"prompt":"x","max_tokens":"ten"}`, 400, "BadRequestError", "max_tokens", "max_tokens"},
		{"n=2", "POST", "/v1/chat/completions", `{` + chatMsgs + `,"n":2}`, 400, "BadRequestError", "n", "n must be 1"},
		{"stream_options without stream", "POST", "/v1/chat/completions", `{` + chatMsgs + `,"stream_options":{"include_usage":true}}`, 400, "BadRequestError", "stream_options", "stream=True"},
		{"max_tokens 0", "POST", "/v1/completions", `{"prompt":"x","max_tokens":0}`, 400, "BadRequestError", "max_tokens", "at least 1"},
		{"context too long", "POST", "/v1/completions", `{"prompt":"x","max_tokens":40000}`, 400, "BadRequestError", "max_tokens", "maximum context length is 32768"},
		{"no messages", "POST", "/v1/chat/completions", `{"model":"goodput-mock"}`, 400, "BadRequestError", "messages", "messages"},
		{"no prompt", "POST", "/v1/completions", `{"max_tokens":3}`, 400, "BadRequestError", "prompt", "prompt is required"},
		{"two prompts", "POST", "/v1/completions", `{"prompt":["a","b"]}`, 400, "BadRequestError", "prompt", "one prompt per request"},
	}
	s := startServer(t, fastConfig())
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, s.URL()+tc.path, strings.NewReader(tc.body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body := readAll(t, resp)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			var e struct {
				Error struct {
					Message string  `json:"message"`
					Type    string  `json:"type"`
					Param   *string `json:"param"`
					Code    int     `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal(body, &e); err != nil {
				t.Fatalf("error body is not JSON: %v: %s", err, body)
			}
			param := ""
			if e.Error.Param != nil {
				param = *e.Error.Param
			}
			if e.Error.Type != tc.wantType || param != tc.wantParam || e.Error.Code != tc.status || !strings.Contains(e.Error.Message, tc.wantMessage) {
				t.Errorf("error = %+v (param %q), want type %s param %q code %d message containing %q", e.Error, param, tc.wantType, tc.wantParam, tc.status, tc.wantMessage)
			}
		})
	}
	if st := s.Stats(); st.Rejected != uint64(len(tests)) || st.Requests != 0 {
		t.Errorf("Stats: Rejected=%d Requests=%d, want %d and 0", st.Rejected, st.Requests, len(tests))
	}
}

func TestInfoEndpoints(t *testing.T) {
	cfg := fastConfig()
	cfg.Model = `org/model "quoted"`
	cfg.MaxModelLen = 4096
	cfg.Version = "v-test"
	s := startServer(t, cfg)

	get := func(path string) (*http.Response, []byte) {
		resp, err := http.Get(s.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		return resp, readAll(t, resp)
	}

	resp, body := get("/health")
	if resp.StatusCode != 200 || len(body) != 0 {
		t.Errorf("/health: %d %q, want 200 and an empty body", resp.StatusCode, body)
	}

	resp, body = get("/version")
	if resp.StatusCode != 200 || string(body) != `{"version":"v-test"}` {
		t.Errorf("/version: %d %s", resp.StatusCode, body)
	}

	resp, body = get("/v1/models")
	var models struct {
		Object string `json:"object"`
		Data   []struct {
			ID          string `json:"id"`
			Object      string `json:"object"`
			Created     int64  `json:"created"`
			OwnedBy     string `json:"owned_by"`
			Root        string `json:"root"`
			MaxModelLen int    `json:"max_model_len"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &models); err != nil || resp.StatusCode != 200 {
		t.Fatalf("/v1/models: %d %v: %s", resp.StatusCode, err, body)
	}
	if models.Object != "list" || len(models.Data) != 1 {
		t.Fatalf("/v1/models: %s", body)
	}
	m := models.Data[0]
	if m.ID != cfg.Model || m.Object != "model" || m.OwnedBy != "goodput" || m.Root != cfg.Model || m.MaxModelLen != 4096 || m.Created == 0 {
		t.Errorf("/v1/models entry: %+v", m)
	}

	resp, body = get("/nope")
	if resp.StatusCode != 404 || string(body) != `{"detail":"Not Found"}` {
		t.Errorf("unknown path: %d %s", resp.StatusCode, body)
	}
	resp, _ = get("/v1/chat/completions")
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /v1/chat/completions: %d, want 405", resp.StatusCode)
	}

	// The served model, quoted and all, is accepted by name.
	resp = post(t, nil, s.URL()+"/v1/completions", `{"model":`+jsonString(cfg.Model)+`,"prompt":"x","max_tokens":1}`)
	if body := readAll(t, resp); resp.StatusCode != 200 || !strings.Contains(string(body), `"model":"org/model \"quoted\""`) {
		t.Errorf("request naming the served model: %d %s", resp.StatusCode, body)
	}
}

// TestVocabNeedsNoEscaping backs the renderer appending token texts verbatim.
func TestVocabNeedsNoEscaping(t *testing.T) {
	for i, w := range vocab {
		if q := jsonString(w); q != `"`+w+`"` || w[0] != ' ' || len(w) < 2 {
			t.Errorf("vocab[%d] = %q: must be a space and a word needing no JSON escaping", i, w)
		}
	}
}

// The mock serves every request type's path (POST), and names POST in a
// 405 to other methods there.
func TestServesEveryRequestType(t *testing.T) {
	s, err := New(fastConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range reqtype.All {
		rt := &reqtype.All[i]
		for _, p := range append([]string{rt.Path}, rt.MockPaths...) {
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p, nil))
			if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "POST" {
				t.Errorf("GET %s (%s): %d, Allow %q", p, rt.Name, rec.Code, rec.Header().Get("Allow"))
			}
			if _, ok := servedPaths()[p]; !ok {
				t.Errorf("%s (%s) not served", p, rt.Name)
			}
		}
	}
}
