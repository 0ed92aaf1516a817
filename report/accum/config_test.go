package accum

import (
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

func TestNewAccumulatorValidation(t *testing.T) {
	// A warmup in seconds counts from the scheduler start, which must be
	// known.
	p, _ := report.ParseTransientPhase("30s")
	if _, err := New(Config{Warmup: p, Constraints: []report.Constraint{{Kind: report.ConstraintMaxDuration, Seconds: 60}}}); err == nil ||
		!strings.Contains(err.Error(), "Config.Start") {
		t.Errorf("err = %v", err)
	}
	bad := -0.5
	if _, err := New(Config{Cooldown: report.TransientPhase{Percent: &bad}}); err == nil {
		t.Error("negative percent accepted")
	}
}

func TestInvalidRecordsAreCounted(t *testing.T) {
	a, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	r := goldenRecords[0]
	var rec = newRecordFrom(r)
	a.Add(rec)
	rec.Status = 0 // unset status: invalid
	a.Add(rec)
	a.Add(nil)
	b := a.Finish(BenchmarkInfo{RunID: "x"})
	if b.Extras.Requests.Invalid != 1 || b.Extras.Requests.Recorded != 2 || b.Metrics.RequestTotals.Total != 1 {
		t.Errorf("requests %+v", b.Extras.Requests)
	}
	if again := a.Finish(BenchmarkInfo{RunID: "y"}); again != b {
		t.Error("a second Finish must return the same benchmark")
	}
}

// TestNewRefusesBadConstraints: New refuses the constraints whose JSON
// encoding fails.
func TestNewRefusesBadConstraints(t *testing.T) {
	for _, bad := range []report.Constraint{{Kind: "max_tokens"}, {Kind: report.ConstraintMaxDuration}, {Kind: report.ConstraintMaxErrorRate, Rate: 10},
		{Kind: report.ConstraintMaxRequests, Count: 5, StoppingScope: "some"}} {
		if _, err := New(Config{Constraints: []report.Constraint{bad}}); err == nil {
			t.Errorf("%+v: New accepted it", bad)
		}
	}
}
