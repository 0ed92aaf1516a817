// Package sse reads the streams of OpenAI-compatible servers (vLLM, SGLang,
// TGI, OpenAI, ...) on the client's hot path. It has two layers.
//
// Layer 1, text/event-stream: NewParser returns a Parser; Feed it the bytes
// as they arrive, split anywhere, and call Finish at end of stream. It
// applies the WHATWG server-sent-events rules, reuses its buffers (no
// allocation per event in steady state) and stops with ErrEventTooLarge
// past the MaxEventBytes option (DefaultMaxEventBytes when unset).
//
// Layer 2, OpenAI chunks: DecodeChunk decodes one event's data into a Chunk
// (content, reasoning, refusal and tool-call text, role, finish reason,
// usage, llama-server's per-request timings, an in-stream server error,
// [DONE], the mock's emission stamp);
// DecodeResponse does the same for a non-streaming body. A hand-written
// scanner handles the common shapes without allocating or reflection and
// falls back to DecodeChunkFull, an encoding/json reference decoder, for
// anything else and for every error; the tests and fuzzing check that the
// two agree. DecodeResponsesEvent and DecodeMessagesEvent (and their Body
// forms) decode the OpenAI Responses and Anthropic Messages streams into
// the same Chunk (events.go).
//
//	p := sse.NewParser()
//	var c sse.Chunk
//	err := p.Feed(buf, func(ev *sse.Event) error { return sse.DecodeChunk(ev.Data, &c) })
//
// README.md beside this file lists the parsing rules, the deliberate
// deviations from WHATWG and the decoding rules.
package sse
