package loadgen

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden request bodies")

// The Responses and Messages APIs are measured as chat is: against the
// mock (TTFT 20 ms, 2 ms per token), each request's first token, its gaps
// and its end agree with the mock's own emission stamps.
func TestResponsesAndMessagesMeasureLikeChat(t *testing.T) {
	for _, ep := range []Endpoint{EndpointResponses, EndpointMessages} {
		t.Run(string(ep), func(t *testing.T) {
			srv := startMock(t, nil)
			req := NewRequest("be brief", "hello there", 16)
			// The timing bounds hold on an idle machine; a starved mock or
			// client delays later tokens more than earlier ones, so an
			// attempt outside them runs once more.
			for attempt := 1; ; attempt++ {
				e := newEngine(t, ClientConfig{Target: srv.URL(), Endpoint: ep, APIKey: "sk-test"})
				res, recs := collect(t, e, context.Background(), Benchmark{
					Strategy: Strategy{Kind: Concurrent, Streams: 4}, Constraints: Constraints{MaxRequests: 20},
					Source: fixedSource{req},
				})
				if res.Successful != 20 || len(recs) != 20 {
					t.Fatalf("result %+v, %d records", res, len(recs))
				}
				err := measuresLikeChat(t, ep, recs)
				if err == nil {
					return
				}
				if attempt == 2 {
					t.Fatal(err)
				}
				t.Logf("attempt 1: %v; running once more", err)
			}
		})
	}
}

// measuresLikeChat fails t on a record that is not a streamed chat's in
// another API's form, and returns an error on timings off the mock's.
func measuresLikeChat(t *testing.T, ep Endpoint, recs []*record.Record) error {
	t.Helper()
	for _, r := range recs {
		if r.Status != record.StatusSuccessful || r.OutputTokens != 16 || r.OutputSource != record.TokensUsage ||
			len(r.ChunkTimes) != 16 || len(r.EmitTimes) != 16 || len(r.ChunkTokens) != 0 {
			t.Fatalf("record %+v", r)
		}
		if !(r.Dispatched <= r.Sent && r.Sent <= r.Headers && r.Headers <= r.FirstChunk && r.FirstChunk <= r.FirstToken &&
			r.FirstToken == r.FirstOutputToken && r.FirstToken <= r.LastToken && r.LastToken <= r.End) {
			t.Fatalf("timestamps out of order: %+v", r)
		}
		if r.PromptTokens <= 0 || r.ServerPromptTokens != r.PromptTokens || r.FinishReason != "length" || r.ResponseID == "" {
			t.Fatalf("usage/ids not taken: %+v", r)
		}
		// Every event is a chunk but Anthropic's ping, a keep-alive.
		if want := map[Endpoint]int{EndpointResponses: 4 + 16 + 4, EndpointMessages: 2 + 16 + 3}[ep]; r.Iterations != want {
			t.Fatalf("%d chunks, want %d", r.Iterations, want)
		}
	}
	for _, r := range recs {
		// TTFT: the mock's 20 ms at least, not much more on loopback.
		if ttft := time.Duration(r.FirstToken - r.Dispatched); ttft < 20*time.Millisecond || ttft > 200*time.Millisecond {
			return fmt.Errorf("TTFT %v, mock says 20ms", ttft)
		}
		// Every token arrived after the mock emitted it, and soon.
		var gaps, emitGaps int64
		for i, at := range r.ChunkTimes {
			if lag := time.Duration(at - r.EmitTimes[i]); lag < -time.Millisecond || lag > 100*time.Millisecond {
				return fmt.Errorf("token %d arrived %v after its emission", i, lag)
			}
			if i > 0 {
				gaps += at - r.ChunkTimes[i-1]
				emitGaps += r.EmitTimes[i] - r.EmitTimes[i-1]
			}
		}
		// ITL: the mean measured gap is the mean emitted gap.
		if d := time.Duration(gaps-emitGaps) / 15; d < -500*time.Microsecond || d > 500*time.Microsecond {
			return fmt.Errorf("mean gap %v, emitted %v", time.Duration(gaps/15), time.Duration(emitGaps/15))
		}
		// e2e: at least TTFT + 15 gaps, ended with the last token.
		if e2e := time.Duration(r.End - r.Dispatched); e2e < 50*time.Millisecond || e2e > 400*time.Millisecond || r.End-r.LastToken > int64(50*time.Millisecond) {
			return fmt.Errorf("e2e %v, last token %v before the end", e2e, time.Duration(r.End-r.LastToken))
		}
	}
	return nil
}

