package accum

import (
	"math"
	"testing"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
)

// runMedia accumulates binnedRecords(n), giving every third request two
// 64×48 images and every fifth a 2 s clip of 32000 samples and an AVI of
// 8 frames and 2 s (the seventh's video from an MP4: frames unknown).
func runMedia(t *testing.T, n, exactCap int) *report.Benchmark {
	t.Helper()
	a, err := New(Config{Start: base, ExactCap: exactCap, SampleSize: 1000,
		Constraints: []report.Constraint{{Kind: report.ConstraintMaxDuration, Seconds: 20}}})
	if err != nil {
		t.Fatal(err)
	}
	r := record.New()
	for i, sp := range binnedRecords(n) {
		sp.fill(r)
		if i%3 == 0 {
			r.Media.ImageCount, r.Media.ImagePixels, r.Media.ImageBytes = 2, 2*64*48, 1000+i
		}
		if i%5 == 0 {
			r.AudioSeconds, r.Media.AudioSamples, r.Media.AudioBytes = 2, 32000, 64044
			r.Media.VideoFrames, r.Media.VideoSeconds, r.Media.VideoBytes = 8, 2, 5000
			if i%7 == 0 {
				r.Media.VideoFrames, r.Media.VideoSeconds = 0, 0
			}
		}
		a.Add(r)
	}
	return a.Finish(BenchmarkInfo{RunID: "m", Start: base, StopTime: ms(20000)})
}

// GuideLLM's image, audio and video metrics are filled from the records'
// media, over the requests that carry a value (input side only), the same
// on the exact and the binned paths; the sampled requests' input_metrics
// carry their media; a benchmark without media keeps them empty.
func TestMediaMetrics(t *testing.T) {
	const n = 300
	exact, binned := runMedia(t, n, 0), runMedia(t, n, 50)
	if !exact.Extras.Exact || binned.Extras.Exact {
		t.Fatalf("exact flags %v %v", exact.Extras.Exact, binned.Extras.Exact)
	}
	var images, clips, frames int64
	for i := range n {
		if i%3 == 0 {
			images++
		}
		if i%5 == 0 {
			clips++
			if i%7 != 0 {
				frames++
			}
		}
	}
	for name, b := range map[string]*report.Benchmark{"exact": exact, "binned": binned} {
		m := b.Metrics
		for _, c := range []struct {
			what  string
			ms    *report.MetricsSummary
			count int64
			mean  float64
		}{
			{"images", m.Image.Images, images, 2}, {"pixels", m.Image.Pixels, images, 2 * 64 * 48},
			{"audio seconds", m.Audio.Seconds, clips, 2}, {"samples", m.Audio.Samples, clips, 32000}, {"audio bytes", m.Audio.Bytes, clips, 64044},
			{"frames", m.Video.Frames, frames, 8}, {"video seconds", m.Video.Seconds, frames, 2}, {"video bytes", m.Video.Bytes, clips, 5000},
		} {
			if c.ms == nil || c.ms.Input == nil || c.ms.Output != nil || c.ms.Total != nil || c.ms.InputPerSecond == nil || c.ms.InputConcurrency == nil {
				t.Fatalf("%s %s: %+v", name, c.what, c.ms)
			}
			d := c.ms.Input.Total
			if int64(d.Count) != c.count || math.Abs(float64(d.Mean)-c.mean) > 1e-9*c.mean {
				t.Errorf("%s %s: count %d mean %v, want %d, %v", name, c.what, d.Count, d.Mean, c.count, c.mean)
			}
			// The rate's mean is the quantity sent per second of the window.
			if r := float64(c.ms.InputPerSecond.Total.Mean); !(r > 0) {
				t.Errorf("%s %s: rate mean %v", name, c.what, r)
			}
		}
		if m.Image.Tokens != nil || m.Video.Tokens != nil || m.Audio.Tokens != nil {
			t.Errorf("%s: media tokens filled without a count", name)
		}
	}
	for _, c := range []struct {
		what   string
		e, b   *report.MetricsSummary
		relTol float64
	}{{"image bytes", exact.Metrics.Image.Bytes, binned.Metrics.Image.Bytes, 0.01}, {"audio seconds", exact.Metrics.Audio.Seconds, binned.Metrics.Audio.Seconds, 0.01}} {
		e, b := float64(c.e.Input.Total.Mean), float64(c.b.Input.Total.Mean)
		if math.Abs(e-b) > c.relTol*e {
			t.Errorf("%s: exact mean %v, binned %v", c.what, e, b)
		}
		e, b = float64(c.e.InputPerSecond.Total.Mean), float64(c.b.InputPerSecond.Total.Mean)
		if math.Abs(e-b) > 0.05*e {
			t.Errorf("%s per second: exact mean %v, binned %v", c.what, e, b)
		}
		e, b = float64(c.e.InputConcurrency.Total.Mean), float64(c.b.InputConcurrency.Total.Mean)
		if math.Abs(e-b) > 0.05*e {
			t.Errorf("%s concurrency: exact mean %v, binned %v", c.what, e, b)
		}
	}
	withMedia := 0
	for _, rs := range exact.Requests.Successful {
		in := rs.InputMetrics
		if in.ImageCount != nil {
			withMedia++
			if *in.ImageCount != 2 || *in.ImagePixels != 2*64*48 {
				t.Errorf("sampled request %s: images %v pixels %v", rs.RequestID, *in.ImageCount, in.ImagePixels)
			}
		}
		if in.AudioSeconds != nil && (*in.AudioSeconds != 2 || *in.AudioSamples != 32000 || *in.VideoBytes != 5000) {
			t.Errorf("sampled request %s: audio %v", rs.RequestID, *in.AudioSeconds)
		}
	}
	if withMedia == 0 {
		t.Error("no sampled request carries its images")
	}

	plain := runGolden(t, Config{Start: base}, binnedRecords(20), BenchmarkInfo{RunID: "p", Start: base})
	if *plain.Metrics.Image != (report.ImageMetrics{}) || *plain.Metrics.Video != (report.VideoMetrics{}) || *plain.Metrics.Audio != (report.AudioMetrics{}) {
		t.Errorf("media metrics without media: %+v %+v %+v", plain.Metrics.Image, plain.Metrics.Video, plain.Metrics.Audio)
	}
}
