package accum

import (
	"math"
	"slices"

	"github.com/goodput-dev/goodput/metric"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/stats"
)

// StreamingConfig asks for the streams' quality (report.StreamingQuality).
type StreamingConfig struct {
	// TTFTDeadlineNs is the first token's deadline after dispatch (0: the
	// first token is not judged); TBTDeadlineNs each later token's after
	// the one before (0: no deadlines, longest stalls only).
	TTFTDeadlineNs, TBTDeadlineNs int64
	// FluidityFloor is the per-request fluidity the share above is counted
	// against (0: none).
	FluidityFloor float64
}

// Stream is one request's streaming quality.
type Stream struct {
	// StallNs is the largest gap between consecutive token-bearing chunks;
	// HasStall is false with fewer than two.
	StallNs  int64
	HasStall bool
	// Missed and Deadlines are Etalon's counts (Deadlines 0: none judged).
	Missed, Deadlines int64
}

// Fluidity is Etalon's fluidity index, 1 − missed ÷ deadlines; ok is false
// without deadlines.
func (s Stream) Fluidity() (float64, bool) {
	if s.Deadlines == 0 {
		return 0, false
	}
	return 1 - float64(s.Missed)/float64(s.Deadlines), true
}

// MeasureStream measures one request dispatched at start whose
// token-bearing chunks arrived at times, carrying tokens each (nil or of
// another length: one token per chunk). A chunk of n tokens delivers n
// tokens at once: the later n − 1 arrive with no gap.
//
// The deadlines follow Etalon (get_request_level_deadline_miss_rate): the
// first token is due ttft after start (not judged when ttft ≤ 0, or without
// a start), each later token tbt after the previous one plus the slack
// saved so far. A token on time adds its unused time to the slack; a late
// token misses every deadline that passed while it was awaited (for the
// first token 1 + ⌊(gap − slack − ttft) ÷ tbt⌋, later ⌊(gap − slack) ÷
// tbt⌋) and resets the slack to 0. No deadlines are set when tbt ≤ 0.
func MeasureStream(start int64, times []int64, tokens []int32, ttft, tbt int64) Stream {
	var s Stream
	v, ok := metric.Stall.Value(metric.Request{Chunks: times})
	s.StallNs, s.HasStall = int64(v), ok
	if tbt <= 0 || len(times) == 0 {
		return s
	}
	perChunk := len(tokens) == len(times)
	var slack int64
	prev := start
	for i, t := range times {
		n := int32(1)
		if perChunk && tokens[i] > 1 {
			n = tokens[i]
		}
		for k := range n {
			gap := int64(0)
			if k == 0 {
				gap = t - prev
			}
			var misses int64
			if i == 0 && k == 0 {
				if ttft <= 0 || start == 0 {
					continue
				}
				if gap <= ttft+slack {
					slack += ttft - gap
					s.Deadlines++
					continue
				}
				misses = 1 + (gap-slack-ttft)/tbt
			} else {
				if gap <= tbt+slack {
					slack += tbt - gap
					s.Deadlines++
					continue
				}
				misses = (gap - slack) / tbt
			}
			s.Missed += misses
			s.Deadlines += misses
			slack = 0
		}
		prev = t
	}
	return s
}

// streamAgg gathers the streaming quality of successful in-window
// requests (fed with the histograms).
type streamAgg struct {
	cfg                      StreamingConfig
	cap                      int
	n                        int64
	stall, misses, fluid     []stats.Sample
	withDeadlines, aboveFlrN int64
}

func (g *streamAgg) add(s Stream) {
	g.n++
	fl, ok := s.Fluidity()
	if ok {
		g.withDeadlines++
		if fl >= g.cfg.FluidityFloor {
			g.aboveFlrN++
		}
	}
	if g.n > int64(g.cap) {
		return // the distributions hold the first cap requests
	}
	if s.HasStall {
		g.stall = append(g.stall, stats.Sample{Value: float64(s.StallNs) / 1e6, Weight: 1})
	}
	if ok {
		g.misses = append(g.misses, stats.Sample{Value: float64(s.Missed), Weight: 1})
		g.fluid = append(g.fluid, stats.Sample{Value: fl, Weight: 1})
	}
}

// kept is how many requests the distributions hold.
func (g *streamAgg) kept() int64 { return min(g.n, int64(g.cap)) }

