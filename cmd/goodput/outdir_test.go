package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/goodput-dev/goodput/cli"
)

// Output directory failures: the run directory is resolved and proved
// writable before any load, so a run that cannot write its report fails
// before the first completion request reaches the server, with one line
// naming the directory.

// outdirArgs is a small benchmark against target writing run "r".
func outdirArgs(target string, extra ...string) []string {
	return append([]string{"benchmark", "--target", target, "--data", "prompt_tokens=8,output_tokens=4",
		"--rate-type", "synchronous", "--max-requests", "2", "--server-metrics", "off", "--run-id", "r"}, extra...)
}

// lastLine is the last non-empty line of s (goodput prints the run
// metadata before it resolves the output directory; the error is last).
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// expectRefusedBeforeLoad runs args and checks the run failed with exit
// code wantCode and a last line naming want (the directory) and the
// cause, and that no completion request reached the mock.
func expectRefusedBeforeLoad(t *testing.T, srv *connServer, wantCode int, want, cause string, args ...string) {
	t.Helper()
	code, _, stderr := runGoodput(t, args...)
	if code != wantCode {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, wantCode, stderr)
	}
	last := lastLine(stderr)
	if !strings.HasPrefix(last, "goodput benchmark: ") || !strings.Contains(last, want) || !strings.Contains(last, cause) {
		t.Fatalf("last line %q: want the error naming %s (%s)", last, want, cause)
	}
	if st := srv.mock.Stats(); st.Requests != 0 || st.Rejected != 0 {
		t.Fatalf("the server got %d completion requests before the run failed", st.Requests+st.Rejected)
	}
}

func TestOutputDirFailures(t *testing.T) {
	srv := startMockServer(t, nil)
	tmp := t.TempDir()
	file := filepath.Join(tmp, "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	runAsFile := filepath.Join(tmp, "runfile")
	if err := os.MkdirAll(runAsFile, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runAsFile, "r"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, want, cause string
		code              int
		args              []string
	}{
		{"output dir under a file", filepath.Join(file, "results", "r"), "not a directory", cli.ExitFailure,
			[]string{"--output-dir", filepath.Join(file, "results")}},
		{"output dir is a file", filepath.Join(file, "r"), "not a directory", cli.ExitFailure,
			[]string{"--output-dir", file}},
		{"run dir is a file", runAsFile, "already exists", cli.ExitUsage,
			[]string{"--output-dir", runAsFile}},
		{"run dir is a file with --force", filepath.Join(runAsFile, "r"), "not a directory", cli.ExitFailure,
			[]string{"--output-dir", runAsFile, "--force"}},
		{"output path under a file", "--output-path: mkdir " + file, "not a directory", cli.ExitFailure,
			[]string{"--output-path", filepath.Join(file, "run.json")}},
		{"output path not .json", "run.txt", "want a .json file", cli.ExitUsage,
			[]string{"--output-path", filepath.Join(tmp, "run.txt")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			expectRefusedBeforeLoad(t, srv, tc.code, tc.want, tc.cause, outdirArgs(srv.url(), tc.args...)...)
		})
	}
}

// TestOutputDirMissingParentIsCreated: an output directory whose parents
// do not exist is created (like mkdir -p), and the run writes into it.
func TestOutputDirMissingParentIsCreated(t *testing.T) {
	srv := startMockServer(t, nil)
	dir := filepath.Join(t.TempDir(), "not", "yet", "there")
	code, _, stderr := runGoodput(t, outdirArgs(srv.url(), "--output-dir", dir, "--outputs", "json,jsonl")...)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if rep := clitest.ReadReport(t, filepath.Join(dir, "r", "benchmarks.json")); len(rep.Benchmarks) != 1 {
		t.Fatalf("%d benchmarks", len(rep.Benchmarks))
	}
	if got := srv.mock.Stats().Requests; got != 2 {
		t.Fatalf("the server got %d requests, want 2", got)
	}
}

// TestFailedStartLeavesNoRunDir: a run that fails after its directory was
// made but before it wrote anything (an unreachable telemetry source)
// removes the empty directory, so the same run id works on the retry.
func TestFailedStartLeavesNoRunDir(t *testing.T) {
	srv := startMockServer(t, nil)
	dir := t.TempDir()
	code, _, stderr := runGoodput(t, outdirArgs(srv.url(), "--output-dir", dir, "--opencost", "http://127.0.0.1:1")...)
	if code == cli.ExitOK || !strings.Contains(lastLine(stderr), "127.0.0.1:1") {
		t.Fatalf("exit %d, last line %q: want the unreachable OpenCost named", code, lastLine(stderr))
	}
	if _, err := os.Stat(filepath.Join(dir, "r")); !os.IsNotExist(err) {
		t.Fatalf("the failed run left its directory (%v)", err)
	}
	if got := srv.mock.Stats().Requests; got != 0 {
		t.Fatalf("the failed run sent %d requests", got)
	}
	if code, _, stderr = runGoodput(t, outdirArgs(srv.url(), "--output-dir", dir)...); code != cli.ExitOK {
		t.Fatalf("retry with the same run id: exit %d: %s", code, stderr)
	}
}
