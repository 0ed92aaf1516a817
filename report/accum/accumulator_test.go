package accum

import (
	"math"
	"testing"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
)

// base is the benchmark start used by the golden tests: 1000 s after the
// epoch, so that Unix-second floats stay readable.
const base = int64(1000 * 1e9)

// ms converts milliseconds after base to Unix nanoseconds.
func ms(v float64) int64 { return base + int64(math.Round(v*1e6)) }

// sec converts milliseconds after base to Unix seconds (what GuideLLM's
// distributions see).
func sec(v float64) float64 { return NsToSec(ms(v)) }

type recSpec struct {
	id                   uint64
	status               record.Status
	intended, dispatched float64 // ms after base; -1 = not set
	chunks               []float64
	chunkTokens          []int32
	firstOut             float64 // -1: same as the first chunk; -2: none
	end                  float64
	iterations           int
	prompt, output       int
	source               record.TokenSource
	srv, cli             int
	errClass             record.ErrorClass
	httpStatus           int
	warmup               bool
}

func (sp recSpec) fill(r *record.Record) {
	r.Reset()
	r.ID = sp.id
	r.Status = sp.status
	if sp.intended >= 0 {
		r.Intended = ms(sp.intended)
	}
	if sp.dispatched >= 0 {
		r.Dispatched = ms(sp.dispatched)
	}
	for _, c := range sp.chunks {
		r.ChunkTimes = append(r.ChunkTimes, ms(c))
	}
	r.ChunkTokens = append(r.ChunkTokens, sp.chunkTokens...)
	if len(sp.chunks) > 0 {
		r.FirstChunk = ms(sp.chunks[0])
		r.FirstToken = ms(sp.chunks[0])
		r.LastToken = ms(sp.chunks[len(sp.chunks)-1])
		switch {
		case sp.firstOut == -1:
			r.FirstOutputToken = r.FirstToken
		case sp.firstOut >= 0:
			r.FirstOutputToken = ms(sp.firstOut)
		}
	}
	r.End = ms(sp.end)
	r.Iterations = sp.iterations
	r.PromptTokens, r.OutputTokens, r.OutputSource = sp.prompt, sp.output, sp.source
	r.ServerPromptTokens = sp.prompt
	r.ServerOutputTokens, r.ClientOutputTokens = sp.srv, sp.cli
	r.ErrorClass, r.HTTPStatus = sp.errClass, sp.httpStatus
	r.Warmup = sp.warmup
}

// goldenRecords is the request set of TestGoldenMetrics (times in ms after
// base):
//
//	R1 ok   sent 0,   chunks 100 110 120 130, end 140, prompt 10, out 4 (usage), 6 SSE events
//	R2 ok   sent 50,  chunks 250 270 290 (tokens 1,2,2), end 300, prompt 20, out 5 (usage), 5 events
//	R3 err  sent 100, no chunks, end 400, prompt 30, out unknown, HTTP 503, 1 event
//	R4 inc  sent 200, chunks 300 320 (reasoning only: no output token), end 350, prompt 10,
//	        out 2 (counted chunks), 3 events
//	R5 inc  never sent (intended 500): dropped like GuideLLM's cancelled-before-start
var goldenRecords = []recSpec{
	{id: 1, status: record.StatusSuccessful, intended: 0, dispatched: 0, chunks: []float64{100, 110, 120, 130}, firstOut: -1,
		end: 140, iterations: 6, prompt: 10, output: 4, source: record.TokensUsage, srv: 4, cli: 4},
	{id: 2, status: record.StatusSuccessful, intended: 40, dispatched: 50, chunks: []float64{250, 270, 290}, chunkTokens: []int32{1, 2, 2},
		firstOut: -1, end: 300, iterations: 5, prompt: 20, output: 5, source: record.TokensUsage, srv: 5, cli: 6},
	{id: 3, status: record.StatusErrored, intended: 100, dispatched: 100, end: 400, iterations: 1, prompt: 30, output: 0,
		source: record.TokensUnknown, srv: -1, cli: -1, errClass: record.ErrHTTPStatus, httpStatus: 503},
	{id: 4, status: record.StatusIncomplete, intended: 150, dispatched: 200, chunks: []float64{300, 320}, firstOut: -2,
		end: 350, iterations: 3, prompt: 10, output: 2, source: record.TokensChunks, srv: -1, cli: -1, errClass: record.ErrCancelled},
	{id: 5, status: record.StatusIncomplete, intended: 500, dispatched: -1, end: 500, prompt: 10, source: record.TokensUnknown,
		srv: -1, cli: -1, errClass: record.ErrCancelled},
}

