package accum

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"

	"github.com/goodput-dev/goodput/metric"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/stats"
)

// BenchmarkInfo is what the load engine knows about a finished benchmark,
// beyond the records: identity, strategy, timing and the scheduler's
// counters. Times are Unix nanoseconds; zero means unknown.
type BenchmarkInfo struct {
	ID       string // unique benchmark id ("" derives one from RunID and RunIndex)
	RunID    string // id shared by the benchmarks of one run
	RunIndex int    // index of the benchmark in the run (sweep step, rate)

	Strategy report.Strategy

	// Profile, Backend, Requests and Environment are free-form JSON
	// objects written to the benchmark's config (GuideLLM keeps the
	// profile, backend, data and environment descriptions there). nil
	// writes {}.
	Profile, Backend, Requests, Environment json.RawMessage

	Start         int64 // scheduler start (should equal Config.Start)
	End           int64 // scheduler end
	RequestsStart int64 // first request sent (0: the earliest dispatch seen)
	RequestsEnd   int64 // last request finished (0: the latest end seen)
	QueuingEnd    int64 // when the scheduler stopped creating requests
	ProcessingEnd int64 // when the scheduler stopped processing requests
	// StopTime is GuideLLM's progress.stop_time: when the stop condition
	// ended the benchmark (the max-duration deadline, the time the request
	// limit was reached). It is the end of the request phase when set.
	StopTime   int64
	StopReason string // e.g. max_duration, max_requests, max_errors, requests_exhausted, interrupted
	// MeasureStart is the start of the measured phase of a benchmark with
	// a warmup phase (record.Warmup): the window starts there. 0 without
	// one, or unknown (the earliest start of a measured request then).
	MeasureStart int64

	Workers   int             // worker goroutines/processes (GuideLLM's num_processes)
	Scheduler SchedulerCounts // the scheduler's final counters
}

// SchedulerCounts are the scheduler's final request counters (GuideLLM's
// SchedulerState counts). Cancelled counts every cancelled request,
// including those never sent.
type SchedulerCounts struct {
	Created, Queued, Pending, Processing, Processed, Successful, Errored, Cancelled int
}

// MeasureWindow is the final measurement window (Unix ns).
type MeasureWindow struct {
	ReqStart, ReqEnd int64 // GuideLLM request_start_time, request_end_time
	Start, End       int64 // measure_start_time, measure_end_time
}

// contains says whether the window holds the request: by its times, or as
// Config.InWindow decided.
func (w MeasureWindow) contains(s *RequestSummary) bool {
	switch {
	case s.flags&flagWindowIn != 0:
		return true
	case s.flags&flagWindowOut != 0:
		return false
	}
	return s.end >= w.Start && s.start <= w.End
}

// window derives GuideLLM's finalized timings: request start (the
// scheduler's first request), measure start (end of warmup), measure end
// (start of cooldown) and request end (the stop time, else the last
// completion).
func (a *Accumulator) window(info BenchmarkInfo) MeasureWindow {
	var w MeasureWindow
	w.ReqStart = info.RequestsStart
	if w.ReqStart == 0 {
		w.ReqStart = a.minStart
	}
	if w.ReqStart == 0 {
		w.ReqStart = info.Start
	}
	w.ReqEnd = info.StopTime
	if w.ReqEnd == 0 {
		w.ReqEnd = a.maxEnd
	}
	if w.ReqEnd == 0 {
		w.ReqEnd = info.ProcessingEnd
	}
	w.Start = w.ReqStart
	if a.warm.active {
		if ms, ok := a.onlineMeasureStart(); ok {
			w.Start = ms
		}
	}
	switch {
	case info.MeasureStart != 0:
		w.Start = max(w.Start, info.MeasureStart)
	case a.warmups > 0 && a.minMeasured != 0:
		w.Start = max(w.Start, a.minMeasured)
	}
	w.End = w.ReqEnd
	if me, ok := a.onlineMeasureEnd(); ok {
		w.End = me
	}
	return w
}

