package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/report"
)

// Several models (a LoRA adapter of the mock among them) and two
// replicas: every request goes to one, the report breaks each benchmark
// down by model and by target, and the breakdowns add up to the totals.
func TestBenchmarkSeveralModelsAndTargets(t *testing.T) {
	lora := func(c *mock.Config) {
		c.TTFT, c.ITL = 5*time.Millisecond, time.Millisecond
		c.LoRAModules = []mock.LoRAModule{{Name: "sql", Path: "/l/sql"}}
	}
	a, b := clitest.Mock(t, lora), clitest.Mock(t, lora)
	dir := t.TempDir()
	code, stdout, stderr := runGoodput(t, "benchmark", "--target", a+","+b, "--target-selection", "least_in_flight",
		"--model", "goodput-mock:3,sql:1", "--rate-type", "concurrent", "--rate", "4",
		"--data", "prompt_tokens=16,output_tokens=4", "--max-requests", "40", "--output-dir", dir, "--run-id", "mm",
		"--outputs", "json,jsonl,console,csv,aiperf", "--slo", "ttft=10s,error_rate=1%")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "By Model") || !strings.Contains(stdout, "By Target") {
		t.Fatalf("console has no breakdown:\n%s", stdout)
	}
	bm := clitest.ReadReport(t, filepath.Join(dir, "mm", "benchmarks.json")).Benchmarks[0]
	tot := *bm.Metrics.RequestTotals
	for name, groups := range map[string][]report.GroupFigures{"model": bm.Extras.ByModel, "target": bm.Extras.ByTarget} {
		var sum report.StatusCounts
		var out report.Int
		for _, g := range groups {
			if g.Requests.Successful == 0 {
				t.Fatalf("%s %s got no request", name, g.Name)
			}
			sum.Successful += g.Requests.Successful
			sum.Total += g.Requests.Total
			out += g.OutputTokens
		}
		if len(groups) != 2 || sum.Successful != tot.Successful || sum.Total != tot.Total || float64(out) != float64(bm.Metrics.OutputTokenCount.Successful.TotalSum) {
			t.Fatalf("%s: %+v do not add up to %+v", name, groups, tot)
		}
	}
	var good report.Int
	for _, g := range bm.Extras.ByModel {
		if g.Attainment == nil {
			t.Fatalf("model %s not judged", g.Name)
		}
		good += g.GoodRequests
	}
	if bm.Extras.SLO == nil || float64(good) != float64(bm.Extras.SLO.GoodRequests) {
		t.Fatalf("good requests by model add up to %v, the SLO says %+v", good, bm.Extras.SLO)
	}
	if m := bm.Extras.ByModel; m[0].Requests.Total <= m[1].Requests.Total {
		t.Fatalf("weights 3:1 sent %d and %d requests", m[0].Requests.Total, m[1].Requests.Total)
	}
	// The CSV and the AIPerf export carry the breakdowns too.
	csv, err := os.ReadFile(filepath.Join(dir, "mm", "benchmarks.csv"))
	if err != nil {
		t.Fatal(err)
	}
	ap, err := os.ReadFile(filepath.Join(dir, "mm", "profile_export_aiperf.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(csv), "Goodput Model sql") || !strings.Contains(string(csv), "Goodput Target "+b) ||
		!strings.Contains(string(ap), `"by_model"`) || !strings.Contains(string(ap), `"by_target"`) || !strings.Contains(string(ap), `{"name":"sql"}`) && !strings.Contains(string(ap), `"name": "sql"`) {
		t.Fatalf("CSV or AIPerf export without the breakdowns")
	}
	// A model no target serves is refused before any load.
	code, _, stderr = runGoodput(t, "benchmark", "--target", a+","+b, "--model", "goodput-mock,nope",
		"--data", "prompt_tokens=16,output_tokens=4", "--max-requests", "4", "--outputs", "console")
	if code == cli.ExitOK || !strings.Contains(stderr, `model "nope" is not served`) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

// Merged shard reports keep the breakdown by model: the merge
// re-accumulates the shards' records with the models their reports name,
// and the groups add up to the merged totals.
func TestMergeKeepsModelBreakdown(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	url := clitest.Mock(t, func(c *mock.Config) {
		c.TTFT, c.ITL = 5*time.Millisecond, time.Millisecond
		c.LoRAModules = []mock.LoRAModule{{Name: "sql", Path: "/l/sql"}}
	})
	dir := t.TempDir()
	sh := startShards(t, 2, func(at time.Time, out string) []string {
		return []string{"--target", url, "--model", "goodput-mock,sql", "--data", "prompt_tokens=16,output_tokens=4",
			"--rate-type", "concurrent", "--rate", "4", "--max-requests", "40", "--outputs", "json,jsonl", "--disable-progress",
			"--output-dir", out, "--run-id", "run", "--shard-count", "2", "--start-at", at.UTC().Format(time.RFC3339Nano)}
	})
	var shards []string
	for i := range 2 {
		shards = append(shards, filepath.Join(sh.dir, fmt.Sprintf("run-shard-%d-of-2", i), "benchmarks.json"))
	}
	merged := filepath.Join(dir, "merged.json")
	if code, _, stderr := runGoodput(t, append(append([]string{"merge"}, shards...), "-o", merged, "--disable-console")...); code != cli.ExitOK {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	b := clitest.ReadReport(t, merged).Benchmarks[0]
	var total report.Int
	for _, g := range b.Extras.ByModel {
		total += g.Requests.Total
	}
	if len(b.Extras.ByModel) != 2 || total != b.Metrics.RequestTotals.Total || total != 40 {
		t.Fatalf("merged breakdown %+v, totals %+v", b.Extras.ByModel, b.Metrics.RequestTotals)
	}
}

// The metadata probe asks every target, and warns when a replica runs
// another engine version.
func TestBenchmarkProbesEveryTarget(t *testing.T) {
	a := clitest.Mock(t, func(c *mock.Config) { c.TTFT, c.ITL, c.Version = time.Millisecond, time.Millisecond, "1.0.0" })
	b := clitest.Mock(t, func(c *mock.Config) { c.TTFT, c.ITL, c.Version = time.Millisecond, time.Millisecond, "2.0.0" })
	code, _, stderr := runGoodput(t, "benchmark", "--target", a+","+b, "--rate-type", "synchronous",
		"--data", "prompt_tokens=8,output_tokens=2", "--max-requests", "2", "--outputs", "console")
	if code != cli.ExitOK || !strings.Contains(stderr, "WARNING: target "+b+` runs engine version "2.0.0"`) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}
