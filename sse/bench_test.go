package sse

import (
	"bytes"
	"testing"
)

// feedReads feeds the stream in reads of readSize bytes, as a network read
// loop would, and finishes it.
func feedReads(b *testing.B, p *Parser, stream []byte, readSize int, emit func(*Event) error) {
	for off := 0; off < len(stream); off += readSize {
		if err := p.Feed(stream[off:min(off+readSize, len(stream))], emit); err != nil {
			b.Fatal(err)
		}
	}
	if err := p.Finish(emit); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkParserFeed parses a realistic 128-chunk vLLM chat stream (continuous
// usage stats on every chunk) read in 4 KiB pieces.
func BenchmarkParserFeed(b *testing.B) {
	stream := vllmStream(128)
	events := bytes.Count(stream, []byte("\n\n"))
	p := NewParser()
	n := 0
	emit := func(e *Event) error { n += len(e.Data); return nil }
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		feedReads(b, p, stream, 4096, emit)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
}

// BenchmarkStream is the client's per-stream work: parse the events and
// decode each chunk.
func BenchmarkStream(b *testing.B) {
	stream := vllmStream(128)
	events := bytes.Count(stream, []byte("\n\n"))
	p := NewParser()
	var c Chunk
	tokens := 0
	emit := func(e *Event) error {
		if err := DecodeChunk(e.Data, &c); err != nil {
			return err
		}
		if c.HasToken() {
			tokens++
		}
		return nil
	}
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		feedReads(b, p, stream, 4096, emit)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
}

var benchChunks = []struct{ name, json string }{
	// A typical vLLM content chunk with continuous usage stats (~230 bytes).
	{"vllm-content-usage", `{"id":"chatcmpl-95f70ae00614b063","object":"chat.completion.chunk","created":1782114956,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":" quick"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":16,"total_tokens":18,"completion_tokens":2}}`},
	// The same without usage (~190 bytes).
	{"vllm-content", `{"id":"chatcmpl-95f70ae00614b063","object":"chat.completion.chunk","created":1782114956,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":" quick"},"logprobs":null,"finish_reason":null}]}`},
	{"vllm-content-escaped", `{"id":"chatcmpl-95f70ae00614b063","object":"chat.completion.chunk","created":1782114956,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":"\n\n\"Hi\""},"logprobs":null,"finish_reason":null}]}`},
	{"vllm-final-usage", `{"id":"chatcmpl-95f70ae00614b063","object":"chat.completion.chunk","created":1782114956,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[],"usage":{"prompt_tokens":16,"total_tokens":66,"completion_tokens":50}}`},
	{"openai-content", `{"id":"chatcmpl-D0q8CZXN1uEzngZGkU7FuV92lnXWq","object":"chat.completion.chunk","created":1769092764,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_29330a9688","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}],"obfuscation":"ZGF"}`},
	{"sglang-reasoning", `{"id":"fea45bfa7bbd4209b1e71bdcdcc6c667","object":"chat.completion.chunk","created":1756216933,"model":"acbc","choices":[{"index":0,"delta":{"role":null,"content":null,"reasoning_content":"2","tool_calls":null},"logprobs":null,"finish_reason":null,"matched_stop":null}],"usage":null}`},
	{"tgi-tool-call", `{"choices":[{"delta":{"content":null,"role":"assistant","tool_calls":[{"function":{"arguments":" \"","name":null},"id":"0","index":0,"type":"function"}]},"finish_reason":null,"index":0,"logprobs":null}],"created":1741688515,"id":"","model":"meta-llama/Llama-3.1-8B-Instruct","object":"chat.completion.chunk","system_fingerprint":"3.1.2-dev0-native","usage":null}`},
}

// BenchmarkDecodeChunk compares the fast decoder with the reference one on
// typical chunks.
func BenchmarkDecodeChunk(b *testing.B) {
	for _, bc := range benchChunks {
		data := []byte(bc.json)
		for _, dec := range []struct {
			name string
			fn   func([]byte, *Chunk) error
		}{{"fast", DecodeChunk}, {"full", DecodeChunkFull}} {
			b.Run(bc.name+"/"+dec.name, func(b *testing.B) {
				var c Chunk
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if err := dec.fn(data, &c); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkParserLineEndings parses the same stream with each line ending,
// read in 64 KiB pieces (CR-only lines must stay linear in the read size).
func BenchmarkParserLineEndings(b *testing.B) {
	base := vllmStream(512)
	for _, le := range []struct{ name, eol string }{{"LF", "\n"}, {"CRLF", "\r\n"}, {"CR", "\r"}} {
		stream := bytes.ReplaceAll(base, []byte("\n"), []byte(le.eol))
		events := bytes.Count(base, []byte("\n\n"))
		b.Run(le.name, func(b *testing.B) {
			p := NewParser()
			emit := func(*Event) error { return nil }
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				feedReads(b, p, stream, 64<<10, emit)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
		})
	}
}
