package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/dataset"
	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/run"
	"github.com/goodput-dev/goodput/tokenize"
)

// runDataset implements `goodput dataset inspect|convert` (GuideLLM's
// `preprocess dataset`): what a --data value holds and sends, and the same
// requests written as JSON Lines that --data reads back.
func runDataset(_ context.Context, e *cli.Env, args []string) error {
	const usage = "dataset inspect|convert [flags] DATA [OUT.jsonl]"
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintf(e.Stdout, "Usage: goodput %s\n\n  inspect DATA        show the columns, the token length distributions and the first requests a run would send\n  convert DATA OUT    write the requests as JSON Lines (OUT - for stdout) that --data reads back\n\nRun 'goodput dataset inspect --help' for the flags.\n", usage)
		if len(args) == 0 {
			return cli.Usagef("give inspect or convert, e.g. goodput dataset inspect data.parquet")
		}
		return nil
	}
	sub := args[0]
	if sub != "inspect" && sub != "convert" {
		return cli.Usagef("unknown subcommand %q: want inspect or convert", sub)
	}
	argsUsage := "DATA"
	if sub == "convert" {
		argsUsage = "DATA OUT.jsonl"
	}
	fs := cli.NewFlagSet("dataset "+sub, "dataset "+sub+" [flags] "+argsUsage+"  (DATA: any --data value: a file, a dataset directory, kind=…, a synthetic spec)", e.Stdout)
	processor := fs.String("processor", "", "tokenizer to count prompt tokens with: a tokenizer.json path, a directory holding one, a local Hugging Face id, or o200k_base/cl100k_base")
	fs.StringVar(processor, "tokenizer", "", "alias of --processor")
	_ = fs.MarkHidden("tokenizer")
	mapper := fs.String("data-column-mapper", "", `map data file columns, e.g. '{"text_column":"question","output_tokens_count_column":"max_len"}'`)
	samples := fs.Int("data-samples", 0, "use at most this many requests (0: all; required for synthetic data with convert)")
	shuffle := fs.Bool("data-shuffle", false, "shuffle the rows of a data file with --random-seed")
	seed := fs.Int64("random-seed", 42, "seed for synthetic data and shuffling")
	replay := fs.Bool("replay", false, "read DATA as a replay trace (timestamp, input_length, output_length; BurstGPT, Azure), as --rate-type replay does")
	rows := 3
	if sub == "inspect" {
		fs.IntVar(&rows, "rows", 3, "how many of the first requests to show")
	}
	if err := cli.ParseFlags(fs, args[1:]); err != nil {
		return err
	}
	want := 1
	if sub == "convert" {
		want = 2
	}
	if fs.NArg() != want {
		return cli.Usagef("dataset %s takes %s (got %d arguments)", sub, argsUsage, fs.NArg())
	}
	if *samples < 0 || rows < 0 {
		return cli.Usagef("--data-samples and --rows take a count ≥ 0")
	}
	var tok *tokenize.Tokenizer
	if *processor != "" {
		var err error
		if tok, err = tokenize.Resolve(*processor, tokenize.ResolveOptions{Getenv: e.Getenv}); err != nil {
			return cli.Usagef("%s", run.OneLine(err))
		}
	}
	d, err := dataset.Open(fs.Arg(0), dataset.Options{Tokenizer: tok, Seed: uint64(*seed), Samples: *samples,
		Shuffle: *shuffle, ColumnMapper: *mapper, Trace: *replay})
	if err != nil {
		return cli.Usagef("%s", run.OneLine(err))
	}
	if sub == "inspect" {
		printInspection(e.Stdout, d.Inspect(rows))
		return nil
	}
	if _, finite := d.Source.(interface{ Len() int }); !finite {
		return cli.Usagef("%s never ends: give --data-samples N to convert N requests", fs.Arg(0))
	}
	return convertDataset(e, d, fs.Arg(1))
}

func convertDataset(e *cli.Env, d *dataset.Dataset, out string) error {
	w := e.Stdout
	var f *os.File
	if out != "-" {
		var err error
		if f, err = os.Create(out); err != nil {
			return cli.Usagef("%s", run.OneLine(err))
		}
		w = f
	}
	err := d.WriteJSONL(w)
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("writing %s: %s", out, run.OneLine(err))
	}
	if out != "-" {
		how := "--data " + out
		if d.Schedule != nil {
			how = "--rate-type replay " + how
		}
		fmt.Fprintf(e.Stderr, "goodput dataset: wrote %d requests to %s (read it back with %s)\n", d.Description.Requests, out, how)
	}
	return nil
}

