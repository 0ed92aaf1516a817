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
	MaxOutputTokens     *int64          `json:"max_output_tokens"`    // Responses
	PreviousResponseID  *string         `json:"previous_response_id"` // Responses
	Store               *bool           `json:"store"`                // Responses
	Tools               json.RawMessage `json:"tools"`
	ToolChoice          json.RawMessage `json:"tool_choice"`
	IgnoreEOS           *bool           `json:"ignore_eos"`
	Stream              *bool           `json:"stream"`
	StreamOptions       *rawStreamOpts  `json:"stream_options"`
	N                   *int64          `json:"n"`
}

// rawMessage is a chat or Messages message, or a Responses input item
// (a message, a function_call or a function_call_output).
type rawMessage struct {
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []rawToolCall   `json:"tool_calls"` // chat: an assistant's calls
	Type      string          `json:"type"`       // Responses item type
	Name      string          `json:"name"`       // Responses function_call
	Arguments string          `json:"arguments"`  // Responses function_call
	Output    json.RawMessage `json:"output"`     // Responses function_call_output
}

type rawToolCall struct {
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// rawContentPart is a content part: text, or a Messages tool_use or
// tool_result block.
type rawContentPart struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	Name    string          `json:"name"`    // tool_use
	Input   json.RawMessage `json:"input"`   // tool_use
	Content json.RawMessage `json:"content"` // tool_result
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

	// The prompt, for the prefix cache and the stored responses: pieces
	// in order (tools, system or instructions, then the input from
	// inputAt on), a Responses request's stored history (hist) between
	// the two, and the chat template's tokens last.
	pieces   []piece
	inputAt  int
	template int
	hist     *storedResponse
	prevID   string // previous_response_id
	store    bool   // Responses: keep the response for previous_response_id
	tools    []toolDef
	choice   toolChoice
	maxField string // the limit's field and value, checked by checkLimits
	maxVal   *int64
}

// parseRequest decodes and validates a request body (one without
// previous_response_id; the server resolves that between parseBody and
// checkLimits). Chat requests read messages and max_completion_tokens
// (which wins over max_tokens, as in vLLM); completion requests read
// prompt and max_tokens only; Responses requests input, instructions and
// max_output_tokens; Messages requests system, messages and max_tokens
// (required, as Anthropic's API does). The chat template's tokens are
// added to the prompts of all but completions.
func parseRequest(body []byte, api apiKind, cfg *Config, count func(string) int) (request, *apiError) {
	req, err := parseBody(body, api, cfg, promptCounter{count: count})
	if err == nil {
		err = req.checkLimits(cfg)
	}
	return req, err
}

// parseBody decodes a request body and counts its prompt with pc; the
// limits are checked by checkLimits once the prompt is complete.
func parseBody(body []byte, api apiKind, cfg *Config, pc promptCounter) (request, *apiError) {
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
	if raw.Model != nil {
		m := cfg.resolveModel(*raw.Model)
		raw.Model = &m
	}
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
		req.continuousUsage = req.includeUsage && raw.StreamOptions.ContinuousUsageStats != nil && *raw.StreamOptions.ContinuousUsageStats &&
			!cfg.pers().includeUsageOnly
	}
	maxTokensOnly := cfg.pers().maxTokensOnly
	req.ignoreEOS = raw.IgnoreEOS != nil && *raw.IgnoreEOS && !maxTokensOnly
	if api == apiResponses {
		if raw.PreviousResponseID != nil {
			req.prevID = *raw.PreviousResponseID
		}
		req.store = raw.Store == nil || *raw.Store
	}

	b := promptBuilder{pc: pc}
	var err *apiError
	if api != apiCompletions {
		if req.tools, req.choice, err = parseTools(raw.Tools, raw.ToolChoice, api); err != nil {
			return request{}, err
		}
		if len(req.tools) > 0 {
			b.add(tagTools, string(bytes.TrimSpace(raw.Tools)))
		}
	}
	switch api {
	case apiChat, apiMessages:
		if api == apiMessages {
			err = b.content(raw.System, "system", tagSystem)
		}
		b.inputAt()
		if err == nil {
			err = b.messages(raw.Messages)
		}
		req.template = cfg.ChatTemplateTokens
	case apiResponses:
		if raw.Instructions != nil {
			b.add(tagSystem, *raw.Instructions)
		}
		b.inputAt()
		err = b.input(raw.Input)
		req.template = cfg.ChatTemplateTokens
	default:
		b.inputAt()
		err = b.prompt(raw.Prompt)
		if cfg.pers().templateAll {
			req.template = cfg.ChatTemplateTokens
		}
	}
	if err != nil {
		return request{}, err
	}
	req.pieces, req.inputAt = b.pieces, b.at
	req.promptTokens = b.tokens + req.template

	req.maxField, req.maxVal = "max_tokens", raw.MaxTokens
	switch {
	case chat && raw.MaxCompletionTokens != nil && !maxTokensOnly:
		req.maxField, req.maxVal = "max_completion_tokens", raw.MaxCompletionTokens
	case api == apiResponses:
		req.maxField, req.maxVal = "max_output_tokens", raw.MaxOutputTokens
	}
	return req, nil
}

