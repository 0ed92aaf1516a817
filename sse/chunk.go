package sse

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// ErrEmptyPayload is returned by DecodeChunk and DecodeResponse for a payload
// that is empty or only whitespace.
var ErrEmptyPayload = errors.New("sse: empty payload (want a JSON object or [DONE])")

// Usage is the token accounting of a chunk's "usage" object.
type Usage struct {
	// Present is true when the chunk had a non-null "usage" object.
	Present bool

	PromptTokens, CompletionTokens, TotalTokens int

	// CachedTokens is usage.prompt_tokens_details.cached_tokens, or -1 when
	// absent or null.
	CachedTokens int
	// ReasoningTokens is usage.completion_tokens_details.reasoning_tokens,
	// or -1 when absent or null.
	ReasoningTokens int

	// NoPrompt is true when the usage carried no prompt count (an
	// Anthropic message_delta): PromptTokens then says nothing.
	NoPrompt bool
}

// Timings is llama-server's "timings" object (tools/server: the slot's
// t_prompt_processing and t_token_generation): PromptMs is the prefill of
// the PromptN prompt tokens that were not in the cache (from the slot
// starting the prompt to the first token sampled; time queued for a slot
// is not in it), PredictedMs the time from the first token sampled to the
// last of PredictedN. The derived prompt_per_second,
// predicted_per_second and *_per_token_ms are not read: they are these
// figures divided. Counts are -1 and times -1 when absent or null.
type Timings struct {
	// Present is true when the payload had a non-null "timings" object.
	Present bool

	PromptN, PredictedN, CacheN int
	PromptMs, PredictedMs       float64
}

// StreamError is an error reported by the server inside a response body or
// stream: an {"error": {...}} or {"error": "..."} payload, or an
// {"object": "error", "message": ...} payload.
type StreamError struct {
	Message string
	Type    string
	// Code is the error's "code" as text, whether the JSON has a number
	// (vLLM, SGLang: 400) or a string (OpenAI: "rate_limit_exceeded").
	Code string
}

// maxErrorMessage bounds the message Error returns (servers put whole
// validation dumps in messages).
const maxErrorMessage = 256

// Error returns a one-line description: the message (newlines replaced,
// cut to 256 bytes) followed by the type and code when present.
func (e *StreamError) Error() string {
	var b strings.Builder
	b.WriteString("server error")
	if e.Message != "" {
		b.WriteString(": ")
		msg := e.Message
		if len(msg) > maxErrorMessage {
			cut := maxErrorMessage
			for cut > 0 && !utf8.RuneStart(msg[cut]) {
				cut--
			}
			msg = msg[:cut] + "..."
		}
		b.WriteString(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(msg))
	}
	if e.Type != "" || e.Code != "" {
		b.WriteString(" (")
		if e.Type != "" {
			b.WriteString("type ")
			b.WriteString(e.Type)
		}
		if e.Code != "" {
			if e.Type != "" {
				b.WriteString(", ")
			}
			b.WriteString("code ")
			b.WriteString(e.Code)
		}
		b.WriteString(")")
	}
	return b.String()
}

