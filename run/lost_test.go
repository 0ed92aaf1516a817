package run

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/fulldisk"

	"github.com/goodput-dev/goodput/dataset"
	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/scorecard/measure"
	"github.com/goodput-dev/goodput/slo"
	"github.com/goodput-dev/goodput/sweep"
)

// TestRunDiskFull: the records file fills its disk mid-line during the
// run. The run goes on, the console summary prints, the records file
// holds whole lines, the report counts every request and says how many
// records were lost, and Run returns an OutputsLostError.
func TestRunDiskFull(t *testing.T) {
	const room = 1500 // a line is ~700 bytes: the disk fills in the third
	createRecords = func(path string) (recordsFile, error) {
		f, err := os.Create(path)
		return &fulldisk.File{File: f, Limit: room}, err
	}
	t.Cleanup(func() { createRecords = func(path string) (recordsFile, error) { return os.Create(path) } })
	srv, err := mock.New(mock.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	spec := dataset.Spec{Prompt: dataset.Dist{Mean: 16}, Output: dataset.Dist{Mean: 4}}
	opts := dataset.Options{Seed: 1, TimeScale: 1}
	dir := t.TempDir()
	c := &Config{
		Client: loadgen.ClientConfig{Target: srv.URL(), Endpoint: loadgen.EndpointChat, ConnectTimeout: time.Second, StallTimeout: -1, RequestTimeout: -1},
		Data:   Data{Synthetic: &spec, Options: opts},
		Plan: Plan{
			Planner:     sweep.List{{Kind: loadgen.Concurrent, Streams: 2}},
			Profile:     report.Profile{Kind: "concurrent", Streams: []int{2}},
			Constraints: loadgen.Constraints{MaxRequests: 10}, Seed: 1,
		},
		SLO:       slo.Default(),
		Telemetry: measure.Config{ServerMetrics: measure.ServerMetricsOff, Interval: time.Second, PUE: 1},
		Outputs:   Outputs{Dir: dir, RunID: "full", Kinds: map[string]bool{"json": true, "jsonl": true, "console": true}},
		Metadata:  Metadata{ProbeTimeout: time.Second},
		Progress:  Progress{Disable: true, LogFormat: "console", Interval: time.Second},
		Build:     Build{Version: "test", Commit: "abc"},
	}
	var out, errb bytes.Buffer
	rep, err := Run(context.Background(), c, Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }})
	var lost *OutputsLostError
	if !errors.As(err, &lost) || len(lost.Lines) != 1 || !strings.Contains(lost.Lines[0], "no space left on device") {
		t.Fatalf("Run: %v; want an OutputsLostError naming ENOSPC\nstderr:\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "Requests and throughput") {
		t.Errorf("no console summary:\n%s", out.String())
	}
	total := 0
	for _, b := range rep.Benchmarks {
		total += int(b.Metrics.RequestTotals.Total)
	}
	if total < 10 || len(rep.Run.Lost) != 1 {
		t.Fatalf("report: %d requests, lost %+v; want ≥ 10 and one lost output", total, rep.Run.Lost)
	}
	l := rep.Run.Lost[0]
	if l.RecordsWritten < 1 || l.RecordsWritten+l.RecordsLost != total || !strings.Contains(l.Error, "no space left on device") {
		t.Errorf("lost %+v; want written + lost = %d requests", l, total)
	}
	data, err := os.ReadFile(filepath.Join(dir, "full", "requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(data) == 0 || len(data) > room || data[len(data)-1] != '\n' {
		t.Fatalf("records file of %d bytes (room %d) does not end in a whole line", len(data), room)
	}
	dec := record.NewDecoder(bytes.NewReader(data), "requests.jsonl")
	n := 0
	for {
		var r record.Record
		if err := dec.Decode(&r); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != l.RecordsWritten {
		t.Errorf("%d records in the file, the report says %d", n, l.RecordsWritten)
	}
	got, err := report.Read(filepath.Join(dir, "full", "benchmarks.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Run.Lost) != 1 || got.Run.Lost[0] != l || len(got.Run.Notes) != 1 || !strings.Contains(got.Run.Notes[0], "records lost") {
		t.Errorf("the written report's lost %+v, notes %q", got.Run.Lost, got.Run.Notes)
	}
}
