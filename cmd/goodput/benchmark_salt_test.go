package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/report"
)

// --prompt-salt: the same text gives the same salt, recorded in the run
// metadata's data line; a rerun with the same seed and no salt is warned
// about as cache-warm, a salted one is not; data files are refused.
func TestBenchmarkPromptSalt(t *testing.T) {
	url := clitest.Mock(t, nil)
	dir := t.TempDir()
	bench := func(id string, extra ...string) (*report.Report, string) {
		t.Helper()
		args := append([]string{"benchmark", "--target", url, "--rate-type", "concurrent", "--rate", "2",
			"--data", "prompt_tokens=64,output_tokens=4", "--max-requests", "6", "--output-dir", dir, "--run-id", id, "--outputs", "json"}, extra...)
		code, _, stderr := runGoodput(t, args...)
		if code != cli.ExitOK {
			t.Fatalf("%s: exit %d: %s", id, code, stderr)
		}
		rep, err := report.Read(filepath.Join(dir, id, "benchmarks.json"))
		if err != nil {
			t.Fatal(err)
		}
		return rep, stderr
	}
	if _, stderr := bench("cold"); strings.Contains(stderr, "prompt cache:") {
		t.Errorf("first run warns:\n%s", stderr)
	}
	rep, stderr := bench("warm")
	if !strings.Contains(stderr, "WARNING: prompt cache:") || len(rep.Run.Notes) != 1 || !strings.Contains(rep.Run.Notes[0], "--prompt-salt auto") {
		t.Errorf("same-seed rerun: notes %q, stderr:\n%s", rep.Run.Notes, stderr)
	}
	rep, stderr = bench("salted", "--prompt-salt", "second")
	if strings.Contains(stderr, "prompt cache:") || len(rep.Run.Notes) != 0 {
		t.Errorf("salted rerun: notes %q, stderr:\n%s", rep.Run.Notes, stderr)
	}
	md := rep.Run.Metadata
	if md == nil || !strings.Contains(md.Data, ", prompt salt ") {
		t.Errorf("metadata %+v does not record the salt", md)
	}
	if pc := rep.Benchmarks[0].Extras.PromptCache; pc == nil || pc.Requests != 6 || pc.CachedTokens != 0 {
		t.Errorf("salted rerun: prompt cache %+v", pc)
	}

	data := filepath.Join(dir, "prompts.jsonl")
	if err := os.WriteFile(data, []byte(`{"prompt":"hello"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runGoodput(t, "benchmark", "--target", url, "--data", data, "--prompt-salt", "auto", "--max-requests", "1")
	if code != cli.ExitUsage || !strings.Contains(stderr, "--prompt-salt: applies to synthetic data and traces, not to json_file") {
		t.Errorf("file data: exit %d: %s", code, stderr)
	}
}
