package accum

import (
	"math"

	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/stats"
)

// censored computes the Kaplan–Meier view of TTFT and request latency
// over the in-window requests: successful ones are events; incomplete
// ones (cut off when the benchmark ended) are events for TTFT when their
// first token came, else censored at their elapsed time; errored ones are
// left out.
func (e *exact) censored() *report.Censored {
	conf := e.a.confidence()
	if conf == 0 {
		conf = stats.DefaultConfidence
	}
	var ttft, lat []stats.Observation
	succeeded, withTTFT := false, false
	for _, i := range e.in {
		s := e.sum(i)
		if s.status == report.StatusErrored {
			continue
		}
		el, hasEl := s.LatencyNs()
		if v, ok := s.TTFTNs(); ok {
			ttft = append(ttft, stats.Observation{Time: float64(v) / 1e6, Event: true})
			withTTFT = true
		} else if s.status == report.StatusIncomplete && hasEl {
			ttft = append(ttft, stats.Observation{Time: float64(el) / 1e6})
		}
		succeeded = succeeded || s.status == report.StatusSuccessful
		if hasEl {
			lat = append(lat, stats.Observation{Time: float64(el) / 1e9, Event: s.status == report.StatusSuccessful})
		}
	}
	c := &report.Censored{Confidence: report.Float(conf), RequestLatency: censoredDistribution(lat, conf)}
	// Requests that succeed without a first token (pooling types, a
	// non-streamed answer) have no TTFT to censor.
	if withTTFT || !succeeded {
		c.TimeToFirstTokenMs = censoredDistribution(ttft, conf)
	}
	return c
}

func censoredDistribution(obs []stats.Observation, conf float64) *report.CensoredDistribution {
	s := stats.KaplanMeier(obs)
	d := &report.CensoredDistribution{Events: report.Int(s.Events), Censored: report.Int(s.Censored),
		MaxObserved: report.Float(s.MaxTime), Percentiles: map[string]*report.Float{}, PercentileCIs: &report.PercentileCIs{}}
	for i, p := range report.PercentileProbs {
		if v, ok := s.Quantile(p); ok {
			f := report.Float(v)
			d.Percentiles[report.PercentileKeys[i]] = &f
		} else {
			d.Percentiles[report.PercentileKeys[i]] = nil
		}
		ci := s.QuantileCI(p, conf)
		d.PercentileCIs.Set(i, report.NewConfidenceInterval(ci.Lower, ci.Upper, conf))
	}
	return d
}

// windowThroughput counts the output tokens that arrived inside the
// measurement window, and the requests done in it: successful requests
// that ended inside it plus, for each request cut off (incomplete), its
// output tokens over the successful requests' mean (capped at 1).
func (e *exact) windowThroughput() *report.WindowThroughput {
	lo, hi := NsToSec(e.w.Start), NsToSec(e.w.End)
	secs := hi - lo
	if secs <= 0 {
		return nil
	}
	var tokens, succTok float64
	var completed, succ int64
	for _, i := range e.in {
		s := e.sum(i)
		s.outputEvents(func(t, w float64) {
			if t >= lo && t <= hi {
				tokens += w
			}
		})
		if s.status == report.StatusSuccessful {
			if out, ok := s.outputTokens(); ok {
				succTok += float64(out)
				succ++
			}
			if s.end >= e.w.Start && s.end <= e.w.End {
				completed++
			}
		}
	}
	done := 0.0
	if succ > 0 && succTok > 0 {
		mean := succTok / float64(succ)
		for _, i := range e.in {
			s := e.sum(i)
			if s.status != report.StatusIncomplete {
				continue
			}
			if out, ok := s.outputTokens(); ok {
				done += math.Min(float64(out)/mean, 1)
			}
		}
	}
	return &report.WindowThroughput{
		OutputTokensPerSecond: report.Float(tokens / secs),
		RequestsPerSecond:     report.Float((float64(completed) + done) / secs),
		Completed:             report.Int(completed), InFlightDone: report.Float(done), WindowSeconds: report.Float(secs),
	}
}