func runGolden(t *testing.T, cfg Config, specs []recSpec, info BenchmarkInfo) *report.Benchmark {
	t.Helper()
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := record.New()
	for _, sp := range specs {
		sp.fill(r)
		a.Add(r)
		if len(r.ChunkTimes) > 0 {
			r.ChunkTimes[0] = -12345 // the caller reuses the record: the accumulator must not keep it
		}
	}
	return a.Finish(info)
}

func sq(x float64) float64 { return x * x }

func TestGoldenMetrics(t *testing.T) {
	b := runGolden(t, Config{Start: base, Seed: 1}, goldenRecords, BenchmarkInfo{RunID: "golden", Start: base, End: ms(500),
		Strategy: report.Strategy{Type: report.StrategyConstant, Rate: 10}})
	m := b.Metrics

	// No warmup/cooldown: measure window = [first start, last end] =
	// [0, 400] ms; request totals count the 4 dispatched requests.
	if got := *m.RequestTotals; got != (report.StatusCounts{Successful: 2, Errored: 1, Incomplete: 1, Total: 4}) {
		t.Errorf("request_totals = %+v", got)
	}
	if *b.StartTime != report.Float(sec(0)) || *b.EndTime != report.Float(sec(400)) || *b.WarmupDuration != 0 || *b.CooldownDuration != 0 {
		t.Errorf("window: start %v end %v warmup %v cooldown %v", *b.StartTime, *b.EndTime, *b.WarmupDuration, *b.CooldownDuration)
	}

	// request_latency (s): ok .14, .25; err .3; inc .15.
	// ok: mean .195, variance .055² = .003025, cdf .5 at .14.
	checkSummary(t, "latency ok", *m.RequestLatency.Successful, want{mean: .195, median: .14, mode: .14, variance: .003025,
		min: .14, max: .25, count: 2, totalSum: .39, pcts: [11]float64{.14, .14, .14, .14, .14, .14, .25, .25, .25, .25, .25}})
	// total: .14 .15 .25 .3: mean .21; deviations −.07 −.06 .04 .09:
	// variance (.0049+.0036+.0016+.0081)/4 = .00455; cdf .25 .5 .75 1.
	checkSummary(t, "latency total", *m.RequestLatency.Total, want{mean: .21, median: .15, mode: .14, variance: .00455,
		min: .14, max: .3, count: 4, totalSum: .84, pcts: [11]float64{.14, .14, .14, .14, .14, .15, .25, .3, .3, .3, .3}})

	// TTFT (ms): ok 100, 200; err none -> 0 in GuideLLM's field; inc 100.
	// total 0 100 100 200: mean 100, variance (100²+0+0+100²)/4 = 5000,
	// cdf .25 (0) .75 (100) 1 (200).
	checkSummary(t, "ttft total", *m.TimeToFirstTokenMs.Total, want{mean: 100, median: 100, mode: 100, variance: 5000,
		min: 0, max: 200, count: 4, totalSum: 400, pcts: [11]float64{0, 0, 0, 0, 0, 100, 100, 200, 200, 200, 200}})
	checkSummary(t, "ttft errored", *m.TimeToFirstTokenMs.Errored, want{count: 1})
	// goodput's TTFT leaves the errored request out: total 100 100 200.
	x := b.Extras.Metrics
	checkSummary(t, "extra ttft total", *x.TimeToFirstTokenMs.Total, want{mean: 400.0 / 3, median: 100, mode: 100,
		variance: (2*sq(100-400.0/3) + sq(200-400.0/3)) / 3, min: 100, max: 200, count: 3, totalSum: 400,
		pcts: [11]float64{100, 100, 100, 100, 100, 100, 200, 200, 200, 200, 200}})
	checkSummary(t, "extra ttft errored", *x.TimeToFirstTokenMs.Errored, want{})

	// TTFOT: R4 produced only reasoning: GuideLLM's field counts 0 for it,
	// goodput's leaves it out.
	checkSummary(t, "ttfot incomplete", *m.TimeToFirstOutputTokenMs.Incomplete, want{count: 1})
	checkSummary(t, "extra ttfot incomplete", *x.TimeToFirstOutputTokenMs.Incomplete, want{})

	// TPOT (ms) = (last token − sent)/output tokens, weighted by tokens:
	// R1 130/4 = 32.5 (w 4), R2 240/5 = 48 (w 5); mean 370/9; cdf 4/9, 1.
	tp := 370.0 / 9
	checkSummary(t, "tpot ok", *m.TimePerOutputTokenMs.Successful, want{mean: tp, median: 48, mode: 48,
		variance: (4*sq(32.5-tp) + 5*sq(48-tp)) / 9, min: 32.5, max: 48, count: 9, totalSum: 370,
		pcts: [11]float64{32.5, 32.5, 32.5, 32.5, 32.5, 48, 48, 48, 48, 48, 48}})
	// R4: 120/2 = 60 (w 2); R3 has no TPOT and weight 0 (no tokens).
	// total: mean (130+240+120)/11 = 490/11.
	tt := 490.0 / 11
	checkSummary(t, "tpot total", *m.TimePerOutputTokenMs.Total, want{mean: tt, median: 48, mode: 48,
		variance: (4*sq(32.5-tt) + 5*sq(48-tt) + 2*sq(60-tt)) / 11, min: 32.5, max: 60, count: 11, totalSum: 490,
		pcts: [11]float64{32.5, 32.5, 32.5, 32.5, 32.5, 48, 48, 60, 60, 60, 60}})
	checkSummary(t, "tpot errored", *m.TimePerOutputTokenMs.Errored, want{})

	// ITL (ms) = (last − first token)/(tokens − 1), weighted by tokens − 1:
	// R1 30/3 = 10 (w 3), R2 40/4 = 10 (w 4), R4 20/1 = 20 (w 1).
	// total: mean 90/8 = 11.25, variance (7·1.25² + 8.75²)/8.
	checkSummary(t, "itl total", *m.InterTokenLatencyMs.Total, want{mean: 11.25, median: 10, mode: 10,
		variance: (7*sq(1.25) + sq(8.75)) / 8, min: 10, max: 20, count: 8, totalSum: 90,
		pcts: [11]float64{10, 10, 10, 10, 10, 10, 10, 20, 20, 20, 20}})

	// Token counts (R3's unknown output counts as 0; R4's output is its
	// 2 token-bearing chunks).
	checkMean := func(name string, d *report.DistributionSummary, mean float64, count int64) {
		t.Helper()
		if math.Abs(float64(d.Mean)-mean) > 1e-9*math.Max(1, math.Abs(mean)) || int64(d.Count) != count {
			t.Errorf("%s: mean %v count %d, want %v %d", name, d.Mean, d.Count, mean, count)
		}
	}
	checkMean("prompt total", m.PromptTokenCount.Total, 17.5, 4)
	checkMean("output total", m.OutputTokenCount.Total, 11.0/4, 4)
	checkMean("output errored", m.OutputTokenCount.Errored, 0, 1)
	checkMean("total tokens ok", m.TotalTokenCount.Successful, 19.5, 2)
	checkMean("total tokens errored", m.TotalTokenCount.Errored, 30, 1)
	checkMean("iterations total", m.RequestStreamingIterationsCount.Total, 15.0/4, 4)

	// Tokens per iteration. R1: first event 1 token, then 3 iterations of
	// (4−1)/(4−1) = 1; R2: 1, then 2 iterations of (5−1)/(3−1) = 2;
	// R3 (no stream): [0]; R4: 1, then 1 iteration of 1.
	checkSummary(t, "out/iter ok", *m.OutputTokensPerIteration.Successful, want{mean: 9.0 / 7, median: 1, mode: 1,
		variance: (5*sq(1-9.0/7) + 2*sq(2-9.0/7)) / 7, min: 1, max: 2, count: 7, totalSum: 9,
		pcts: [11]float64{1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2}})
	checkMean("out/iter errored", m.OutputTokensPerIteration.Errored, 0, 1)
	checkMean("iter/iter ok", m.IterTokensPerIteration.Successful, 7.0/5, 5)
	checkSummary(t, "iter/iter errored", *m.IterTokensPerIteration.Errored, want{})

	// requests_per_second over [0, 400] ms. ok ends at 140 and 300, plus
	// zero-weight events at the window edges: times 0 .14 .3 .4, midpoints
	// .07 .22 .35, durations .07 .15 .13 .05, rates 0 1/.15 1/.13 0.
	// mean 2/.4 = 5; cdf: 0 (w .12) .3, 1/.15 (w .15) .675, 1/.13 1.
	r15, r13 := 1/.15, 1/.13
	checkSummary(t, "rps ok", *m.RequestsPerSecond.Successful, want{mean: 5, median: r15, mode: r15,
		variance: (.12*sq(5) + .15*sq(r15-5) + .13*sq(r13-5)) / .4, min: 0, max: r13, count: 2, totalSum: 10,
		pcts: [11]float64{0, 0, 0, 0, 0, r15, r13, r13, r13, r13, r13}})
	// total: ends .14 .3 .35 .4 (the last merges with the window end):
	// mean 4/.4 = 10.
	checkMean("rps total", m.RequestsPerSecond.Total, 10, 4)
	checkMean("rps errored", m.RequestsPerSecond.Errored, 2.5, 1)

	// request_concurrency over [0, 400] ms: in flight R1 [0,140],
	// R2 [50,300], R3 [100,400], R4 [200,350]: level 1 for .1 s, 2 for
	// .16 s, 3 for .14 s; mean Σ latencies / window = .84/.4 = 2.1;
	// cdf .25 (1) .65 (2) 1 (3). The level-1 spans are differences of
	// Unix-second floats near 1000, so their cdf is .25 − 1e-16 and p25
	// is 2, exactly as GuideLLM's float arithmetic gives.
	checkSummary(t, "concurrency total", *m.RequestConcurrency.Total, want{mean: 2.1, median: 2, mode: 2,
		variance: (.1*sq(1.1) + .16*sq(.1) + .14*sq(.9)) / .4, min: 1, max: 3, count: 4, totalSum: 8.4,
		pcts: [11]float64{1, 1, 1, 1, 2, 2, 3, 3, 3, 3, 3}})
	// ok only: 1 (0–50), 2 (50–140), 1 (140–300), 0 (300–400):
	// mean (.21 + 2·.09)/.4 = .975.
	checkMean("concurrency ok", m.RequestConcurrency.Successful, .975, 2)

	// prompt_tokens_per_second (not windowed): prompt tokens booked at the
	// first token (or the end): 10@100, 20@250, 10@300, 30@400 ms. mean
	// 70 tokens / .3 s; durations .075 .1 .075 .05, rates 10/.075 (twice:
	// merged, w .15, the mode), 200, 600; cdf .5 − 1e-16 (float spans),
	// .83, 1, so the median is 200.
	checkSummary(t, "prompt tps total", *m.PromptTokensPerSecond.Total, want{mean: 70 / .3, median: 200, mode: 10 / .075,
		variance: (.075*sq(10/.075-70/.3) + .1*sq(200-70/.3) + .075*sq(10/.075-70/.3) + .05*sq(600-70/.3)) / .3,
		min:      10 / .075, max: 600, count: 70, totalSum: 70 / .3 * 70,
		pcts: [11]float64{10 / .075, 10 / .075, 10 / .075, 10 / .075, 10 / .075, 200, 200, 600, 600, 600, 600}})

	// output_tokens_per_second: R1 1 token at each of 100 110 120 130;
	// R2 1 at 250, then 2 at 270 and 290 (linspace, not the chunk times);
	// R4 1 at 300 and 1 at 320; R3 0 at 400. ok: 9 tokens over .19 s.
	checkMean("output tps ok", m.OutputTokensPerSecond.Successful, 9/.19, 9)
	checkMean("output tps total", m.OutputTokensPerSecond.Total, 11/.3, 11)
	// tokens_per_second adds the prompt events: 81 tokens over .3 s.
	checkMean("tps total", m.TokensPerSecond.Total, 81/.3, 81)

	// text.tokens: input = prompt tokens of all 4; output = usage-counted
	// output tokens (R1 4, R2 5; R4's chunk count and R3's unknown are
	// not token counts); total pools both (6 values).
	tx := m.Text.Tokens
	checkMean("text input total", tx.Input.Total, 17.5, 4)
	checkMean("text output total", tx.Output.Total, 4.5, 2)
	checkMean("text output errored", tx.Output.Errored, 0, 0)
	checkMean("text total total", tx.Total.Total, 79.0/6, 6)
	if m.Text.Words != nil || m.Text.Characters != nil || m.Image.Tokens != nil || m.ToolCall.Count != nil {
		t.Error("metrics without data must be null")
	}

	// goodput extras.
	g := b.Extras
	if !g.Exact || len(g.InexactReasons) != 0 {
		t.Errorf("exact = %v %v", g.Exact, g.InexactReasons)
	}
	if g.Requests.NotDispatched != 1 || g.Requests.Recorded != 5 || g.Requests.InWindow != 4 || g.Requests.OutsideWindow != 0 {
		t.Errorf("request counts %+v", g.Requests)
	}
	if g.Errors.ByClass["http_status"] != 1 || g.Errors.ByClass["cancelled"] != 1 || g.Errors.ByHTTPStatus["503"] != 1 || g.Errors.ErrorRate != 0.25 {
		t.Errorf("errors %+v", g.Errors)
	}
	// Token mismatch: R1 4 vs 4, R2 5 vs 6 (server − client = −1).
	tm := g.TokenMismatch
	if tm.Compared != 2 || tm.Equal != 1 || tm.ClientHigher != 1 || tm.Difference.Mean != -0.5 {
		t.Errorf("token mismatch %+v", tm)
	}
	// Dispatch lateness (ms): R1 0, R2 10, R3 0, R4 50.
	checkMean("lateness total", x.DispatchLatenessMs.Total, 15, 4)
	// Scheduled TTFT (first token − intended): R1 100, R2 210, R4 150.
	checkMean("scheduled ttft total", x.ScheduledTimeToFirstTokenMs.Total, 460.0/3, 3)
	// Scheduled latency (s): .14, .26, .3, .2.
	checkMean("scheduled latency total", x.ScheduledRequestLatency.Total, .225, 4)
	// Time to second token: R1 110, R2 220 (from dispatch), R4 120.
	checkMean("ttst ok", x.TimeToSecondTokenMs.Successful, 165, 2)
	// Per-gap ITL: R1 gaps 10 10 10, R2 20 20, R4 20: ok mean 70/5 = 14.
	// Per-token: R2's gaps carried 2 tokens each: 10 ms per token, each
	// counted twice; R1's gaps (no token counts) count once.
	checkMean("itl per gap ok", x.ITLPerGapMs.Successful, 14, 5)
	checkMean("itl per gap total", x.ITLPerGapMs.Total, 90.0/6, 6)
	checkMean("itl per token ok", x.ITLPerTokenMs.Successful, 10, 7)
	// HDR-derived percentiles: a bucket's highest equivalent value,
	// within 0.1% (10 ms reads 10.002431 ms), clamped to the exact max.
	if p := x.ITLPerGapMs.Successful.Percentiles; math.Abs(float64(p.P25)-10) > 0.01 || float64(p.P99) != 20 {
		t.Errorf("itl per gap percentiles p25 %v p99 %v", p.P25, p.P99)
	}
}

