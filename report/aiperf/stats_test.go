package aiperf

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/slo"
)

// TestNumpyPercentile checks numpy.percentile's linear method on values
// worked out by hand: virtual index (n−1)·p/100, interpolated between
// the neighbouring order statistics.
func TestNumpyPercentile(t *testing.T) {
	cases := []struct {
		vals []float64
		p    int
		want float64
	}{
		{[]float64{7}, 1, 7},
		{[]float64{7}, 99, 7},
		{[]float64{1, 2}, 50, 1.5},                // vi 0.5
		{[]float64{1, 2}, 25, 1.25},               // vi 0.25
		{[]float64{1, 2}, 75, 1.75},               // vi 0.75
		{[]float64{1, 2, 3, 4}, 50, 2.5},          // vi 1.5
		{[]float64{1, 2, 3, 4}, 90, 3.7},          // vi 2.7
		{[]float64{1, 2, 3, 4}, 10, 1.3},          // vi 0.3
		{[]float64{10, 20, 30, 40, 50}, 25, 20},   // vi 1 exactly
		{[]float64{10, 20, 30, 40, 50}, 99, 49.6}, // vi 3.96
		{[]float64{0, 100}, 1, 1},
		{[]float64{0, 100}, 99, 99},
	}
	for _, c := range cases {
		if got := numpyPercentile(c.vals, c.p); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("percentile(%v, %d) = %v, want %v", c.vals, c.p, got, c.want)
		}
	}
	// numpy's _lerp takes b − (b−a)(1−t) from t = 0.5 on, so the top of
	// the interval is reached exactly.
	if got := numpyLerp(0.1, 0.7, 1); got != 0.7 {
		t.Errorf("lerp at t=1 = %v, want 0.7 exactly", got)
	}
	if got := numpyLerp(0.1, 0.7, 0); got != 0.1 {
		t.Errorf("lerp at t=0 = %v, want 0.1 exactly", got)
	}
}

// TestNumpyStatsPopulationStd: AIPerf's std is numpy.std's default, the
// population standard deviation (ddof=0), not the sample one.
func TestNumpyStatsPopulationStd(t *testing.T) {
	st := numpyStats([]float64{2, 4, 4, 4, 5, 5, 7, 9}) // the textbook example: σ = 2, s = 2.138
	if st.std != 2 || st.avg != 5 || st.sum != 40 || st.min != 2 || st.max != 9 || st.n != 8 {
		t.Fatalf("stats %+v", st)
	}
	if st := numpyStats([]float64{3}); st.std != 0 || st.pct[0] != 3 || st.pct[8] != 3 {
		t.Fatalf("one value: %+v", st)
	}
	if st := numpyStats(nil); st.n != 0 {
		t.Fatalf("no values: %+v", st)
	}
}

// TestAIPerfValuesBeyondCap: past the exact cap, count, sum, mean, min,
// max and std stay exact and percentiles are within the histogram's 0.1%.
func TestAIPerfValuesBeyondCap(t *testing.T) {
	const n = 20000
	exact := newAIPerfValues(n, 1, 0)
	capped := newAIPerfValues(500, 1, 0)
	for i := range n {
		v := float64((i*7919)%n+1) * 1000 // a permutation of 1000 … 20,000,000 ns
		exact.add(v)
		capped.add(v)
	}
	want, got := exact.stats(), capped.stats()
	if !want.exact || got.exact || got.n != n {
		t.Fatalf("exact flags: %v %v, n %d", want.exact, got.exact, got.n)
	}
	for _, c := range []struct {
		name   string
		a, b   float64
		relTol float64
	}{
		{"sum", got.sum, want.sum, 1e-12}, {"avg", got.avg, want.avg, 1e-12}, {"min", got.min, want.min, 0},
		{"max", got.max, want.max, 0}, {"std", got.std, want.std, 1e-9},
	} {
		if math.Abs(c.a-c.b) > c.relTol*math.Abs(c.b) {
			t.Errorf("%s: %v, exact %v", c.name, c.a, c.b)
		}
	}
	for i := range got.pct {
		if math.Abs(got.pct[i]-want.pct[i]) > 1e-3*want.pct[i] {
			t.Errorf("p%d: %v, exact %v", Percentiles[i], got.pct[i], want.pct[i])
		}
	}
	// Signed values (osl_mismatch_diff_pct) use the offset.
	diff := newAIPerfValues(1, 1000, 100)
	for _, v := range []float64{-50, -25, 0, 25, 50} {
		diff.add(v)
	}
	st := diff.stats()
	if st.min != -50 || st.max != 50 || st.avg != 0 || math.Abs(st.pct[4]) > 0.1 || st.clamped != 0 {
		t.Fatalf("signed: %+v", st)
	}
}