// Finish computes the benchmark: GuideLLM's metrics over the requests in
// the measurement window, goodput's extras, and the sampled request
// records. Call it after the last Add; it releases the per-request
// summaries, and later calls return the same result.
func (a *Accumulator) Finish(info BenchmarkInfo) *report.Benchmark {
	if a.result != nil {
		return a.result
	}
	w := a.window(info)
	if len(a.pending) > 0 { // the warmup's request count was never reached
		a.resolvePending(w.contains)
	}
	n := 0
	for i := 0; i < a.sums.len(); i++ {
		if w.contains(a.sums.at(i)) {
			n++
		}
	}
	in := make([]int32, 0, n)
	var mismatch, outside int64
	for i := 0; i < a.sums.len(); i++ {
		s := a.sums.at(i)
		ok := w.contains(s)
		if ok != (s.flags&flagOnlineIn != 0) {
			mismatch++
		}
		if ok {
			in = append(in, int32(i))
		} else {
			outside++
		}
	}
	ex := &report.Extras{Version: report.ExtrasVersion, Exact: true, InexactReasons: []string{}, StopReason: info.StopReason}
	var m report.Metrics
	if a.overCap == 0 {
		e := a.newExact(in, w)
		m, ex.Metrics = e.metrics(ex)
		a.errorCounts(in, ex)
		ex.Censored, ex.WindowThroughput = e.censored(), e.windowThroughput()
	} else {
		for _, i := range in {
			a.binnedAdd(a.sums.at(int(i)), a.media[i])
		}
		a.ensureBinned(w.ReqStart)
		m = a.binned.metrics(w, ex)
		a.binned.extras(ex)
		ex.Errors.Messages = a.topMessages(a.binned.errMsg)
		ex.Metrics = a.histExtras()
		ex.Exact = false
		ex.InexactReasons = append(ex.InexactReasons, fmt.Sprintf(
			"%d requests exceeded the exact cap of %d: percentiles, medians and modes are derived from HDR histograms (3 significant digits) and rate and concurrency distributions from %d time bins", a.overCap, a.exactCap, binnedTimeBins))
		outside += a.overOutside
	}
	var good report.GoodputCounts
	if a.thresholds != nil {
		for _, i := range in {
			countGood(&good, a.sums.at(int(i)))
		}
		if a.overCap > 0 {
			mergeGood(&good, a.goodOver)
			good.Approximate = true
			ex.InexactReasons = append(ex.InexactReasons,
				"the SLO's good-request counts place the requests beyond the exact cap in or out of the measurement window by the histograms' online decision")
		}
	}
	if a.cfg.SliceNs > 0 {
		if a.overCap == 0 {
			ex.Slices = a.timeSlices(in, w, a.cfg.SliceNs, a.cfg.Percentiles)
		} else {
			ex.InexactReasons = append(ex.InexactReasons, "time slices need every request's summary: left out beyond the exact cap")
		}
	}
	if a.overCap == 0 {
		ex.Inputs = a.inputFigures(in, w)
		ex.ByModel, ex.ByTarget = a.figures(a.byModel, in, w), a.figures(a.byTarget, in, w)
	}
	// The per-request summaries are no longer needed: free them before
	// the histograms are merged and encoded.
	a.sums = sumStore{}
	gaps := a.mergedHist(hGapNoTok, hGapTok)
	toks := a.mergedHist(hGapNoTok, hTokNorm)
	ex.Metrics.ITLPerGapMs = StatusFromAccs(gaps, 1e6, a.confidence())
	ex.Metrics.ITLPerTokenMs = StatusFromAccs(toks, 1e6, a.confidence())
	if mismatch > 0 || a.undecided > 0 {
		ex.Exact = false
		ex.InexactReasons = append(ex.InexactReasons, fmt.Sprintf(
			"%d requests were placed in or out of the measurement window before the window was known; the histograms (and itl_per_gap_ms, itl_per_token_ms, time_to_second_token_ms, token_mismatch) classify them differently from the metrics", mismatch+a.undecided))
	}
	ex.Requests = report.RequestCounts{
		Recorded: report.Int(a.adds + a.invalid), Invalid: report.Int(a.invalid), NotDispatched: report.Int(a.notDispatched),
		OutsideWindow: report.Int(outside), ExactCap: report.Int(a.exactCap), OnlineMismatch: report.Int(mismatch + a.undecided),
	}
	if m.RequestTotals != nil {
		ex.Requests.InWindow = m.RequestTotals.Total
	}
	a.tokenExtras(ex)
	if a.sessions != nil {
		ex.Sessions = a.sessions.finish(w, a.thresholds != nil)
		if a.sessions.dropped > 0 {
			ex.Exact = false
			ex.InexactReasons = append(ex.InexactReasons, fmt.Sprintf("%d session turns beyond the exact cap are left out of sessions.by_turn", a.sessions.dropped))
		}
	}
	a.serverTimeExtras(ex, w)
	ex.Histograms = a.histograms(gaps, toks)
	if a.stream != nil {
		ex.Streaming = a.stream.quality()
		if ex.Streaming.Kept < ex.Streaming.Requests {
			ex.Exact = false
			ex.InexactReasons = append(ex.InexactReasons, "the streaming-quality distributions hold the first requests up to the exact cap")
		}
	}
	if len(a.cfg.Percentiles) > 0 {
		ex.Percentiles = a.percentileTable(a.cfg.Percentiles)
	}

	b := &report.Benchmark{Type: "generative_benchmark", Metrics: m, Extras: ex}
	b.Config = a.BenchConfig(info)
	b.SchedulerState = a.SchedulerState(info, w)
	b.SchedulerMetrics = a.SchedulerMetrics(info, w)
	b.StartTime = report.FloatPtr(NsToSec(w.Start))
	b.EndTime = report.FloatPtr(NsToSec(w.End))
	b.Duration = report.FloatPtr(NsToSec(w.End) - NsToSec(w.Start))
	b.WarmupDuration = report.FloatPtr(NsToSec(w.Start) - NsToSec(w.ReqStart))
	b.CooldownDuration = report.FloatPtr(NsToSec(w.ReqEnd) - NsToSec(w.End))
	b.Requests = a.requestRecords(info, w)
	if a.thresholds != nil {
		good.WindowSeconds = float64(w.End-w.Start) / 1e9
		good.Confidence = a.confidence()
		ex.SLO = a.cfg.SLO.Judge(b, good)
	}
	a.result = b
	return b
}

