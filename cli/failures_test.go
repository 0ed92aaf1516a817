package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/run"
)

// A --target with the endpoint's path (GuideLLM appends it, as goodput
// does): every request gets HTTP 404 from the path doubled. The run
// writes its report, prints the most common error with the hint to give
// the base URL, and exits 4; --allow-all-errors exits 0 as GuideLLM does.
// (AIPerf's full --url form is taken apart instead: TestAIPerfDocForms.)
func TestAll404ExitsNoSuccessWithHint(t *testing.T) {
	base := clitest.Mock(t, nil)
	dir := t.TempDir()
	args := []string{"benchmark", "--model", "goodput-mock", "--target", base + "/v1/chat/completions",
		"--rate-type", "concurrent", "--rate", "2", "--max-requests", "6", "--data", "prompt_tokens=8,output_tokens=4",
		"--outputs", "json", "--output-dir", dir, "--run-id", "r", "--disable-progress"}
	code, _, stderr := runGoodput(t, args...)
	want := "every request got HTTP 404 from " + base + "/v1/chat/completions/v1/chat/completions"
	if code != ExitNoSuccess || !strings.Contains(stderr, want) || !strings.Contains(stderr, "give the base URL ("+base+"): goodput appends /v1/chat/completions") {
		t.Fatalf("exit %d, want %d with %q and the hint; stderr:\n%s", code, ExitNoSuccess, want, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "r", "benchmarks.json")); err != nil {
		t.Errorf("the report was not written: %v\n%s", err, stderr)
	}
	code, _, stderr = runGoodput(t, append(args[:len(args):len(args)], "--allow-all-errors", "--output-dir", t.TempDir())...)
	if code != ExitOK || strings.Contains(stderr, "every request got") {
		t.Errorf("--allow-all-errors: exit %d, stderr:\n%s", code, stderr)
	}
}

// Two runs of one command started at once, with --output-path files in
// one directory, keep both their reports and both their scorecards (the
// run id of one that started in the same second gets a suffix).
func TestSimultaneousRunsKeepTheirFiles(t *testing.T) {
	url := clitest.Mock(t, nil)
	dir := t.TempDir()
	var wg sync.WaitGroup
	codes, errs := make([]int, 2), make([]string, 2)
	for i := range codes {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			codes[i], _, errs[i] = runGoodput(t, "benchmark", "--target", url, "--data", "prompt_tokens=8,output_tokens=4",
				"--rate-type", "synchronous", "--max-requests", "2", "--outputs", "json,scorecard", "--server-metrics", "off",
				"--disable-progress", "--output-path", filepath.Join(dir, fmt.Sprintf("run%d.json", i)))
		}(i)
	}
	wg.Wait()
	for i := range codes {
		if codes[i] != ExitOK {
			t.Fatalf("run %d: exit %d: %s", i, codes[i], errs[i])
		}
	}
	cards, _ := filepath.Glob(filepath.Join(dir, "scorecard-*.json"))
	reports, _ := filepath.Glob(filepath.Join(dir, "run*.json"))
	if len(cards) != 2 || len(reports) != 2 {
		t.Fatalf("scorecards %v and reports %v: want two of each", cards, reports)
	}
	ids := map[string]bool{}
	for _, p := range reports {
		rep, err := report.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		ids[rep.Run.RunID] = true
		if _, err := os.Stat(filepath.Join(dir, "scorecard-"+rep.Run.RunID+".json")); err != nil {
			t.Errorf("%s: its scorecard: %v", p, err)
		}
	}
	if len(ids) != 2 {
		t.Errorf("run ids %v: want two", ids)
	}
}

// A run whose outputs the disk had no room for exits 6 after naming, one
// line each, what it could not write.
func TestExitCodeOutputsLost(t *testing.T) {
	var b strings.Builder
	err := fmt.Errorf("run: %w", &run.OutputsLostError{Lines: []string{"out/requests.jsonl: 7 records lost from the first failed write on (…)"}})
	if code := ExitCode(&b, "benchmark", err); code != 6 {
		t.Fatalf("exit %d, want 6", code)
	}
	want := "goodput benchmark: out/requests.jsonl: 7 records lost from the first failed write on (…)\n" +
		"goodput benchmark: outputs incomplete; what was written is valid (exit 6)\n"
	if b.String() != want {
		t.Errorf("stderr:\n%s\nwant\n%s", b.String(), want)
	}
}
