package mock

import (
	"math"
	"testing"
	"time"
)

// simPoint is one load in TestSimulationMatchesAnalysis.
type simPoint struct {
	streams int     // closed loop
	rate    float64 // open loop, requests/s
	above   bool    // the point is above the analytic knee (else below)
}

// TestSimulationMatchesAnalysis runs the mock over HTTP on 127.0.0.1 with a
// minimal client, at loads below and above each parameter set's analytic
// knee, and holds the measured TTFT P99, ITL P95 and output tok/s against
// ClosedLoop/OpenLoop.
//
// The workloads are short (8 to 16 output tokens) so that every point
// measures over 100 requests in its 3 s window: the nearest-rank P99 then
// excludes the single slowest request (with fewer it is the maximum, which
// one scheduler stall of a shared machine decides). Chunk times are the
// mock's emission stamps; TTFT runs from the client's send. Tolerances,
// derived from measurement on a shared 2-core machine (with and without
// -race, where the measured values sat within about 1 ms of the
// virtual-time engine's):
//   - on ITL, lat = 3 × the 99th percentile of the timer lateness measured
//     during the run + 1 ms (a chunk is written when its stream's timer
//     fires; ITL P95 is over thousands of gaps); on TTFT, 3 × P99 +
//     2 × the maximum lateness + 1 ms: the client's write, the handler, the
//     engine's admission, the stream's wake-up and its write each wait for
//     the scheduler, and a P99 over 100 to 160 requests leaves out only the
//     slowest one, so a second whole-process stall (tens of ms on a shared,
//     oversubscribed machine; the 1 ms calibrator sees it as its worst
//     sample) lands in it;
//   - TTFT additionally one mean step: a request whose handler runs late
//     (more than the rest of the step in progress) joins a step later;
//   - the bands of the analytic model itself, as in
//     TestAnalysisMatchesVirtualEngine (up to one prefill chunk more on ITL
//     and two on TTFT with N ≤ N*; P99 up to 0.25·C_s above the mean beyond
//     N*, where the mean TTFT is checked to 2% instead);
//   - throughput within 3%, plus the chunks that lateness can move across
//     the two edges of the 3 s window: 2 × streams × (lat / step + 1).
func TestSimulationMatchesAnalysis(t *testing.T) {
	models := testModels()
	sets := []struct {
		name   string
		m      CapacityModel
		w      Workload
		slo    SLO
		limit  string // the SLO binding at the knee
		points []simPoint
	}{
		{"itl", models["itl"], Workload{PromptTokens: 64, OutputTokens: 16}, SLO{TTFTP99: 200 * time.Millisecond, ITLP95: 12 * time.Millisecond}, "itl_p95",
			[]simPoint{{streams: 4}, {streams: 12, above: true}}},
		{"ttft", models["ttft"], Workload{PromptTokens: 128, OutputTokens: 12}, SLO{TTFTP99: 60 * time.Millisecond, ITLP95: 50 * time.Millisecond}, "ttft_p99",
			[]simPoint{{streams: 3}, {streams: 8, above: true}}},
		// The open loop's TTFT stays under 29 ms up to saturation (51.1/s):
		// its knee is the service capacity; TestOverloadQueues runs above it.
		{"chunked", models["chunked"], Workload{PromptTokens: 256, OutputTokens: 8}, SLO{TTFTP99: 29 * time.Millisecond}, "saturation",
			[]simPoint{{rate: 35}, {rate: 45}}},
	}
	for _, set := range sets {
		c, err := set.m.Capacity(set.w, set.slo)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range set.points {
			name := set.name + "/"
			if p.streams > 0 {
				name += "N=" + itoa(p.streams)
			} else {
				name += "rate=" + itoa(int(p.rate))
			}
			t.Run(name, func(t *testing.T) {
				if testing.Short() {
					t.Skip("real-time load point (about 4 s); TestAnalysisMatchesVirtualEngine covers the model under -short")
				}
				var (
					op   OperatingPoint
					knee string
				)
				if p.streams > 0 {
					op, _ = set.m.ClosedLoop(set.w, p.streams)
					if (p.streams > c.Closed.Concurrency) != p.above || c.ClosedLimit != set.limit {
						t.Fatalf("N=%d is not %s the analytic knee N=%d (%s)", p.streams, aboveBelow(p.above), c.Closed.Concurrency, c.ClosedLimit)
					}
					knee = "N=" + itoa(c.Closed.Concurrency) + " (" + c.ClosedLimit + ")"
				} else {
					op, _ = set.m.OpenLoop(set.w, p.rate)
					if (p.rate > c.Open.Rate) != p.above || c.OpenLimit != set.limit {
						t.Fatalf("rate %v is not %s the analytic knee %.2f/s (%s)", p.rate, aboveBelow(p.above), c.Open.Rate, c.OpenLimit)
					}
					knee = "rate " + itoa(int(c.Open.Rate)) + "/s (" + c.OpenLimit + ")"
				}
				res, lateness := runMeasured(t, set.m, set.w, p, op)
				m := res.measured()
				t.Logf("knee %s; timer lateness P99 %v, max %v", knee, lateness.p99, lateness.max)
				t.Logf("analytic %s", fmtPoint(op))
				t.Logf("measured %s", fmtMeasured(m))
				skipIfMachineTooBusy(t, lateness.p99, op.StepTime)
				if res.failures > 0 || m.requests < 100 {
					t.Fatalf("%d failed requests, %d measured (want at least 100)", res.failures, m.requests)
				}
				lat := 3*lateness.p99 + time.Millisecond
				latTTFT := 3*lateness.p99 + 2*lateness.max + time.Millisecond
				streams := max(float64(p.streams), op.Running)
				edge := 2 * streams * (lat.Seconds()/op.StepTime.Seconds() + 1) / 3 // tok/s over the 3 s window
				if tol := 0.03*op.OutputTokensPerSec + edge; math.Abs(m.tokensPerSec-op.OutputTokensPerSec) > tol {
					t.Errorf("throughput %.1f tok/s, predicted %.1f (±%.1f)", m.tokensPerSec, op.OutputTokensPerSec, tol)
				}
				a, _ := newAnalysis(&set.m, set.w)
				chunk := time.Duration(float64(set.m.PrefillPerToken) * float64(set.w.PromptTokens) / float64(a.kFor(p.streams)))
				mean := m.e2eP99 // measured() keeps the mean TTFT there
				var ttftLo, ttftHi, itlLo, itlHi time.Duration
				switch {
				case p.streams == 0:
					ttftLo, ttftHi = op.TTFTP99-op.TTFTP99*6/100-latTTFT-op.StepTime, op.TTFTP99+op.TTFTP99*6/100+latTTFT+op.StepTime
					itlLo, itlHi = op.ITLP95-op.ITLP95*6/100-lat, op.ITLP95+op.ITLP95*6/100+lat
				case float64(p.streams) <= a.unsaturatedMax():
					ttftLo, ttftHi = op.TTFTP99-latTTFT-op.StepTime, op.TTFTP99+2*chunk+latTTFT+op.StepTime
					itlLo, itlHi = op.ITLP95-lat, op.ITLP95+chunk+lat
				default:
					cs := time.Duration(float64(set.m.MaxNumSeqs) * float64(op.TTFTP99-op.TTFTMean))
					within(t, "mean TTFT", mean, op.TTFTMean, 0.02, latTTFT+op.StepTime)
					ttftLo, ttftHi = op.TTFTMean-latTTFT, op.TTFTMean+cs/4+latTTFT+op.StepTime
					itlLo, itlHi = op.ITLP95-lat, op.ITLP95+chunk+lat
				}
				band(t, "TTFT P99", m.ttftP99, ttftLo, ttftHi)
				band(t, "ITL P95", m.itlP95, itlLo, itlHi)
				// Where the whole tolerance band lies on one side of an SLO
				// threshold, the measurement must meet it or miss it as the
				// knee says.
				for _, c := range []struct {
					name    string
					thr     time.Duration
					got     time.Duration
					lo, hi  time.Duration
					binding bool
				}{
					{"ttft_p99", set.slo.TTFTP99, m.ttftP99, ttftLo, ttftHi, set.limit == "ttft_p99"},
					{"itl_p95", set.slo.ITLP95, m.itlP95, itlLo, itlHi, set.limit == "itl_p95"},
				} {
					switch {
					case c.thr == 0:
					case c.thr < c.lo && c.got <= c.thr:
						t.Errorf("%s %v meets the %v threshold the prediction misses", c.name, c.got, c.thr)
					case c.thr > c.hi && c.got > c.thr:
						t.Errorf("%s %v misses the %v threshold the prediction meets", c.name, c.got, c.thr)
					case c.binding && c.thr >= c.lo && c.thr <= c.hi:
						t.Logf("%s threshold %v within the tolerance band [%v, %v]: meeting it is not asserted", c.name, c.thr, c.lo, c.hi)
					}
				}
			})
		}
	}
}

