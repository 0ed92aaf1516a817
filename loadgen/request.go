package loadgen

import (
	"strings"
	"sync"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/sse"
)

// Message is one chat message. An assistant message of an agent session
// may carry the tool calls it made, and a "tool" message answers the call
// ToolCallID (see session.go for their forms on each endpoint).
type Message struct {
	Role       string
	Content    string
	ToolCalls  []sse.ToolCall
	ToolCallID string
}

// Request is one unit of work: what to ask the server. It is immutable once
// built (set PromptTokens and TargetPromptTokens before sharing it) and
// safe to share between goroutines. Its JSON fragment for the endpoint in
// use is rendered once, on first use, so a request reused many times costs
// nothing to send again and the other endpoint's form is never built.
type Request struct {
	Messages []Message // chat messages in order (a system prefix first)
	// PromptTokens is the prompt length counted by the client's tokenizer,
	// -1 when unknown; TargetPromptTokens the length the data spec asked
	// for, -1 when none.
	PromptTokens       int
	TargetPromptTokens int
	MaxTokens          int // output tokens to ask for; -1 sends no limit

	// turn is set on a turn of a session (session.go): its extra body
	// fields, session id and whether the reply is kept for the history.
	turn *turnInfo

	chatOnce, promptOnce, anthropicOnce sync.Once
	chatJSON                            []byte // `"messages":[...]`
	promptJSON                          []byte // `"prompt":"..."` for /v1/completions
	anthropicJSON                       []byte // `"system":"...","messages":[...]` for /v1/messages

	// responsesJSON is the `[...]` for /v1/responses when tool items need
	// their own form (otherwise the chat messages serve).
	responsesOnce sync.Once
	responsesJSON []byte

	pool *pooled // a pooling request's inputs (pooling.go), nil for others

	// Media are images and audio sent with the last user message
	// (media.go); set before sharing the request. A request with media is
	// rendered for one API only (the first asked for).
	Media     []Media
	mediaOnce sync.Once
	mediaJSON []byte
}

// NewRequest builds a request from an optional system prefix and a user
// prompt.
func NewRequest(system, prompt string, maxTokens int) *Request {
	if system == "" {
		return NewChatRequest([]Message{{Role: "user", Content: prompt}}, maxTokens)
	}
	return NewChatRequest([]Message{{Role: "system", Content: system}, {Role: "user", Content: prompt}}, maxTokens)
}

// NewChatRequest builds a request from a whole conversation. For
// /v1/completions the message contents are joined with blank lines.
func NewChatRequest(msgs []Message, maxTokens int) *Request {
	return &Request{Messages: msgs, PromptTokens: -1, TargetPromptTokens: -1, MaxTokens: maxTokens}
}

// chat returns the `"messages":[...]` fragment.
func (r *Request) chat() []byte {
	if len(r.Media) > 0 {
		return r.withMedia(EndpointChat)
	}
	r.chatOnce.Do(func() { r.chatJSON = appendMessages(nil, r.Messages) })
	return r.chatJSON
}

// responses returns the `[...]` of the Responses API's "input": the
// chat messages.
func (r *Request) responses() []byte {
	if len(r.Media) > 0 {
		return r.withMedia(EndpointResponses)[len(`"messages":`):]
	}
	if !r.hasTools() {
		return r.chat()[len(`"messages":`):]
	}
	r.responsesOnce.Do(func() { r.responsesJSON = appendResponsesInput(nil, r.Messages) })
	return r.responsesJSON
}

// anthropic returns the Messages API's `"messages":[...]` fragment: the
// leading system messages become a `"system":"...",` prefix (their
// contents joined with blank lines), as that API has no system role.
func (r *Request) anthropic() []byte {
	if len(r.Media) > 0 {
		return r.withMedia(EndpointMessages)
	}
	r.anthropicOnce.Do(func() {
		n := 0
		for n < len(r.Messages) && r.Messages[n].Role == "system" {
			n++
		}
		if n == 0 {
			r.anthropicJSON = r.chat()
			if r.hasTools() {
				r.anthropicJSON = appendAnthropicMessages(nil, r.Messages)
			}
			return
		}
		parts := make([]string, n)
		for i, m := range r.Messages[:n] {
			parts[i] = m.Content
		}
		b := append([]byte(`"system":`), record.AppendJSONString(nil, strings.Join(parts, "\n\n"))...)
		if r.hasTools() {
			r.anthropicJSON = appendAnthropicMessages(append(b, ','), r.Messages[n:])
			return
		}
		r.anthropicJSON = appendMessages(append(b, ','), r.Messages[n:])
	})
	return r.anthropicJSON
}

// appendMessages appends `"messages":[{"role":...,"content":...},...]`.
func appendMessages(b []byte, msgs []Message) []byte {
	n := 16
	for _, m := range msgs {
		n += len(m.Content) + len(m.Role) + 32
	}
	b = append(make([]byte, 0, len(b)+n), b...)
	b = append(b, `"messages":[`...)
	for i, m := range msgs {
		if i > 0 {
			b = append(b, ',')
		}
		if m.ToolCalls != nil || m.ToolCallID != "" {
			b = appendChatToolMessage(b, m)
			continue
		}
		b = append(b, `{"role":`...)
		b = record.AppendJSONString(b, m.Role)
		b = append(b, `,"content":`...)
		b = record.AppendJSONString(b, m.Content)
		b = append(b, '}')
	}
	return append(b, ']')
}

// prompt returns the `"prompt":"..."` fragment.
func (r *Request) prompt() []byte {
	r.promptOnce.Do(func() {
		text := r.Text()
		b := make([]byte, 0, len(text)+32)
		b = append(b, `"prompt":`...)
		r.promptJSON = record.AppendJSONString(b, text)
	})
	return r.promptJSON
}

// Text returns the prompt text: the message contents joined with blank
// lines (what /v1/completions sends, and what token counts refer to).
func (r *Request) Text() string {
	if len(r.Messages) == 1 && r.Messages[0].ToolCalls == nil {
		return r.Messages[0].Content
	}
	var b strings.Builder
	for i, m := range r.Messages {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(m.Content)
		writeToolCalls(&b, m.ToolCalls)
	}
	return b.String()
}

// Source hands out requests by index. Request(i) is called with i = 0, 1, 2…
// from several goroutines; ok=false means the source is exhausted (a finite
// dataset or trace), which ends the benchmark.
type Source interface {
	Request(i uint64) (req *Request, ok bool)
}
