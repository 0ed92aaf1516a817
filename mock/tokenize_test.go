package mock

import (
	"net/http"
	"strings"
	"testing"
)

func postJSON(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(readAll(t, resp))
}

// POST /tokenize and /detokenize in vLLM's form (the default), in
// llama-server's (--personality llamacpp), and absent for Ollama. Without
// a tokenizer a token is 4 bytes: pseudo id len<<32 | bytes (little-endian).
func TestTokenizeEndpoints(t *testing.T) {
	// "hello there!": "hell" 4<<32|0x6c6c6568 (18998912360), "o th"
	// 4<<32|0x6874206f, "ere!" 4<<32|0x21657265.
	const ids = "[18998912360,18932310127,17740165733]"
	cfg := fastConfig()
	cfg.MaxModelLen = 2048
	vllm := startServer(t, cfg)
	if code, body := postJSON(t, vllm.URL()+"/tokenize", `{"model":"x","prompt":"hello there!","add_special_tokens":false}`); code != 200 ||
		body != `{"count":3,"max_model_len":2048,"tokens":`+ids+`}` {
		t.Errorf("vLLM /tokenize: %d %s", code, body)
	}
	if code, body := postJSON(t, vllm.URL()+"/tokenize", `{"content":"hello there!"}`); code != 400 || !strings.Contains(body, "prompt") {
		t.Errorf("vLLM /tokenize in llama.cpp's form: %d %s, want 400 naming prompt", code, body)
	}
	if code, body := postJSON(t, vllm.URL()+"/detokenize", `{"tokens":`+ids+`}`); code != 200 || body != `{"prompt":"hello there!"}` {
		t.Errorf("vLLM /detokenize: %d %s", code, body)
	}

	cfg.Personality = PersonalityLlamaCpp
	llama := startServer(t, cfg)
	if code, body := postJSON(t, llama.URL()+"/tokenize", `{"content":"hello there!","add_special":false}`); code != 200 || body != `{"tokens":`+ids+`}` {
		t.Errorf("llama.cpp /tokenize: %d %s", code, body)
	}
	if code, body := postJSON(t, llama.URL()+"/tokenize", `{"prompt":"hello there!"}`); code != 200 || body != `{"tokens":[]}` {
		t.Errorf("llama.cpp /tokenize in vLLM's form: %d %s, want llama-server's empty list", code, body)
	}
	if code, body := postJSON(t, llama.URL()+"/detokenize", `{"tokens":`+ids+`}`); code != 200 || body != `{"content":"hello there!"}` {
		t.Errorf("llama.cpp /detokenize: %d %s", code, body)
	}

	cfg.Personality = PersonalityOllama
	ollama := startServer(t, cfg)
	if code, _ := postJSON(t, ollama.URL()+"/tokenize", `{"prompt":"x"}`); code != 404 {
		t.Errorf("Ollama /tokenize: %d, want 404", code)
	}

	// A counter without ids cannot answer.
	cfg.Personality = ""
	cfg.PromptTokenCounter = func(s string) int { return len(s) }
	counted := startServer(t, cfg)
	if code, _ := postJSON(t, counted.URL()+"/tokenize", `{"prompt":"x"}`); code != 501 {
		t.Errorf("/tokenize with a counter only: %d, want 501", code)
	}
}
