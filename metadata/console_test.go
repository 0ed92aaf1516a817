package metadata

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/goodput-dev/goodput/report"
)

var update = flag.Bool("update", false, "rewrite testdata's golden console blocks")

// consoleMetadata is make demo's run metadata, with a file data source,
// a missing field and the long notes a run without a GPU prints.
func consoleMetadata() (*report.RunMetadata, []string) {
	md := &report.RunMetadata{
		Engine: "goodput-mock", EngineVersion: "0.1.0", Model: "goodput-mock", Precision: "bf16",
		Tokenizer: "o200k_base", TokenizerHash: "sha256:446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
		ISLTokens: 256, OSLTokens: 128, Hardware: "mock-L4", GoodputVersion: "c84f4af", GoodputCommit: "c84f4af",
		SLO: "ttft_p90=500ms,itl_p90=50ms", Warmup: "1s", RunID: "20261206T051520-8f8cbb",
		Data: "synthetic_text prompt_tokens=64,output_tokens=32,prefix_tokens=1536,prefix_count=100,turns=4,turn_prompt_tokens=64 " +
			"(exact, o200k_base) from /home/someone/benchmarks/datasets/conversations/long-system-prompts-2026-12-01.jsonl: " +
			"unbounded sessions, prompt tokens mean 1600.0 [1600, 1600], output tokens mean 32.0 [32, 32]",
		Labels: map[string]string{"team": "inference-platform"},
		Sources: map[string]string{
			FieldEngine: `GET /v1/models owned_by "goodput"`, FieldEngineVersion: "GET /version", FieldModel: "GET /v1/models id",
			FieldPrecision: "--label", FieldTokenizer: "--processor", FieldTokenizerHash: "--processor", FieldISL: "--data",
			FieldOSL: "--data", FieldHardware: "--label", FieldGoodputVersion: "build (main.version)",
			FieldGoodputCommit: "build (main.commit)", FieldSLO: "--slo", FieldWarmup: "--warmup",
			FieldRunID: "generated (UTC time and configuration hash)",
		},
		Missing: []string{FieldModelRevision},
	}
	notes := []string{"GET /props: HTTP 404",
		"hardware: no GPU found on this host (NVML support not built in (build with -tags nvml); nvidia-smi not found in PATH)"}
	return md, notes
}

// TestWriteTextWidth: the block in 80 and 100 columns against its golden
// file (go test ./metadata -update rewrites them); no line is wider, and
// with no limit every field keeps one line with its source.
func TestWriteTextWidth(t *testing.T) {
	md, notes := consoleMetadata()
	for _, cols := range []int{80, 100} {
		var b strings.Builder
		if err := WriteTextWidth(&b, md, notes, cols); err != nil {
			t.Fatal(err)
		}
		got := b.String()
		for i, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
			if n := utf8.RuneCountInString(line); n > cols {
				t.Errorf("%d columns: line %d is %d wide: %s", cols, i+1, n, line)
			}
		}
		path := filepath.Join("testdata", fmt.Sprintf("console.%d.txt", cols))
		if *update {
			if err := os.MkdirAll("testdata", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./metadata -run TestWriteTextWidth -update writes it)", err)
		}
		if got != string(want) {
			t.Errorf("%d columns differs from %s (-update to accept):\n%s", cols, path, got)
		}
	}
	var b strings.Builder
	if err := WriteTextWidth(&b, md, notes, 0); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  tokenizer_hash   " + md.TokenizerHash + " --processor\n",
		"  run_id           20261206T051520-8f8cbb      generated (UTC time and configuration hash)\n",
		"  data             " + md.Data + "\n",
		"  model_revision   MISSING  set --label model_revision=COMMIT (the Hugging Face revision of the weights)\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("with no limit the block lacks %q:\n%s", want, b.String())
		}
	}
}