func (g *streamAgg) quality() *report.StreamingQuality {
	q := &report.StreamingQuality{
		TTFTDeadlineMs: report.Float(float64(g.cfg.TTFTDeadlineNs) / 1e6),
		TBTDeadlineMs:  report.Float(float64(g.cfg.TBTDeadlineNs) / 1e6),
		FluidityFloor:  report.Float(g.cfg.FluidityFloor),
		Requests:       report.Int(g.n),
		Kept:           report.Int(g.kept()),
	}
	if g.withDeadlines > 0 && g.cfg.FluidityFloor > 0 {
		q.AboveFloor = report.Float(float64(g.aboveFlrN) / float64(g.withDeadlines))
	}
	d := stats.FromValues(g.stall)
	q.LongestStallMs = &d
	if g.cfg.TBTDeadlineNs > 0 {
		m, f := stats.FromValues(g.misses), stats.FromValues(g.fluid)
		q.DeadlineMisses, q.FluidityIndex = &m, &f
	}
	return q
}

// percentileTable reads each latency metric's successful requests at ps
// from the histograms.
func (a *Accumulator) percentileTable(ps []float64) *report.PercentileTable {
	t := &report.PercentileTable{Metrics: map[string]map[string]report.Float{}}
	for _, p := range ps {
		t.Percentiles = append(t.Percentiles, report.Float(p))
	}
	for _, l := range metric.Latencies {
		h := a.hist[l.Slot][report.StatusSuccessful]
		if h == nil || h.Total == 0 {
			continue
		}
		vs := map[string]report.Float{}
		for _, p := range ps {
			vs[report.PercentileKey(p)] = report.Float(float64(h.Hist.ValueAtQuantile(p)) / 1e6 / l.ToMs())
		}
		t.Metrics[l.Field] = vs
	}
	return t
}

// DefaultSlicePercentiles are a time slice's percentiles without a list.
var DefaultSlicePercentiles = []float64{50, 90, 99}

// timeSlices cuts the window [w.Start, w.End] into slices of sliceNs and
// sums the in-window requests (indices in) by the slice their end falls in.
func (a *Accumulator) timeSlices(in []int32, w MeasureWindow, sliceNs int64, ps []float64) *report.TimeSlices {
	if len(ps) == 0 {
		ps = DefaultSlicePercentiles
	}
	n := 1
	if w.End > w.Start {
		n = int((w.End - w.Start + sliceNs - 1) / sliceNs)
	}
	type acc struct {
		st             [report.NumStatus]int64
		out            int64
		ttft, itl, lat []float64
	}
	accs := make([]acc, n)
	for _, i := range in {
		s := a.sums.at(int(i))
		k := int((s.end - w.Start) / sliceNs)
		k = min(max(k, 0), n-1)
		x := &accs[k]
		x.st[s.status]++
		if s.status != report.StatusSuccessful {
			continue
		}
		if o, ok := s.outputTokens(); ok {
			x.out += o
		}
		if v, ok := s.TTFTNs(); ok {
			x.ttft = append(x.ttft, float64(v)/1e6)
		}
		if v, ok := s.itlNs(); ok {
			x.itl = append(x.itl, v/1e6)
		}
		if v, ok := s.LatencyNs(); ok {
			x.lat = append(x.lat, float64(v)/1e9)
		}
	}
	ts := &report.TimeSlices{DurationS: report.Float(float64(sliceNs) / 1e9), Slices: make([]report.TimeSlice, n)}
	for k := range accs {
		x := &accs[k]
		lo, hi := w.Start+int64(k)*sliceNs, min(w.Start+int64(k+1)*sliceNs, max(w.End, w.Start+sliceNs))
		secs := float64(hi-lo) / 1e9
		sl := report.TimeSlice{
			StartS: report.Float(float64(lo-w.Start) / 1e9), EndS: report.Float(float64(hi-w.Start) / 1e9),
			Successful: report.Int(x.st[report.StatusSuccessful]), Errored: report.Int(x.st[report.StatusErrored]),
			Incomplete: report.Int(x.st[report.StatusIncomplete]),
			TTFTMs:     pctMap(x.ttft, ps), ITLMs: pctMap(x.itl, ps), RequestLatencyS: pctMap(x.lat, ps),
		}
		if secs > 0 {
			sl.RequestsPerSecond = report.Float(float64(x.st[report.StatusSuccessful]) / secs)
			sl.OutputTokensPerSec = report.Float(float64(x.out) / secs)
		}
		ts.Slices[k] = sl
	}
	return ts
}

// pctMap is vs at each percentile of ps, GuideLLM's rule (the first value
// whose cumulative share reaches p); nil for no values.
func pctMap(vs []float64, ps []float64) map[string]report.Float {
	if len(vs) == 0 {
		return nil
	}
	slices.Sort(vs)
	m := make(map[string]report.Float, len(ps))
	for _, p := range ps {
		i := int(math.Ceil(p/100*float64(len(vs)))) - 1
		m[report.PercentileKey(p)] = report.Float(vs[min(max(i, 0), len(vs)-1)])
	}
	return m
}
