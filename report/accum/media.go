package accum

import (
	"math"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/stats"
)

// GuideLLM's image, audio and video metrics, from the media each record
// carries (record.Media, AudioSeconds): per quantity, over the requests
// that have a value (absent means absent, as GuideLLM drops None), the
// input distribution, its rate (at each request's end) and concurrency
// (from start to end); no output side, so no total. Only requests with
// media pay: their figures sit beside the stored summaries (exact path)
// or in histograms and time bins made at the first (binned path).

// Media quantities.
const (
	mImages = iota
	mPixels
	mImageBytes
	mSamples
	mAudioSeconds
	mAudioBytes
	mFrames
	mVideoSeconds
	mVideoBytes
	numMedia
)

// mediaScale turns a quantity into the integers of the binned path's
// histograms (seconds to milliseconds).
var mediaScale = [numMedia]float64{mAudioSeconds: 1e3, mVideoSeconds: 1e3,
	mImages: 1, mPixels: 1, mImageBytes: 1, mSamples: 1, mAudioBytes: 1, mFrames: 1, mVideoBytes: 1}

// mediaBinCount is the number of time bins of the media's rate and
// concurrency distributions on the binned path.
const mediaBinCount = 1 << 12

// mediaVals is one request's media quantities; 0 is none or not known.
type mediaVals [numMedia]float64

// mediaOf returns r's media quantities, nil without any.
func mediaOf(r *record.Record) *mediaVals {
	m := &r.Media
	if *m == (record.Media{}) && r.AudioSeconds == 0 {
		return nil
	}
	return &mediaVals{mImages: float64(m.ImageCount), mPixels: float64(m.ImagePixels), mImageBytes: float64(m.ImageBytes),
		mSamples: float64(m.AudioSamples), mAudioSeconds: r.AudioSeconds, mAudioBytes: float64(m.AudioBytes),
		mFrames: float64(m.VideoFrames), mVideoSeconds: m.VideoSeconds, mVideoBytes: float64(m.VideoBytes)}
}

// mediaMetrics assembles the image, video and audio metrics from one
// summary per quantity (nil: no request has it).
func mediaMetrics(q func(int) *report.MetricsSummary) (*report.ImageMetrics, *report.VideoMetrics, *report.AudioMetrics) {
	return &report.ImageMetrics{Images: q(mImages), Pixels: q(mPixels), Bytes: q(mImageBytes)},
		&report.VideoMetrics{Frames: q(mFrames), Seconds: q(mVideoSeconds), Bytes: q(mVideoBytes)},
		&report.AudioMetrics{Samples: q(mSamples), Seconds: q(mAudioSeconds), Bytes: q(mAudioBytes)}
}

// storeMedia keeps the media of the summary stored at index i.
func (a *Accumulator) storeMedia(i int, m *mediaVals) {
	if m == nil {
		return
	}
	if a.media == nil {
		a.media = map[int32]*mediaVals{}
	}
	a.media[int32(i)] = m
}

// mediaMetrics is the exact path's image, video and audio metrics.
func (e *exact) mediaMetrics() (*report.ImageMetrics, *report.VideoMetrics, *report.AudioMetrics) {
	if len(e.a.media) == 0 {
		return &report.ImageMetrics{}, &report.VideoMetrics{}, &report.AudioMetrics{}
	}
	of := make(map[*RequestSummary]*mediaVals, len(e.a.media))
	for i, m := range e.a.media {
		of[e.sum(i)] = m
	}
	return mediaMetrics(func(q int) *report.MetricsSummary {
		has := func(s *RequestSummary) bool { m := of[s]; return m != nil && m[q] > 0 }
		val := func(s *RequestSummary) float64 {
			if m := of[s]; m != nil {
				return m[q]
			}
			return 0
		}
		found := false
		for _, i := range e.in {
			if found = has(e.sum(i)); found {
				break
			}
		}
		if !found {
			return nil
		}
		lists := e.lists(func(s *RequestSummary) (float64, bool) { return val(s), has(s) })
		return &report.MetricsSummary{
			Input:            stats.StatusSummaryListsCI(lists, e.a.confidence()),
			InputPerSecond:   e.rates(e.byEnd, has, endTime, val, stats.Window{}),
			InputConcurrency: e.concurrency(has, val, stats.Window{}),
		}
	})
}

// binnedMedia is the binned path's media aggregates.
type binnedMedia struct {
	vals [numMedia][report.NumStatus]*stats.HistAcc
	n    [numMedia][report.NumStatus]int64 // requests with a value
	bins binSeries
}

// addMedia adds an in-window request's media to the binned aggregates.
func (x *binnedAgg) addMedia(s *RequestSummary, m *mediaVals) {
	if m == nil {
		return
	}
	if x.media == nil {
		bm := &binnedMedia{bins: newBinSeries(x.bins.origin, 1e-3, mediaBinCount, numMedia, numMedia)}
		for q := range bm.vals {
			for st := range bm.vals[q] {
				bm.vals[q][st] = stats.NewHistAcc()
			}
		}
		x.media = bm
	}
	bm, st := x.media, s.status
	t0, t1 := NsToSec(s.start), NsToSec(s.end)
	for q, v := range m {
		if !(v > 0) {
			continue
		}
		bm.vals[q][st].Record(int64(math.Round(v*mediaScale[q])), 1)
		bm.n[q][st]++
		bm.bins.addRate(q, st, t1, v)
		bm.bins.addInterval(q, st, t0, t1, v)
	}
}

// mediaMetrics is the binned path's image, video and audio metrics.
func (x *binnedAgg) mediaMetrics() (*report.ImageMetrics, *report.VideoMetrics, *report.AudioMetrics) {
	bm := x.media
	if bm == nil {
		return &report.ImageMetrics{}, &report.VideoMetrics{}, &report.AudioMetrics{}
	}
	return mediaMetrics(func(q int) *report.MetricsSummary {
		if bm.n[q] == [report.NumStatus]int64{} {
			return nil
		}
		return &report.MetricsSummary{
			Input:            StatusFromAccs(bm.vals[q], mediaScale[q], x.confidence),
			InputPerSecond:   bm.bins.rateSDS(q, 0, 0, false),
			InputConcurrency: bm.bins.concSDS(q, 0, 0, false, bm.n[q]),
		}
	})
}
