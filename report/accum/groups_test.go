package accum

import (
	"testing"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
)

// With several models and targets, each request's group is its
// record's, and the groups' counts and token sums add up to the totals
// exactly, errored and incomplete requests included.
func TestBreakdownsAddUp(t *testing.T) {
	cfg := Config{Start: base, Models: []string{"a", "b"}, Targets: []string{"http://x", "http://y"}}
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := record.New()
	for i := range 40 {
		sp := recSpec{id: uint64(i), status: record.StatusSuccessful, intended: float64(10 * i), dispatched: float64(10 * i),
			chunks: []float64{float64(10*i + 5), float64(10*i + 7)}, firstOut: -1, end: float64(10*i + 8), iterations: 3,
			prompt: 10 + i, output: 2, source: record.TokensUsage, srv: 2, cli: -1}
		switch i % 7 {
		case 3:
			sp.status, sp.chunks, sp.output, sp.source, sp.srv, sp.errClass, sp.httpStatus = record.StatusErrored, nil, 0, record.TokensUnknown, -1, record.ErrHTTPStatus, 500
		case 5:
			sp.status, sp.errClass = record.StatusIncomplete, record.ErrCancelled
		}
		sp.fill(r)
		r.Model = []string{"a", "b"}[i%2]
		r.Target = []string{"http://x", "http://y"}[i%3%2]
		a.Add(r)
	}
	b := a.Finish(BenchmarkInfo{RunID: "g", Start: base})
	tot := b.Metrics.RequestTotals
	for name, groups := range map[string][]report.GroupFigures{"model": b.Extras.ByModel, "target": b.Extras.ByTarget} {
		if len(groups) != 2 {
			t.Fatalf("%s: %d groups", name, len(groups))
		}
		var sum report.StatusCounts
		var out, prompt report.Int
		for _, g := range groups {
			sum.Successful += g.Requests.Successful
			sum.Errored += g.Requests.Errored
			sum.Incomplete += g.Requests.Incomplete
			sum.Total += g.Requests.Total
			out += g.OutputTokens
			prompt += g.PromptTokens
			if g.Requests.Successful > 0 && (g.RequestLatencyMs == nil || g.TTFTMs == nil || g.RequestLatencyMs.P50 != 8 || g.TTFTMs.P99 != 5) {
				t.Fatalf("%s %s: latencies %+v %+v", name, g.Name, g.RequestLatencyMs, g.TTFTMs)
			}
		}
		if sum != *tot || sum.Total != 40 {
			t.Fatalf("%s: groups add up to %+v, totals %+v", name, sum, *tot)
		}
		if float64(out) != float64(b.Metrics.OutputTokenCount.Successful.TotalSum) ||
			float64(prompt) != float64(b.Metrics.PromptTokenCount.Successful.TotalSum) {
			t.Fatalf("%s: tokens %v %v, totals %v %v", name, out, prompt, b.Metrics.OutputTokenCount.Successful.TotalSum, b.Metrics.PromptTokenCount.Successful.TotalSum)
		}
	}
	if g := b.Extras.ByModel[0]; g.Name != "a" {
		t.Fatalf("first group %q", g.Name)
	}
}
