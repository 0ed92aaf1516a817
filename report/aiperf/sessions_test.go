package aiperf

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

// TestAIPerfSessionFigures: a benchmark with sessions gets AIPerf's
// session_count, session_turns and session_duration (ms) in both sources,
// and the whole session figures under goodput_export.sessions; one
// without sessions gets none of them.
func TestAIPerfSessionFigures(t *testing.T) {
	rep := apGoldenReport(t)
	good, hit := report.Float(0.5), report.Float(0.75)
	rep.Benchmarks[0].Extras.Sessions = &report.SessionExtras{Sessions: 2, Completed: 2, Good: new(report.Int), GoodFraction: &good,
		TurnsPerSession: report.DistributionSummary{Mean: 2, Median: 2, Min: 2, Max: 2, Count: 2, TotalSum: 4},
		DurationSeconds: report.DistributionSummary{Mean: 0.25, Median: 0.25, Min: 0.2, Max: 0.3, Count: 2, TotalSum: 0.5},
		PromptTokens:    400, CachedTokens: 300, CacheHitRate: &hit,
		ByTurn: []report.TurnMetrics{{Turn: 0, Requests: 2}, {Turn: 1, Requests: 2}}}
	fromRecords, err := FromRecords(rep, 0, apRecordsSource(apGoldenRecords()), Options{GoodputVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	fromReport, err := FromReport(rep, 0, Options{GoodputVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for name, x := range map[string]*Export{"records": fromRecords, "report": fromReport} {
		if m := x.Metric("session_count"); m == nil || *m.Avg != 2 {
			t.Errorf("%s: session_count %+v, want 2", name, m)
		}
		if m := x.Metric("session_turns"); m == nil || *m.Avg != 2 || *m.Count != 2 {
			t.Errorf("%s: session_turns %+v", name, m)
		}
		if m := x.Metric("session_duration"); m == nil || m.Unit != "ms" || *m.Avg != 250 || *m.Max != 300 {
			t.Errorf("%s: session_duration %+v, want 250 ms mean", name, m)
		}
		b, err := x.MarshalJSONBytes()
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			G struct {
				Sessions *struct {
					GoodFraction float64           `json:"good_fraction"`
					CacheHitRate float64           `json:"cache_hit_rate"`
					ByTurn       []json.RawMessage `json:"by_turn"`
				} `json:"sessions"`
				Exact   bool     `json:"exact"`
				Reasons []string `json:"inexact_reasons"`
			} `json:"goodput_export"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		if s := doc.G.Sessions; s == nil || s.GoodFraction != 0.5 || s.CacheHitRate != 0.75 || len(s.ByTurn) != 2 {
			t.Errorf("%s: goodput_export.sessions %+v", name, s)
		}
		if doc.G.Exact || !strings.Contains(strings.Join(doc.G.Reasons, "|"), "session_count") {
			t.Errorf("%s: exact %v, reasons %q: want the session figures named approximate", name, doc.G.Exact, doc.G.Reasons)
		}
	}
	plain := apGoldenExport(t, Options{})
	if plain.Metric("session_count") != nil || plain.Goodput.Sessions != nil || !plain.Goodput.Exact {
		t.Errorf("a benchmark without sessions has session figures")
	}
}