// Chunk is the decoded form of one OpenAI-style stream chunk or response
// body.
//
// Validity: the byte slices point either into the data passed to the decoder
// (when no unescaping or joining was needed) or into buffers owned by the
// Chunk. They, and the StreamError Err points to, stay valid until the next
// Decode or Reset of the same Chunk, and only while the caller leaves the
// decoded data unmodified. Copy what must outlive that. Empty strings are
// reported as empty (nil) slices, exactly like absent or null ones.
type Chunk struct {
	// Done is true when the payload was [DONE] (surrounding whitespace
	// tolerated); every other field then keeps its Reset value.
	Done bool

	ID     []byte // "id"
	Object []byte // "object": "chat.completion.chunk", "text_completion", ...
	// Type is the event's "type" (Responses and Messages decoders only):
	// "response.output_text.delta", "content_block_delta", "ping", ...
	Type []byte

	// NumChoices is len(choices); 0 for a usage-only chunk.
	NumChoices int

	// Role is the first non-empty role of the choices (delta.role or
	// message.role), in choice index order.
	Role []byte
	// Content is, for each choice in index order, its "text" (completions)
	// followed by delta.content and message.content, unescaped and
	// concatenated.
	Content []byte
	// Reasoning is delta / message reasoning text in choice index order. Per
	// delta or message, "reasoning_content" (DeepSeek, SGLang, older vLLM)
	// is used when non-empty, else "reasoning" (newer vLLM, OpenRouter):
	// some servers send both with the same text, which must count once.
	Reasoning []byte
	// Refusal is delta.refusal / message.refusal text (OpenAI), in choice
	// index order.
	Refusal []byte
	// ToolCalls is the number of tool-call entries in the chunk: entries of
	// delta.tool_calls and message.tool_calls (an object instead of an array
	// counts as one entry), plus one per non-null legacy function_call.
	ToolCalls int
	// ToolArgs is, for each of those entries in order, function.name
	// followed by function.arguments, concatenated.
	ToolArgs []byte
	// ToolDeltas holds the same entries one by one, with their index and
	// id (chat completions only; see ToolCallAccumulator).
	ToolDeltas []ToolDelta
	// FinishReason is the first non-empty finish_reason, in choice index
	// order.
	FinishReason []byte

	Usage Usage

	// Err is non-nil when the payload reports a server error: a non-empty
	// "error" string or object, or "object": "error". As in the OpenAI SDK,
	// which tests the truthiness of "error", an empty string or object is
	// no error.
	Err *StreamError

	// Timings is the server's own per-request times (llama-server's
	// "timings" object, on the last chunk of a stream and in a body).
	Timings Timings

	// EmitNS is the top-level "goodput_emit_ns" field that goodput's mock
	// server stamps on each chunk (integer Unix nanoseconds); 0 when absent.
	EmitNS int64

	errVal StreamError

	// Owned buffers for values that needed unescaping or joining.
	contentBuf, reasoningBuf, refusalBuf, toolBuf []byte
	contentOwn, reasoningOwn, refusalOwn, toolOwn bool
	scratch                                       []byte

	// Per-decode records, reused.
	choices []choiceRec
	tools   []toolRec
}

// choiceRec is one decoded choice, before assembly into the Chunk.
type choiceRec struct {
	index          int
	text, finish   []byte
	delta, message msgRec
}

// msgRec is one decoded delta or message object.
type msgRec struct {
	content, reasoningContent, reasoning, refusal, role []byte
	toolLo, toolHi                                      int // range of Chunk.tools
	hasFunctionCall                                     bool
	functionCall                                        toolRec
}

// toolRec is one tool-call entry's index (-1 when absent), id, function
// name and arguments.
type toolRec struct {
	index          int
	id, name, args []byte
}

// Reset clears c for reuse, keeping its buffers.
func (c *Chunk) Reset() {
	// Cleared in place: a composite literal would build the large Chunk
	// on the caller's stack, deep in every stream's read.
	contentBuf, reasoningBuf, refusalBuf, toolBuf := c.contentBuf[:0], c.reasoningBuf[:0], c.refusalBuf[:0], c.toolBuf[:0]
	scratch, choices, tools, deltas := c.scratch[:0], c.choices[:0], c.tools[:0], c.ToolDeltas[:0]
	*c = Chunk{}
	c.Usage.CachedTokens, c.Usage.ReasoningTokens = -1, -1
	c.Timings = Timings{PromptN: -1, PredictedN: -1, CacheN: -1, PromptMs: -1, PredictedMs: -1}
	c.contentBuf, c.reasoningBuf, c.refusalBuf, c.toolBuf = contentBuf, reasoningBuf, refusalBuf, toolBuf
	c.scratch, c.choices, c.tools, c.ToolDeltas = scratch, choices, tools, deltas
}

// HasToken reports whether the chunk carries output: content, reasoning,
// refusal or tool-call bytes. A role-only or usage-only chunk has none.
func (c *Chunk) HasToken() bool {
	return len(c.Content) > 0 || len(c.Reasoning) > 0 || len(c.Refusal) > 0 || len(c.ToolArgs) > 0
}

// Keepalive reports whether the event only keeps the connection open (an
// Anthropic "ping"), like a comment line.
func (c *Chunk) Keepalive() bool { return string(c.Type) == "ping" }

// DecodeChunk decodes one stream chunk (the data of one SSE event) into c,
// which it Resets first; on error c is left Reset. It runs a hand-written scanner that handles the
// common shapes without allocating and falls back to DecodeChunkFull for
// anything it does not recognise (and for every error, so both decoders
// accept, reject and report exactly alike).
func DecodeChunk(data []byte, c *Chunk) error {
	c.Reset()
	t := trimSpace(data)
	if len(t) == 0 {
		return ErrEmptyPayload
	}
	if string(t) == "[DONE]" {
		c.Done = true
		return nil
	}
	if decodeFast(data, c, false) {
		return nil
	}
	return decodeFull(data, c, false)
}

