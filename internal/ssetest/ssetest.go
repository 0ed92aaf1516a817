// Package ssetest writes OpenAI-style server-sent event streams for the
// purpose-built misbehaving servers of the fault tests: well-formed chunks
// to build streams from, and a stream that never ends.
package ssetest

import (
	"io"
	"net/http"
	"time"
)

// Token is a chat.completion.chunk event carrying one content delta.
func Token(text string) string {
	return `data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"` + text + `"},"finish_reason":null}]}` + "\n\n"
}

// Events of a chat completion stream.
const (
	Finish = `data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n"
	Usage  = `data: {"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":3,"total_tokens":6}}` + "\n\n"
	Done   = "data: [DONE]\n\n"
	// Error is an {"error": ...} payload inside a 200 stream.
	Error = `data: {"error":{"object":"error","message":"boom: out of KV cache","type":"InternalServerError","code":500}}` + "\n\n"
)

// Start writes the head of a 200 text/event-stream response and flushes it.
func Start(w http.ResponseWriter) http.Flusher {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	f := w.(http.Flusher)
	f.Flush()
	return f
}

// Write starts the response and writes the events, flushing after each.
func Write(w http.ResponseWriter, events ...string) {
	f := Start(w)
	for _, e := range events {
		if _, err := io.WriteString(w, e); err != nil {
			return
		}
		f.Flush()
	}
}

// OK writes a well-formed three-token stream.
func OK(w http.ResponseWriter) {
	Write(w, Token("a"), Token("b"), Token("c"), Finish, Usage, Done)
}

// Forever sends a token chunk every millisecond until the client goes
// away or done is closed.
func Forever(w http.ResponseWriter, r *http.Request, done <-chan struct{}) {
	f := Start(w)
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for {
		if _, err := io.WriteString(w, Token("x")); err != nil {
			return
		}
		f.Flush()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		case <-done:
			return
		}
	}
}
