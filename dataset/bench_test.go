package dataset

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time the process has used. The machines these
// benchmarks run on are often shared, so next to wall-clock ns/op the
// benchmarks report CPU ns/op, which waiting for a core does not inflate.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkSyntheticRequest measures Source.Request in exact mode (o200k_base):
// the per-request cost on the benchmark's hot path, for several prompt lengths.
func BenchmarkSyntheticRequest(b *testing.B) {
	tok := builtin(b, "o200k_base")
	for _, isl := range []int{128, 1024, 4096} {
		b.Run(fmt.Sprintf("isl=%d", isl), func(b *testing.B) {
			s, err := NewExactSynthetic(Spec{Prompt: Dist{Mean: isl}, Output: Dist{Mean: 128}}, tok, 1)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cpuTime()
			for i := 0; i < b.N; i++ {
				if r, _ := s.Request(uint64(i)); r.PromptTokens != isl {
					b.Fatal(r.PromptTokens)
				}
			}
			reportCPU(b, cpu)
		})
	}
}

// BenchmarkSyntheticSetup measures NewExactSynthetic (vocabulary proof, body,
// checks) for o200k_base, with and without shared prefixes.
func BenchmarkSyntheticSetup(b *testing.B) {
	tok := builtin(b, "o200k_base")
	for _, c := range []struct {
		name string
		spec Spec
	}{
		{"isl=1024", Spec{Prompt: Dist{Mean: 1024}}},
		{"isl=1024,samples=1000", Spec{Prompt: Dist{Mean: 1024, Stdev: 256}, Samples: 1000}},
		{"isl=1024,prefix=512x4", Spec{Prompt: Dist{Mean: 1024}, PrefixTokens: 512, PrefixCount: 4}},
	} {
		b.Run(c.name, func(b *testing.B) {
			cpu := cpuTime()
			for i := 0; i < b.N; i++ {
				if _, err := NewExactSynthetic(c.spec, tok, uint64(i)); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
		})
	}
}

// BenchmarkSyntheticFirst1000 measures what a run does before its clock
// starts plus its first 1,000 requests of 1,024 tokens: NewExactSynthetic
// then 1,000 Request calls (there is no pool to build: requests are cut
// from one proven body on demand).
func BenchmarkSyntheticFirst1000(b *testing.B) {
	tok := builtin(b, "o200k_base")
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		s, err := NewExactSynthetic(Spec{Prompt: Dist{Mean: 1024}, Output: Dist{Mean: 128}}, tok, uint64(i))
		if err != nil {
			b.Fatal(err)
		}
		for j := range uint64(1000) {
			s.Request(j)
		}
	}
	reportCPU(b, cpu)
}

// BenchmarkOpenJSONL measures loading a JSON Lines file of 1,000 prompts of
// about 1,000 tokens, counted with o200k_base on all CPUs.
func BenchmarkOpenJSONL(b *testing.B) {
	tok := builtin(b, "o200k_base")
	s := NewSynthetic(Spec{Prompt: Dist{Mean: 1000}}, 1)
	var sb strings.Builder
	for i := range uint64(1000) {
		r, _ := s.Request(i)
		sb.WriteString(`{"prompt":` + jsonString(r.Text()) + "}\n")
	}
	path := writeFile(b, "bench.jsonl", sb.String())
	b.SetBytes(int64(sb.Len()))
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		if _, err := Open(path, Options{Tokenizer: tok}); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu)
}
