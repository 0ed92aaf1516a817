package mock

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// Which form of POST /tokenize and /detokenize the personality serves.
const (
	tokenizeVLLM     = iota // {"model","prompt","add_special_tokens"} → {"count","max_model_len","tokens"}
	tokenizeLlamaCpp        // {"content","add_special"} → {"tokens"}
	tokenizeNone            // no endpoint (Ollama)
)

// tokenIDs returns the ids the mock gives text: PromptTokenIDs' when set,
// else with the default counter one pseudo id per 4-byte segment (its
// length<<32 | its bytes, so that detokenize inverts it). ok is false for
// a counter without ids.
func (s *Server) tokenIDs(text string) ([]int, bool) {
	if s.cfg.PromptTokenIDs != nil {
		return s.cfg.PromptTokenIDs(text), true
	}
	if s.cfg.PromptTokenCounter != nil {
		return nil, false
	}
	ids := make([]int, 0, (len(text)+3)/4)
	for i := 0; i < len(text); i += 4 {
		seg := text[i:min(i+4, len(text))]
		id := len(seg) << 32
		for j := 0; j < len(seg); j++ {
			id |= int(seg[j]) << (8 * j)
		}
		ids = append(ids, id)
	}
	return ids, true
}

// tokenText inverts tokenIDs; ok is false when the configuration has no
// decoder.
func (s *Server) tokenText(ids []int) (string, bool) {
	if s.cfg.PromptTokenIDs != nil {
		if s.cfg.PromptTokenDecoder == nil {
			return "", false
		}
		return s.cfg.PromptTokenDecoder(ids), true
	}
	if s.cfg.PromptTokenCounter != nil {
		return "", false
	}
	var b strings.Builder
	for _, id := range ids {
		n := id >> 32
		for j := 0; j < n && j < 4; j++ {
			b.WriteByte(byte(id >> (8 * j)))
		}
	}
	return b.String(), true
}

// serveTokenize answers POST /tokenize in the personality's form.
func (s *Server) serveTokenize(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Content *string `json:"content"` // llama.cpp
		Prompt  *string `json:"prompt"`  // vLLM
	}
	if err := decodeBody(r, &req); err != nil {
		writeAPIError(w, badRequest("", "malformed JSON body: %v", err))
		return
	}
	text, vllm := req.Prompt, s.pers.tokenize == tokenizeVLLM
	if !vllm {
		text = req.Content
	}
	if text == nil {
		if !vllm { // llama-server answers an empty list
			writeJSON(w, http.StatusOK, []byte(`{"tokens":[]}`))
			return
		}
		writeAPIError(w, badRequest("prompt", "Field required: prompt"))
		return
	}
	ids, ok := s.tokenIDs(*text)
	if !ok {
		writeAPIError(w, &apiError{status: http.StatusNotImplemented, typ: "NotImplementedError", message: "the mock counts prompt tokens without token ids (give it a tokenizer)"})
		return
	}
	b := make([]byte, 0, 32+8*len(ids))
	if vllm {
		b = append(b, `{"count":`...)
		b = appendInt(b, int64(len(ids)))
		b = append(b, `,"max_model_len":`...)
		b = appendInt(b, int64(s.cfg.MaxModelLen))
		b = append(b, ',')
	} else {
		b = append(b, '{')
	}
	b = append(b, `"tokens":[`...)
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendInt(b, int64(id))
	}
	writeJSON(w, http.StatusOK, append(b, "]}"...))
}

// serveDetokenize answers POST /detokenize: {"content"} for llama.cpp,
// {"prompt"} for vLLM.
func (s *Server) serveDetokenize(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Tokens []int `json:"tokens"`
	}
	if err := decodeBody(r, &req); err != nil {
		writeAPIError(w, badRequest("", "malformed JSON body: %v", err))
		return
	}
	text, ok := s.tokenText(req.Tokens)
	if !ok {
		writeAPIError(w, &apiError{status: http.StatusNotImplemented, typ: "NotImplementedError", message: "the mock has no decoder for its token ids"})
		return
	}
	key := `{"prompt":`
	if s.pers.tokenize == tokenizeLlamaCpp {
		key = `{"content":`
	}
	writeJSON(w, http.StatusOK, append(appendJSONString([]byte(key), text), '}'))
}

func decodeBody(r *http.Request, v any) error {
	return json.NewDecoder(io.LimitReader(r.Body, 64<<20)).Decode(v)
}
