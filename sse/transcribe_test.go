package sse

import "testing"

// OpenAI's transcription events and vLLM's chat-style chunks decode alike.
func TestDecodeTranscriptionEvent(t *testing.T) {
	var c Chunk
	if err := DecodeTranscriptionEvent([]byte(`{"type":"transcript.text.delta","delta":"Hello"}`), &c); err != nil || string(c.Content) != "Hello" || !c.HasToken() {
		t.Fatalf("delta: %v %q", err, c.Content)
	}
	done := `{"type":"transcript.text.done","text":"Hello world","usage":{"type":"tokens","input_tokens":14,"input_token_details":{"text_tokens":0,"audio_tokens":14},"output_tokens":3,"total_tokens":17}}`
	if err := DecodeTranscriptionEvent([]byte(done), &c); err != nil || !c.Done || string(c.FinishReason) != "stop" || !c.Usage.Present ||
		c.Usage.PromptTokens != 14 || c.Usage.CompletionTokens != 3 || len(c.Content) != 0 {
		t.Fatalf("done: %v %+v", err, c)
	}
	if err := DecodeTranscriptionEvent([]byte(`{"id":"t","object":"transcription.chunk","choices":[{"index":0,"delta":{"content":" hi"},"finish_reason":null}]}`), &c); err != nil || string(c.Content) != " hi" {
		t.Fatalf("vLLM chunk: %v %q", err, c.Content)
	}
	if err := DecodeTranscriptionEvent([]byte(`{"type":"transcript.text.delta","delta":7}`), &c); err == nil {
		t.Fatal("a number delta accepted")
	}
}
