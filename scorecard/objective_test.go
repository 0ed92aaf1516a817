package scorecard

import (
	"testing"

	"github.com/goodput-dev/goodput/report"
)

func TestObjectiveFailureStreaming(t *testing.T) {
	for _, c := range []struct {
		o    report.ObjectiveResult
		want string
	}{
		{report.ObjectiveResult{Key: "stall_p99", Metric: "stall", Unit: "ms", Measured: 142.5, Threshold: 100}, "STALL P99 142.5 > 100 ms"},
		{report.ObjectiveResult{Key: "fluidity_p1", Metric: "fluidity", Unit: "fraction", Measured: 0.8, Threshold: 0.9}, "FLUIDITY P1 0.8 < 0.9"},
		{report.ObjectiveResult{Key: "deadline_misses_p99", Metric: "deadline_misses", Unit: "count", Measured: 5, Threshold: 2}, "deadline misses P99 5 > 2"},
		{report.ObjectiveResult{Key: "deadline_misses_mean", Metric: "deadline_misses", Unit: "count", Measured: 3, Threshold: 2}, "deadline misses Mean 3 > 2"},
	} {
		if got := objectiveFailure(c.o); got != c.want {
			t.Errorf("%s: %q, want %q", c.o.Key, got, c.want)
		}
	}
}
