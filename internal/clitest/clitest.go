// Package clitest holds what the tests of cli, cmd/goodput, loadgen and
// sweep share: a loopback mock server, readers of the files a run writes
// and the most requests in flight at once.
package clitest

import (
	"io"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/aiperf"
)

// Mock starts the mock on a loopback port with a fixed 5 ms TTFT and 1 ms
// ITL (edit changes the config) and returns its URL; it stops with t.
func Mock(t testing.TB, edit func(*mock.Config)) string {
	t.Helper()
	cfg := mock.DefaultConfig()
	cfg.TTFT, cfg.TTFTStdev, cfg.ITL, cfg.ITLStdev = 5*time.Millisecond, 0, time.Millisecond, 0
	if edit != nil {
		edit(&cfg)
	}
	srv, err := mock.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv.URL()
}

// ReadReport reads a goodput or GuideLLM report file.
func ReadReport(t testing.TB, path string) *report.Report {
	t.Helper()
	r, err := report.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// ReadAIPerf reads an AIPerf JSON export.
func ReadAIPerf(t testing.TB, path string) *aiperf.Export {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	x, err := aiperf.Read(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// MetricAvg is the average of an AIPerf export's metric tag.
func MetricAvg(t testing.TB, x *aiperf.Export, tag string) float64 {
	t.Helper()
	m := x.Metric(tag)
	if m == nil || m.Avg == nil {
		t.Fatalf("metric %s missing", tag)
	}
	return *m.Avg
}

// ReadRecords reads a run's requests.jsonl.
func ReadRecords(t testing.TB, path string) []*record.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []*record.Record
	dec := record.NewDecoder(f, path)
	for {
		r := new(record.Record)
		err := dec.Decode(r)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
}

// MostOpen is the largest number of the intervals [from(r), to(r)) open
// at once among recs, counting only instants before until (0: all): the
// most requests in flight, or waiting for a first token, at once.
func MostOpen(recs []*record.Record, from, to func(*record.Record) int64, until int64) int {
	type event struct {
		at    int64
		delta int
	}
	var evs []event
	for _, r := range recs {
		evs = append(evs, event{from(r), 1}, event{to(r), -1})
	}
	sort.Slice(evs, func(i, j int) bool {
		return evs[i].at < evs[j].at || evs[i].at == evs[j].at && evs[i].delta < evs[j].delta
	})
	n, m := 0, 0
	for _, ev := range evs {
		if until != 0 && ev.at >= until {
			break
		}
		n += ev.delta
		m = max(m, n)
	}
	return m
}

// Dispatched, FirstToken and Ended are a record's times for MostOpen.
func Dispatched(r *record.Record) int64 { return r.Dispatched }
func FirstToken(r *record.Record) int64 { return r.FirstToken }
func Ended(r *record.Record) int64      { return r.End }
