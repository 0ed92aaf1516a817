package main

import (
	"bytes"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/report"
)

// A closed-loop benchmark whose client is nearly idle runs on fewer Ps
// after its first second, unless GOMAXPROCS is set in the environment;
// either way the process ends at the GOMAXPROCS it started with, and the
// report's client load says what happened.
func TestGOMAXPROCSFollowsLoad(t *testing.T) {
	url := clitest.Mock(t, func(c *mock.Config) { c.ITL = 10 * time.Millisecond })
	ceiling := runtime.GOMAXPROCS(0)
	for _, c := range []struct {
		name, env string
	}{{"governed", ""}, {"fixed by the environment", "2"}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var out, errb bytes.Buffer
			getenv := func(k string) string {
				if k == "GOMAXPROCS" {
					return c.env
				}
				return ""
			}
			code := realMain([]string{"benchmark", "--target", url, "--rate-type", "synchronous",
				"--data", "prompt_tokens=8,output_tokens=8", "--max-seconds", "2", "--output-dir", dir, "--run-id", "r"},
				&cli.Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""), Getenv: getenv})
			if code != cli.ExitOK {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			if got := runtime.GOMAXPROCS(0); got != ceiling {
				t.Fatalf("GOMAXPROCS %d after the run, want %d", got, ceiling)
			}
			rep, err := report.Read(filepath.Join(dir, "r", "benchmarks.json"))
			if err != nil {
				t.Fatal(err)
			}
			cl := rep.Benchmarks[0].Extras.Client
			if int(cl.MaxProcs) != ceiling {
				t.Fatalf("max_procs %d, want %d", cl.MaxProcs, ceiling)
			}
			switch {
			case c.env != "" && (cl.ProcsChanges != 0 || cl.MinProcs != cl.MaxProcs):
				t.Fatalf("GOMAXPROCS set, yet min_procs %d, procs_changes %d", cl.MinProcs, cl.ProcsChanges)
			case c.env == "" && cl.MinProcs != 1:
				t.Fatalf("client used %.3f cores on %d Ps, yet min_procs %d (procs_changes %d)", float64(cl.Cores), ceiling, cl.MinProcs, cl.ProcsChanges)
			}
		})
	}
}