// skipIfMachineTooBusy skips a real-time check when this machine could not
// deliver timers during it: with the timer lateness's P99 above the model's
// mean step time, wake-ups miss whole steps (a closed-loop resubmission
// misses its boundary, emissions pile up) and the process does not get the
// CPU to keep real time (engine and streams fall behind together, down to
// lower throughput), so the simulation cannot be held to its model. On a
// 2-core machine the P99 is 0.1 to 4 ms unless other work saturates it
// (85 ms was seen at a load average of 19).
func skipIfMachineTooBusy(t *testing.T, lateness, step time.Duration) {
	t.Helper()
	if lateness > step {
		t.Skipf("machine too busy for a real-time check: timer lateness P99 %v, above the %v mean step", lateness, step)
	}
}

func aboveBelow(above bool) string {
	if above {
		return "above"
	}
	return "below"
}

// runMeasured runs one load point while measuring timer lateness.
func runMeasured(t *testing.T, m CapacityModel, w Workload, p simPoint, op OperatingPoint) (loadResult, timerLateness) {
	s := startCapacityServer(t, m, 1)
	spec := loadSpec{url: s.URL(), w: w, streams: p.streams, rate: p.rate, measure: 3 * time.Second}
	cycle := op.E2EP99
	if p.streams > 0 {
		cycle = time.Duration(float64(p.streams) / op.Rate * 1e9)
		spec.stagger = cycle
	}
	spec.warmup = max(3*cycle, 500*time.Millisecond)
	stop := make(chan struct{})
	calDone := make(chan timerLateness)
	go func() { calDone <- measureTimerLateness(stop) }()
	res := runLoadSpec(t, spec)
	close(stop)
	return res, <-calDone
}