func TestResponsesAndMessagesNoStream(t *testing.T) {
	for _, ep := range []Endpoint{EndpointResponses, EndpointMessages} {
		t.Run(string(ep), func(t *testing.T) {
			srv := startMock(t, nil)
			e := newEngine(t, ClientConfig{Target: srv.URL(), Endpoint: ep, NoStream: true, KeepText: true})
			_, recs := collect(t, e, context.Background(), Benchmark{
				Strategy: Strategy{Kind: Concurrent, Streams: 2}, Constraints: Constraints{MaxRequests: 4},
				Source: fixedSource{NewRequest("", "hello", 8)},
			})
			for _, r := range recs {
				if r.Status != record.StatusSuccessful || r.OutputTokens != 8 || r.OutputSource != record.TokensUsage ||
					r.ServerPromptTokens <= 0 || r.FinishReason != "length" || r.ResponseID == "" || len(strings.Fields(r.OutputText)) != 8 {
					t.Fatalf("record %+v", r)
				}
			}
		})
	}
}

// Errors come classified as chat's: an HTTP status with the API's own
// error body, and an error event mid-stream.
func TestResponsesAndMessagesErrors(t *testing.T) {
	for _, ep := range []Endpoint{EndpointResponses, EndpointMessages} {
		for _, tc := range []struct {
			name  string
			mock  func(*mock.Config)
			model string
			class record.ErrorClass
			want  string
		}{
			{"unknown model", nil, "nope", record.ErrHTTPStatus, map[Endpoint]string{
				EndpointResponses: "HTTP 404: The model `nope` does not exist or you do not have access to it.",
				EndpointMessages:  "HTTP 404: model: nope"}[ep]},
			{"stream error", func(c *mock.Config) { c.StreamErrorRate = 1 }, "", record.ErrStreamError, map[Endpoint]string{
				EndpointResponses: "server error: goodput mock: injected stream error (code server_error)",
				EndpointMessages:  "server error: goodput mock: injected stream error (type api_error)"}[ep]},
			{"overloaded", func(c *mock.Config) { c.ErrorRate, c.ErrorCodes = 1, []int{529} }, "", record.ErrHTTPStatus, "HTTP 529: goodput mock: injected fault (HTTP 529)"},
		} {
			t.Run(string(ep)+"/"+tc.name, func(t *testing.T) {
				srv := startMock(t, tc.mock)
				c, err := NewClient(ClientConfig{Target: srv.URL(), Endpoint: ep, Model: mock.DefaultModel}, NewClock())
				if err != nil {
					t.Fatal(err)
				}
				if tc.model != "" {
					c.SetModel(tc.model)
				}
				var rec record.Record
				rec.Reset()
				c.Do(context.Background(), NewRequest("", "hello", 8), &rec, newConn())
				if rec.Status != record.StatusErrored || rec.ErrorClass != tc.class || rec.Error != tc.want {
					t.Fatalf("got %s/%s %q, want %s %q", rec.Status, rec.ErrorClass, rec.Error, tc.class, tc.want)
				}
			})
		}
	}
}

