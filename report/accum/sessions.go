package accum

import (
	"sort"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/stats"
)

// sessionAgg follows the conversations of a benchmark: each session's
// turns (for the session counts and session goodput) and, up to the
// exact cap, each turn's summary (for the figures by turn index).
type sessionAgg struct {
	byID  map[string]*sessAcc
	turns []turnSample
	cap   int
	// dropped counts turns beyond the cap, left out of ByTurn.
	dropped int64
}

// sessAcc is one session's account.
type sessAcc struct {
	planned, seen int
	errored, bad  bool // a turn errored; a turn missed the SLO (or was not judged)
	start, end    int64
}

// turnSample is one turn's summary and its session figures.
type turnSample struct {
	s               RequestSummary
	turn            int32
	cached, history int32
}

func newSessionAgg(cap int) *sessionAgg {
	return &sessionAgg{byID: map[string]*sessAcc{}, cap: cap}
}

// add accounts one turn. judged says whether the SLO judged requests.
func (g *sessionAgg) add(r *record.Record, s *RequestSummary, judged bool) {
	sa := g.byID[r.Session.ID]
	if sa == nil {
		sa = &sessAcc{start: s.start}
		g.byID[r.Session.ID] = sa
	}
	sa.planned = max(sa.planned, r.Session.Turns)
	sa.seen++
	sa.start, sa.end = min(sa.start, s.start), max(sa.end, s.end)
	if s.status == report.StatusErrored {
		sa.errored = true
	}
	if judged && s.flags&flagGood == 0 {
		sa.bad = true
	}
	if len(g.turns) >= g.cap {
		g.dropped++
		return
	}
	g.turns = append(g.turns, turnSample{s: *s, turn: int32(r.Session.Turn), cached: int32(max(-1, min(r.CachedTokens, 1<<31-1))), history: int32(r.Session.HistoryMessages)})
}

// finish computes the session extras over the window w.
func (g *sessionAgg) finish(w MeasureWindow, judged bool) *report.SessionExtras {
	out := &report.SessionExtras{Sessions: report.Int(len(g.byID)), ByTurn: []report.TurnMetrics{}}
	var perSession, durations []stats.Sample
	good := 0
	for _, sa := range g.byID {
		switch {
		case sa.errored:
			out.CutByErrors++
		case sa.seen < sa.planned:
			out.CutShort++
		default:
			out.Completed++
			if judged && !sa.bad {
				good++
			}
		}
		perSession = append(perSession, stats.Sample{Value: float64(sa.seen), Weight: 1})
		durations = append(durations, stats.Sample{Value: NsToSec(sa.end) - NsToSec(sa.start), Weight: 1})
	}
	out.TurnsPerSession, out.DurationSeconds = stats.FromValues(perSession), stats.FromValues(durations)
	if judged {
		out.Good = report.IntPtr(int64(good))
		out.GoodFraction = report.FloatPtr(float64(good) / float64(max(1, len(g.byID))))
	}
	type turnAcc struct {
		ttft, sched, itl, tpot, lat []stats.Sample
		n                           int
		prompt, history             float64
		promptN                     int
		cachedP, cached             int64
	}
	byTurn := map[int32]*turnAcc{}
	for i := range g.turns {
		t := &g.turns[i]
		s := &t.s
		if s.status != report.StatusSuccessful || !w.contains(s) {
			continue
		}
		ta := byTurn[t.turn]
		if ta == nil {
			ta = &turnAcc{}
			byTurn[t.turn] = ta
		}
		ta.n++
		ta.history += float64(t.history)
		if v, ok := s.TTFTNs(); ok {
			ta.ttft = append(ta.ttft, stats.Sample{Value: float64(v) / 1e6, Weight: 1})
		}
		if v, ok := s.schedTTFTNs(); ok {
			ta.sched = append(ta.sched, stats.Sample{Value: float64(v) / 1e6, Weight: 1})
		}
		if v, ok := s.itlNs(); ok {
			ta.itl = append(ta.itl, stats.Sample{Value: v / 1e6, Weight: 1})
		}
		if v, ok := s.tpotNs(); ok {
			ta.tpot = append(ta.tpot, stats.Sample{Value: v / 1e6, Weight: 1})
		}
		if v, ok := s.LatencyNs(); ok {
			ta.lat = append(ta.lat, stats.Sample{Value: float64(v) / 1e9, Weight: 1})
		}
		if p, ok := s.promptTokens(); ok {
			ta.prompt += float64(p)
			ta.promptN++
			if t.cached >= 0 {
				ta.cachedP += p
				ta.cached += int64(t.cached)
			}
		}
	}
	keys := make([]int32, 0, len(byTurn))
	for k := range byTurn {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for _, k := range keys {
		ta := byTurn[k]
		tm := report.TurnMetrics{Turn: report.Int(k), Requests: report.Int(ta.n),
			TimeToFirstTokenMs: stats.FromValues(ta.ttft), ScheduledTimeToFirstTokenMs: stats.FromValues(ta.sched),
			InterTokenLatencyMs: stats.FromValues(ta.itl), TimePerOutputTokenMs: stats.FromValues(ta.tpot), RequestLatency: stats.FromValues(ta.lat),
			HistoryMessagesMean: report.Float(ta.history / float64(ta.n))}
		if ta.promptN > 0 {
			tm.PromptTokensMean = report.Float(ta.prompt / float64(ta.promptN))
		}
		if ta.cachedP > 0 {
			tm.CacheHitRate = report.FloatPtr(float64(ta.cached) / float64(ta.cachedP))
		}
		out.PromptTokens += report.Int(ta.cachedP)
		out.CachedTokens += report.Int(ta.cached)
		out.ByTurn = append(out.ByTurn, tm)
	}
	if out.PromptTokens > 0 {
		out.CacheHitRate = report.FloatPtr(float64(out.CachedTokens) / float64(out.PromptTokens))
	}
	return out
}
