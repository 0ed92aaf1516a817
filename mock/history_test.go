package mock

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// respResult is what the tests read of a non-streaming Responses body.
type respResult struct {
	ID     string `json:"id"`
	Output []struct {
		Type      string `json:"type"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
		CallID    string `json:"call_id"`
		Content   []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"output"`
	Usage struct {
		InputTokens  int `json:"input_tokens"`
		InputDetails struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"input_tokens_details"`
	} `json:"usage"`
	Error *struct {
		Type, Param, Message string
		Code                 any
	} `json:"error"`
}

func respond(t *testing.T, url, body string) (int, respResult) {
	t.Helper()
	resp := post(t, nil, url+"/v1/responses", body)
	b := readAll(t, resp)
	var r respResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return resp.StatusCode, r
}

// TestPreviousResponseID: a request naming a stored response gets its
// conversation (earlier inputs and outputs, not its instructions) before
// its own input: as many prompt tokens as the same conversation sent
// whole, hitting the prefix cache; a chain reaches back to the first
// turn; an unknown id is OpenAI's 400.
func TestPreviousResponseID(t *testing.T) {
	cfg := fastConfig()
	cfg.OutputTokens, cfg.OutputTokensStdev = 20, 0
	s := startServer(t, cfg)
	u1 := strings.Repeat("a", 80) // 20 tokens
	code, r1 := respond(t, s.URL(), `{"instructions":"`+strings.Repeat("i", 40)+`","input":"`+u1+`","max_output_tokens":20}`)
	if code != http.StatusOK || r1.Usage.InputTokens != 30 || r1.Usage.InputDetails.CachedTokens != 0 {
		t.Fatalf("turn 0: %d %+v", code, r1)
	}
	a1 := r1.Output[0].Content[0].Text
	u2 := strings.Repeat("b", 64) // 16 tokens
	code, r2 := respond(t, s.URL(), `{"previous_response_id":"`+r1.ID+`","instructions":"`+strings.Repeat("i", 40)+`","input":[{"role":"user","content":"`+u2+`"}],"max_output_tokens":20}`)
	if code != http.StatusOK {
		t.Fatalf("turn 1: %d %+v", code, r2)
	}
	// The history: u1 (20) and the answer as the counter counts it, after
	// the instructions (10), before u2 (16).
	wantPrompt := 10 + 20 + ApproxTokenCount(a1) + 16
	if r2.Usage.InputTokens != wantPrompt {
		t.Errorf("turn 1: %d input tokens, want %d (instructions, u1, the answer %q, u2)", r2.Usage.InputTokens, wantPrompt, a1)
	}
	if want := (30 + ApproxTokenCount(a1)) / 16 * 16; r2.Usage.InputDetails.CachedTokens != want {
		t.Errorf("turn 1: %d cached, want %d (the whole blocks of turn 0's prompt and answer)", r2.Usage.InputDetails.CachedTokens, want)
	}

	// The same conversation sent whole counts the same and hits it all.
	whole := `{"instructions":"` + strings.Repeat("i", 40) + `","input":[{"role":"user","content":"` + u1 + `"},` +
		`{"role":"assistant","content":[{"type":"output_text","text":"` + a1 + `"}]},{"role":"user","content":"` + u2 + `"}],"max_output_tokens":20}`
	_, rw := respond(t, s.URL(), whole)
	if rw.Usage.InputTokens != wantPrompt || rw.Usage.InputDetails.CachedTokens != (wantPrompt-1)/16*16 {
		t.Errorf("the conversation sent whole: %d input, %d cached; want %d, %d", rw.Usage.InputTokens, rw.Usage.InputDetails.CachedTokens, wantPrompt, (wantPrompt-1)/16*16)
	}

	// A chain of three: turn 2 carries turns 0 and 1, without the instructions (none given now).
	a2 := r2.Output[0].Content[0].Text
	_, r3 := respond(t, s.URL(), `{"previous_response_id":"`+r2.ID+`","input":"ok","max_output_tokens":5}`)
	if want := 20 + ApproxTokenCount(a1) + 16 + ApproxTokenCount(a2) + 1; r3.Usage.InputTokens != want {
		t.Errorf("turn 2: %d input tokens, want %d", r3.Usage.InputTokens, want)
	}

	code, bad := respond(t, s.URL(), `{"previous_response_id":"resp_nope","input":"hi","max_output_tokens":5}`)
	if code != http.StatusBadRequest || bad.Error == nil || bad.Error.Type != "invalid_request_error" ||
		bad.Error.Code != "previous_response_not_found" || bad.Error.Param != "previous_response_id" ||
		bad.Error.Message != "Previous response with id 'resp_nope' not found." {
		t.Errorf("unknown id: %d %+v", code, bad.Error)
	}
	// store:false is not kept.
	_, r4 := respond(t, s.URL(), `{"input":"hi","store":false,"max_output_tokens":5}`)
	if code, r := respond(t, s.URL(), `{"previous_response_id":"`+r4.ID+`","input":"hi","max_output_tokens":5}`); code != http.StatusBadRequest {
		t.Errorf("a store:false response was kept: %d %+v", code, r)
	}
	// The history counts against the context length.
	if resp := post(t, nil, s.URL()+"/v1/responses", `{"previous_response_id":"`+r2.ID+`","input":"hi","max_output_tokens":32760}`); readAll(t, resp) != nil && resp.StatusCode != http.StatusBadRequest {
		t.Errorf("history plus max_output_tokens over the context: %d, want 400", code)
	}
}

// TestStoredResponsesLRU: the store keeps the most recently used
// responses; an evicted one is unknown.
func TestStoredResponsesLRU(t *testing.T) {
	cfg := fastConfig()
	cfg.StoredResponses = 2
	s := startServer(t, cfg)
	var ids []string
	for range 3 {
		_, r := respond(t, s.URL(), `{"input":"hello","max_output_tokens":3}`)
		ids = append(ids, r.ID)
	}
	if code, _ := respond(t, s.URL(), `{"previous_response_id":"`+ids[0]+`","input":"x","max_output_tokens":3}`); code != http.StatusBadRequest {
		t.Errorf("the oldest of 3 responses in a store of 2: %d, want 400", code)
	}
	if code, _ := respond(t, s.URL(), `{"previous_response_id":"`+ids[1]+`","input":"x","max_output_tokens":3}`); code != http.StatusOK {
		t.Errorf("a stored response: %d, want 200", code)
	}
	if n := s.responses.len(); n != 2 {
		t.Errorf("%d responses stored, want 2", n)
	}

	cfg.StoredResponses = 0
	s0 := startServer(t, cfg)
	_, r := respond(t, s0.URL(), `{"input":"hello","max_output_tokens":3}`)
	if code, _ := respond(t, s0.URL(), `{"previous_response_id":"`+r.ID+`","input":"x","max_output_tokens":3}`); code != http.StatusBadRequest {
		t.Errorf("StoredResponses 0 kept a response: %d", code)
	}
}
