package tokenize

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// benchTokenizer returns a reference tokenizer for benchmarks, or a built-in.
func benchTokenizer(b *testing.B, name string) *Tokenizer {
	b.Helper()
	switch name {
	case "o200k_base", "cl100k_base":
		tok, err := Builtin(name)
		if err != nil {
			b.Fatal(err)
		}
		return tok
	}
	return loadRef(b, name)
}

// BenchmarkEncode measures single-goroutine throughput over the whole corpus
// (2,024 strings, 625 KB: prose, code, many scripts, emoji, whitespace, numbers,
// a few 20–30 KB documents), one Encode call per string.
func BenchmarkEncode(b *testing.B) {
	corpus := readCorpus(b)
	var total int
	for _, r := range corpus {
		total += len(r.Text)
	}
	for _, name := range []string{"llama3", "qwen3", "mistral", "o200k", "cl100k", "deepseek_v3", "gemma3", "o200k_base", "cl100k_base"} {
		b.Run(name, func(b *testing.B) {
			tok := benchTokenizer(b, name)
			b.SetBytes(int64(total))
			b.ReportAllocs()
			tokens := 0
			b.ResetTimer()
			cpu0 := cpuSeconds()
			for i := 0; i < b.N; i++ {
				for _, r := range corpus {
					tokens += len(tok.Encode(r.Text))
				}
			}
			reportCPU(b, cpuSeconds()-cpu0, total, tokens)
		})
	}
}

// BenchmarkCountProse measures Count on long English prose (the licence texts of
// the corpus joined into ~100 KB documents).
func BenchmarkCountProse(b *testing.B) {
	var sb strings.Builder
	for _, r := range readCorpus(b) {
		if r.Kind == "prose" {
			sb.WriteString(r.Text)
		}
	}
	prose := sb.String()
	var docs []string
	for len(prose) > 100_000 {
		docs = append(docs, prose[:100_000])
		prose = prose[100_000:]
	}
	total := 0
	for _, d := range docs {
		total += len(d)
	}
	for _, name := range []string{"llama3", "qwen3", "mistral", "gemma3", "o200k_base"} {
		b.Run(name, func(b *testing.B) {
			tok := benchTokenizer(b, name)
			b.SetBytes(int64(total))
			tokens := 0
			b.ResetTimer()
			cpu0 := cpuSeconds()
			for i := 0; i < b.N; i++ {
				for _, d := range docs {
					tokens += tok.Count(d)
				}
			}
			reportCPU(b, cpuSeconds()-cpu0, total, tokens)
		})
	}
}

// cpuSeconds is the CPU time used by the process so far. Throughput per CPU
// second is reported next to Go's wall-clock MB/s because the machines these
// benchmarks run on are often shared: CPU time is what "per core" means.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func reportCPU(b *testing.B, cpu float64, bytesPerOp, tokens int) {
	b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
	if cpu > 0 {
		b.ReportMetric(float64(bytesPerOp)*float64(b.N)/1e6/cpu, "MB/cpu-s")
		b.ReportMetric(float64(tokens)/cpu, "tokens/cpu-s")
	}
}

// BenchmarkLoad measures loading a tokenizer.json (9–11 MB for most, 33 MB for
// Gemma 3), the heap it keeps, and the peak RSS of a fresh process that only
// loads it.
func BenchmarkLoad(b *testing.B) {
	for _, name := range []string{"llama3", "qwen3", "mistral", "o200k", "gemma3", "o200k_base"} {
		b.Run(name, func(b *testing.B) {
			path := ""
			if name != "o200k_base" {
				path = fetchTokenizer(b, refTokenizerNamed(b, name))
				if fi, err := os.Stat(path); err == nil {
					b.ReportMetric(float64(fi.Size())/1e6, "file-MB")
				}
			}
			load := func() *Tokenizer {
				if path == "" {
					return benchTokenizer(b, name)
				}
				tok, err := Load(path)
				if err != nil {
					b.Fatal(err)
				}
				return tok
			}
			var tok *Tokenizer
			cpu0 := cpuSeconds()
			for i := 0; i < b.N; i++ {
				tok = load()
			}
			cpu := cpuSeconds() - cpu0
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/load")
			b.ReportMetric(cpu*1000/float64(b.N), "cpu-ms/load")
			// Heap kept by one tokenizer: live heap with it minus without it.
			runtime.GC()
			var with, without runtime.MemStats
			runtime.ReadMemStats(&with)
			runtime.KeepAlive(tok)
			tok = nil
			runtime.GC()
			runtime.ReadMemStats(&without)
			b.ReportMetric(float64(int64(with.HeapAlloc)-int64(without.HeapAlloc))/1e6, "retained-heap-MB")
			b.ReportMetric(childPeakRSS(b, name, path), "peak-RSS-MB")
		})
	}
}

// childPeakRSS runs TestHelperLoadRSS in a new process and returns its peak RSS.
func childPeakRSS(b *testing.B, name, path string) float64 {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestHelperLoadRSS$", "-test.v")
	cmd.Env = append(os.Environ(), "GOODPUT_LOAD_RSS_NAME="+name, "GOODPUT_LOAD_RSS_PATH="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("child: %v\n%s", err, out)
	}
	i := bytes.Index(out, []byte("maxrss_kb="))
	if i < 0 {
		b.Fatalf("child printed no maxrss:\n%s", out)
	}
	f := strings.Fields(string(out[i+len("maxrss_kb="):]))
	kb, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		b.Fatal(err)
	}
	return kb / 1024
}

// TestHelperLoadRSS is BenchmarkLoad's child process: it loads one tokenizer and
// prints its peak RSS. It does nothing in a normal test run.
func TestHelperLoadRSS(t *testing.T) {
	name := os.Getenv("GOODPUT_LOAD_RSS_NAME")
	if name == "" {
		t.Skip("helper process for BenchmarkLoad")
	}
	start := time.Now()
	var tok *Tokenizer
	var err error
	if path := os.Getenv("GOODPUT_LOAD_RSS_PATH"); path != "" {
		tok, err = Load(path)
	} else {
		tok, err = Builtin(name)
	}
	if err != nil {
		t.Fatal(err)
	}
	// VmHWM is this process's own peak RSS; getrusage's ru_maxrss is not, as it
	// carries over the parent's peak through fork and exec.
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	hwm := ""
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			hwm = f[1]
		}
	}
	fmt.Printf("load=%v maxrss_kb=%s vocab=%d\n", time.Since(start), hwm, tok.VocabSize())
}
