package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/aiperf"
	"github.com/goodput-dev/goodput/run"
)

// runGoodput executes goodput with args and returns its exit code, stdout and
// stderr.
func runGoodput(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := realMain(args, &cli.Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""), Getenv: func(string) string { return "" }})
	return code, out.String(), errb.String()
}

func TestBenchmarkInvalidFlagsExitTwo(t *testing.T) {
	base := []string{"benchmark", "--target", "http://127.0.0.1:1", "--rate-type", "concurrent", "--rate", "2",
		"--data", "prompt_tokens=8,output_tokens=4", "--max-seconds", "1"}
	with := func(extra ...string) []string { return append(append([]string{}, base...), extra...) }
	cases := []struct {
		name string
		args []string
		want string // part of the one-line message
	}{
		{"unknown flag", with("--bogus"), "unknown flag: --bogus"},
		{"missing target", []string{"benchmark", "--data", "prompt_tokens=8", "--rate-type", "synchronous", "--max-seconds", "1"}, "--target is required"},
		{"bad target", with("--target", "localhost:8000"), "--target"},
		{"missing data", []string{"benchmark", "--target", "http://x", "--rate-type", "synchronous", "--max-seconds", "1"}, "--data is required"},
		{"bad data key", with("--data", "promt_tokens=8"), `unknown key "promt_tokens"`},
		{"bad data value", with("--data", "prompt_tokens=abc"), "prompt_tokens"},
		{"bad rate type", with("--rate-type", "fast"), `--rate-type "fast"`},
		{"missing rate", with("--rate-type", "constant", "--rate", ""), "needs --rate"},
		{"bad rate", with("--rate", "x"), "--rate"},
		{"fractional streams", with("--rate", "2.5"), "whole numbers"},
		{"zero rate", with("--rate-type", "poisson", "--rate", "0"), "> 0"},
		{"rate with synchronous", with("--rate-type", "synchronous"), "not used with"},
		{"negative seconds", with("--max-seconds", "-1"), "--max-seconds"},
		{"no end", []string{"benchmark", "--target", "http://x", "--rate-type", "synchronous", "--data", "prompt_tokens=8"}, "--max-seconds or --max-requests"},
		{"error rate", with("--max-error-rate", "1.5"), "--max-error-rate"},
		{"warmup", with("--warmup", "soon"), "--warmup"},
		{"cooldown", with("--cooldown", "-3"), "--cooldown"},
		{"outputs", with("--outputs", "json,pdf"), `unknown output "pdf"`},
		{"request type", with("--request-type", "images"), "--request-type"},
		{"label", with("--label", "novalue"), "--label"},
		{"header", with("--header", "NoColon"), "--header"},
		{"extra body", with("--extra-body", "[1]"), "--extra-body"},
		{"backend args key", with("--backend-args", `{"nope":1}`), `unsupported key "nope"`},
		{"backend args type", with("--backend-args", `{"verify":"yes"}`), `key "verify"`},
		{"backend type", with("--backend-type", "vllm_python"), "openai_http"},
		{"max tokens field", with("--max-tokens-field", "limit"), "--max-tokens-field"},
		{"log format", with("--log-format", "xml"), "--log-format"},
		{"run id", with("--run-id", "../escape"), "--run-id"},
		{"duration flag", with("--stall-timeout", "soon"), "--stall-timeout"},
		{"ca file", with("--ca-file", "/nonexistent/ca.pem"), "--ca-file"},
		{"throughput rates", with("--rate-type", "throughput", "--rate", "1,2"), "one --rate"},
		{"stray argument", with("extra"), `unexpected argument "extra"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runGoodput(t, c.args...)
			if code != cli.ExitUsage {
				t.Fatalf("exit %d, want %d; stderr %q", code, cli.ExitUsage, stderr)
			}
			if strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 || !strings.Contains(stderr, c.want) {
				t.Fatalf("stderr %q: want one line containing %q", stderr, c.want)
			}
		})
	}
}

func TestUnreachableTargetFailsFastWithURL(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	code, _, stderr := runGoodput(t, "benchmark", "--target", "http://127.0.0.1:1", "--rate-type", "synchronous",
		"--data", "prompt_tokens=8", "--max-seconds", "1", "--output-dir", dir)
	if code != cli.ExitFailure || !strings.Contains(stderr, "127.0.0.1:1") || !strings.Contains(stderr, "refused") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("took %v", time.Since(start))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("an unreachable target left files: %v", entries)
	}
}

func TestBenchmarkEndToEnd(t *testing.T) {
	url := clitest.Mock(t, nil)
	dir := t.TempDir()
	code, stdout, stderr := runGoodput(t, "benchmark", "--target", url, "--rate-type", "concurrent", "--rate", "2,4",
		"--data", "prompt_tokens=16,output_tokens=8", "--max-requests", "12", "--output-dir", dir, "--run-id", "r1",
		"--api-key", "sk-SENTINEL-key", "--label", "env=test")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "concurrent 2") || !strings.Contains(stdout, "concurrent 4") {
		t.Fatalf("summary table missing rounds:\n%s", stdout)
	}
	rep, err := report.Read(filepath.Join(dir, "r1", "benchmarks.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Benchmarks) != 2 {
		t.Fatalf("%d benchmarks", len(rep.Benchmarks))
	}
	for _, b := range rep.Benchmarks {
		if got := b.Metrics.RequestTotals.Successful; got != 12 {
			t.Fatalf("successful %v, want 12", got)
		}
	}
	// Every request is in the JSON Lines file.
	f, err := os.Open(filepath.Join(dir, "r1", "requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := record.NewDecoder(f, "requests.jsonl")
	n := 0
	for r := record.New(); dec.Decode(r) == nil; n++ {
		if r.Status != record.StatusSuccessful || r.OutputTokens != 8 {
			t.Fatalf("record %+v", r)
		}
	}
	if n != 24 {
		t.Fatalf("%d records, want 24", n)
	}
	// The API key appears nowhere.
	for _, name := range []string{"benchmarks.json", "benchmarks.csv", "requests.jsonl"} {
		b, err := os.ReadFile(filepath.Join(dir, "r1", name))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("sk-SENTINEL")) {
			t.Fatalf("%s contains the API key", name)
		}
	}
	if strings.Contains(stdout+stderr, "sk-SENTINEL") {
		t.Fatal("console output contains the API key")
	}
	// The same run id is refused without --force.
	code, _, stderr = runGoodput(t, "benchmark", "--target", url, "--rate-type", "synchronous",
		"--data", "prompt_tokens=16,output_tokens=8", "--max-requests", "1", "--output-dir", dir, "--run-id", "r1")
	if code != cli.ExitUsage || !strings.Contains(stderr, "already exists") {
		t.Fatalf("rerun: exit %d, %q", code, stderr)
	}
}

func TestInterruptWritesPartialReport(t *testing.T) {
	url := clitest.Mock(t, func(c *mock.Config) { c.TTFT = 50 * time.Millisecond })
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(700*time.Millisecond, cancel)
	var out, errb bytes.Buffer
	e := &cli.Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""), Getenv: func(string) string { return "" }}
	start := time.Now()
	err := cli.Benchmark(ctx, e, []string{"--target", url, "--rate-type", "concurrent", "--rate", "4,8",
		"--data", "prompt_tokens=8,output_tokens=64", "--max-seconds", "30", "--output-dir", dir, "--run-id", "int"})
	if err != run.ErrInterrupted {
		t.Fatalf("err %v, want run.ErrInterrupted; stderr %s", err, errb.String())
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("interrupt took %v to finish", took)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "int", "benchmarks.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(raw) {
		t.Fatal("partial report is not valid JSON")
	}
	rep, err := report.Read(filepath.Join(dir, "int", "benchmarks.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Benchmarks) != 1 || rep.Benchmarks[0].Extras.StopReason != "interrupted" {
		t.Fatalf("want one benchmark stopped by the interrupt, got %d", len(rep.Benchmarks))
	}
	if rep.Run == nil || !rep.Run.Interrupted || rep.Run.RunID != "int" {
		t.Fatalf("run extras %+v: want interrupted", rep.Run)
	}
}

func TestConsoleOnlyRunWritesNoFiles(t *testing.T) {
	url := clitest.Mock(t, nil)
	dir := filepath.Join(t.TempDir(), "never")
	code, stdout, stderr := runGoodput(t, "benchmark", "--target", url, "--rate-type", "synchronous",
		"--data", "prompt_tokens=8,output_tokens=4", "--max-requests", "2", "--outputs", "console", "--output-dir", dir)
	if code != cli.ExitOK || !strings.Contains(stdout, "synchronous") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("console-only run created %s", dir)
	}
}

// TestQuietFlags: --disable-console-outputs prints no summary table (the
// files are still written) and --disable-progress, off a terminal, logs
// each benchmark's start and end but no periodic progress line.
func TestQuietFlags(t *testing.T) {
	url := clitest.Mock(t, func(c *mock.Config) { c.TTFT = 20 * time.Millisecond })
	cases := []struct {
		name            string
		flags           []string
		table, progress bool
	}{
		{"default", nil, true, true},
		{"--disable-console-outputs", []string{"--disable-console-outputs"}, false, true},
		{"--disable-progress", []string{"--disable-progress"}, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"benchmark", "--target", url, "--rate-type", "concurrent", "--rate", "2",
				"--data", "prompt_tokens=8,output_tokens=8", "--max-seconds", "0.6", "--output-dir", dir, "--run-id", "r",
				"--server-metrics", "off", "--progress-interval", "100ms", "--log-format", "json"}, tc.flags...)
			code, stdout, stderr := runGoodput(t, args...)
			if code != cli.ExitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if got := strings.Contains(stdout, "Requests and throughput"); got != tc.table {
				t.Fatalf("summary table printed %v, want %v:\n%s", got, tc.table, stdout)
			}
			if got := strings.Contains(stderr, `"msg":"progress"`); got != tc.progress {
				t.Fatalf("progress lines %v, want %v:\n%s", got, tc.progress, stderr)
			}
			if !strings.Contains(stderr, `"msg":"benchmark finished`) {
				t.Fatalf("no end-of-benchmark line:\n%s", stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "r", "benchmarks.json")); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestOutputsAIPerf: --outputs aiperf writes AIPerf's export per
// benchmark in the run directory (one subdirectory per benchmark, AIPerf's
// sweep layout), computed from the request records: request_count is the
// benchmark's successful requests.
func TestOutputsAIPerf(t *testing.T) {
	url := clitest.Mock(t, nil)
	dir := t.TempDir()
	code, _, stderr := runGoodput(t, "benchmark", "--target", url, "--rate-type", "concurrent", "--rate", "2,4",
		"--data", "prompt_tokens=8,output_tokens=8", "--max-requests", "10", "--output-dir", dir, "--run-id", "r",
		"--outputs", "json,jsonl,aiperf", "--server-metrics", "off")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, sub := range []string{"concurrency_2", "concurrency_4"} {
		path := filepath.Join(dir, "r", sub, "profile_export_aiperf.json")
		f, err := os.Open(path)
		if err != nil {
			t.Fatalf("%v (stderr: %s)", err, stderr)
		}
		x, err := aiperf.Read(f, path)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := x.Metric("request_count"); got == nil || got.Avg == nil || *got.Avg != 10 {
			t.Fatalf("%s: request_count %+v, want 10", path, got)
		}
		if _, err := os.Stat(strings.TrimSuffix(path, ".json") + ".csv"); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLogFormatJSON: with --log-format json, stderr is JSON Lines from
// start to end (the metadata table, telemetry notes, warnings and the
// files written included), ending with a "run finished" line.
func TestLogFormatJSON(t *testing.T) {
	url := clitest.Mock(t, nil)
	dir := t.TempDir()
	code, _, stderr := runGoodput(t, "benchmark", "--target", url, "--rate-type", "concurrent", "--rate", "2",
		"--data", "prompt_tokens=8,output_tokens=8", "--max-requests", "6", "--output-dir", dir, "--run-id", "r",
		"--log-format", "json", "--dcgm-url", url+"/dcgm/metrics", "--gpu-cost-per-hour", "2", "--gpus", "1")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("stderr line is not JSON: %q", l)
		}
	}
	var last struct {
		Msg   string `json:"msg"`
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Msg != "run finished" || last.RunID != "r" {
		t.Fatalf("last line %q: want the run finished line", lines[len(lines)-1])
	}
	if !strings.Contains(stderr, `"msg":"wrote `) || !strings.Contains(stderr, `telemetry: `) {
		t.Fatalf("the diagnostics are missing:\n%s", stderr)
	}
}
