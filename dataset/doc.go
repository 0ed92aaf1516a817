// Package dataset turns a --data value into the requests a benchmark sends:
// synthetic prompts of an exact token length, prompts from data files, and
// traces to replay.
//
// Enter with Open, which accepts every form of --data: a synthetic spec with
// GuideLLM's keys (prompt_tokens=256,output_tokens=128, or the same as a JSON
// object; ParseSpec), a .jsonl, .json, .csv or .txt file (optionally
// gzipped), a Parquet or Arrow file, a local Hugging Face dataset directory,
// a trace (timestamp, input_length, output_length, Mooncake's hash_ids;
// BurstGPT and Azure columns), or a GuideLLM v0.7 data object (kind=…).
// Malformed input gets one line naming the key, the file and line, or the
// column, and the accepted form. Dataset.Inspect and Dataset.WriteJSONL
// serve `goodput dataset inspect|convert`.
//
//	ds, err := dataset.Open("prompt_tokens=256,output_tokens=128",
//		dataset.Options{Tokenizer: tok, Seed: 42})
//	src := ds.Round(r) // a loadgen.Source; ds.Schedule holds a trace's send offsets
//
// With a tokenizer, every synthetic or trace prompt has exactly its target
// token count (proved once at setup, not re-tokenized per request), and
// each round of a sweep gets prompts whose opening tokens differ, so no
// accidental prefix-cache hit is possible. Without one, prompts hold one
// word per target token and PromptTokens is -1. Runs with the same seed are
// identical.
//
// README.md beside this file gives the forms of --data, the length
// sampling, how synthetic prompts are built, the proof of exactness, the
// column mapping of data files and trace replay.
package dataset