func TestGoldenRequestRecords(t *testing.T) {
	b := runGolden(t, Config{Start: base, SampleSize: 10, Seed: 3}, goldenRecords, BenchmarkInfo{RunID: "golden", Start: base})
	r := b.Requests
	if len(r.Successful) != 2 || len(r.Errored) != 1 || len(r.Incomplete) != 1 {
		t.Fatalf("sampled %d %d %d, want 2 1 1 (R5 was never sent)", len(r.Successful), len(r.Errored), len(r.Incomplete))
	}
	r2 := r.Successful[1]
	if r2.RequestID != "2" || r2.Info.Status != "completed" {
		t.Fatalf("order: %s %s", r2.RequestID, r2.Info.Status)
	}
	// R2: start .05, end .3, latency .25, TTFT 200, TPOT 48, ITL 10,
	// tokens 20+5, 5 events / 3 token iterations.
	f := func(p *report.Float) float64 { return float64(*p) }
	if f(r2.RequestStartTime) != sec(50) || f(r2.RequestEndTime) != sec(300) || math.Abs(f(r2.RequestLatency)-.25) > 1e-12 ||
		math.Abs(f(r2.TimeToFirstTokenMs)-200) > 1e-9 || math.Abs(f(r2.TimePerOutputTokenMs)-48) > 1e-9 ||
		math.Abs(f(r2.InterTokenLatencyMs)-10) > 1e-9 || *r2.TotalTokens != 25 || r2.Info.Timings.RequestIterations != 5 ||
		r2.Info.Timings.TokenIterations != 3 || math.Abs(f(r2.IterTokensPerIteration)-2) > 1e-12 ||
		math.Abs(f(r2.OutputTokensPerSecond)-20) > 1e-9 {
		t.Errorf("R2 record: %+v", r2)
	}
	r3 := r.Errored[0]
	if r3.TimeToFirstTokenMs != nil || r3.OutputTokens != nil || r3.Extras.HTTPStatus != 503 || r3.Extras.ErrorClass != "http_status" ||
		*r3.Info.Timings.ResolveEnd != report.Float(sec(400)) {
		t.Errorf("R3 record: %+v", r3)
	}
	r4 := r.Incomplete[0]
	if r4.Info.Status != "cancelled" || r4.TimeToFirstOutputTokenMs != nil || *r4.OutputTokens != 2 || r4.OutputMetrics.TextTokens != nil {
		t.Errorf("R4 record: %+v", r4)
	}
}

func newRecordFrom(sp recSpec) *record.Record {
	r := record.New()
	sp.fill(r)
	return r
}