// TestAIPerfExportBeyondCapIsMarked: an export whose caps were exceeded
// says which metrics are approximate.
func TestAIPerfExportBeyondCapIsMarked(t *testing.T) {
	x := apGoldenExport(t, Options{ExactCap: 2, ChunkExactCap: 4})
	g := x.Goodput
	if g.Exact || len(g.InexactReasons) == 0 || !strings.Contains(strings.Join(g.InexactReasons, ";"), "inter_chunk_latency: 5 values exceeded the exact cap of 4") {
		t.Fatalf("provenance %+v", g)
	}
	if m := x.Metric("request_latency"); !near(*m.Avg, 790.0/3) || *m.Count != 3 || *m.Max != 450 {
		t.Fatalf("request_latency %+v", m)
	}
}

// TestAIPerfNoDuplicateKeys: the written JSON has each top-level key once
// (AIPerf's metric "goodput" and goodput's own block must not collide).
func TestAIPerfNoDuplicateKeys(t *testing.T) {
	x := apGoldenExport(t, Options{SLOs: []slo.AIPerfThreshold{{Tag: "request_latency", Threshold: 1000}}})
	var buf bytes.Buffer
	if err := x.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	fields, err := objectFields(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range fields {
		if seen[f.Key] {
			t.Fatalf("key %q written twice", f.Key)
		}
		seen[f.Key] = true
	}
	if !seen["goodput"] || !seen[ProvenanceKey] {
		t.Fatalf("keys %v", seen)
	}
	back, err := Read(&buf, "ours.json")
	if err != nil {
		t.Fatal(err)
	}
	if back.Goodput == nil || back.Goodput.Source != "records" || back.Metric("goodput") == nil || len(back.Other) != 0 {
		t.Fatalf("read back: %+v", back.Goodput)
	}
}

// BenchmarkAIPerfBuilder measures the builder's per-record cost (records
// of 256 output tokens in 256 chunks): "exact" while every value is kept
// (a new builder every 2,000 records, so the caps are never reached),
// "beyond-cap" with every value going to the HDR histograms (caps of 1).
func BenchmarkAIPerfBuilder(b *testing.B) {
	rep := &report.Report{Benchmarks: []*report.Benchmark{{Config: report.BenchmarkConfig{Strategy: report.Strategy{Type: report.StrategyConcurrent, Streams: 8}}}}}
	r := apLongRecord()
	for _, c := range []struct {
		name string
		opts Options
		per  int
	}{{"exact", Options{}, 2000}, {"beyond-cap", Options{ExactCap: 1, ChunkExactCap: 1}, 1 << 30}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var a *Builder
			for i := 0; i < b.N; i++ {
				if i%c.per == 0 {
					var err error
					if a, err = NewBuilder(rep, 0, c.opts); err != nil {
						b.Fatal(err)
					}
				}
				r.ID = uint64(i)
				a.Add(r)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// BenchmarkAIPerfDecodeAndBuild measures the whole path from a JSON Lines
// line to the builder (what `goodput report --aiperf` does per record).
func BenchmarkAIPerfDecodeAndBuild(b *testing.B) {
	rep := &report.Report{Benchmarks: []*report.Benchmark{{Config: report.BenchmarkConfig{Strategy: report.Strategy{Type: report.StrategyConcurrent, Streams: 8}}}}}
	r := apLongRecord()
	line := record.AppendJSON(nil, r)
	a, err := NewBuilder(rep, 0, Options{})
	if err != nil {
		b.Fatal(err)
	}
	into := record.New()
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := record.UnmarshalLine(line, into); err != nil {
			b.Fatal(err)
		}
		a.Add(into)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// apLongRecord is a streamed request of 256 tokens in 256 chunks.
func apLongRecord() *record.Record {
	chunks := make([]float64, 256)
	for i := range chunks {
		chunks[i] = 100 + float64(i)*10
	}
	return apStream(1, 0, chunks, chunks[255]+1, 1024, 256, 256)
}

// BenchmarkAIPerfJSONLSkip measures how fast FromJSONL passes over
// the lines of other benchmarks (one pass per benchmark reads them all).
func BenchmarkAIPerfJSONLSkip(b *testing.B) {
	rep := &report.Report{Benchmarks: []*report.Benchmark{{Config: report.BenchmarkConfig{Strategy: report.Strategy{Type: report.StrategyConcurrent, Streams: 8}}}}}
	r := apLongRecord()
	r.Benchmark = 1
	line := append(record.AppendJSON(nil, r), '\n')
	const lines = 1000
	file := bytes.Repeat(line, lines)
	b.SetBytes(int64(len(file)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := FromJSONL(rep, 0, bytes.NewReader(file), "x.jsonl", Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*lines)/b.Elapsed().Seconds(), "lines/s")
}
