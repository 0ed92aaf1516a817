package htmlreport

import (
	"strconv"

	"github.com/goodput-dev/goodput/report"
)

// renderSessions writes the conversations of the rounds that ran
// sessions: their counts, session goodput and prefix-cache hit rate, and
// a chart of TTFT P50 by turn index (what the history and the prefix
// cache do to later turns). Nothing when no round ran sessions.
func renderSessions(p *page, v *runView) {
	var rounds []*roundView
	for _, r := range v.rounds {
		if r.b.Extras != nil && r.b.Extras.Sessions != nil {
			rounds = append(rounds, r)
		}
	}
	if len(rounds) == 0 {
		return
	}
	h3(p, v, "sessions", "Sessions")
	t := &table{head: []string{"#", "Strategy", "Sessions", "Completed", "Cut by errors", "Cut short", "Session goodput", "Turns/session", "Cache hit rate"}}
	c := &chart{id: v.id + "-turn-ttft", title: "TTFT P50 by turn", x: axis{label: "Turn index", zero: true}, y: axis{label: "TTFT P50 (ms)", zero: true}}
	for k, r := range rounds {
		s := r.b.Extras.Sessions
		opt := func(f *report.Float) cell {
			if f == nil {
				return numCell("–")
			}
			return numCell(fmtPct(float64(*f)))
		}
		t.rows = append(t.rows, []cell{numCell(strconv.Itoa(r.i)), {text: r.label}, numCell(fmtInt(int64(s.Sessions))),
			numCell(fmtInt(int64(s.Completed))), numCell(fmtInt(int64(s.CutByErrors))), numCell(fmtInt(int64(s.CutShort))),
			opt(s.GoodFraction), numCell(strconv.FormatFloat(float64(s.TurnsPerSession.Mean), 'f', 2, 64)), opt(s.CacheHitRate)})
		sr := series{name: r.label, kind: lineSeries, color: k, dots: true}
		for _, tm := range s.ByTurn {
			d := tm.TimeToFirstTokenMs
			if d.Count == 0 || d.Percentiles.P50 == nil {
				continue
			}
			y := float64(*d.Percentiles.P50)
			tip := "turn " + strconv.Itoa(int(tm.Turn)) + ": " + strconv.FormatFloat(y, 'f', 1, 64) + " ms"
			if tm.CacheHitRate != nil {
				tip += ", cache hit " + fmtPct(float64(*tm.CacheHitRate))
			}
			sr.pts = append(sr.pts, point{x: float64(tm.Turn), y: y, tip: tip})
		}
		c.series = append(c.series, sr)
	}
	p.table(t)
	p.figure(c, "TTFT P50 of the successful turns in the window, by turn index; a later turn's lower TTFT is the prefix cache's effect.")
}