// inputFigures counts the inputs (embedded texts, ranked documents) of the
// successful requests in the window; nil when they carried none (a
// generative benchmark).
func (a *Accumulator) inputFigures(in []int32, w MeasureWindow) *report.InputFigures {
	if a.cfg.InputKind == InputAudio {
		return a.audioFigures(in, w)
	}
	var total, reqs, tokens int64
	for _, i := range in {
		if s := a.sums.at(int(i)); s.status == report.StatusSuccessful && s.inputs > 0 {
			total += int64(s.inputs)
			reqs++
			if s.prompt > 0 {
				tokens += int64(s.prompt)
			}
		}
	}
	if total == 0 {
		return nil
	}
	f := &report.InputFigures{Kind: a.cfg.InputKind, Total: report.Int(total), PerRequest: report.Float(float64(total) / float64(reqs)), Tokens: report.Int(tokens)}
	if f.Kind == "" {
		f.Kind = "inputs"
	}
	if sec := float64(w.End-w.Start) / 1e9; sec > 0 {
		f.PerSecond = report.Float(float64(total) / sec)
		f.TokensPerSecond = report.Float(float64(tokens) / sec)
	}
	return f
}

// InputAudio is the InputKind of transcription benchmarks.
const InputAudio = "audio_seconds"

// audioFigures sums the audio of the successful requests in the window:
// Total counts the clips, Seconds their length, PerSecond the audio
// seconds transcribed per second of the window.
func (a *Accumulator) audioFigures(in []int32, w MeasureWindow) *report.InputFigures {
	if len(a.audio) != a.sums.len() {
		return nil
	}
	var sec float64
	var n int64
	for _, i := range in {
		if s := a.sums.at(int(i)); s.status == report.StatusSuccessful && a.audio[i] > 0 {
			sec += float64(a.audio[i])
			n++
		}
	}
	if n == 0 {
		return nil
	}
	f := &report.InputFigures{Kind: InputAudio, Total: report.Int(n), Seconds: report.Float(sec), PerRequest: report.Float(sec / float64(n))}
	if d := float64(w.End-w.Start) / 1e9; d > 0 {
		f.PerSecond = report.Float(sec / d)
	}
	return f
}

// histExtras derives the extras from the histograms (beyond ExactCap).
func (a *Accumulator) histExtras() report.ExtraMetrics {
	var x report.ExtraMetrics
	for _, l := range metric.All {
		if l.Extra != nil {
			*l.Extra(&x) = StatusFromAccs(a.hist[l.Slot], l.Scale(), a.confidence())
		}
	}
	return x
}

