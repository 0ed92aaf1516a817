package sweep

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/internal/clitest"
	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report/accum"
)

// Runner.Warmup runs before every round: its requests are written marked
// warmup, stay outside the window, and the report says what the phase did;
// the round's request limit counts the measured requests only.
func TestRunnerWarmupPhase(t *testing.T) {
	client, err := loadgen.NewClient(loadgen.ClientConfig{Target: clitest.Mock(t, nil), Model: mock.DefaultModel}, loadgen.NewClock())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	r := &Runner{Engine: loadgen.NewEngine(client), Source: newFixedPrompt(8, 4), Report: accum.Config{SampleSize: -1},
		Constraints: loadgen.Constraints{MaxRequests: 6}, Records: record.NewEncoder(&buf),
		Warmup: &loadgen.Phase{Strategy: loadgen.Strategy{Kind: loadgen.Concurrent, Streams: 2},
			Constraints: loadgen.Constraints{MaxRequests: 3}, Source: newFixedPrompt(8, 4)}}
	rounds, err := r.Run(context.Background(), List{{Kind: loadgen.Concurrent, Streams: 3}, {Kind: loadgen.Concurrent, Streams: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), `"warmup":true`); n != 6 || strings.Count(buf.String(), "\n") != 18 {
		t.Errorf("%d warmup records of %d lines, want 3 of 9 per round", n, strings.Count(buf.String(), "\n"))
	}
	for i, rd := range rounds {
		b, w := rd.Benchmark, rd.Benchmark.Extras.WarmupPhase
		if w == nil || w.MaxRequests != 3 || w.Successful != 3 || w.StopReason != string(loadgen.StopMaxRequests) || w.Strategy.Streams != 2 || w.GraceS != nil {
			t.Fatalf("round %d: warmup phase %+v", i, w)
		}
		if b.Metrics.RequestTotals.Successful != 6 || b.Extras.Requests.OutsideWindow != 3 || rd.Result.Created != 6 {
			t.Errorf("round %d: %d in the window, %d outside, %d created", i, b.Metrics.RequestTotals.Successful, b.Extras.Requests.OutsideWindow, rd.Result.Created)
		}
		if ms := float64(*b.SchedulerMetrics.MeasureStartTime); ms != accum.NsToSec(rd.Result.Start) || !(*b.WarmupDuration > 0) {
			t.Errorf("round %d: measure start %v, the measured phase started at %v; warmup duration %v", i, ms, accum.NsToSec(rd.Result.Start), *b.WarmupDuration)
		}
		if st := b.SchedulerState; st.CreatedRequests != 9 || st.SuccessfulRequests != 9 {
			t.Errorf("round %d: scheduler created %d, succeeded %d; want both phases' 9", i, st.CreatedRequests, st.SuccessfulRequests)
		}
	}
}
