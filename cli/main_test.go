package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// runGoodput runs a front end as goodput would (args[0]: benchmark, run
// or profile) and returns its exit code, stdout and stderr.
func runGoodput(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runEnv(t, nil, args...)
}

// runEnv is runGoodput with environment variables.
func runEnv(t *testing.T, environ map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""), Getenv: func(k string) string { return environ[k] }}
	front := Benchmark
	switch args[0] {
	case "profile":
		front = Profile
	case "benchmark", "run":
	default:
		t.Fatalf("runGoodput %q: cli's tests run benchmark, run or profile", args[0])
	}
	code := ExitCode(&errb, args[0], front(context.Background(), e, args[1:]))
	return code, out.String(), errb.String()
}
