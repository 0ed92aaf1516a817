// Package tokenize turns text into the token ids of an LLM's tokenizer, natively
// and exactly as Hugging Face's tokenizers library (Rust) does, so that goodput can
// count prompt and output tokens offline, without Python or a network.
//
// Get a Tokenizer from a Hugging Face tokenizer.json (Load, Parse), from a
// GGUF model file's tokenizer.ggml.* metadata (LoadGGUF, ParseGGUF), from a
// built-in OpenAI encoding (Builtin: o200k_base, cl100k_base and their
// aliases), from a server's /tokenize endpoint (NewServer: llama.cpp's or
// vLLM's; one HTTP request per call), or from a --processor value (Resolve:
// "server", a file or directory, a built-in name, or a hub id found in the
// local Hugging Face cache; nothing is ever downloaded). Then:
//
//	tok, err := tokenize.Resolve("meta-llama/Llama-3.1-8B-Instruct", tokenize.ResolveOptions{})
//	ids := tok.Encode(text)           // like HF encode(text, add_special_tokens=False)
//	n := tok.Count(text)              // len(Encode(text)) without building the slice
//	ids = tok.EncodeWithSpecial(text) // adds what the post-processor adds (BOS, ...)
//	s := tok.Decode(ids)
//
// BPE models (byte-level and SentencePiece style with byte fallback) are
// supported with their normalizers, pre-tokenizers, added tokens,
// post-processors and decoders; anything else is refused at load time with
// an error naming the component and its JSON path. A Tokenizer is immutable
// and safe for concurrent use.
//
// README.md beside this file lists what is supported and rejected, the
// exact semantics, the built-in encodings, the performance design and the
// test data.
package tokenize
