package accum

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
)

// synthFill fills r with request i of a synthetic open-loop run: 200
// requests/s, 256 prompt tokens, chunks output tokens (one token per chunk),
// TTFT ~ 80–120 ms, inter-chunk gaps ~ 8–12 ms, a few errors.
func synthFill(r *record.Record, start int64, i, chunks int) {
	r.Reset()
	x := uint64(i)*0x9e3779b97f4a7c15 + 1
	rnd := func() uint64 { // xorshift
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return x
	}
	r.ID = uint64(i)
	r.Status = record.StatusSuccessful
	r.Intended = start + int64(i)*5_000_000
	r.Dispatched = r.Intended + int64(rnd()%200_000)
	r.Sent = r.Dispatched + 50_000
	r.Headers = r.Sent + 1_000_000
	r.FirstChunk = r.Dispatched + 80_000_000 + int64(rnd()%40_000_000)
	r.FirstToken = r.FirstChunk
	r.FirstOutputToken = r.FirstChunk
	t := r.FirstChunk
	for k := 0; k < chunks; k++ {
		if k > 0 {
			t += 8_000_000 + int64(rnd()%4_000_000)
		}
		r.ChunkTimes = append(r.ChunkTimes, t)
	}
	r.LastToken = t
	r.End = t + 500_000
	r.Iterations = chunks + 2
	r.PromptTokens = 256
	r.OutputTokens = chunks
	r.OutputSource = record.TokensUsage
	r.ServerPromptTokens, r.ServerOutputTokens = 256, chunks
	r.ClientOutputTokens = chunks
	if i%997 == 0 {
		r.Status = record.StatusErrored
		r.ErrorClass = record.ErrHTTPStatus
		r.HTTPStatus = 503
	}
}

// peakRSS returns the process's peak resident set size in bytes (Linux),
// or 0.
func peakRSS() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			return kb * 1024
		}
	}
	return 0
}

// cpuTime returns the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// resetPeakRSS resets the kernel's peak RSS counter (Linux; best effort).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// BenchmarkAggregate1M aggregates 1,000,000 requests of 128 chunks each into
// a report (Add for every record, then Finish and WriteJSON), on one core.
func BenchmarkAggregate1M(b *testing.B) {
	const n, chunks = 1_000_000, 128
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	start := int64(1_700_000_000_000_000_000)
	for it := 0; it < b.N; it++ {
		runtime.GC()
		resetPeakRSS()
		var ms runtime.MemStats
		peakHeap := uint64(0)
		sampleHeap := func() {
			runtime.ReadMemStats(&ms)
			peakHeap = max(peakHeap, ms.HeapInuse)
		}
		r := record.New()
		c0 := cpuTime()
		t0 := time.Now()
		a, err := New(Config{Start: start, Constraints: []report.Constraint{{Kind: report.ConstraintMaxRequests, Count: n}}})
		if err != nil {
			b.Fatal(err)
		}
		var fill time.Duration
		for i := 0; i < n; i++ {
			f0 := time.Now()
			synthFill(r, start, i, chunks)
			fill += time.Since(f0)
			a.Add(r)
			if i%100_000 == 0 {
				sampleHeap()
			}
		}
		tAdd := time.Since(t0) - fill
		sampleHeap()
		f0 := time.Now()
		bm := a.Finish(BenchmarkInfo{RunID: "bench", Strategy: report.Strategy{Type: report.StrategyConstant, Rate: 200}, Start: start, End: start + int64(n)*5_000_000})
		tFinish := time.Since(f0)
		sampleHeap()
		rep := report.NewReport("bench", nil, bm)
		w0 := time.Now()
		if _, err := rep.MarshalJSONBytes(); err != nil {
			b.Fatal(err)
		}
		tWrite := time.Since(w0)
		cpu := cpuTime() - c0
		total := tAdd + tFinish + tWrite
		b.ReportMetric(float64(total.Nanoseconds())/n, "ns/record")
		b.ReportMetric(total.Seconds(), "total_s")
		b.ReportMetric(cpu.Seconds(), "cpu_s")
		b.ReportMetric(tAdd.Seconds(), "add_s")
		b.ReportMetric(tFinish.Seconds(), "finish_s")
		b.ReportMetric(tWrite.Seconds(), "write_s")
		b.ReportMetric(float64(peakHeap)/(1<<20), "peak_heap_MB")
		b.ReportMetric(peakRSS()/(1<<20), "peak_RSS_MB")
		runtime.KeepAlive(a)
	}
}

// BenchmarkAdd measures Accumulator.Add alone (one op = one record of 128
// chunks).
func BenchmarkAdd(b *testing.B) {
	start := int64(1_700_000_000_000_000_000)
	a, err := New(Config{Start: start})
	if err != nil {
		b.Fatal(err)
	}
	recs := make([]*record.Record, 1024)
	for i := range recs {
		recs[i] = record.New()
		synthFill(recs[i], start, i, 128)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a.Add(recs[i%len(recs)])
	}
}
