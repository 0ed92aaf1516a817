package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/cli"
)

func TestDatasetInspect(t *testing.T) {
	code, out, stderr := runGoodput(t, "dataset", "inspect", "--replay", "--rows", "2", "../../dataset/testdata/burstgpt.csv")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"trace_synthetic ../../dataset/testdata/burstgpt.csv (approximate): 3 requests",
		"skipped   1 rows with 0 tokens (failed requests)",
		`mapping   timestamp_column="Timestamp", prompt_tokens_count_column="Request tokens", output_tokens_count_column="Response tokens"`,
		"prompt                3     306.3      30      30     417     472     472     472",
		"#1 at +2.5s prompt_tokens≈30 max_tokens=12",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runGoodput(t, "dataset", "inspect", "--processor", "o200k_base", "../../dataset/testdata/sharegpt.json")
	if code != cli.ExitOK || !strings.Contains(out, "columns   id (string), conversations (list)") || !strings.Contains(out, `system: "You are a terse assistant."`) {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

func TestDatasetConvert(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "azure.jsonl")
	code, _, stderr := runGoodput(t, "dataset", "convert", "--replay", "../../dataset/testdata/azure2023.csv", out)
	if code != cli.ExitOK || !strings.Contains(stderr, "wrote 3 requests to "+out+" (read it back with --rate-type replay --data "+out+")") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"timestamp":0,"input_length":374,"output_length":44}
{"timestamp":4314.579,"input_length":396,"output_length":109}
{"timestamp":4569.41,"input_length":879,"output_length":31}
`
	if string(b) != want {
		t.Fatalf("converted:\n%s\nwant:\n%s", b, want)
	}
	code, stdout, stderr := runGoodput(t, "dataset", "convert", "--data-samples", "2", "prompt_tokens=3,output_tokens=2", "-")
	if code != cli.ExitOK || strings.Count(stdout, "\n") != 2 || !strings.Contains(stdout, `"output_tokens_count":2`) {
		t.Fatalf("exit %d: %q %s", code, stdout, stderr)
	}
}

func TestDatasetErrors(t *testing.T) {
	good := "../../dataset/testdata/prompts.csv"
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "give inspect or convert"},
		{[]string{"check", good}, `unknown subcommand "check"`},
		{[]string{"inspect"}, "dataset inspect takes DATA (got 0 arguments)"},
		{[]string{"convert", good}, "dataset convert takes DATA OUT.jsonl"},
		{[]string{"inspect", "allenai/c4"}, "goodput reads only local copies of Hugging Face datasets"},
		{[]string{"convert", "prompt_tokens=5", "-"}, "never ends: give --data-samples N"},
		{[]string{"inspect", "--rows", "x", good}, "--rows"},
		{[]string{"inspect", "--rows", "-1", good}, "--rows"},
		{[]string{"inspect", "--data-samples", "-2", good}, "--data-samples"},
		{[]string{"inspect", "--data-column-mapper", "{bad", good}, "--data-column-mapper"},
		{[]string{"inspect", "--data-column-mapper", `{"text_column":"nope"}`, good}, "--data-column-mapper"},
		{[]string{"inspect", "--processor", "/nonexistent/tokenizer.json", good}, "--processor"},
		{[]string{"inspect", "--random-seed", "x", good}, "--random-seed"},
		{[]string{"inspect", "--replay=maybe", good}, "--replay"},
		{[]string{"inspect", "--data-shuffle=maybe", good}, "--data-shuffle"},
		{[]string{"convert", "--rows", "2", good, "-"}, "--rows"},
	} {
		code, _, stderr := runGoodput(t, append([]string{"dataset"}, c.args...)...)
		msg := strings.TrimRight(stderr, "\n")
		if code != cli.ExitUsage || strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "goodput dataset: ") || !strings.Contains(msg, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and one line with %q", c.args, code, stderr, c.want)
		}
	}
}
