package mock

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
)

// apiKind is the API a request came in on.
type apiKind uint8

const (
	apiCompletions apiKind = iota // POST /v1/completions
	apiChat                       // POST /v1/chat/completions
	apiResponses                  // POST /v1/responses (OpenAI Responses)
	apiMessages                   // POST /v1/messages (Anthropic Messages)
)

// rawRequest is the subset of an OpenAI completion, chat-completion or
// Responses request, or an Anthropic Messages request, the mock reads.
// JSON null is treated as absent, as vLLM does.
type rawRequest struct {
	Model               *string         `json:"model"`
	Messages            []rawMessage    `json:"messages"`
	Prompt              json.RawMessage `json:"prompt"`
	Input               json.RawMessage `json:"input"`        // Responses: a string or message items
	Instructions        *string         `json:"instructions"` // Responses
	System              json.RawMessage `json:"system"`       // Messages: a string or text blocks
	MaxTokens           *int64          `json:"max_tokens"`
	MaxCompletionTokens *int64          `json:"max_completion_tokens"`
	MaxOutputTokens     *int64          `json:"max_output_tokens"` // Responses
	IgnoreEOS           *bool           `json:"ignore_eos"`
	Stream              *bool           `json:"stream"`
	StreamOptions       *rawStreamOpts  `json:"stream_options"`
	N                   *int64          `json:"n"`
}

type rawMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type rawContentPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type rawStreamOpts struct {
	IncludeUsage         *bool `json:"include_usage"`
	ContinuousUsageStats *bool `json:"continuous_usage_stats"`
}

// request is a validated completion request.
type request struct {
	lora            string // the LoRA adapter named as the model, "" for the base model
	api             apiKind
	chat            bool // api == apiChat
	stream          bool
	includeUsage    bool // final usage-only chunk
	continuousUsage bool // usage on every chunk
	ignoreEOS       bool
	promptTokens    int
	maxTokens       int  // the request's explicit limit (max_completion_tokens, max_tokens), 0 if absent
	limit           int  // effective limit: maxTokens or MaxModelLen - promptTokens
	explicitMax     bool // maxTokens was given
}

// parseRequest decodes and validates a request body. Chat requests read
// messages and max_completion_tokens (which wins over max_tokens, as in
// vLLM); completion requests read prompt and max_tokens only; Responses
// requests input, instructions and max_output_tokens; Messages requests
// system, messages and max_tokens (required, as Anthropic's API does).
// The chat template's tokens are added to the prompts of all but
// completions.
func parseRequest(body []byte, api apiKind, cfg *Config, count func(string) int) (request, *apiError) {
	chat := api == apiChat
	var raw rawRequest
	if err := json.Unmarshal(body, &raw); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return request{}, badRequest(typeErr.Field, "invalid type for field %q: got JSON %s, want %s", typeErr.Field, typeErr.Value, jsonKind(typeErr.Type.Kind().String()))
		}
		return request{}, badRequest("", "request body is not a valid JSON object: %v", err)
	}
	req := request{api: api, chat: chat}
	if raw.Model != nil && *raw.Model != cfg.Model {
		req.lora = *raw.Model // served (checked below): responses name it
	}
	if raw.Model != nil && *raw.Model != "" && !cfg.serves(*raw.Model) {
		switch api {
		case apiMessages: // Anthropic's form
			return request{}, &apiError{status: http.StatusNotFound, typ: "not_found_error", message: "model: " + *raw.Model}
		case apiResponses: // OpenAI's form
			return request{}, &apiError{status: http.StatusNotFound, typ: "invalid_request_error", code: "model_not_found",
				message: fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", *raw.Model)}
		}
		return request{}, &apiError{status: http.StatusNotFound, typ: "NotFoundError", param: "model",
			message: fmt.Sprintf("The model `%s` does not exist.", *raw.Model)}
	}
	if api == apiResponses || api == apiMessages {
		if raw.StreamOptions != nil {
			return request{}, badRequest("stream_options", "stream_options is not a field of this API")
		}
		if api == apiMessages && raw.MaxTokens == nil {
			return request{}, badRequest("max_tokens", "max_tokens: Field required")
		}
	}
	if raw.N != nil && *raw.N != 1 {
		return request{}, badRequest("n", "n must be 1: the goodput mock returns one choice per request, got n=%d", *raw.N)
	}
	req.stream = raw.Stream != nil && *raw.Stream
	if raw.StreamOptions != nil {
		if !req.stream {
			return request{}, badRequest("stream_options", "Stream options can only be defined when `stream=True`.")
		}
		// vLLM: include_usage defaults to true once stream_options is given,
		// and continuous usage needs include_usage.
		req.includeUsage = raw.StreamOptions.IncludeUsage == nil || *raw.StreamOptions.IncludeUsage
		req.continuousUsage = req.includeUsage && raw.StreamOptions.ContinuousUsageStats != nil && *raw.StreamOptions.ContinuousUsageStats
	}
	req.ignoreEOS = raw.IgnoreEOS != nil && *raw.IgnoreEOS

	var err *apiError
	switch api {
	case apiChat, apiMessages:
		req.promptTokens, err = countMessages(raw.Messages, count)
		if err == nil && api == apiMessages {
			var n int
			n, err = countContent(raw.System, "system", count)
			req.promptTokens += n
		}
		req.promptTokens += cfg.ChatTemplateTokens
	case apiResponses:
		req.promptTokens, err = countInput(raw.Input, count)
		if raw.Instructions != nil {
			req.promptTokens += count(*raw.Instructions)
		}
		req.promptTokens += cfg.ChatTemplateTokens
	default:
		req.promptTokens, err = countPrompt(raw.Prompt, count)
	}
	if err != nil {
		return request{}, err
	}

	maxField, maxVal := "max_tokens", raw.MaxTokens
	switch {
	case chat && raw.MaxCompletionTokens != nil:
		maxField, maxVal = "max_completion_tokens", raw.MaxCompletionTokens
	case api == apiResponses:
		maxField, maxVal = "max_output_tokens", raw.MaxOutputTokens
	}
	if maxVal != nil {
		if *maxVal < 1 {
			return request{}, badRequest(maxField, "%s must be at least 1, got %d", maxField, *maxVal)
		}
		if *maxVal > int64(cfg.MaxModelLen)-int64(req.promptTokens) {
			return request{}, badRequest(maxField, "'%s' is too large: %d. This model's maximum context length is %d tokens and your request has %d input tokens (%d > %d - %d).",
				maxField, *maxVal, cfg.MaxModelLen, req.promptTokens, *maxVal, cfg.MaxModelLen, req.promptTokens)
		}
		req.maxTokens = int(*maxVal)
		req.explicitMax = true
		req.limit = req.maxTokens
	} else {
		req.limit = cfg.MaxModelLen - req.promptTokens
		if req.limit < 1 {
			return request{}, badRequest("", "This model's maximum context length is %d tokens. However, your request has %d input tokens.", cfg.MaxModelLen, req.promptTokens)
		}
	}
	return req, nil
}

