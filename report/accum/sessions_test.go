package accum

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/metric"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
)

// TestSessionExtras: four two-turn sessions computed by hand. With TTFT ≤
// 500 ms: s-a completes with both turns good (session goodput 1 of 4),
// s-b completes with a bad second turn, s-c's first turn errors (cut by
// errors), s-d stops after one good turn (cut short). Turn 0 prompts 100
// tokens with none cached, turn 1 prompts 200 with 100 cached.
func TestSessionExtras(t *testing.T) {
	const ms = int64(1e6)
	type turn struct {
		id          string
		k           int
		start, ttft int64
		status      record.Status
	}
	turns := []turn{
		{"s-a", 0, 0, 100, record.StatusSuccessful}, {"s-a", 1, 1000, 40, record.StatusSuccessful},
		{"s-b", 0, 0, 120, record.StatusSuccessful}, {"s-b", 1, 1000, 900, record.StatusSuccessful},
		{"s-c", 0, 0, 0, record.StatusErrored},
		{"s-d", 0, 0, 80, record.StatusSuccessful},
	}
	var got report.GoodputCounts
	a, err := New(Config{Start: base, Seed: 1, SLO: fakeSLO{t: ths(limits{metric.TTFT: 500}), got: &got}})
	if err != nil {
		t.Fatal(err)
	}
	for i, tr := range turns {
		r := record.New()
		r.ID, r.Status = uint64(i+1), tr.status
		r.Intended, r.Dispatched = base+tr.start*ms, base+tr.start*ms
		r.Session = record.Session{ID: tr.id, Turn: tr.k, Turns: 2, HistoryMessages: 2 * tr.k, HistoryTokens: -1}
		if tr.status == record.StatusErrored {
			r.End, r.ErrorClass, r.HTTPStatus = r.Dispatched+5*ms, record.ErrHTTPStatus, 500
			a.Add(r)
			continue
		}
		first := r.Dispatched + tr.ttft*ms
		r.ChunkTimes = []int64{first, first + 10*ms}
		r.FirstChunk, r.FirstToken, r.FirstOutputToken, r.LastToken, r.End = first, first, first, first+10*ms, first+10*ms
		r.PromptTokens, r.OutputTokens, r.OutputSource = 100*(tr.k+1), 2, record.TokensUsage
		r.CachedTokens = 100 * tr.k
		a.Add(r)
	}
	b := a.Finish(BenchmarkInfo{RunID: "s", Start: base})
	s := b.Extras.Sessions
	if s == nil {
		t.Fatal("no session extras")
	}
	if s.Sessions != 4 || s.Completed != 2 || s.CutByErrors != 1 || s.CutShort != 1 {
		t.Errorf("counts: %d sessions, %d completed, %d cut by errors, %d cut short; want 4, 2, 1, 1", s.Sessions, s.Completed, s.CutByErrors, s.CutShort)
	}
	if s.Good == nil || *s.Good != 1 || s.GoodFraction == nil || *s.GoodFraction != 0.25 {
		t.Errorf("session goodput %v (%v), want 1 (0.25)", s.Good, s.GoodFraction)
	}
	// Cached ÷ prompt over successful turns: turn 0 is 0/300, turn 1 100·2/200·2.
	if s.PromptTokens != 700 || s.CachedTokens != 200 || s.CacheHitRate == nil || math.Abs(float64(*s.CacheHitRate)-2.0/7) > 1e-12 {
		t.Errorf("cache: %d prompt, %d cached, rate %v", s.PromptTokens, s.CachedTokens, s.CacheHitRate)
	}
	if len(s.ByTurn) != 2 {
		t.Fatalf("by turn: %d entries", len(s.ByTurn))
	}
	t0, t1 := s.ByTurn[0], s.ByTurn[1]
	if t0.Turn != 0 || t0.Requests != 3 || t1.Turn != 1 || t1.Requests != 2 {
		t.Errorf("turns %d (%d requests), %d (%d)", t0.Turn, t0.Requests, t1.Turn, t1.Requests)
	}
	if float64(t0.TimeToFirstTokenMs.Mean) != 100 || float64(t1.TimeToFirstTokenMs.Mean) != 470 || float64(t1.TimeToFirstTokenMs.Max) != 900 {
		t.Errorf("TTFT means %v, %v (max %v); want 100, 470 (900)", t0.TimeToFirstTokenMs.Mean, t1.TimeToFirstTokenMs.Mean, t1.TimeToFirstTokenMs.Max)
	}
	if t0.CacheHitRate == nil || *t0.CacheHitRate != 0 || t1.CacheHitRate == nil || *t1.CacheHitRate != 0.5 || t1.HistoryMessagesMean != 2 || t1.PromptTokensMean != 200 {
		t.Errorf("turn figures: %+v / %+v", t0, t1)
	}
	if d := s.TurnsPerSession; float64(d.Mean) != 1.5 || float64(d.Max) != 2 {
		t.Errorf("turns per session mean %v max %v", d.Mean, d.Max)
	}
	// s-b is the longest: from 0 to 1000+900+10 ms.
	if d := s.DurationSeconds; math.Abs(float64(d.Max)-1.91) > 1e-9 {
		t.Errorf("duration max %v", d.Max)
	}
	for _, rs := range b.Requests.Successful {
		if rs.Info.ConversationID == nil || rs.Info.HistoryLen == nil || int(*rs.Info.HistoryLen) != 2*int(rs.Info.TurnIndex) {
			t.Errorf("request %s: conversation %v turn %d history %v", rs.RequestID, rs.Info.ConversationID, rs.Info.TurnIndex, rs.Info.HistoryLen)
		}
	}
	// The CSV carries them as Goodput Sessions columns.
	var csvb bytes.Buffer
	if err := report.WriteCSV(&csvb, &report.Report{Benchmarks: []*report.Benchmark{b}}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(csvb.String(), "\r\n")
	for _, want := range []string{"Goodput Sessions,Goodput Sessions,Goodput Sessions", "Cut By Errors,Cut Short,Good,Good Fraction,Cache Hit Rate", "TTFT P50 ms"} {
		if !strings.Contains(lines[0]+lines[1]+lines[2], want) {
			t.Errorf("CSV header lacks %q", want)
		}
	}
	if !strings.Contains(lines[3], ",4,2,1,1,1,0.25,") {
		t.Errorf("CSV row lacks the session counts: %s", lines[3])
	}
	// A benchmark without sessions has no session extras.
	if b := runGolden(t, Config{Start: base, Seed: 1}, goldenRecords, BenchmarkInfo{RunID: "g", Start: base}); b.Extras.Sessions != nil {
		t.Error("session extras without sessions")
	}
}