// checkLimits checks the output limit against the context length and
// sets the effective limit.
func (req *request) checkLimits(cfg *Config) *apiError {
	maxField, maxVal := req.maxField, req.maxVal
	if cfg.pers().cutToContext {
		// Ollama keeps the prompt's last context-length tokens and shifts
		// its context as it generates: nothing is refused.
		req.promptTokens = min(req.promptTokens, cfg.MaxModelLen)
		req.limit = max(cfg.MaxModelLen-req.promptTokens, 1)
		if maxVal != nil && *maxVal >= 1 {
			req.maxTokens, req.explicitMax, req.limit = int(*maxVal), true, int(*maxVal)
		}
		return nil
	}
	if maxVal != nil {
		if *maxVal < 1 {
			return badRequest(maxField, "%s must be at least 1, got %d", maxField, *maxVal)
		}
		if *maxVal > int64(cfg.MaxModelLen)-int64(req.promptTokens) {
			return badRequest(maxField, "'%s' is too large: %d. This model's maximum context length is %d tokens and your request has %d input tokens (%d > %d - %d).",
				maxField, *maxVal, cfg.MaxModelLen, req.promptTokens, *maxVal, cfg.MaxModelLen, req.promptTokens)
		}
		req.maxTokens = int(*maxVal)
		req.explicitMax = true
		req.limit = req.maxTokens
		return nil
	}
	req.limit = cfg.MaxModelLen - req.promptTokens
	if req.limit < 1 {
		return badRequest("", "This model's maximum context length is %d tokens. However, your request has %d input tokens.", cfg.MaxModelLen, req.promptTokens)
	}
	return nil
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

// messages adds the chat or Messages messages: each one's text content,
// an assistant's tool calls (name and arguments) and a tool's result.
func (b *promptBuilder) messages(msgs []rawMessage) *apiError {
	if len(msgs) == 0 {
		return badRequest("messages", "messages must be a non-empty array of {\"role\",\"content\"} objects")
	}
	for i := range msgs {
		if err := b.message(&msgs[i], "messages["+strconv.Itoa(i)+"]"); err != nil {
			err.param = "messages"
			return err
		}
	}
	return nil
}

// message adds one message or Responses input item (field names it).
func (b *promptBuilder) message(m *rawMessage, field string) *apiError {
	switch m.Type {
	case "function_call": // Responses
		b.add(tagToolCall, m.Name)
		b.add(tagToolCall, m.Arguments)
		return nil
	case "function_call_output": // Responses
		return b.content(m.Output, field+".output", tagTool)
	}
	if err := b.content(m.Content, field+".content", roleTag(m.Role)); err != nil {
		return err
	}
	for _, c := range m.ToolCalls {
		b.add(tagToolCall, c.Function.Name)
		b.add(tagToolCall, c.Function.Arguments)
	}
	return nil
}

// content adds a message content (field names it): a string, null, or an
// array of parts whose "text" is added (a Messages tool_use block adds its
// name and input, a tool_result block its content).
func (b *promptBuilder) content(c json.RawMessage, field string, tag uint8) *apiError {
	c = bytes.TrimSpace(c)
	switch {
	case len(c) == 0 || bytes.Equal(c, []byte("null")):
	case c[0] == '"':
		var s string
		if err := json.Unmarshal(c, &s); err != nil {
			return badRequest(field, "%s is not a valid JSON string: %v", field, err)
		}
		b.add(tag, s)
	case c[0] == '[':
		var parts []rawContentPart
		if err := json.Unmarshal(c, &parts); err != nil {
			return badRequest(field, "%s must be a string or an array of {\"type\",\"text\"} parts: %v", field, err)
		}
		for i := range parts {
			switch p := &parts[i]; p.Type {
			case "tool_use":
				b.add(tagToolCall, p.Name)
				b.add(tagToolCall, string(bytes.TrimSpace(p.Input)))
			case "tool_result":
				if err := b.content(p.Content, field+"["+strconv.Itoa(i)+"].content", tagTool); err != nil {
					return err
				}
			default:
				b.add(tag, p.Text)
			}
		}
	default:
		return badRequest(field, "%s must be a string, null or an array of parts", field)
	}
	return nil
}

// input adds a Responses input: a string, or an array of items (messages,
// function calls and their outputs).
func (b *promptBuilder) input(input json.RawMessage) *apiError {
	in := bytes.TrimSpace(input)
	if len(in) > 0 && in[0] == '[' {
		var items []rawMessage
		if err := json.Unmarshal(in, &items); err != nil {
			return badRequest("input", "input must be a string or an array of {\"role\",\"content\"} items: %v", err)
		}
		if len(items) == 0 {
			return badRequest("input", "input must not be an empty array")
		}
		for i := range items {
			if err := b.message(&items[i], "input["+strconv.Itoa(i)+"]"); err != nil {
				err.param = "input"
				return err
			}
		}
		return nil
	}
	if len(in) == 0 || bytes.Equal(in, []byte("null")) {
		return badRequest("input", "input is required: a string or an array of message items")
	}
	return b.content(in, "input", tagUser)
}

// prompt adds a completion prompt: a string, an array of token ids, or an
// array holding exactly one string or one array of token ids.
func (b *promptBuilder) prompt(prompt json.RawMessage) *apiError {
	p := bytes.TrimSpace(prompt)
	if len(p) == 0 || bytes.Equal(p, []byte("null")) {
		return badRequest("prompt", "prompt is required: a string or an array of token ids")
	}
	switch p[0] {
	case '"':
		var s string
		if err := json.Unmarshal(p, &s); err != nil {
			return badRequest("prompt", "prompt is not a valid JSON string: %v", err)
		}
		b.add(tagPrompt, s)
		return nil
	case '[':
		var items []json.RawMessage
		if err := json.Unmarshal(p, &items); err != nil {
			return badRequest("prompt", "prompt must be a string or an array of token ids: %v", err)
		}
		if len(items) == 0 {
			return badRequest("prompt", "prompt must not be an empty array")
		}
		first := bytes.TrimSpace(items[0])
		if len(first) > 0 && (first[0] == '"' || first[0] == '[') {
			if len(items) != 1 {
				return badRequest("prompt", "the goodput mock serves one prompt per request, got %d prompts", len(items))
			}
			return b.prompt(first)
		}
		var ids []int
		if err := json.Unmarshal(p, &ids); err != nil {
			return badRequest("prompt", "prompt must be a string or an array of integer token ids: %v", err)
		}
		b.addIDs(tagPrompt, ids)
		return nil
	}
	return badRequest("prompt", "prompt must be a string or an array of token ids")
}
