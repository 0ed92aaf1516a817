package accum

import (
	"slices"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
)

// Breakdowns by model and by target: with several models (or targets) in
// a run, each stored request summary keeps the index of its model (and
// target) in a parallel slice, and Finish splits the requests in the
// window by it. Each group is figured from exactly the requests the
// totals are, so its counts and token sums add up to the totals.

// groupDim is one breakdown dimension: the names and each stored
// summary's index among them.
type groupDim struct {
	names []string
	index map[string]uint8
	of    []uint8 // parallel to Accumulator.sums
}

// newGroupDim returns nil for fewer than two names (no breakdown) or more
// than 255.
func newGroupDim(names []string) *groupDim {
	if len(names) < 2 || len(names) > 255 {
		return nil
	}
	g := &groupDim{names: names, index: map[string]uint8{}}
	for i, n := range names {
		g.index[n] = uint8(i)
	}
	return g
}

// add records the group of the summary being stored; a name not in the
// list (a record from elsewhere) counts as the first.
func (g *groupDim) add(name string) {
	if g != nil {
		g.of = append(g.of, g.index[name])
	}
}

// groupsOf adds r's model and target to the breakdowns; called where its
// summary is stored.
func (a *Accumulator) groupsOf(r *record.Record) {
	a.byModel.add(r.Model)
	a.byTarget.add(r.Target)
	if a.cfg.InputKind == InputAudio {
		a.audio = append(a.audio, float32(r.AudioSeconds))
	}
}

// figures splits the requests in the window (in) by g.
func (a *Accumulator) figures(g *groupDim, in []int32, w MeasureWindow) []report.GroupFigures {
	if g == nil || len(g.of) != a.sums.len() {
		return nil
	}
	type acc struct {
		counts             report.StatusCounts
		lat, ttft, itl     []float64
		prompt, out, input int64
		good               report.GoodputCounts
	}
	accs := make([]acc, len(g.names))
	for _, i := range in {
		s, x := a.sums.at(int(i)), &accs[g.of[i]]
		if a.thresholds != nil {
			countGood(&x.good, s)
		}
		x.counts.Total++
		switch s.status {
		case report.StatusSuccessful:
			x.counts.Successful++
		case report.StatusErrored:
			x.counts.Errored++
		case report.StatusIncomplete:
			x.counts.Incomplete++
		}
		if s.status != report.StatusSuccessful {
			continue
		}
		if v, ok := s.LatencyNs(); ok {
			x.lat = append(x.lat, float64(v)/1e6)
		}
		if v, ok := s.TTFTNs(); ok {
			x.ttft = append(x.ttft, float64(v)/1e6)
		}
		if v, ok := s.itlNs(); ok {
			x.itl = append(x.itl, v/1e6)
		}
		if v, ok := s.promptTokens(); ok {
			x.prompt += v
		}
		if v, ok := s.outputTokens(); ok {
			x.out += v
		}
		x.input += int64(s.inputs)
	}
	sec := float64(w.End-w.Start) / 1e9
	out := make([]report.GroupFigures, len(g.names))
	for k, x := range accs {
		f := report.GroupFigures{Name: g.names[k], Requests: x.counts, PromptTokens: report.Int(x.prompt), OutputTokens: report.Int(x.out),
			RequestLatencyMs: quantiles(x.lat), TTFTMs: quantiles(x.ttft), ITLMs: quantiles(x.itl)}
		if x.input > 0 {
			f.Inputs = report.Int(x.input)
		}
		if x.good.Judged > 0 {
			f.GoodRequests = report.Int(x.good.Good)
			att := report.Float(float64(x.good.Good) / float64(x.good.Judged))
			f.Attainment = &att
		}
		if sec > 0 {
			f.RequestsPerSecond = report.Float(float64(x.counts.Successful) / sec)
			f.OutputTokensPerSecond = report.Float(float64(x.out) / sec)
		}
		out[k] = f
	}
	return out
}

// quantiles summarizes vs (nil when empty): the mean and the nearest-rank
// percentiles.
func quantiles(vs []float64) *report.Quantiles {
	if len(vs) == 0 {
		return nil
	}
	slices.Sort(vs)
	sum := 0.0
	for _, v := range vs {
		sum += v
	}
	at := func(p float64) report.Float {
		i := int(p*float64(len(vs))+0.999999) - 1
		return report.Float(vs[min(max(i, 0), len(vs)-1)])
	}
	return &report.Quantiles{Count: report.Int(len(vs)), Mean: report.Float(sum / float64(len(vs))), P50: at(0.5), P90: at(0.9), P99: at(0.99), Max: report.Float(vs[len(vs)-1])}
}
