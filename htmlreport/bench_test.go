package htmlreport

import (
	"bytes"
	"syscall"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/report"
)

// BenchmarkRender renders a 10-round sweep with telemetry and 2,200
// per-request records (read from a file each time): ns/op is the render
// time, cpu-ms/op the process CPU time per render (steadier than wall time
// on a shared machine), bytes/page the page's size.
func BenchmarkRender(b *testing.B) {
	rep, recs := buildSweep(b, sweepSpec{rounds: 10, seconds: 20, chunks: 32, kneeAt: 5, telemetry: true, label: "a"}, true)
	path := writeRecords(b, b.TempDir(), recs)
	opts := Options{Records: []RecordSource{RecordsFile(path)}}
	var out bytes.Buffer
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		out.Reset()
		if err := Render(&out, []*report.Report{rep}, opts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(out.Len()), "bytes/page")
}

// BenchmarkRenderNoRecords is the same page drawn from the report alone.
func BenchmarkRenderNoRecords(b *testing.B) {
	rep, _ := buildSweep(b, sweepSpec{rounds: 10, seconds: 20, chunks: 32, kneeAt: 5, telemetry: true, label: "a"}, false)
	var out bytes.Buffer
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		out.Reset()
		if err := Render(&out, []*report.Report{rep}, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(out.Len()), "bytes/page")
}

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
