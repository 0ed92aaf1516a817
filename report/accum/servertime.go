package accum

import (
	"fmt"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
)

// serverTimeAgg keeps, up to the exact cap, the server's own times of the
// successful requests whose responses carried them (record.ServerTimings),
// for report.ServerTime.
type serverTimeAgg struct {
	samples []serverSample
	cap     int
	dropped int64 // beyond the cap
}

// serverSample is one request's summary (for the window) and its times
// in ns, -1 unknown.
type serverSample struct {
	s               RequestSummary
	prefill, decode int64
	predicted       int32 // output tokens the server predicted
	ttft            int64
}

// addServerTime accounts r's server timings, when it has them and
// succeeded.
func (a *Accumulator) addServerTime(r *record.Record, s *RequestSummary) {
	t := &r.ServerTimings
	if !t.Present || s.status != report.StatusSuccessful {
		return
	}
	if a.server == nil {
		a.server = &serverTimeAgg{cap: a.exactCap}
	}
	g := a.server
	if len(g.samples) >= g.cap {
		g.dropped++
		return
	}
	x := serverSample{s: *s, prefill: t.PromptNS, decode: t.PredictedNS, predicted: clampInt32(t.PredictedTokens), ttft: -1}
	if v, ok := s.TTFTNs(); ok {
		x.ttft = v
	}
	g.samples = append(g.samples, x)
}

// finish computes the figures over the window w; nil when no in-window
// request had timings.
func (g *serverTimeAgg) finish(w MeasureWindow) *report.ServerTime {
	var prefill, decode, rest []float64
	var sumPrefill, sumTTFT float64
	out := &report.ServerTime{Source: "timings"}
	for i := range g.samples {
		x := &g.samples[i]
		if !w.contains(&x.s) {
			continue
		}
		out.Requests++
		if x.prefill >= 0 {
			prefill = append(prefill, float64(x.prefill)/1e6)
		}
		if x.decode >= 0 && x.predicted >= 2 {
			decode = append(decode, float64(x.decode)/1e6/float64(x.predicted-1))
		}
		if x.prefill >= 0 && x.ttft >= 0 {
			d := x.ttft - x.prefill
			rest = append(rest, float64(d)/1e6)
			if d < 0 {
				out.TTFTBelowPrefill++
			}
			sumPrefill += float64(x.prefill)
			sumTTFT += float64(x.ttft)
		}
	}
	if out.Requests == 0 {
		return nil
	}
	out.PrefillMs, out.DecodePerTokenMs, out.TTFTOutsidePrefillMs = quantiles(prefill), quantiles(decode), quantiles(rest)
	if sumTTFT > 0 {
		out.PrefillShareOfTTFT = report.FloatPtr(sumPrefill / sumTTFT)
	}
	return out
}

// serverTimeExtras sets ex.ServerTime.
func (a *Accumulator) serverTimeExtras(ex *report.Extras, w MeasureWindow) {
	if a.server == nil {
		return
	}
	ex.ServerTime = a.server.finish(w)
	if a.server.dropped > 0 && ex.ServerTime != nil {
		ex.Exact = false
		ex.InexactReasons = append(ex.InexactReasons, fmt.Sprintf("%d requests beyond the exact cap are left out of server_time", a.server.dropped))
	}
}
