package merge

import (
	"testing"

	"github.com/goodput-dev/goodput/report"
)

// The merged benchmark carries the run's arrival shape (each shard's own
// is its share), and none when the run had GuideLLM's shapes only.
func TestMergedArrivalIsTheRuns(t *testing.T) {
	t.Parallel()
	total := &report.Arrival{Process: "poisson", Series: []report.RateSegment{{DurationS: 10, FromRate: 30, ToRate: 60}}}
	share := &report.Arrival{Process: "poisson", Series: []report.RateSegment{{DurationS: 10, FromRate: 10, ToRate: 20}}}
	shard := func(a *report.Arrival) *report.Benchmark {
		return &report.Benchmark{Extras: &report.Extras{Arrival: share, Shard: &report.ShardRound{Count: 3, TotalArrival: a}}}
	}
	b := &report.Benchmark{Extras: &report.Extras{}}
	finishMerged(b, []*report.Benchmark{shard(total), shard(total), shard(total)})
	if b.Extras.Arrival != total {
		t.Fatalf("merged arrival %+v, want the run's %+v", b.Extras.Arrival, total)
	}
	b = &report.Benchmark{Extras: &report.Extras{}}
	finishMerged(b, []*report.Benchmark{shard(nil)})
	if b.Extras.Arrival != nil {
		t.Fatalf("merged arrival %+v, want none", b.Extras.Arrival)
	}
}