// Request bodies, headers and paths of each type, against golden JSON.
func TestRequestBodiesGolden(t *testing.T) {
	type seen struct {
		path   string
		header http.Header
		body   []byte
	}
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.URL.Path, r.Header.Clone(), b}
		http.Error(w, "no", http.StatusTeapot)
	}))
	defer srv.Close()
	sys := NewRequest("be brief", "hello \"there\"", 16)
	for _, tc := range []struct {
		name string
		cfg  ClientConfig
		req  *Request
		path string
	}{
		{"chat", ClientConfig{}, sys, "/v1/chat/completions"},
		{"text", ClientConfig{Endpoint: EndpointCompletions}, sys, "/v1/completions"},
		{"responses", ClientConfig{Endpoint: EndpointResponses}, sys, "/v1/responses"},
		{"responses-nostream", ClientConfig{Endpoint: EndpointResponses, NoStream: true}, NewRequest("", "hi", -1), "/v1/responses"},
		{"messages", ClientConfig{Endpoint: EndpointMessages}, sys, "/v1/messages"},
		{"messages-nolimit", ClientConfig{Endpoint: EndpointMessages, NoStream: true, ExtraBody: `{"temperature":0}`},
			NewChatRequest([]Message{{Role: "system", Content: "a"}, {Role: "system", Content: "b"}, {Role: "user", Content: "q"}, {Role: "assistant", Content: "r"}, {Role: "user", Content: "s"}}, -1), "/v1/messages"},
		{"messages-path", ClientConfig{Endpoint: EndpointMessages, Path: "/anthropic/v1/messages"}, NewRequest("", "hi", 4), "/prefix/anthropic/v1/messages"},
		{"chat-media", ClientConfig{}, mediaRequest(true), "/v1/chat/completions"},
		{"responses-media", ClientConfig{Endpoint: EndpointResponses}, mediaRequest(false), "/v1/responses"},
		{"messages-media", ClientConfig{Endpoint: EndpointMessages}, mediaRequest(false), "/v1/messages"},
		{"chat-video", ClientConfig{}, videoRequest(), "/v1/chat/completions"},
		{"embeddings", ClientConfig{Endpoint: EndpointEmbeddings}, NewEmbeddingsRequest([]string{"a \"b\"", "c"}), "/v1/embeddings"},
		{"embeddings-one", ClientConfig{Endpoint: EndpointEmbeddings, ExtraBody: `{"dimensions":64}`}, sys, "/v1/embeddings"},
		{"rerank", ClientConfig{Endpoint: EndpointRerank}, NewRerankRequest("q?", []string{"d1", "d2"}), "/v1/rerank"},
		{"tei-rerank", ClientConfig{Endpoint: EndpointTEIRerank}, NewRerankRequest("q?", []string{"d1", "d2"}), "/rerank"},
		{"score", ClientConfig{Endpoint: EndpointScore}, NewRerankRequest("q?", []string{"d1", "d2"}), "/score"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Target, cfg.Model, cfg.APIKey = srv.URL, "m", "sk-secret"
			if strings.HasSuffix(tc.name, "-path") {
				cfg.Target = srv.URL + "/prefix/"
			}
			c, err := NewClient(cfg, NewClock())
			if err != nil {
				t.Fatal(err)
			}
			var rec record.Record
			rec.Reset()
			c.Do(context.Background(), tc.req, &rec, newConn())
			s := <-got
			if s.path != tc.path {
				t.Errorf("path %s, want %s", s.path, tc.path)
			}
			if !json.Valid(s.body) {
				t.Fatalf("invalid JSON body %s", s.body)
			}
			golden := filepath.Join("testdata", "bodies", tc.name+".json")
			if *updateGolden {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, append(s.body, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if string(want) != string(s.body)+"\n" {
				t.Errorf("body\n%s\nwant (%s)\n%s", s.body, golden, want)
			}
			anthropic := cfg.Endpoint == EndpointMessages
			if key, auth := s.header.Get("X-Api-Key"), s.header.Get("Authorization"); anthropic && (key != "sk-secret" || auth != "") || !anthropic && (key != "" || auth != "Bearer sk-secret") {
				t.Errorf("x-api-key %q, authorization %q", key, auth)
			}
			if v := s.header.Get("Anthropic-Version"); anthropic != (v == AnthropicVersion) {
				t.Errorf("anthropic-version %q", v)
			}
			if rec.ErrorClass != record.ErrHTTPStatus || strings.Contains(rec.Error, "sk-secret") {
				t.Errorf("record %s %q", rec.ErrorClass, rec.Error)
			}
		})
	}
}

func TestClientConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg  ClientConfig
		want string
	}{
		{ClientConfig{Endpoint: "/v1/videos"}, `endpoint "/v1/videos": want /v1/chat/completions, /v1/completions, /v1/responses, /v1/messages, /v1/embeddings, /v1/rerank, /rerank, /v1/ranking, /score, /pooling, /v1/audio/transcriptions, /v1/audio/translations or /v1/images/generations`},
		{ClientConfig{Endpoint: EndpointEmbeddings, BatchSize: -1}, `batch size -1: want 1 or more inputs per request`},
		{ClientConfig{Path: "v1/x"}, `request path "v1/x": want a path like /v1/chat/completions`},
		{ClientConfig{Endpoint: EndpointResponses, MaxTokensField: "max_tokens"}, `max tokens field "max_tokens": only for /v1/chat/completions and /v1/completions (/v1/responses sends its own)`},
	} {
		tc.cfg.Target = "http://127.0.0.1:1"
		if _, err := NewClient(tc.cfg, NewClock()); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: error %v, want %q", tc.cfg, err, tc.want)
		}
	}
}

// A server without GET /v1/models (404) is ready when --model names the
// model, with a note; without a model the 404 is an error.
func TestReadyWithoutModelsList(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	c, err := NewClient(ClientConfig{Target: srv.URL, Model: "m"}, NewClock())
	if err != nil {
		t.Fatal(err)
	}
	if models, err := c.Ready(context.Background()); err != nil || models != nil || c.ReadyNote() != `GET /v1/models answered HTTP 404: model "m" not checked` {
		t.Fatalf("models %v, err %v, note %q", models, err, c.ReadyNote())
	}
	c, _ = NewClient(ClientConfig{Target: srv.URL}, NewClock())
	if _, err := c.Ready(context.Background()); err == nil || !strings.HasPrefix(err.Error(), "target http://127.0.0.1:") || !strings.Contains(err.Error(), "GET /v1/models returned HTTP 404") || c.ReadyNote() != "" {
		t.Fatalf("no model: err %v, note %q", err, c.ReadyNote())
	}
}
