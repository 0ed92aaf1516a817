package mock

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// rawPost writes one request on c and reads its response whole.
func rawPost(t *testing.T, c net.Conn, br *bufio.Reader, path, body string) (*http.Response, string) {
	t.Helper()
	if _, err := fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", path, len(body), body); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("body: %v", err)
	}
	return resp, string(b)
}

func getBody(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(readAll(t, resp))
}

// llama-server's habits: the connection ends right after a whole streamed
// response that advertised keep-alive; llamacpp:* series; /props;
// timings and system_fingerprint.
func TestPersonalityLlamaCpp(t *testing.T) {
	cfg := fastConfig()
	cfg.Personality, cfg.Version = PersonalityLlamaCpp, "b6123-abc"
	m, _ := Preset("tiny")
	cfg.Capacity = &m
	s := startServer(t, cfg)
	c, err := net.Dial("tcp", strings.TrimPrefix(s.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	// "hello there!" is 12 bytes: 3 prompt tokens by the default counter.
	resp, body := rawPost(t, c, br, "/v1/chat/completions",
		`{"messages":[{"role":"user","content":"hello there!"}],"max_tokens":4,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`)
	if resp.StatusCode != 200 || resp.Close || resp.Header.Get("Keep-Alive") != "timeout=5, max=100" {
		t.Fatalf("status %d, close %v, Keep-Alive %q", resp.StatusCode, resp.Close, resp.Header.Get("Keep-Alive"))
	}
	if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the response: %v, want the connection's end", err)
	}
	res := readSSE(strings.NewReader(body))
	if !res.done || res.err != nil || len(res.payloads) != 6 { // role, 4 tokens, usage
		t.Fatalf("%d payloads, done %v, %v", len(res.payloads), res.done, res.err)
	}
	var last struct {
		Fingerprint string `json:"system_fingerprint"`
		Timings     struct {
			P           int     `json:"prompt_n"`
			Pred        int     `json:"predicted_n"`
			Cache       int     `json:"cache_n"`
			PromptMs    float64 `json:"prompt_ms"`
			PredictedMs float64 `json:"predicted_ms"`
		} `json:"timings"`
	}
	for _, p := range res.payloads {
		if !strings.Contains(p, `"system_fingerprint":"b6123-abc"`) {
			t.Fatalf("chunk without the fingerprint: %s", p)
		}
	}
	if err := json.Unmarshal([]byte(res.payloads[5]), &last); err != nil {
		t.Fatal(err)
	}
	if tm := last.Timings; tm.P != 3 || tm.Pred != 4 || tm.Cache != 0 || tm.PromptMs <= 0 || tm.PredictedMs <= 0 {
		t.Fatalf("timings %+v in %s", tm, res.payloads[5])
	}
	if strings.Contains(res.payloads[4], "timings") {
		t.Fatalf("timings before the last chunk: %s", res.payloads[4])
	}

	code, props := getBody(t, s.URL()+"/props")
	if code != 200 || !strings.Contains(props, `"build_info":"b6123-abc"`) || !strings.Contains(props, fmt.Sprintf(`"total_slots":%d`, m.MaxNumSeqs)) {
		t.Fatalf("/props %d %s", code, props)
	}
	code, metrics := getBody(t, s.URL()+"/metrics")
	if code != 200 || strings.Contains(metrics, "vllm:") {
		t.Fatalf("/metrics %d:\n%s", code, metrics)
	}
	for _, want := range []string{
		"# TYPE llamacpp:prompt_tokens_total counter\nllamacpp:prompt_tokens_total 3.0\n",
		"llamacpp:tokens_predicted_total 4.0\n",
		"llamacpp:n_tokens_max 7.0\n", // the 3 prompt tokens and 4 output tokens the request held
		"# TYPE llamacpp:requests_processing gauge\nllamacpp:requests_processing 0.0\n",
		"llamacpp:requests_deferred 0.0\n",
		"llamacpp:n_busy_slots_per_decode 1.0\n", // one request alone in every step
		"llamacpp:prompt_seconds_total ", "llamacpp:tokens_predicted_seconds_total ", "llamacpp:n_decode_total ",
		"llamacpp:prompt_tokens_seconds ", "llamacpp:predicted_tokens_seconds ",
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, metrics)
		}
	}
	if strings.Contains(metrics, "cached_total") {
		t.Errorf("/metrics has a cached prompt tokens counter, which upstream llama-server has not:\n%s", metrics)
	}
	// A non-streamed answer carries its timings and keeps its connection.
	c2, err := net.Dial("tcp", strings.TrimPrefix(s.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	br2 := bufio.NewReader(c2)
	for range 2 {
		resp, body := rawPost(t, c2, br2, "/v1/completions", `{"prompt":"hello there!","max_tokens":2}`)
		if resp.StatusCode != 200 || !strings.Contains(body, `"timings":{"cache_n":0,"prompt_n":3,`) || !strings.Contains(body, `"predicted_n":2,`) {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
	}
}

// Ollama's habits: max_tokens only, name:latest, /api/version, no /metrics.
func TestPersonalityOllama(t *testing.T) {
	cfg := fastConfig()
	cfg.Personality, cfg.Model, cfg.Version, cfg.OutputTokens = PersonalityOllama, "tiny", "0.12.3", 40
	s := startServer(t, cfg)
	if got := s.Config().Model; got != "tiny:latest" {
		t.Fatalf("model %q, want tiny:latest", got)
	}
	if code, models := getBody(t, s.URL()+"/v1/models"); code != 200 || !strings.Contains(models, `"id":"tiny:latest"`) {
		t.Fatalf("/v1/models %d %s", code, models)
	}
	if code, v := getBody(t, s.URL()+"/api/version"); code != 200 || v != `{"version":"0.12.3"}` {
		t.Fatalf("/api/version %d %s", code, v)
	}
	if code, _ := getBody(t, s.URL()+"/metrics"); code != 404 {
		t.Fatalf("/metrics %d, want 404", code)
	}
	tokens := func(model, limit string) int {
		t.Helper()
		resp := post(t, nil, s.URL()+"/v1/chat/completions", `{"model":"`+model+`","messages":[{"role":"user","content":"hi"}],`+limit+`,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`)
		if resp.StatusCode != 200 {
			t.Fatalf("model %q: HTTP %d %s", model, resp.StatusCode, readAll(t, resp))
		}
		res := readSSE(resp.Body)
		resp.Body.Close()
		usage := res.payloads[len(res.payloads)-1]
		if !strings.Contains(usage, `"model":"tiny:latest","system_fingerprint":"fp_ollama"`) {
			t.Fatalf("chunk %s", usage)
		}
		var u struct {
			Usage struct {
				N int `json:"completion_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(usage), &u); err != nil {
			t.Fatal(err)
		}
		return u.Usage.N
	}
	// max_completion_tokens and ignore_eos are not read: the natural 40.
	if n := tokens("tiny", `"max_completion_tokens":8`); n != 40 {
		t.Fatalf("max_completion_tokens 8: %d tokens, want 40 (ignored)", n)
	}
	if n := tokens("tiny:latest", `"max_tokens":8,"max_completion_tokens":8`); n != 8 {
		t.Fatalf("max_tokens 8: %d tokens, want 8", n)
	}
	if n := tokens("tiny", `"max_tokens":80`); n != 40 {
		t.Fatalf("max_tokens 80 without ignore_eos read: %d tokens, want the natural 40", n)
	}
	// Text completion chunks carry a usage of zeros; the real one comes
	// in the last chunk, without choices.
	resp := post(t, nil, s.URL()+"/v1/completions", `{"model":"tiny","prompt":"hi","max_tokens":3,"stream":true,"stream_options":{"include_usage":true}}`)
	res := readSSE(resp.Body)
	resp.Body.Close()
	if n := len(res.payloads); n != 4 {
		t.Fatalf("completion stream: %d payloads, want 3 steps and the usage: %q", n, res.payloads)
	}
	for _, p := range res.payloads[:3] {
		if !strings.Contains(p, `"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}`) {
			t.Errorf("completion chunk without the zero usage: %s", p)
		}
	}
	if last := res.payloads[3]; !strings.Contains(last, `"choices":[]`) || !strings.Contains(last, `"completion_tokens":3`) {
		t.Errorf("last chunk %s, want the usage without choices", last)
	}
	resp = post(t, nil, s.URL()+"/v1/chat/completions", `{"model":"other","messages":[{"role":"user","content":"hi"}]}`)
	if resp.StatusCode != 404 {
		t.Fatalf("unknown model: HTTP %d", resp.StatusCode)
	}
	resp.Body.Close()
}

func TestPersonalityRejected(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Personality = "sglang"
	_, err := New(cfg)
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Field != "Personality" || !strings.Contains(err.Error(), `must be one of llamacpp, ollama, vllm, got "sglang"`) {
		t.Fatalf("%v", err)
	}
}

// Ollama wraps text completions in the template too, and cuts a prompt
// longer than its context (num_ctx) to it instead of refusing it.
func TestPersonalityOllamaPrompts(t *testing.T) {
	cfg := fastConfig()
	cfg.Personality, cfg.Model, cfg.OutputTokens, cfg.MaxModelLen, cfg.ChatTemplateTokens = PersonalityOllama, "tiny", 4, 100, 10
	s := startServer(t, cfg)
	billed := func(path, body string) int {
		t.Helper()
		resp := post(t, nil, s.URL()+path, body)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: HTTP %d %s", path, resp.StatusCode, readAll(t, resp))
		}
		var u struct {
			Usage struct {
				N int `json:"prompt_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(readAll(t, resp)), &u); err != nil {
			t.Fatal(err)
		}
		return u.Usage.N
	}
	if n := billed("/v1/completions", `{"model":"tiny","prompt":"hi","max_tokens":2}`); n != 11 {
		t.Errorf("text completion of 1 token: %d prompt tokens billed, want 1 + the template's 10", n)
	}
	long := strings.Repeat("word ", 300)
	if n := billed("/v1/chat/completions", `{"model":"tiny","messages":[{"role":"user","content":"`+long+`"}],"max_tokens":200}`); n != 100 {
		t.Errorf("a prompt past the context: %d prompt tokens billed, want it cut to 100", n)
	}
}