// timerLateness is the timer lateness measured during a run.
type timerLateness struct{ p99, max time.Duration }

// measureTimerLateness measures, until stop is closed, how late this machine
// wakes a goroutine sleeping to an absolute deadline (1 ms period, the timer
// mechanism the engine and the streams use), and returns its 99th
// percentile and its maximum: each quantile under test is compared with
// the lateness statistic of about the same level (see
// TestSimulationMatchesAnalysis).
func measureTimerLateness(stop <-chan struct{}) timerLateness {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var late []float64
	next := time.Now()
	for {
		next = next.Add(time.Millisecond)
		timer.Reset(time.Until(next))
		select {
		case <-stop:
			return timerLateness{time.Duration(nearestRank(late, 0.99)), time.Duration(nearestRank(late, 1))}
		case <-timer.C:
		}
		late = append(late, float64(time.Since(next)))
		if d := time.Since(next); d > time.Millisecond {
			next = time.Now() // do not count a backlog of missed ticks
		}
	}
}

// TestOverloadQueues: an open loop above the service capacity (the "chunked"
// set's knee) queues without bound: the engine keeps serving at its
// saturated throughput, the waiting queue grows, and TTFT grows over the run
// far beyond the SLO.
func TestOverloadQueues(t *testing.T) {
	if testing.Short() {
		t.Skip("real-time overload; runs without -short")
	}
	m := testModels()["chunked"]
	w := Workload{PromptTokens: 256, OutputTokens: 8}
	c, err := m.Capacity(w, SLO{TTFTP99: 29 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	rate := 1.3 * c.SaturationRate
	if op, _ := m.OpenLoop(w, rate); !op.Saturated || op.TTFTP99 != Unbounded {
		t.Fatalf("OpenLoop at 1.3× saturation: %+v, want saturated", op)
	}
	s := startCapacityServer(t, m, 1)
	maxWaiting := int64(0)
	stop := make(chan struct{})
	calDone := make(chan timerLateness)
	go func() { calDone <- measureTimerLateness(stop) }()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 40 {
			time.Sleep(50 * time.Millisecond)
			maxWaiting = max(maxWaiting, s.Stats().Waiting)
		}
	}()
	res := runLoadSpec(t, loadSpec{url: s.URL(), w: w, rate: rate, warmup: time.Second, measure: 2 * time.Second})
	<-done
	close(stop)
	sat, _ := m.ClosedLoop(w, 2*m.MaxNumSeqs)
	skipIfMachineTooBusy(t, (<-calDone).p99, sat.StepTime)
	mm := res.measured()
	t.Logf("saturation %.1f req/s (%.0f tok/s); at %.1f req/s: %s, waiting up to %d", c.SaturationRate, c.SaturationTokensPerSec, rate, fmtMeasured(mm), maxWaiting)
	if mm.tokensPerSec < 0.95*c.SaturationTokensPerSec || mm.tokensPerSec > 1.03*c.SaturationTokensPerSec {
		t.Errorf("overloaded throughput %.1f tok/s, want the saturation throughput %.1f", mm.tokensPerSec, c.SaturationTokensPerSec)
	}
	if maxWaiting < 5 {
		t.Errorf("waiting queue peaked at %d, want it growing", maxWaiting)
	}
	// Arrivals exceed service by 30%: the last arrivals of the window wait
	// for about 0.3 × (window + warm-up) of backlog.
	if mm.ttftP99 < 10*c.Open.TTFTP99 {
		t.Errorf("TTFT P99 %v under overload, want far above the %v predicted at the knee", mm.ttftP99, c.Open.TTFTP99)
	}
}
