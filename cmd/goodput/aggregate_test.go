package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/goodput-dev/goodput/cli"
)

const articleDir = "../../scorecard/testdata/article"

// TestAggregateArticle is the golden test through the command: the
// five article configurations under TTFT P99 ≤ 500 ms and ITL P95 ≤ 50 ms
// give the frontier {C, D}; C dominates B and A (D dominates A too), E
// breaks the SLO on both objectives.
func TestAggregateArticle(t *testing.T) {
	code, out, errOut := runGoodput(t, "aggregate", "--slo", "ttft_p99=500ms,itl_p95=50ms", articleDir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("stdout is not CSV: %v\n%s", err, out)
	}
	if len(recs) != 6 {
		t.Fatalf("%d CSV records, want header + 5", len(recs))
	}
	status := map[string]string{}
	reason := map[string]string{}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, r := range recs[1:] {
		status[r[col["run_id"]]] = r[col["pareto.status"]]
		reason[r[col["run_id"]]] = r[col["pareto.reason"]]
	}
	want := map[string]string{"A": "dominated", "B": "dominated", "C": "frontier", "D": "frontier", "E": "breaks_slo"}
	for k, v := range want {
		if status[k] != v {
			t.Errorf("%s: %s (%s), want %s", k, status[k], reason[k], v)
		}
	}
	if !strings.HasPrefix(reason["B"], "dominated by C (") || !strings.HasPrefix(reason["A"], "dominated by C, D (") {
		t.Errorf("reasons A %q, B %q", reason["A"], reason["B"])
	}
	if reason["E"] != "breaks the SLO: TTFT P99 721 > 500 ms, ITL P95 55 > 50 ms" {
		t.Errorf("E: %q", reason["E"])
	}
	for _, s := range []string{"SLO (--slo ttft_p99=500ms,itl_p95=50ms)", "frontier: {C, D}"} {
		if !strings.Contains(errOut, s) {
			t.Errorf("table (stderr) lacks %q:\n%s", s, errOut)
		}
	}
}

func TestAggregateOutputFile(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "scorecard-aggregate.csv")
	code, out, errOut := runGoodput(t, "aggregate", "-o", dst, articleDir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "frontier: {C, D}") || !strings.Contains(out, "each run's own SLO") {
		t.Errorf("table on stdout:\n%s", out)
	}
	b, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n != 6 || !strings.HasPrefix(string(b), "run_id,metadata.scorecard_version,") {
		t.Errorf("%d lines:\n%.200s", n, b)
	}
	if !strings.Contains(errOut, "wrote "+dst+" (5 runs)") {
		t.Errorf("stderr %q", errOut)
	}
}

func TestAggregateErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"aggregate"}, cli.ExitUsage, "give a results directory"},
		{[]string{"aggregate", "--slo", "ttft_p90=1s", articleDir}, cli.ExitUsage, "objective ttft_p90 cannot be judged"},
		{[]string{"aggregate", "--slo", "fast", articleDir}, cli.ExitUsage, "--slo"},
		{[]string{"aggregate", "no/such/dir"}, cli.ExitFailure, "no/such/dir"},
		{[]string{"aggregate", t.TempDir()}, cli.ExitFailure, "no scorecard-*.json or report found"},
	} {
		code, _, errOut := runGoodput(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d %q, want %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}

// TestAggregateReportWithoutScorecard: a run directory holding only a
// goodput report contributes a row built from the report.
func TestAggregateReportWithoutScorecard(t *testing.T) {
	target := clitest.Mock(t, nil)
	results := t.TempDir()
	code, _, errOut := runGoodput(t, "benchmark", "--target", target, "--rate-type", "concurrent", "--rate", "2",
		"--data", "prompt_tokens=8,output_tokens=4", "--max-requests", "10", "--output-dir", results, "--run-id", "plain",
		"--outputs", "json", "--disable-progress")
	if code != 0 {
		t.Fatalf("benchmark exit %d: %s", code, errOut)
	}
	// A stray JSON file that is no report is skipped with a warning.
	if err := os.WriteFile(filepath.Join(results, "plain", "notes.json"), []byte(`{"x": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runGoodput(t, "aggregate", "--no-table", results)
	if code != 0 {
		t.Fatalf("aggregate exit %d: %s", code, errOut)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) != 2 {
		t.Fatalf("CSV %v:\n%s", err, out)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	r := recs[1]
	if r[col["run_id"]] != "plain" || r[col["performance.goodput_tok_s"]] == "" || r[col["cost.cpm_eur_1m"]] != "" ||
		!strings.Contains(r[col["metadata.missing_axes.energy"]], "no energy source") {
		t.Errorf("row %v", r)
	}
	for _, s := range []string{"no scorecard; its row was built from the report", "notes.json: skipped"} {
		if !strings.Contains(errOut, s) {
			t.Errorf("stderr lacks %q:\n%s", s, errOut)
		}
	}
}