// StatusFromAccs summarises per-status histogram accumulators and their
// merge.
func StatusFromAccs(accs [report.NumStatus]*stats.HistAcc, scale, confidence float64) *report.StatusDistributionSummary {
	out := &report.StatusDistributionSummary{}
	total := stats.NewHistAcc()
	for st := uint8(0); st < report.NumStatus; st++ {
		d := accs[st].SummaryCI(scale, confidence)
		out.SetStatus(st, &d)
		total.Merge(accs[st])
	}
	d := total.SummaryCI(scale, confidence)
	out.Total = &d
	return out
}

// mergedHist adds two histogram slots status by status.
func (a *Accumulator) mergedHist(x, y int) [report.NumStatus]*stats.HistAcc {
	var out [report.NumStatus]*stats.HistAcc
	for st := uint8(0); st < report.NumStatus; st++ {
		m := stats.NewHistAcc()
		m.Merge(a.hist[x][st])
		m.Merge(a.hist[y][st])
		out[st] = m
	}
	return out
}

// histograms serialises every histogram of the benchmark.
func (a *Accumulator) histograms(gaps, toks [report.NumStatus]*stats.HistAcc) *report.Histograms {
	hs := &report.Histograms{
		Encoding: stats.HistEncoding, Unit: "ns",
		LowestDiscernible: stats.HistLowest, HighestTrackable: stats.HistHighest, SignificantDigits: stats.HistSignificantDigits,
		Metrics: map[string]*report.StatusHistograms{},
	}
	add := func(name string, accs [report.NumStatus]*stats.HistAcc) {
		var sh report.StatusHistograms
		for st := uint8(0); st < report.NumStatus; st++ {
			acc := accs[st]
			if acc == nil || acc.Total == 0 {
				continue
			}
			hs.Clamped += report.Int(acc.Clamped)
			enc, err := stats.EncodeHistogram(acc.Hist)
			if err != nil {
				continue // cannot happen for an in-memory histogram
			}
			sh.Set(st, enc)
		}
		hs.Metrics[name] = &sh
	}
	for _, l := range metric.All {
		if !l.Stream || a.stream != nil {
			add(l.Hist, a.hist[l.Slot])
		}
	}
	add(report.HistITLPerGap, gaps)
	add(report.HistITLPerToken, toks)
	return hs
}

// errorCounts fills the error breakdown of the in-window requests.
func (a *Accumulator) errorCounts(in []int32, ex *report.Extras) {
	ex.Errors = report.ErrorCounts{ByClass: map[string]report.Int{}, ByHTTPStatus: map[string]report.Int{}}
	var errored int64
	var msgs map[[2]uint8]int64
	for _, i := range in {
		s := a.sums.at(int(i))
		if s.status == report.StatusSuccessful {
			continue
		}
		if s.errMsg != 0 {
			if msgs == nil {
				msgs = map[[2]uint8]int64{}
			}
			msgs[[2]uint8{s.errClass, s.errMsg}]++
		}
		name := a.classNames[s.errClass]
		if s.status == report.StatusErrored {
			errored++
			// Only an HTTP error is filed under its status: a disconnect
			// or stall after a 200 is not an error of status 200.
			if s.http != 0 && name == string(record.ErrHTTPStatus) {
				ex.Errors.ByHTTPStatus[strconv.Itoa(int(s.http))]++
			}
		}
		if name == "" {
			name = "unknown"
		}
		ex.Errors.ByClass[name]++
	}
	ex.Errors.Messages = a.topMessages(msgs)
	if len(in) > 0 {
		ex.Errors.ErrorRate = report.Float(float64(errored) / float64(len(in)))
	}
}

