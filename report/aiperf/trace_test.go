package aiperf

import (
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/record"
)

// apTraceRecords are the golden records with their send times and the
// server's per-chunk token counts:
//
//	R1: dispatched 0 ms, a new connection at 1, written at 2, first event
//	    100, end 170; chunks of 1 token each.
//	R2: dispatched 10, a pooled connection at 10.5, written at 13, first
//	    event 210, end 470; chunks of 3, 2, 2, 2, 1, 1 tokens (11).
//	R3: dispatched 170, connection not known, written at 171, first event
//	    320, end 355; chunks of 2 and 0 tokens: the first holds the whole
//	    output.
//
// R4 (HTTP 503) is not a successful request: it has no trace metrics.
func apTraceRecords() []*record.Record {
	recs := apGoldenRecords()
	for _, r := range recs {
		switch r.ID {
		case 1:
			r.Connected, r.Sent, r.ChunkTokens = apMs(1), apMs(2), []int32{1, 1, 1, 1}
		case 2:
			r.Connected, r.ConnReused = apMs(10.5), true
			r.Sent, r.ChunkTokens = apMs(13), []int32{3, 2, 2, 2, 1, 1}
		case 3:
			r.Sent, r.ChunkTokens = apMs(171), []int32{2, 0}
		case 4:
			r.Sent = apMs(471)
		}
	}
	return recs
}

