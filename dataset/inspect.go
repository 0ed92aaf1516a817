package dataset

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/goodput-dev/goodput/loadgen"
)

// Inspection is what a --data value holds, for `goodput dataset inspect`.
type Inspection struct {
	Description Description
	// Columns are a file's or directory's columns, in file order (nil for
	// synthetic data).
	Columns []Column
	// PromptTokens and OutputTokens are the length distributions of all
	// requests (the first 1,000 of a source that never ends): prompt tokens
	// as counted by the tokenizer, else as targeted (traces, synthetic data,
	// a prompt_tokens_count column); output tokens as max_tokens.
	PromptTokens, OutputTokens Distribution
	// First are the first requests as a run sends them, and for a trace
	// Offsets their send offsets.
	First   []*loadgen.Request
	Offsets []time.Duration
}

// Distribution summarises token lengths; Count 0 means none are known.
type Distribution struct {
	Count                        int
	Mean                         float64
	Min, P10, P50, P90, P99, Max int
}

func distribution(v []int) Distribution {
	if len(v) == 0 {
		return Distribution{}
	}
	slices.Sort(v)
	q := func(p float64) int { return v[int(p*float64(len(v)-1)+0.5)] }
	sum := 0.0
	for _, x := range v {
		sum += float64(x)
	}
	return Distribution{Count: len(v), Mean: sum / float64(len(v)), Min: v[0], P10: q(0.1), P50: q(0.5), P90: q(0.9), P99: q(0.99), Max: v[len(v)-1]}
}

// Inspect describes the dataset and its first n requests.
func (d *Dataset) Inspect(n int) Inspection {
	in := Inspection{Description: d.Description, Columns: d.columns}
	var prompt, output []int
	if tr, ok := d.Source.(*Trace); ok {
		// A trace's lengths are its rows; building every prompt is not needed.
		for _, r := range tr.rows {
			prompt, output = append(prompt, r.in), append(output, r.out)
		}
	} else {
		total := statsRequests
		if l, ok := d.Source.(interface{ Len() int }); ok {
			total = l.Len()
		}
		for i := range uint64(total) {
			r, ok := d.Source.Request(i)
			if !ok {
				break
			}
			switch {
			case r.PromptTokens >= 0:
				prompt = append(prompt, r.PromptTokens)
			case r.TargetPromptTokens >= 0:
				prompt = append(prompt, r.TargetPromptTokens)
			}
			if r.MaxTokens >= 0 {
				output = append(output, r.MaxTokens)
			}
		}
	}
	in.PromptTokens, in.OutputTokens = distribution(prompt), distribution(output)
	for i := range uint64(max(n, 0)) {
		r, ok := d.Source.Request(i)
		if !ok {
			break
		}
		in.First = append(in.First, r)
		if d.Schedule != nil {
			in.Offsets = append(in.Offsets, d.Schedule[i])
		}
	}
	return in
}

// convertRow is a converted request: the columns --data maps by default.
type convertRow struct {
	Prompt      string `json:"prompt"`
	System      string `json:"system,omitempty"`
	PromptCount *int   `json:"prompt_tokens_count,omitempty"`
	OutputCount *int   `json:"output_tokens_count,omitempty"`
}

// convertTraceRow is a converted trace record: timestamps are the send
// offsets in ms (time-scaled), so a replay of the file reproduces the
// schedule.
type convertTraceRow struct {
	Timestamp float64  `json:"timestamp"`
	Input     int      `json:"input_length"`
	Output    int      `json:"output_length,omitempty"` // 0: no limit (AIPerf: optional)
	HashIDs   []uint64 `json:"hash_ids,omitempty"`
}

// WriteJSONL writes the dataset as JSON Lines that Open reads back to the
// same requests: prompt, system, prompt_tokens_count and
// output_tokens_count per request, or, for a trace, timestamp (ms),
// input_length, output_length and hash_ids (replayed with --rate-type
// replay; a hash_id_block_size other than 512 must be given again). A
// source that never ends is refused: limit it with Options.Samples.
func (d *Dataset) WriteJSONL(w io.Writer) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if tr, ok := d.Source.(*Trace); ok {
		for i, r := range tr.rows {
			row := convertTraceRow{Timestamp: float64(d.Schedule[i]) / float64(time.Millisecond), Input: r.in, Output: r.out, HashIDs: r.hashIDs}
			if err := enc.Encode(row); err != nil {
				return err
			}
		}
		return bw.Flush()
	}
	if _, ok := d.Source.(interface{ Len() int }); !ok {
		return fmt.Errorf("%s never ends: give a number of samples to write", d.Description.Kind)
	}
	if ss, ok := d.Source.(loadgen.SessionSource); ok {
		if err := writeSessions(bw, ss); err != nil {
			return err
		}
		return bw.Flush()
	}
	for i := uint64(0); ; i++ {
		r, ok := d.Source.Request(i)
		if !ok {
			break
		}
		var row convertRow
		for _, m := range r.Messages {
			if m.Role == "system" {
				row.System = m.Content
			} else {
				row.Prompt = m.Content
			}
		}
		if r.TargetPromptTokens >= 0 {
			row.PromptCount = &r.TargetPromptTokens
		}
		if r.MaxTokens >= 0 {
			row.OutputCount = &r.MaxTokens
		}
		if err := enc.Encode(row); err != nil {
			return err
		}
	}
	return bw.Flush()
}
