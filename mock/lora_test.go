package mock

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// LoRA adapters are listed by /v1/models under the base model, accepted
// as a request's model and named by its answer; an unknown model is each
// API's 404; a duplicate adapter is a configuration error.
func TestLoRAModules(t *testing.T) {
	cfg := DefaultConfig()
	cfg.TTFT, cfg.TTFTStdev, cfg.ITL, cfg.ITLStdev = 0, 0, 0, 0
	cfg.LoRAModules = []LoRAModule{{Name: "sql", Path: "/l/sql"}}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	get := func(method, path, body string) (int, string) {
		req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, b := get("GET", "/v1/models", ""); code != 200 || !strings.Contains(b, `{"id":"sql","object":"model"`) || !strings.Contains(b, `"root":"/l/sql","parent":"`+cfg.Model+`"`) {
		t.Fatalf("models %d %s", code, b)
	}
	if code, b := get("POST", "/v1/chat/completions", `{"model":"sql","messages":[{"role":"user","content":"hi"}],"max_tokens":2}`); code != 200 || !strings.Contains(b, `"model":"sql"`) {
		t.Fatalf("adapter: %d %s", code, b)
	}
	if code, b := get("POST", "/v1/rerank", `{"model":"sql","query":"q","documents":["a","b"]}`); code != 200 || !strings.Contains(b, `"results":[`) {
		t.Fatalf("adapter rerank: %d %s", code, b)
	}
	if code, b := get("POST", "/v1/messages", `{"model":"nope","messages":[{"role":"user","content":"hi"}],"max_tokens":2}`); code != 404 || !strings.Contains(b, "not_found_error") {
		t.Fatalf("unknown model, messages: %d %s", code, b)
	}
	if code, b := get("POST", "/v1/embeddings", `{"model":"nope","input":"x"}`); code != 404 || !strings.Contains(b, "NotFoundError") {
		t.Fatalf("unknown model, embeddings: %d %s", code, b)
	}
	cfg.LoRAModules = append(cfg.LoRAModules, LoRAModule{Name: "sql", Path: "/x"})
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "LoRAModules") {
		t.Fatalf("duplicate adapter: %v", err)
	}
}