func printInspection(w io.Writer, in dataset.Inspection) {
	d := in.Description
	fmt.Fprintf(w, "data      %s\n", d.String())
	if d.Path != "" {
		line := "source    " + d.Path
		if d.Format != "" {
			line += " (" + d.Format
			if d.Split != "" {
				line += ", split " + d.Split
			}
			line += ")"
		}
		if len(d.SHA256) >= 12 {
			line += " sha256 " + d.SHA256[:12] + "…"
		}
		fmt.Fprintln(w, line)
	}
	switch {
	case d.Skipped > 0 && d.TimestampUnit != "":
		fmt.Fprintf(w, "skipped   %d rows with 0 tokens (failed requests)\n", d.Skipped)
	case d.Skipped > 0:
		fmt.Fprintf(w, "skipped   %d conversations without a user turn\n", d.Skipped)
	}
	if len(in.Columns) > 0 {
		cols := make([]string, len(in.Columns))
		for i, c := range in.Columns {
			cols[i] = c.Name
			if c.Type != "" {
				cols[i] += " (" + c.Type + ")"
			}
		}
		fmt.Fprintf(w, "columns   %s\n", strings.Join(cols, ", "))
	}
	if len(d.Columns) > 0 {
		var m []string
		for _, role := range []string{"text_column", "raw_messages_column", "prefix_column", "timestamp_column", "prompt_tokens_count_column", "output_tokens_count_column", "hash_ids_column"} {
			if c, ok := d.Columns[role]; ok {
				m = append(m, role+"="+strconv.Quote(c))
			}
		}
		fmt.Fprintf(w, "mapping   %s\n", strings.Join(m, ", "))
	}
	if d.TimestampUnit != "" {
		fmt.Fprintf(w, "replay    timestamps in %s, span %s\n", d.TimestampUnit, d.Span.Round(time.Millisecond))
	}
	fmt.Fprintf(w, "\n%-14s %8s %9s %7s %7s %7s %7s %7s %7s\n", "tokens", "count", "mean", "min", "p10", "p50", "p90", "p99", "max")
	for _, r := range []struct {
		name string
		d    dataset.Distribution
	}{{"prompt", in.PromptTokens}, {"max_tokens", in.OutputTokens}} {
		if r.d.Count == 0 {
			note := "none set"
			if r.name == "prompt" {
				note = "unknown: give --processor to count them"
			}
			fmt.Fprintf(w, "%-14s %s\n", r.name, note)
			continue
		}
		fmt.Fprintf(w, "%-14s %8d %9.1f %7d %7d %7d %7d %7d %7d\n", r.name, r.d.Count, r.d.Mean, r.d.Min, r.d.P10, r.d.P50, r.d.P90, r.d.P99, r.d.Max)
	}
	if len(in.First) > 0 {
		fmt.Fprintf(w, "\nfirst %d requests as sent:\n", len(in.First))
	}
	for i, r := range in.First {
		printRequest(w, i, r, in.Offsets)
	}
}

func printRequest(w io.Writer, i int, r *loadgen.Request, offsets []time.Duration) {
	head := fmt.Sprintf("#%d", i)
	if i < len(offsets) {
		head += " at +" + offsets[i].String()
	}
	if r.PromptTokens >= 0 {
		head += fmt.Sprintf(" prompt_tokens=%d", r.PromptTokens)
	} else if r.TargetPromptTokens >= 0 {
		head += fmt.Sprintf(" prompt_tokens≈%d", r.TargetPromptTokens)
	}
	if r.MaxTokens >= 0 {
		head += fmt.Sprintf(" max_tokens=%d", r.MaxTokens)
	} else {
		head += " max_tokens unset"
	}
	fmt.Fprintln(w, "  "+head)
	for _, m := range r.Messages {
		fmt.Fprintf(w, "    %-7s %s\n", m.Role+":", abbreviate(m.Content, 160))
	}
}

// abbreviate shows the start of s on one line.
func abbreviate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return strconv.Quote(s)
	}
	return strconv.Quote(string(r[:n])) + fmt.Sprintf("… (%d more characters)", len(r)-n)
}
