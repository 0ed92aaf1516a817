package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/mock"
)

// recordingMock serves the mock and keeps the body of every generation
// request it is sent.
func recordingMock(t *testing.T) (url string, bodies func() []map[string]any) {
	t.Helper()
	cfg := mock.DefaultConfig()
	cfg.TTFT, cfg.TTFTStdev, cfg.ITL, cfg.ITLStdev = time.Millisecond, 0, 100*time.Microsecond, 0
	m, err := mock.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []map[string]any
	h := m.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && (strings.HasSuffix(r.URL.Path, "/chat/completions") || strings.HasSuffix(r.URL.Path, "/responses")) {
			b, _ := io.ReadAll(r.Body)
			var v map[string]any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Errorf("request body is not a JSON object: %v", err)
			}
			mu.Lock()
			seen = append(seen, v)
			mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []map[string]any {
		mu.Lock()
		defer mu.Unlock()
		return append([]map[string]any(nil), seen...)
	}
}

// backends.md's translategemma example: extras.content's members ride on
// every user text content object, on chat completions and Responses;
// text completions have none, which the one-line refusal says.
func TestV07ExtrasContent(t *testing.T) {
	for _, format := range []string{"/v1/chat/completions", "/v1/responses"} {
		url, bodies := recordingMock(t)
		code, _, stderr := runGoodput(t, "run", "--backend", `{"kind":"openai_http","target":"`+url+`","request_format":"`+format+`","extras":{"content":{"source_lang_code":"en","target_lang_code":"es"}}}`,
			"--data", "kind=synthetic_text,prompt_tokens=16,output_tokens=4", "--profile", "kind=synchronous", "--constraint", "kind=max_requests,count=2",
			"--output-dir", t.TempDir(), "--outputs", "json", "--server-metrics", "off", "--disable-progress")
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", format, code, stderr)
		}
		got := bodies()
		if len(got) != 2 {
			t.Fatalf("%s: %d requests, want 2", format, len(got))
		}
		key, textType := "messages", "text"
		if format == "/v1/responses" {
			key, textType = "input", "input_text"
		}
		msgs, _ := got[0][key].([]any)
		last, _ := msgs[len(msgs)-1].(map[string]any)
		parts, _ := last["content"].([]any)
		part, _ := parts[0].(map[string]any)
		if len(parts) != 1 || part["type"] != textType || part["source_lang_code"] != "en" || part["target_lang_code"] != "es" || part["text"] == "" {
			t.Errorf("%s: user message %v; want one %s part carrying source_lang_code en and target_lang_code es", format, last, textType)
		}
	}
	code, _, stderr := runGoodput(t, "run", "--backend", `{"kind":"openai_http","target":"http://127.0.0.1:1","request_format":"/v1/completions","extras":{"content":{"source_lang_code":"en"}}}`,
		"--data", "kind=synthetic_text,prompt_tokens=16,output_tokens=4", "--constraint", "kind=max_requests,count=2")
	if code != ExitUsage || !strings.Contains(stderr, "only chat_completions and responses send text content objects") {
		t.Errorf("text completions: exit %d, %q; want a usage error naming chat_completions and responses", code, stderr)
	}
}