// BenchConfig builds GuideLLM's BenchmarkConfig.
func (a *Accumulator) BenchConfig(info BenchmarkInfo) report.BenchmarkConfig {
	id := info.ID
	if id == "" {
		h := fnv.New128a()
		fmt.Fprintf(h, "%s/%d", info.RunID, info.RunIndex)
		b := h.Sum(nil)
		b[6] = b[6]&0x0f | 0x40
		b[8] = b[8]&0x3f | 0x80
		id = fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
	}
	cons, err := report.ConstraintsMap(a.cfg.Constraints)
	if err != nil {
		cons = map[string]json.RawMessage{}
	}
	orEmpty := func(r json.RawMessage) json.RawMessage {
		if len(r) == 0 {
			return json.RawMessage("{}")
		}
		return r
	}
	env := info.Environment
	if len(env) == 0 {
		env = json.RawMessage(`{"kind":"goodput","distributed":false}`)
	}
	return report.BenchmarkConfig{
		ID: id, RunID: info.RunID, RunIndex: report.Int(info.RunIndex), Strategy: info.Strategy,
		Constraints: cons, SampleSize: sampleSizeOf(a.sampleSize),
		Warmup: a.cfg.Warmup, Cooldown: a.cfg.Cooldown, PreferResponseMetrics: true,
		Profile: orEmpty(info.Profile), Requests: orEmpty(info.Requests),
		Backend: orEmpty(info.Backend), Environment: env,
	}
}

// optSec converts a nanosecond time to an optional Unix-seconds Float.
func optSec(ns int64) *report.Float {
	if ns == 0 {
		return nil
	}
	return report.FloatPtr(NsToSec(ns))
}

// SchedulerState builds GuideLLM's SchedulerState from the engine's
// counters.
func (a *Accumulator) SchedulerState(info BenchmarkInfo, w MeasureWindow) *report.SchedulerState {
	c := info.Scheduler
	maxReqs, maxSecs := a.cfg.limits()
	var prog report.SchedulerProgress
	if maxReqs > 0 {
		prog.TotalRequests = report.FloatPtr(float64(maxReqs))
		prog.RemainingRequests = report.FloatPtr(float64(max(maxReqs-c.Processed, 0)))
	}
	if maxSecs > 0 {
		prog.TotalDuration = report.FloatPtr(maxSecs)
		elapsed := 0.0
		if info.End != 0 && info.Start != 0 {
			elapsed = float64(info.End-info.Start) / 1e9
		}
		prog.RemainingDuration = report.FloatPtr(math.Max(maxSecs-elapsed, 0))
	}
	prog.StopTime = optSec(info.StopTime)
	actions := map[string]report.SchedulerUpdateAction{}
	if info.StopReason != "" {
		act := report.SchedulerUpdateAction{RequestQueuing: "stop", RequestProcessing: "stop_local", StoppingScope: "current",
			Metadata: map[string]json.RawMessage{}, Progress: prog}
		switch info.StopReason {
		case report.ConstraintMaxRequests, "requests_exhausted":
			act.RequestProcessing = "continue"
		case report.ConstraintMaxErrors, report.ConstraintMaxErrorRate, report.ConstraintMaxGlobalErrorRate, "over_saturation":
			act.RequestProcessing = "stop_all"
		}
		actions[info.StopReason] = act
	}
	endQ := map[string]report.SchedulerUpdateAction{}
	endP := map[string]report.SchedulerUpdateAction{}
	if info.QueuingEnd != 0 {
		endQ = actions
	}
	if info.ProcessingEnd != 0 {
		endP = actions
	}
	workers := info.Workers
	if workers <= 0 {
		workers = 1
	}
	reqEnd := info.RequestsEnd
	if reqEnd == 0 {
		reqEnd = a.maxEnd
	}
	return &report.SchedulerState{
		NodeID: 0, NumProcesses: report.Int(workers), StartTime: report.Float(NsToSec(info.Start)),
		EndTime: optSec(info.End), StartRequestsTime: optSec(w.ReqStart), EndRequestsTime: optSec(reqEnd),
		EndQueuingTime: optSec(info.QueuingEnd), EndQueuingConstraints: endQ,
		EndProcessingTime: optSec(info.ProcessingEnd), EndProcessingConstraints: endP,
		SchedulerConstraints: map[string]report.SchedulerUpdateAction{}, Progress: prog,
		CreatedRequests: report.Int(c.Created), QueuedRequests: report.Int(c.Queued), PendingRequests: report.Int(c.Pending),
		ProcessingRequests: report.Int(c.Processing), ProcessedRequests: report.Int(c.Processed),
		SuccessfulRequests: report.Int(c.Successful), ErroredRequests: report.Int(c.Errored), CancelledRequests: report.Int(c.Cancelled),
	}
}

