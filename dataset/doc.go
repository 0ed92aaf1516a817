// Package dataset turns a --data value into the requests a benchmark sends:
// synthetic prompts of an exact token length, prompts from data files, and
// traces to replay.
//
// # Forms of --data (Open)
//
//   - A synthetic spec with GuideLLM's keys, as key=value pairs or a JSON
//     object: prompt_tokens=256,output_tokens=128 or
//     {"prompt_tokens":256,"output_tokens":128}. Keys: prompt_tokens
//     (required), prompt_tokens_stdev/_min/_max, output_tokens (omitted: no
//     max_tokens is sent), output_tokens_stdev/_min/_max, samples,
//     prefix_tokens and prefix_count, or prefix_buckets (JSON:
//     [{"bucket_weight":100,"prefix_count":1,"prefix_tokens":256}]).
//   - A data file: .jsonl, .json (an array of objects, or an object holding
//     the array under data, rows, records, items, examples, instances,
//     train or samples, or under its only list), .csv (a header row) or
//     .txt (one prompt per non-blank line), each optionally gzipped (.gz).
//     Another extension is read as JSON when the content starts with { or [.
//   - A trace (Options.Trace, or kind=trace_synthetic / kind=mooncake): JSON
//     Lines (or JSON, CSV) with timestamp, input_length and output_length,
//     and with hash_ids (Mooncake) when present.
//   - GuideLLM v0.7 data objects, flat or JSON: kind=synthetic_text,…;
//     kind=json_file,path=…; kind=csv_file,path=…; kind=text_file,path=…;
//     kind=trace_synthetic,path=…[,timestamp_column=…,prompt_tokens_column=…,
//     output_tokens_column=…,timestamp_unit=s|ms|us];
//     kind=mooncake,path=…[,hash_ids_column=…,hash_id_block_size=512].
//
// Keys may be written with - for _. Every malformed value gets one line
// naming the key, the file and line, or the column, and the accepted form.
//
// # Sampling
//
// Lengths follow GuideLLM's IntegerRangeSampler: with a stdev, a normal
// draw rounded (half to even) and clamped to [min, max], which default to
// max(1, mean−5·stdev) and mean+5·stdev; without a stdev, a uniform integer
// in [min, max], which default to the mean; otherwise the mean. Each request
// draws from a generator seeded by (seed, request index), so runs with the
// same seed are identical and request i does not depend on how many
// requests came before. With samples=N there are N draws, used in turn.
// Prefixes: request i uses prefix i mod prefix_count; with several
// buckets, a low-discrepancy sequence picks buckets in proportion to their
// weights.
//
// # Synthetic prompts
//
// A prompt is a marker, then a slice of a long random text of common
// English words. The marker writes a number in words: the first of up to 16
// opening words, the others of up to 256 mid words, after a bijective
// scramble, so consecutive requests differ from the very first token.
// Request i of sweep round r (Dataset.Round) is number r·2²²+i: for the
// first 64 rounds of 4,194,304 requests each, all numbers fall in one width
// class (4 words for the major tokenizers, more for tiny test vocabularies)
// in which markers are all distinct, so no two requests share their first
// marker-width tokens and no accidental prefix-cache hit is possible (beyond
// that, markers widen and a shared start is merely improbable). A prompt
// shorter than the marker holds its first words only. A shared prefix
// exists only when prefix_tokens or prefix_buckets asks: the system message
// then holds it (each distinct prefix opens with a marker of its own) and
// the request's marker opens the user message. prefix_tokens counts the
// shared part of the prompt as Request.Text() and /v1/completions send it:
// the system message plus loadgen's blank-line join, so the whole text has
// prefix_tokens+prompt_tokens tokens. Rounds keep the lengths, prefixes and
// bodies of round 0 and change only the markers.
//
// # Exactness
//
// With a tokenizer, every synthetic or trace prompt has exactly its target
// token count: Request.PromptTokens = TargetPromptTokens =
// len(Encode(Request.Text())). It is guaranteed by construction, proved once
// at setup and checked directly:
//
//  1. Every unit (word) is one token in its context, and decodes back to
//     itself (no unknown-token stand-ins).
//  2. BPE only merges adjacent symbols, in rank order. If a pair of units
//     tokenizes as the two units' tokens on its own, no merge joins them in a
//     longer text either: the merges inside each unit happen in the same
//     order, so a first merge across the boundary would already have
//     happened in the pair. The pre-tokenizers of supported models split
//     before a space-and-letters word whatever precedes it. So if every
//     adjacent pair that can occur tokenizes as its parts, every text made of
//     units has one token per unit.
//  3. Setup checks every such pair by token ids, not counts: all K² ordered
//     pairs of mid units in one de Bruijn walk (65,537 units for K=256,
//     encoded in overlapping chunks), every opening unit followed by every
//     mid unit, at the text start and after a system prefix's last unit and
//     the "\n\n" join. Units that fail are dropped; a tokenizer that leaves
//     too few is refused with an error. (An added token spanning three or
//     more of these words would escape the pair checks, though not step 4;
//     no supported model has one.)
//  4. The random body all prompts are cut from is encoded whole (in
//     chunks) and compared unit by unit; each system prefix is encoded with
//     its join and counted; the first requests (and, for traces, the first,
//     last and longest) are rebuilt and re-encoded.
//
// Request(i) then costs a draw, one text build (a copy of the prompt, a few
// µs for 1,024 tokens) and loadgen.NewRequest, with no tokenization. The tests
// re-encode thousands of requests for the built-in o200k_base and
// cl100k_base encodings, the hand-made fixtures of the tokenize package and,
// when cached, Llama 3, Qwen3, Mistral, Gemma 3 and DeepSeek-V3.
//
// Without a tokenizer, prompts are the same kind of text with one word per
// target token: approximate (close for common BPE vocabularies), and
// PromptTokens is -1.
//
// # Data files and column mapping
//
// Columns are found with GuideLLM's generative column mapper rule: the first
// column, in file order, whose name is a candidate, case-insensitively, with
// an optional plural s/es and turn suffix (_1, -2). Several turn columns of
// one name (a multi-turn conversation) are refused. Default candidates:
//
//	text_column                 prompt, instruction, question, input, context, content, conversation, turn, text
//	raw_messages_column         messages, chat_messages (used when no text column is found)
//	prefix_column               system_prompt, system, prefix (sent as the system message)
//	prompt_tokens_count_column  prompt_tokens_count, input_tokens_count (TargetPromptTokens)
//	output_tokens_count_column  output_tokens_count, completion_tokens_count (max_tokens)
//
// Options.ColumnMapper takes GuideLLM's --data-column-mapper forms (see
// ParseColumnMapper); as in GuideLLM, an explicit mapping replaces the
// defaults. A prompt value that is a list is a conversation, ShareGPT's
// [{"from":"human","value":…},{"from":"gpt","value":…}] or OpenAI's
// [{"role":"user","content":…}]: as in vllm bench's sharegpt dataset, the
// first user turn is the prompt (system turns before it the system
// message) and, with a tokenizer, the token length of the assistant reply
// right after it is max_tokens unless an output column gives it.
// Conversations without a user turn are skipped and counted. With a
// tokenizer, PromptTokens is the count of each request's Text(); without
// one it is -1. Options.Shuffle shuffles the rows with the seed before
// Options.Samples keeps the first ones.
//
// # Traces
//
// Rows are sorted by timestamp; the schedule is each timestamp minus the
// first, in timestamp_unit (default ms, as in Mooncake traces and AIPerf;
// GuideLLM reads the same column as seconds), multiplied by
// Options.TimeScale. Each request gets a synthetic prompt of exactly
// input_length tokens and max_tokens = output_length. With hash_ids, the
// prompt is one block of hash_id_block_size (512) tokens per id, the last
// cut to fit, each block determined by its id, so requests that share ids
// share prompt prefixes as the traced workload did; without, each prompt
// opens with its unique marker.
package dataset
