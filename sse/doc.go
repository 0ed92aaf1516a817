// Package sse reads the streams of OpenAI-compatible servers (vLLM, SGLang,
// TGI, OpenAI, ...) on the client's hot path. It has two layers.
//
// # Layer 1: text/event-stream
//
// Parser is an incremental parser for the text/event-stream format that
// applies the WHATWG "server-sent events" interpretation rules: LF, CRLF and
// CR line endings (a CR at the end of one Feed and an LF at the start of the
// next are one line ending), comment lines, multi-line data joined with LF,
// the event, id and retry fields, one optional space after the colon, a
// field line without a colon, unknown fields ignored, events without data
// not dispatched, and one leading UTF-8 byte order mark stripped. Feed takes
// the bytes as they arrive, split anywhere, even inside a UTF-8 sequence;
// the data bytes are passed through without UTF-8 validation. The parser
// reuses its buffers and does not allocate per event in steady state, and a
// size limit (MaxEventBytes, 8 MiB by default) bounds its memory when a
// server streams without line breaks or blank lines.
//
// Deviations from the WHATWG rules, all deliberate:
//   - At end of stream, Finish dispatches a final event that was not
//     followed by a blank line (the rules discard it). Servers do end streams
//     that way, and dropping the last event would lose a usage or [DONE]
//     chunk.
//   - Event.ID and Event.Retry describe the event itself (the last id and
//     retry fields seen since the previous blank line), not the stream's
//     persistent last event ID and reconnection time: a load generator does
//     not reconnect.
//   - Lines and event data larger than MaxEventBytes stop the parser with
//     ErrEventTooLarge.
//
// # Layer 2: OpenAI chunks
//
// DecodeChunk decodes the data of one event, an OpenAI-style chunk, into a
// Chunk: content, reasoning, refusal and tool-call text, role, finish
// reason, usage (including cached and reasoning token details), a server
// error reported inside a 200 stream, [DONE], and the emission stamp of
// goodput's mock server. DecodeResponse does the same for a non-streaming
// response body. A hand-written scanner handles the common shapes without
// allocating and without reflection, and falls back to DecodeChunkFull, an
// encoding/json-based reference decoder, for anything it does not recognise
// and for every error. The two decoders give identical results, which the
// tests check on real payloads of each server and by fuzzing.
//
// Decoding rules worth knowing:
//   - null values are absent, and empty strings are reported as absent.
//   - Text from several choices is concatenated in choice index order.
//   - Per delta, "reasoning_content" is used when non-empty, else
//     "reasoning": servers in transition send both with the same text, which
//     must count once.
//   - JSON escapes, including \u surrogate pairs, decode exactly as
//     encoding/json decodes them (an unpaired surrogate or an invalid UTF-8
//     byte becomes U+FFFD).
//   - A field the decoder interprets must have the type the API documents
//     (or be null), else decoding fails with an error naming the field.
//     Other fields are skipped whatever they hold.
package sse
