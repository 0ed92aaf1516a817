package htmlreport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
)

// RecordSource gives a run's per-request records (goodput's requests.jsonl,
// record.Encoder's JSON Lines). Open is called at most twice per Render.
type RecordSource interface {
	// Name labels the source in the page and in errors (a path).
	Name() string
	// Open returns a fresh reader positioned at the first record.
	Open() (io.ReadCloser, error)
}

// RecordsFile is the RecordSource of a requests.jsonl file.
func RecordsFile(path string) RecordSource { return fileSource(path) }

type fileSource string

func (f fileSource) Name() string { return string(f) }

func (f fileSource) Open() (io.ReadCloser, error) {
	r, err := os.Open(string(f))
	if err != nil {
		return nil, fmt.Errorf("opening records: %w", err)
	}
	return r, nil
}

// timeline is requests over time in bins of width seconds from t0 (Unix
// seconds, the run's start): completions per second by status and the mean number of
// requests in flight.
type timeline struct {
	t0, width float64
	ok, errd  []float64 // completions per bin: successful; errored and incomplete
	inc       []float64 // incomplete completions per bin (a subset of errd)
	inflight  []float64 // mean requests in flight over the bin
	records   int64
	clamped   int64 // records outside the expected span, counted at its edges
}

// binWidths are the bin widths a timeline may use, in seconds.
var binWidths = [...]float64{0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 86400}

// maxBins bounds a timeline's bins (and so its memory and the SVG size).
const maxBins = 360

// pickWidth is the smallest bin width that covers span seconds in at
// most maxBins bins.
func pickWidth(span float64) float64 {
	for _, w := range binWidths {
		if span/w <= maxBins {
			return w
		}
	}
	return math.Ceil(span/maxBins/86400) * 86400
}

// reportSpan is a run's time span (Unix seconds) from its benchmarks'
// start and end times; ok is false when the report has none.
func reportSpan(rep *report.Report) (t0, t1 float64, ok bool) {
	t0, t1 = math.Inf(1), math.Inf(-1)
	for _, b := range rep.Benchmarks {
		if b == nil {
			continue
		}
		for _, p := range []*report.Float{b.StartTime, b.EndTime} {
			if p != nil && *p > 0 && usable(float64(*p)) {
				t0, t1 = math.Min(t0, float64(*p)), math.Max(t1, float64(*p))
			}
		}
		if m := b.SchedulerMetrics; m != nil {
			for _, p := range []*report.Float{m.StartTime, m.RequestStartTime, m.RequestEndTime, m.EndTime} {
				if p != nil && *p > 0 && usable(float64(*p)) {
					t0, t1 = math.Min(t0, float64(*p)), math.Max(t1, float64(*p))
				}
			}
		}
	}
	return t0, t1, t1 > t0
}

// recordTimeline bins the records of src. The span comes from the report
// when it has one (one pass over the records), else from a first pass;
// bins start at the span's start and run 2% past its end (at least 1 s).
// Records ending outside are counted in the first or last bin (clamped). Memory is bounded by maxBins, whatever the number of
// records.
func recordTimeline(ctx context.Context, src RecordSource, rep *report.Report) (*timeline, error) {
	t0, t1, ok := reportSpan(rep)
	if !ok {
		var err error
		if t0, t1, err = recordSpan(ctx, src); err != nil {
			return nil, err
		}
	}
	// Requests cancelled when a round stops end a little after it.
	t1 += math.Max((t1-t0)*0.02, 1)
	w := pickWidth(t1 - t0)
	n := int(math.Ceil((t1 - t0) / w))
	tl := &timeline{t0: t0, width: w, ok: make([]float64, n), errd: make([]float64, n), inc: make([]float64, n), inflight: make([]float64, n)}
	full := make([]float64, n+1) // difference array of whole bins covered
	bin := func(t float64) (int, bool) {
		k := int(math.Floor((t - t0) / w))
		if k < 0 {
			return 0, false
		}
		if k >= n {
			return n - 1, false
		}
		return k, true
	}
	err := eachSpan(ctx, src, func(r *record.Span) {
		tl.records++
		if r.End == 0 {
			return
		}
		start, end := float64(r.Started())/1e9, float64(r.End)/1e9
		if start <= 0 || start > end {
			start = end
		}
		ke, in := bin(end)
		if !in {
			tl.clamped++
		}
		switch r.Status {
		case record.StatusSuccessful:
			tl.ok[ke]++
		case record.StatusIncomplete:
			tl.errd[ke]++
			tl.inc[ke]++
		default:
			tl.errd[ke]++
		}
		// In flight: the request's share of each bin it overlaps.
		s := math.Max(start, t0)
		e := math.Min(end, t0+float64(n)*w)
		if e <= s {
			return
		}
		ks, _ := bin(s)
		ke2, _ := bin(math.Nextafter(e, s))
		if ks == ke2 {
			tl.inflight[ks] += (e - s) / w
			return
		}
		tl.inflight[ks] += (t0 + float64(ks+1)*w - s) / w
		tl.inflight[ke2] += (e - (t0 + float64(ke2)*w)) / w
		full[ks+1]++
		full[ke2]--
	})
	if err != nil {
		return nil, err
	}
	c := 0.0
	for k := range n {
		c += full[k]
		tl.inflight[k] += c
	}
	return tl, nil
}

// recordSpan is the first and last time (Unix seconds) of the records.
func recordSpan(ctx context.Context, src RecordSource) (float64, float64, error) {
	lo, hi := math.Inf(1), math.Inf(-1)
	err := eachSpan(ctx, src, func(r *record.Span) {
		for _, t := range []int64{r.Started(), r.End} {
			if t > 0 {
				lo, hi = math.Min(lo, float64(t)/1e9), math.Max(hi, float64(t)/1e9)
			}
		}
	})
	if err != nil {
		return 0, 0, err
	}
	if lo > hi {
		return 0, 0, fmt.Errorf("%s: no record with a time", src.Name())
	}
	return lo, hi, nil
}

// eachSpan calls f for every record's span of src (the span is reused):
// the timeline needs no chunk times, whose decoding would cost more CPU
// than the run's own client did.
func eachSpan(ctx context.Context, src RecordSource, f func(*record.Span)) error {
	rc, err := src.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	dec := record.NewDecoder(rc, src.Name())
	r := new(record.Span)
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		err := dec.DecodeSpan(r)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		f(r)
	}
}