// SchedulerMetrics builds GuideLLM's SchedulerMetrics. Scheduler stages
// goodput does not have (queueing, resolve and finalize delays) are -1.0,
// GuideLLM's value for "no data"; like GuideLLM, an average of exactly 0
// is also written as -1.0.
func (a *Accumulator) SchedulerMetrics(info BenchmarkInfo, w MeasureWindow) *report.SchedulerMetrics {
	c := info.Scheduler
	made := report.StatusCounts{Successful: report.Int(c.Successful), Errored: report.Int(c.Errored), Incomplete: report.Int(c.Cancelled)}
	if c == (SchedulerCounts{}) {
		made = a.madeCounts()
	}
	made.Total = made.Successful + made.Errored + made.Incomplete
	avg := func(sum float64, n int64) *report.Float {
		if n == 0 || sum == 0 {
			return report.FloatPtr(-1)
		}
		return report.FloatPtr(sum / float64(n))
	}
	none := func() *report.Float { return report.FloatPtr(-1) }
	end := -1.0
	if info.End != 0 {
		end = NsToSec(info.End)
	}
	return &report.SchedulerMetrics{
		StartTime: report.FloatPtr(NsToSec(info.Start)), RequestStartTime: report.FloatPtr(NsToSec(w.ReqStart)),
		MeasureStartTime: report.FloatPtr(NsToSec(w.Start)), MeasureEndTime: report.FloatPtr(NsToSec(w.End)),
		RequestEndTime: report.FloatPtr(NsToSec(w.ReqEnd)), EndTime: report.FloatPtr(end), RequestsMade: &made,
		QueuedTimeAvg: none(), ResolveStartDelayAvg: none(),
		ResolveTargetedStartDelayAvg: avg(a.delaySum, a.delayN), RequestStartDelayAvg: none(),
		RequestTargetedStartDelayAvg: avg(a.delaySum, a.delayN), RequestTimeAvg: avg(a.timeSum, a.timeN),
		ResolveEndDelayAvg: none(), ResolveTimeAvg: avg(a.timeSum, a.timeN),
		FinalizedDelayAvg: none(), ProcessedDelayAvg: none(),
	}
}

// madeCounts counts the processed requests by outcome when the engine did
// not report scheduler counters.
func (a *Accumulator) madeCounts() report.StatusCounts {
	return report.StatusCounts{Successful: report.Int(a.made[report.StatusSuccessful]), Errored: report.Int(a.made[report.StatusErrored]), Incomplete: report.Int(a.made[report.StatusIncomplete])}
}

// requestRecords builds the sampled request records, ordered by id.
func (a *Accumulator) requestRecords(info BenchmarkInfo, w MeasureWindow) report.RequestsByStatus {
	out := report.RequestsByStatus{Successful: []*report.RequestStats{}, Errored: []*report.RequestStats{}, Incomplete: []*report.RequestStats{}}
	for st := uint8(0); st < report.NumStatus; st++ {
		rs := slices.Clone(a.reservoir[st])
		slices.SortFunc(rs, func(x, y *sampled) int {
			switch {
			case x.id < y.id:
				return -1
			case x.id > y.id:
				return 1
			}
			return 0
		})
		list := make([]*report.RequestStats, 0, len(rs))
		for _, r := range rs {
			list = append(list, r.stats(info, w))
		}
		out.Set(st, list)
	}
	return out
}

// AddSchedulerAverages adds a shard's scheduler averages (targeted-start
// delay and request time), weighted by its processed requests, to those of
// a merged benchmark.
func (a *Accumulator) AddSchedulerAverages(b *report.Benchmark) {
	n := float64(b.SchedulerState.ProcessedRequests)
	if v := b.SchedulerMetrics.RequestTargetedStartDelayAvg; v != nil && *v != -1 {
		a.delaySum += float64(*v) * n
		a.delayN += int64(n)
	}
	if v := b.SchedulerMetrics.RequestTimeAvg; v != nil && *v != -1 {
		a.timeSum += float64(*v) * n
		a.timeN += int64(n)
	}
}

// sampleSizeOf is the report's sample_size: null when every record is kept.
func sampleSizeOf(n int) *report.Int {
	if n == SampleAll {
		return nil
	}
	return report.IntPtr(int64(n))
}
