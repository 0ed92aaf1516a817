package main

import (
	"bufio"
	"context"

	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/run"
	"github.com/goodput-dev/goodput/tokenize"
)

// runTokenize implements `goodput tokenize`: token counts (and ids) of
// texts with the model's own tokenizer, offline.
func runTokenize(_ context.Context, e *cli.Env, args []string) error {
	fs := cli.NewFlagSet("tokenize", "tokenize --processor X [--ids] [--format auto|text|jsonl] [FILE...]  (stdin without FILE)", e.Stdout)
	processor := fs.String("processor", "", "tokenizer: a tokenizer.json path, a directory holding one, a local Hugging Face id, or o200k_base/cl100k_base (required)")
	fs.StringVar(processor, "tokenizer", "", "alias of --processor")
	_ = fs.MarkHidden("tokenizer")
	ids := fs.Bool("ids", false, "print the token ids too: count, a tab, then a JSON array")
	format := fs.String("format", "auto", "input format: text (the whole input is one text), jsonl (one JSON object with a \"text\" field per line), or auto (.jsonl files and input starting with '{' are JSON Lines)")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if *processor == "" {
		return cli.Usagef("--processor is required, e.g. --processor o200k_base or --processor ./tokenizer.json")
	}
	if *format != "auto" && *format != "text" && *format != "jsonl" {
		return cli.Usagef("--format %q: want auto, text or jsonl", *format)
	}
	tok, err := tokenize.Resolve(*processor, tokenize.ResolveOptions{Getenv: e.Getenv})
	if err != nil {
		return cli.Usagef("%s", run.OneLine(err))
	}
	if fs.NArg() == 0 {
		in := bufio.NewReader(e.Stdin)
		jsonl := *format == "jsonl"
		if *format == "auto" {
			jsonl = startsWithBrace(in)
		}
		if err := tokenize.RunCount(tok, in, e.Stdout, *ids, jsonl); err != nil {
			return cli.Usagef("stdin: %s", run.OneLine(err))
		}
		return nil
	}
	for _, path := range fs.Args() {
		f, err := os.Open(path)
		if err != nil {
			return cli.Usagef("%s", run.OneLine(err))
		}
		in := bufio.NewReader(f)
		jsonl := *format == "jsonl" || (*format == "auto" && (strings.EqualFold(filepath.Ext(path), ".jsonl") || startsWithBrace(in)))
		err = tokenize.RunCount(tok, in, e.Stdout, *ids, jsonl)
		f.Close()
		if err != nil {
			return cli.Usagef("%s: %s", path, run.OneLine(err))
		}
	}
	return nil
}

// startsWithBrace peeks at the first non-space byte.
func startsWithBrace(r *bufio.Reader) bool {
	for n := 1; n <= 4096; n++ {
		b, err := r.Peek(n)
		if err != nil && err != io.EOF && len(b) < n {
			return false
		}
		if len(b) < n {
			return false
		}
		switch c := b[n-1]; c {
		case ' ', '\t', '\r', '\n':
			continue
		default:
			return c == '{'
		}
	}
	return false
}