func apTraceExport(t *testing.T, opts Options) *Export {
	t.Helper()
	opts.GoodputVersion = "test"
	x, err := FromRecords(apGoldenReport(t), 0, apRecordsSource(apTraceRecords()), opts)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// TestAIPerfHTTPTrace checks the HTTP phase metrics against the hand
// computed phases of apTraceRecords (ms):
//
//	connecting (connection − dispatched):  1, 0 (pooled); R3 unknown
//	reused:                                0, 1
//	sending   (written − dispatched):      2, 3, 1
//	waiting   (first event − written):     98, 197, 149
//	receiving (end − first event):         70, 260, 35
//	duration  (end − dispatched):          170, 460, 185
func TestAIPerfHTTPTrace(t *testing.T) {
	if x := apTraceExport(t, Options{}); x.Metric("http_req_duration") != nil {
		t.Fatal("http_req_duration written without HTTPTrace")
	}
	x := apTraceExport(t, Options{HTTPTrace: true})
	for _, c := range []struct {
		tag, header, unit  string
		count              int64
		avg, min, max, p50 float64
	}{
		{"http_req_connecting", "HTTP Connecting", "ms", 2, 0.5, 0, 1, 0.5},
		{"http_req_connection_reused", "HTTP Connection Reused", "ratio", 2, 0.5, 0, 1, 0.5},
		{"http_req_sending", "HTTP Sending", "ms", 3, 2, 1, 3, 2},
		{"http_req_waiting", "HTTP Waiting (TTFB)", "ms", 3, 148, 98, 197, 149},
		{"http_req_receiving", "HTTP Receiving", "ms", 3, 365.0 / 3, 35, 260, 70},
		{"http_req_duration", "HTTP Duration (excl. conn)", "ms", 3, 815.0 / 3, 170, 460, 185},
	} {
		m := x.Metric(c.tag)
		if m == nil {
			t.Fatalf("%s missing", c.tag)
		}
		if m.Unit != c.unit || m.Header != c.header || *m.Count != c.count {
			t.Errorf("%s: unit %q header %q count %d, want %q %q %d", c.tag, m.Unit, m.Header, *m.Count, c.unit, c.header, c.count)
		}
		if !near(*m.Avg, c.avg) || !near(*m.Min, c.min) || !near(*m.Max, c.max) || !near(*m.P[4], c.p50) {
			t.Errorf("%s: avg %v min %v max %v p50 %v, want %v %v %v %v", c.tag, *m.Avg, *m.Min, *m.Max, *m.P[4], c.avg, c.min, c.max, c.p50)
		}
	}
	// The other metrics are those of the export without trace metrics.
	plain := apTraceExport(t, Options{})
	if got, want := len(x.Metrics), len(plain.Metrics)+6; got != want {
		t.Errorf("%d metrics, want %d", got, want)
	}
}

// TestAIPerfPerChunkUsage: with PerChunkUsage, ITL divides R2's decode
// time (450 − 200 = 250 ms) by 11 − 3 = 8 tokens: 31.25 ms, 32 tokens/s
// per user. R1's first chunk holds 1 token (60 / 3 = 20 ms, as without);
// R3's first chunk holds its whole output (2 of 2), so it falls back to
// OSL − 1 (30 / 1 = 30 ms), counted in goodput_export.
func TestAIPerfPerChunkUsage(t *testing.T) {
	plain := apTraceExport(t, Options{})
	if m := plain.Metric("inter_token_latency"); !near(*m.Avg, 25) || !near(*m.Max, 30) {
		t.Fatalf("without per-chunk usage: ITL avg %v max %v, want 25 30", *m.Avg, *m.Max)
	}
	if plain.Goodput.PerChunkUsageFallback != 0 {
		t.Errorf("fallback %d without per-chunk usage", plain.Goodput.PerChunkUsageFallback)
	}
	x := apTraceExport(t, Options{PerChunkUsage: true})
	m := x.Metric("inter_token_latency")
	if !near(*m.Avg, (20+31.25+30)/3) || !near(*m.Min, 20) || !near(*m.Max, 31.25) || !near(*m.P[4], 30) {
		t.Errorf("ITL avg %v min %v max %v p50 %v, want %v 20 31.25 30", *m.Avg, *m.Min, *m.Max, *m.P[4], (20+31.25+30)/3)
	}
	if u := x.Metric("output_token_throughput_per_user"); !near(*u.Min, 1000/31.25) {
		t.Errorf("output_token_throughput_per_user min %v, want 32", *u.Min)
	}
	if x.Goodput.PerChunkUsageFallback != 1 {
		t.Errorf("fallback %d, want 1 (R3)", x.Goodput.PerChunkUsageFallback)
	}
}

// TestAIPerfPerChunkUsageUnknown: a server that sent no per-chunk usage
// leaves ITL at OSL − 1, without counting a fallback (AIPerf's default
// path).
func TestAIPerfPerChunkUsageUnknown(t *testing.T) {
	x, err := FromRecords(apGoldenReport(t), 0, apRecordsSource(apGoldenRecords()), Options{GoodputVersion: "test", PerChunkUsage: true})
	if err != nil {
		t.Fatal(err)
	}
	if m := x.Metric("inter_token_latency"); !near(*m.Avg, 25) {
		t.Errorf("ITL avg %v, want 25", *m.Avg)
	}
	if x.Goodput.PerChunkUsageFallback != 0 {
		t.Errorf("fallback %d, want 0", x.Goodput.PerChunkUsageFallback)
	}
}

func TestWriteTraceTiming(t *testing.T) {
	x := apTraceExport(t, Options{HTTPTrace: true})
	var b strings.Builder
	if err := WriteTraceTiming(&b, []*Export{x, apTraceExport(t, Options{})}, []string{"concurrency_2", "none"}, 0); err != nil {
		t.Fatal(err)
	}
	// Statistics by hand (numpy's linear percentiles, population std).
	want := `NVIDIA AIPerf | HTTP Trace Timing
                                                |
 Benchmark      Metric                          |    avg     min     max     p99     p90     p50     std
 -------------  ------------------------------- | ------  ------  ------  ------  ------  ------  ------
 concurrency_2  HTTP Connecting (ms)            |   0.50    0.00    1.00    0.99    0.90    0.50    0.50
 concurrency_2  HTTP Sending (ms)               |   2.00    1.00    3.00    2.98    2.80    2.00    0.82
 concurrency_2  HTTP Waiting (TTFB) (ms)        | 148.00   98.00  197.00  196.04  187.40  149.00   40.42
 concurrency_2  HTTP Receiving (ms)             | 121.67   35.00  260.00  256.20  222.00   70.00   98.85
 concurrency_2  HTTP Connection Reused (ratio)  |   0.50    0.00    1.00    0.99    0.90    0.50    0.50
 concurrency_2  HTTP Duration (excl. conn) (ms) | 271.67  170.00  460.00  454.50  405.00  185.00  133.31
`
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := WriteTraceTiming(&b, []*Export{apTraceExport(t, Options{})}, []string{"none"}, 0); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != TraceTitle+": no successful request with HTTP phase times\n" {
		t.Errorf("empty table: %q", got)
	}
}

func TestTraceCell(t *testing.T) {
	v1, v2, v3 := 1234567.891, -0.5, 12.0
	for _, c := range []struct {
		v    *float64
		want string
	}{{&v1, "1,234,567.89"}, {&v2, "-0.50"}, {&v3, "12.00"}, {nil, "N/A"}} {
		if got := traceCell(c.v); got != c.want {
			t.Errorf("traceCell(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}
