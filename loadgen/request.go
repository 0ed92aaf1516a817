package loadgen

import (
	"github.com/goodput-dev/goodput/record"
)

// Message is one chat message.
type Message struct {
	Role    string
	Content string
}

// Request is one unit of work: what to ask the server. It is immutable once
// built with NewRequest (its JSON fragments are rendered once, so a request
// reused many times costs nothing to send again) and safe to share between
// goroutines.
type Request struct {
	Messages []Message // chat messages in order (a system prefix first)
	// PromptTokens is the prompt length counted by the client's tokenizer,
	// -1 when unknown; TargetPromptTokens the length the data spec asked
	// for, -1 when none.
	PromptTokens       int
	TargetPromptTokens int
	MaxTokens          int // output tokens to ask for; -1 sends no limit

	chatJSON   []byte // `"messages":[...]`
	promptJSON []byte // `"prompt":"..."` for /v1/completions
}

// NewRequest builds a request from an optional system prefix and a user
// prompt. Set PromptTokens and TargetPromptTokens before sharing it when
// they are known.
func NewRequest(system, prompt string, maxTokens int) *Request {
	var msgs []Message
	if system != "" {
		msgs = append(msgs, Message{Role: "system", Content: system})
	}
	msgs = append(msgs, Message{Role: "user", Content: prompt})
	return NewChatRequest(msgs, maxTokens)
}

// NewChatRequest builds a request from a whole conversation. For
// /v1/completions the message contents are joined with blank lines.
func NewChatRequest(msgs []Message, maxTokens int) *Request {
	r := &Request{Messages: msgs, PromptTokens: -1, TargetPromptTokens: -1, MaxTokens: maxTokens}
	b := []byte(`"messages":[`)
	for i, m := range msgs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"role":`...)
		b = record.AppendJSONString(b, m.Role)
		b = append(b, `,"content":`...)
		b = record.AppendJSONString(b, m.Content)
		b = append(b, '}')
	}
	r.chatJSON = append(b, ']')
	joined := ""
	for i, m := range msgs {
		if i > 0 {
			joined += "\n\n"
		}
		joined += m.Content
	}
	r.promptJSON = record.AppendJSONString([]byte(`"prompt":`), joined)
	return r
}

// Text returns the prompt text (all message contents joined), for counting.
func (r *Request) Text() string {
	s := ""
	for i, m := range r.Messages {
		if i > 0 {
			s += "\n\n"
		}
		s += m.Content
	}
	return s
}

// Source hands out requests by index. Request(i) is called with i = 0, 1, 2…
// from several goroutines; ok=false means the source is exhausted (a finite
// dataset or trace), which ends the benchmark.
type Source interface {
	Request(i uint64) (req *Request, ok bool)
}
