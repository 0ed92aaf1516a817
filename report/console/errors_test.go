package console

import (
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

// The console names the failures after the latency table: per benchmark
// and class the count and the most common message, most frequent class
// first, cancelled requests left out, long messages cut to one line.
func TestErrorsSection(t *testing.T) {
	bm := &report.Benchmark{}
	bm.Config.Strategy = report.Strategy{Type: report.StrategyConcurrent, Streams: 2}
	bm.Extras = &report.Extras{Errors: report.ErrorCounts{
		ByClass: map[string]report.Int{"http_status": 20, "connect": 3, "cancelled": 2},
		Messages: map[string]report.ErrorMessage{
			"http_status": {Message: "HTTP 404: 404 page not found", Count: 20},
			"connect":     {Message: "dial tcp 127.0.0.1:1: connect: connection refused " + strings.Repeat("x", 120), Count: 3},
		},
	}}
	ok := &report.Benchmark{Extras: &report.Extras{}}
	ok.Config.Strategy = report.Strategy{Type: report.StrategySynchronous}
	r := &report.Report{Benchmarks: []*report.Benchmark{ok, bm}}
	want := "Failed requests in the measurement window, by error class (requests the run cancelled at a benchmark's end left out)\n" +
		"#  Strategy      Class        Count  Most common message\n" +
		"--------------------------------------------------------\n" +
		"1  concurrent 2  http_status     20  HTTP 404: 404 page not found (20×)\n" +
		"1  concurrent 2  connect          3  dial tcp 127.0.0.1:1: connect: connection refused " + strings.Repeat("x", 49) + "… (3×)\n"
	if got := errorsSection(r, 0); got != want {
		t.Errorf("errors section:\n%s\nwant:\n%s", got, want)
	}
	// In 80 columns a message gets what the 37 columns before it and its
	// count leave: 38, the last a "…".
	line80 := "1  concurrent 2  connect          3  dial tcp 127.0.0.1:1: connect: connec… (3×)\n"
	if got := errorsSection(r, 80); !strings.HasSuffix(got, line80) {
		t.Errorf("errors section in 80 columns:\n%s\nwant its last line:\n%s", got, line80)
	}
	var b strings.Builder
	if err := Write(&b, r); err != nil {
		t.Fatal(err)
	}
	lat := strings.Index(b.String(), "Latency, successful requests")
	errs := strings.Index(b.String(), "Failed requests in the measurement window")
	if lat < 0 || errs < lat {
		t.Errorf("the errors section should follow the latency table:\n%s", b.String())
	}
	r.Benchmarks = r.Benchmarks[:1]
	if got := errorsSection(r, 0); got != "" {
		t.Errorf("no failure: section %q", got)
	}
}