// jsonKind names a Go kind in JSON terms for error messages.
func jsonKind(goKind string) string {
	switch goKind {
	case "int64", "int":
		return "an integer"
	case "bool":
		return "true or false"
	case "string":
		return "a string"
	case "slice":
		return "an array"
	case "struct", "ptr":
		return "an object"
	}
	return goKind
}

// countMessages sums the prompt tokens of the chat messages' text content.
func countMessages(msgs []rawMessage, count func(string) int) (int, *apiError) {
	if len(msgs) == 0 {
		return 0, badRequest("messages", "messages must be a non-empty array of {\"role\",\"content\"} objects")
	}
	total := 0
	for i := range msgs {
		n, err := countContent(msgs[i].Content, "messages["+strconv.Itoa(i)+"].content", count)
		if err != nil {
			err.param = "messages"
			return 0, err
		}
		total += n
	}
	return total, nil
}

// countContent counts a message content (field names it): a string, null,
// or an array of parts whose "text" fields are counted.
func countContent(c json.RawMessage, field string, count func(string) int) (int, *apiError) {
	c = bytes.TrimSpace(c)
	switch {
	case len(c) == 0 || bytes.Equal(c, []byte("null")):
	case c[0] == '"':
		var s string
		if err := json.Unmarshal(c, &s); err != nil {
			return 0, badRequest(field, "%s is not a valid JSON string: %v", field, err)
		}
		return count(s), nil
	case c[0] == '[':
		var parts []rawContentPart
		if err := json.Unmarshal(c, &parts); err != nil {
			return 0, badRequest(field, "%s must be a string or an array of {\"type\",\"text\"} parts: %v", field, err)
		}
		total := 0
		for _, p := range parts {
			total += count(p.Text)
		}
		return total, nil
	default:
		return 0, badRequest(field, "%s must be a string, null or an array of parts", field)
	}
	return 0, nil
}

// countInput counts a Responses input: a string, or an array of message
// items whose content is counted as a chat message's.
func countInput(input json.RawMessage, count func(string) int) (int, *apiError) {
	in := bytes.TrimSpace(input)
	if len(in) > 0 && in[0] == '[' {
		var items []rawMessage
		if err := json.Unmarshal(in, &items); err != nil {
			return 0, badRequest("input", "input must be a string or an array of {\"role\",\"content\"} items: %v", err)
		}
		if len(items) == 0 {
			return 0, badRequest("input", "input must not be an empty array")
		}
		return countMessages(items, count)
	}
	if len(in) == 0 || bytes.Equal(in, []byte("null")) {
		return 0, badRequest("input", "input is required: a string or an array of message items")
	}
	return countContent(in, "input", count)
}

// countPrompt counts a completion prompt: a string, an array of token ids, or
// an array holding exactly one string or one array of token ids.
func countPrompt(prompt json.RawMessage, count func(string) int) (int, *apiError) {
	p := bytes.TrimSpace(prompt)
	if len(p) == 0 || bytes.Equal(p, []byte("null")) {
		return 0, badRequest("prompt", "prompt is required: a string or an array of token ids")
	}
	switch p[0] {
	case '"':
		var s string
		if err := json.Unmarshal(p, &s); err != nil {
			return 0, badRequest("prompt", "prompt is not a valid JSON string: %v", err)
		}
		return count(s), nil
	case '[':
		var items []json.RawMessage
		if err := json.Unmarshal(p, &items); err != nil {
			return 0, badRequest("prompt", "prompt must be a string or an array of token ids: %v", err)
		}
		if len(items) == 0 {
			return 0, badRequest("prompt", "prompt must not be an empty array")
		}
		first := bytes.TrimSpace(items[0])
		if len(first) > 0 && (first[0] == '"' || first[0] == '[') {
			if len(items) != 1 {
				return 0, badRequest("prompt", "the goodput mock serves one prompt per request, got %d prompts", len(items))
			}
			return countPrompt(first, count)
		}
		var ids []int64
		if err := json.Unmarshal(p, &ids); err != nil {
			return 0, badRequest("prompt", "prompt must be a string or an array of integer token ids: %v", err)
		}
		return len(ids), nil
	}
	return 0, badRequest("prompt", "prompt must be a string or an array of token ids")
}
