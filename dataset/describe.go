package dataset

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/tokenize"
)

// Values of Description.Counts.
const (
	countsExact       = "exact"       // PromptTokens are the tokenizer's count of each request's text
	countsApproximate = "approximate" // synthetic prompts of common words; PromptTokens -1
	countsUnknown     = "unknown"     // file prompts without a tokenizer; PromptTokens -1
)

// Description describes a dataset for run metadata and reports.
type Description struct {
	// Kind is GuideLLM's data kind: synthetic_text, json_file (JSON and
	// JSON Lines), csv_file, text_file, parquet_file, arrow_file,
	// huggingface (a local dataset directory), trace_synthetic or mooncake.
	Kind   string `json:"kind"`
	Path   string `json:"path,omitempty"`
	Format string `json:"format,omitempty"` // jsonl, json, csv, txt, parquet or arrow
	// SHA256 is the hex sha256 of the file as stored (compressed, for .gz);
	// for a directory, of its data files' "sha256  path" lines, as
	// sha256sum prints them, in path order.
	SHA256 string `json:"sha256,omitempty"`
	// Split is the split of a Hugging Face dataset directory.
	Split string `json:"split,omitempty"`
	// Spec is a synthetic spec in canonical key=value form.
	Spec string `json:"spec,omitempty"`
	// Requests is the number of requests the source holds; 0 means it
	// never ends.
	Requests int `json:"requests"`
	// Sessions is the number of conversations of a session source (its
	// Requests then counts their turns); 0 for other data.
	Sessions int `json:"sessions,omitempty"`
	// Skipped counts the records left out: conversations without a user
	// turn, or trace rows with 0 tokens (BurstGPT's failed requests).
	Skipped int `json:"skipped,omitempty"`
	// Columns maps roles (text_column, prefix_column, …) to the file's
	// columns used.
	Columns map[string]string `json:"columns,omitempty"`
	// Counts is "exact" (prompt token counts from the tokenizer: by
	// construction and proof for synthetic prompts, by counting for files),
	// "approximate" (synthetic prompts without a tokenizer) or "unknown".
	Counts string `json:"counts"`
	// PromptOverhead is the server's prompt overhead exact synthetic
	// prompts were shortened by, so that the server bills PromptTokens
	// (their content is that much shorter); 0 when none.
	PromptOverhead int    `json:"prompt_overhead,omitempty"`
	Tokenizer      string `json:"tokenizer,omitempty"`
	TokenizerHash  string `json:"tokenizer_hash,omitempty"`
	Seed           uint64 `json:"seed"`
	// Salt is the prompt salt (Options.Salt) the prompts were made with;
	// 0 when none.
	Salt          uint64  `json:"salt,omitempty"`
	Shuffle       bool    `json:"shuffle,omitempty"`
	Samples       int     `json:"samples,omitempty"`
	TimestampUnit string  `json:"timestamp_unit,omitempty"` // traces: unit of the timestamp column
	TimeScale     float64 `json:"time_scale,omitempty"`     // traces: factor applied to the offsets
	// Span is the offset of a trace's last request, time-scaled.
	Span      time.Duration `json:"span_ns,omitempty"`
	BlockSize int           `json:"hash_id_block_size,omitempty"` // mooncake traces
	// PromptTokens and OutputTokens summarise the requests' prompt lengths
	// (PromptTokens when known, else the requested length) and their
	// max_tokens. For a source that never ends they cover its first 1,000
	// requests.
	PromptTokens TokenStats `json:"prompt_tokens"`
	OutputTokens TokenStats `json:"output_tokens"`
	// GuideLLM is the data object GuideLLM's report holds in
	// config.spec.data (one element), e.g. {"kind":"json_file","path":"x.jsonl"}.
	GuideLLM json.RawMessage `json:"guidellm,omitempty"`
}

// TokenStats summarises token lengths over Count requests (Count 0: none
// known).
type TokenStats struct {
	Count int     `json:"count"`
	Mean  float64 `json:"mean"`
	Min   int     `json:"min"`
	Max   int     `json:"max"`
}

type statsAcc struct {
	n, min, max int
	sum         float64
}

func (a *statsAcc) add(v int) {
	if a.n == 0 || v < a.min {
		a.min = v
	}
	if a.n == 0 || v > a.max {
		a.max = v
	}
	a.n++
	a.sum += float64(v)
}

func (a *statsAcc) stats() TokenStats {
	if a.n == 0 {
		return TokenStats{}
	}
	return TokenStats{Count: a.n, Mean: a.sum / float64(a.n), Min: a.min, Max: a.max}
}

func (d *Description) setTokenizer(tok *tokenize.Tokenizer, exact bool) {
	d.Counts = countsApproximate
	if exact {
		d.Counts = countsExact
	}
	if tok != nil {
		d.Tokenizer, d.TokenizerHash = tok.Name(), tok.Hash()
	}
}

// String is a one-line summary, e.g. "synthetic_text
// prompt_tokens=256,output_tokens=128 (exact, o200k_base): unbounded, prompt
// tokens mean 256.0 [256, 256], output tokens mean 128.0 [128, 128]".
func (d Description) String() string {
	var b strings.Builder
	b.WriteString(d.Kind)
	if d.Spec != "" {
		b.WriteString(" " + d.Spec)
	}
	if d.Path != "" {
		b.WriteString(" " + d.Path)
	}
	b.WriteString(" (" + d.Counts)
	if d.Tokenizer != "" {
		b.WriteString(", " + d.Tokenizer)
	}
	b.WriteString(")")
	switch {
	case d.Requests > 0 && d.Sessions > 0:
		fmt.Fprintf(&b, ": %d requests in %d sessions", d.Requests, d.Sessions)
	case d.Requests > 0:
		fmt.Fprintf(&b, ": %d requests", d.Requests)
	case strings.Contains(d.Spec, "turns=") || strings.Contains(d.Spec, `"turns":`):
		b.WriteString(": unbounded sessions")
	default:
		b.WriteString(": unbounded")
	}
	for _, s := range []struct {
		name string
		s    TokenStats
	}{{"prompt", d.PromptTokens}, {"output", d.OutputTokens}} {
		if s.s.Count > 0 {
			fmt.Fprintf(&b, ", %s tokens mean %.1f [%d, %d]", s.name, s.s.Mean, s.s.Min, s.s.Max)
		}
	}
	if d.Salt != 0 {
		fmt.Fprintf(&b, ", prompt salt %016x", d.Salt)
	}
	return b.String()
}

// jsonString quotes s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Salted reports whether data of kind (Description.Kind) takes a prompt
// salt (Options.Salt): synthetic data and traces, whose prompts goodput
// writes; not files, whose prompts are the file's.
func Salted(kind string) bool {
	switch kind {
	case kindSynthetic, kindTrace, kindMooncake, kindWeka:
		return true
	}
	return false
}