// decodeFull wraps decodeReference so that a failed decode leaves c Reset
// rather than half filled.
func decodeFull(data []byte, c *Chunk, resp bool) error {
	err := decodeReference(data, c, resp)
	if err != nil {
		c.Reset()
	}
	return err
}

// DecodeResponse decodes a non-streaming response body: a chat.completion
// (choices[*].message), a text_completion (choices[*].text), or an error body
// ({"error": ...}, {"object": "error", ...}, or FastAPI's {"detail": ...},
// which sets Err.Message). It never sets Done. On error c is left Reset.
func DecodeResponse(body []byte, c *Chunk) error {
	c.Reset()
	if len(trimSpace(body)) == 0 {
		return ErrEmptyPayload
	}
	if decodeFast(body, c, true) {
		return nil
	}
	return decodeFull(body, c, true)
}

// trimSpace trims JSON whitespace (space, tab, CR, LF) from both ends.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// assemble folds the decoded choices into c's output fields. Both decoders
// end here, so the rules live in one place.
func (c *Chunk) assemble() {
	ch := c.choices
	// Stable insertion sort by index: chunks carry one choice or a few.
	for i := 1; i < len(ch); i++ {
		for j := i; j > 0 && ch[j].index < ch[j-1].index; j-- {
			ch[j], ch[j-1] = ch[j-1], ch[j]
		}
	}
	for i := range ch {
		r := &ch[i]
		c.Content = appendPiece(c.Content, &c.contentBuf, &c.contentOwn, r.text)
		for _, m := range [2]*msgRec{&r.delta, &r.message} {
			c.Content = appendPiece(c.Content, &c.contentBuf, &c.contentOwn, m.content)
			reasoning := m.reasoningContent
			if len(reasoning) == 0 {
				reasoning = m.reasoning
			}
			c.Reasoning = appendPiece(c.Reasoning, &c.reasoningBuf, &c.reasoningOwn, reasoning)
			c.Refusal = appendPiece(c.Refusal, &c.refusalBuf, &c.refusalOwn, m.refusal)
			if len(c.Role) == 0 && len(m.role) > 0 {
				c.Role = m.role
			}
			for k := m.toolLo; k < m.toolHi; k++ {
				c.addTool(c.tools[k])
			}
			if m.hasFunctionCall {
				c.addTool(m.functionCall)
			}
		}
		if len(c.FinishReason) == 0 && len(r.finish) > 0 {
			c.FinishReason = r.finish
		}
	}
	// A usage of zeros beside choices is a placeholder, not a count:
	// Ollama's text completion chunks carry one on every chunk, and the
	// real usage in a last chunk without choices.
	if u := &c.Usage; len(ch) > 0 && u.Present && u.PromptTokens == 0 && u.CompletionTokens == 0 && u.TotalTokens == 0 &&
		u.CachedTokens <= 0 && u.ReasoningTokens <= 0 {
		*u = Usage{CachedTokens: -1, ReasoningTokens: -1}
	}
}

func (c *Chunk) addTool(t toolRec) {
	c.ToolCalls++
	c.ToolDeltas = append(c.ToolDeltas, ToolDelta{Index: t.index, ID: t.id, Name: t.name, Args: t.args})
	c.ToolArgs = appendPiece(c.ToolArgs, &c.toolBuf, &c.toolOwn, t.name)
	c.ToolArgs = appendPiece(c.ToolArgs, &c.toolBuf, &c.toolOwn, t.args)
}

// appendPiece appends p to dst. The first piece is aliased, not copied; a
// second one moves the joined value into the owned buffer.
func appendPiece(dst []byte, buf *[]byte, own *bool, p []byte) []byte {
	if len(p) == 0 {
		return dst
	}
	if len(dst) == 0 {
		return p
	}
	if !*own {
		*buf = append((*buf)[:0], dst...)
		*own = true
	}
	*buf = append(*buf, p...)
	return *buf
}

// setError points c.Err at c's embedded StreamError.
func (c *Chunk) setError(msg, typ, code []byte) {
	c.errVal = StreamError{Message: string(msg), Type: string(typ), Code: string(code)}
	c.Err = &c.errVal
}
