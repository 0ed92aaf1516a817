package merge

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/accum"
)

// Merging shard reports.
//
// Shards checks that the shard reports form one run (every index
// 0..n-1 exactly once, one configuration hash, the same timetable, every
// shard on time) and combines them, round by round, into the report of the
// whole run. With every shard's request records it rebuilds each round
// exactly, by feeding all records (in completion order) into one
// Accumulator configured for the whole run; without them it combines the
// shard reports: counts and sums add, moments combine exactly, and
// percentiles come from the merged HDR histograms (see mergeHistBenchmark
// for what is approximate, which the merged benchmarks state in
// goodput.inexact_reasons).

// DefaultTolerance is how far a shard's first dispatch of a round may
// be from its scheduled start before the merge refuses it as late.
const DefaultTolerance = time.Second

// Merge paths (MergeInfo.Path).
const (
	PathRecords    = "records"
	PathHistograms = "histograms"
)

// File is one shard report to merge.
type File struct {
	Name   string // the report's file name, for messages
	Report *report.Report
	// Records opens the shard's JSON Lines request records; nil when they
	// are not available. RecordsName names them in messages.
	Records     func() (io.ReadCloser, error)
	RecordsName string
}

// Options tunes Shards.
type Options struct {
	// Tolerance is how far a shard's first dispatch of a round may be from
	// its scheduled start (0: DefaultTolerance).
	Tolerance time.Duration
	// NoRecordsReason says why records are not used when some shard has
	// none (stated in the merged report); "" derives one.
	NoRecordsReason string
	// GoodputVersion, when set, is written as the merged report's
	// metadata.goodput_version.
	GoodputVersion string
}

// Refusal is the error for shard reports that cannot be merged: a
// missing, duplicate, foreign, incomplete or late shard. Its message is
// one line naming the file (when there is one) and the problem.
type Refusal struct {
	File    string
	Problem string
}

func (e *Refusal) Error() string {
	if e.File == "" {
		return e.Problem
	}
	return e.File + ": " + e.Problem
}

func refuse(file, format string, args ...any) error {
	return &Refusal{File: file, Problem: fmt.Sprintf(format, args...)}
}

// RecordID is the id a shard's record takes in a merged run: id +
// shard × 10¹² (shard 3's record 17 becomes 3000000000017), so that the
// shards' ids, which each count from 1, stay distinct. An id already at
// or beyond 10¹² (an engine that offsets ids itself) is kept.
func RecordID(shard int, id uint64) uint64 {
	const stride = 1_000_000_000_000
	if shard <= 0 || id >= stride {
		return id
	}
	return id + uint64(shard)*stride
}

// shardSet is a validated set of shards, ordered by index.
type shardSet struct {
	files []File
	info  *report.ShardInfo // shard 0's identity
	tol   time.Duration
	// windows[k] is round k's merged window; rounds[k] the merge's view.
	rounds []report.MergeRound
}

func (s *shardSet) n() int { return len(s.files) }

// round returns shard i's benchmark k and its timetable entry.
func (s *shardSet) round(i, k int) (*report.Benchmark, *report.ShardRound) {
	b := s.files[i].Report.Benchmarks[k]
	return b, b.Extras.Shard
}

// Shards merges the shard reports of one run into its report. A
// refusal is a *Refusal; other errors concern reading the records,
// or ctx's end (checked between rounds and every few thousand records).
func Shards(ctx context.Context, shards []File, opt Options) (*report.Report, error) {
	if opt.Tolerance <= 0 {
		opt.Tolerance = DefaultTolerance
	}
	set, err := checkShards(shards, opt.Tolerance)
	if err != nil {
		return nil, err
	}
	mi := &report.MergeInfo{
		Shards: report.Int(set.n()), ConfigHash: set.info.ConfigHash, Path: PathHistograms,
		Window: report.MergeWindowRule, ToleranceSeconds: report.Float(opt.Tolerance.Seconds()), Rounds: set.rounds,
	}
	for _, f := range set.files {
		mi.Inputs = append(mi.Inputs, f.Name)
	}
	useRecords := true
	var missing []string
	for _, f := range set.files {
		if f.Records == nil {
			useRecords = false
			missing = append(missing, f.Name)
		}
	}
	var benches []*report.Benchmark
	if useRecords {
		mi.Path = PathRecords
		benches, err = set.mergeRecords(ctx)
		if err != nil {
			return nil, err
		}
	} else {
		mi.Reason = opt.NoRecordsReason
		if mi.Reason == "" {
			mi.Reason = "no request records for " + strings.Join(missing, ", ")
		}
		for k := range set.files[0].Report.Benchmarks {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			b, err := set.mergeHistBenchmark(k, mi.Reason)
			if err != nil {
				return nil, err
			}
			benches = append(benches, b)
		}
	}
	mi.Exact = true
	for _, b := range benches {
		if b.Extras != nil && !b.Extras.Exact {
			mi.Exact = false
		}
	}
	ref := set.files[0].Report
	out := &report.Report{Config: ref.Config, Benchmarks: benches, Layout: report.LayoutGoodput}
	if ref.Metadata != nil {
		m := *ref.Metadata
		if opt.GoodputVersion != "" {
			m.GoodputVersion = opt.GoodputVersion
		}
		out.Metadata = &m
	}
	rx := *ref.Run
	rx.RunID = set.info.RunID
	rx.Shard, rx.Merge, rx.Knee = nil, mi, nil
	for _, f := range set.files {
		rx.Interrupted = rx.Interrupted || f.Report.Run.Interrupted
	}
	if rx.Metadata != nil {
		md := *rx.Metadata
		md.RunID = set.info.RunID
		rx.Metadata = &md
	}
	out.Run = &rx
	return out, nil
}

// checkShards validates the shard set and orders it by index.
func checkShards(shards []File, tol time.Duration) (*shardSet, error) {
	if len(shards) == 0 {
		return nil, refuse("", "no shard reports given")
	}
	for _, f := range shards {
		r := f.Report
		if r == nil || r.Run == nil || r.Run.Shard == nil {
			return nil, refuse(f.Name, "not a shard report: it has no goodput.shard identity (shards are written by goodput benchmark with --shard-count)")
		}
	}
	ref := shards[0].Report.Run.Shard
	if ref.Count < 1 {
		return nil, refuse(shards[0].Name, "shard count %d: want ≥ 1", ref.Count)
	}
	byIndex := map[report.Int]*File{}
	for i := range shards {
		f := &shards[i]
		id := f.Report.Run.Shard
		switch {
		case id.ConfigHash != ref.ConfigHash:
			return nil, refuse(f.Name, "configuration hash %s differs from %s in %s: a shard of another run or configuration", id.ConfigHash, ref.ConfigHash, shards[0].Name)
		case id.Count != ref.Count:
			return nil, refuse(f.Name, "shard count %d differs from %d in %s", id.Count, ref.Count, shards[0].Name)
		case id.StartAtNs != ref.StartAtNs || id.RoundSeconds != ref.RoundSeconds || id.GapSeconds != ref.GapSeconds || id.Rounds != ref.Rounds:
			return nil, refuse(f.Name, "timetable (start %s, %v s rounds, %v s gaps, %d rounds) differs from %s's", id.StartAt, id.RoundSeconds, id.GapSeconds, id.Rounds, shards[0].Name)
		case id.Index < 0 || id.Index >= id.Count:
			return nil, refuse(f.Name, "shard index %d is outside 0..%d", id.Index, id.Count-1)
		}
		if prev := byIndex[id.Index]; prev != nil {
			return nil, refuse(f.Name, "duplicate shard index %d (also %s)", id.Index, prev.Name)
		}
		byIndex[id.Index] = f
	}
	if len(byIndex) != int(ref.Count) {
		// Indices are distinct and in range: fewer than Count are given.
		var have, lack []string
		for i := report.Int(0); i < ref.Count && len(lack) < 10; i++ {
			if byIndex[i] == nil {
				lack = append(lack, strconv.Itoa(int(i)))
			}
		}
		for i := report.Int(0); i < ref.Count && len(have) < len(byIndex); i++ {
			if byIndex[i] != nil {
				have = append(have, strconv.Itoa(int(i)))
			}
		}
		missing := int(ref.Count) - len(byIndex)
		more := ""
		if missing > len(lack) {
			more = fmt.Sprintf(" and %d more", missing-len(lack))
		}
		return nil, refuse("", "missing shard %s%s of %d (given: shard %s); every index 0..%d must be present exactly once",
			strings.Join(lack, ", "), more, ref.Count, strings.Join(have, ", "), ref.Count-1)
	}
	set := &shardSet{info: ref, tol: tol}
	for i := report.Int(0); i < ref.Count; i++ {
		set.files = append(set.files, *byIndex[i])
	}
	rounds := int(ref.Rounds)
	for _, f := range set.files {
		bs := f.Report.Benchmarks
		if len(bs) != rounds {
			return nil, refuse(f.Name, "has %d benchmarks, its identity says %d rounds (an interrupted or incomplete shard)", len(bs), rounds)
		}
		for k, b := range bs {
			if b.Extras == nil || b.Extras.Shard == nil || int(b.Extras.Shard.Round) != k {
				return nil, refuse(f.Name, "benchmark %d has no goodput.shard entry for round %d", k, k)
			}
			if b.Extras.Histograms == nil {
				return nil, refuse(f.Name, "benchmark %d has no goodput.histograms", k)
			}
			if b.SchedulerState == nil || b.SchedulerMetrics == nil || b.StartTime == nil || b.EndTime == nil {
				return nil, refuse(f.Name, "benchmark %d lacks its scheduler state, scheduler metrics or window", k)
			}
		}
	}
	for k := 0; k < rounds; k++ {
		mr, err := set.checkRound(k)
		if err != nil {
			return nil, err
		}
		set.rounds = append(set.rounds, mr)
	}
	return set, nil
}

// active reports whether shard benchmark b sent anything.
func active(b *report.Benchmark) bool {
	return !b.Extras.Shard.Empty && b.Extras.Requests.Recorded > 0 && b.SchedulerMetrics.RequestStartTime != nil
}

// checkRound checks round k's timetable and timeliness across shards and
// records what the merge saw.
func (s *shardSet) checkRound(k int) (report.MergeRound, error) {
	_, r0 := s.round(0, k)
	mr := report.MergeRound{Round: report.Int(k), ScheduledStartNs: r0.ScheduledStartNs, ScheduledEndNs: r0.ScheduledEndNs}
	tolMs := float64(s.tol) / 1e6
	lo, hi := math.Inf(1), math.Inf(-1)
	ilo, ihi := math.Inf(-1), math.Inf(1)
	loLate, hiLate := math.Inf(1), math.Inf(-1)
	latest, earliest := -1, -1
	for i, f := range s.files {
		b, sr := s.round(i, k)
		if sr.ScheduledStartNs != r0.ScheduledStartNs || sr.ScheduledEndNs != r0.ScheduledEndNs {
			return mr, refuse(f.Name, "round %d is scheduled %s..%s, shard 0 (%s) has %s..%s", k,
				fmtNs(sr.ScheduledStartNs), fmtNs(sr.ScheduledEndNs), s.files[0].Name, fmtNs(r0.ScheduledStartNs), fmtNs(r0.ScheduledEndNs))
		}
		ms := report.MergeRoundShard{Shard: report.Int(i), StopReason: b.Extras.StopReason, Client: b.Extras.Client}
		if b.Metrics.RequestTotals != nil {
			ms.Requests = b.Metrics.RequestTotals.Total
		}
		if active(b) {
			first := accum.SecToNs(float64(*b.SchedulerMetrics.RequestStartTime))
			ms.FirstDispatchNs = report.Int(first)
			late := float64(first-int64(sr.ScheduledStartNs)-int64(sr.OffsetNs)) / 1e6
			ms.LatenessMs = report.Float(late)
			if math.Abs(late) > tolMs {
				word := "after"
				if late < 0 {
					word = "before"
				}
				return mr, refuse(f.Name, "late shard: its first request of round %d went out %.3f s %s its scheduled start %s (tolerance %v; were the pods started in time, and are the nodes' clocks synchronised?)",
					k, math.Abs(late)/1e3, word, fmtNs(sr.ScheduledStartNs+sr.OffsetNs), s.tol)
			}
			loLate, hiLate = math.Min(loLate, late), math.Max(hiLate, late)
			st, en := float64(*b.StartTime), float64(*b.EndTime)
			lo, hi = math.Min(lo, st), math.Max(hi, en)
			if st > ilo || latest < 0 {
				ilo, latest = st, i
			}
			if en < ihi || earliest < 0 {
				ihi, earliest = en, i
			}
		}
		mr.Shards = append(mr.Shards, ms)
	}
	if latest >= 0 && ilo > ihi {
		b, _ := s.round(latest, k)
		e, _ := s.round(earliest, k)
		return mr, refuse(s.files[latest].Name, "round %d's measurement window %s..%s does not overlap shard %d's %s..%s (%s)", k,
			fmtSec(*b.StartTime), fmtSec(*b.EndTime), earliest, fmtSec(*e.StartTime), fmtSec(*e.EndTime), s.files[earliest].Name)
	}
	if latest >= 0 {
		mr.StartSkewMs = report.Float(hiLate - loLate)
		mr.UnionStart, mr.UnionEnd = report.Float(lo), report.Float(hi)
		mr.IntersectionStart, mr.IntersectionEnd = report.Float(ilo), report.Float(ihi)
	}
	return mr, nil
}

func fmtNs(ns report.Int) string {
	if ns == 0 {
		return "(none)"
	}
	return time.Unix(0, int64(ns)).UTC().Format("2006-01-02T15:04:05.000Z")
}

func fmtSec(s report.Float) string { return fmtNs(report.Int(accum.SecToNs(float64(s)))) }

// mergedConfig is the accumulator configuration of the whole run's round
// k: the run's phases and limits (before the split) and the round's shared
// start.
func (s *shardSet) mergedConfig(k int) (accum.Config, error) {
	b, sr := s.round(0, k)
	cons, err := parseConstraints(b.Config.Constraints)
	if err != nil {
		return accum.Config{}, refuse(s.files[0].Name, "benchmark %d: %v", k, err)
	}
	out := cons[:0]
	for _, c := range cons {
		switch c.Kind {
		case report.ConstraintMaxDuration:
			if s.info.RoundSeconds > 0 {
				c.Seconds = float64(s.info.RoundSeconds)
			}
		case report.ConstraintMaxRequests:
			if s.info.MaxRequests <= 0 {
				continue
			}
			c.Count = int(s.info.MaxRequests)
		}
		out = append(out, c)
	}
	sample := -1
	switch {
	case b.Config.SampleSize == nil: // null: the shards kept every record
		sample = accum.SampleAll
	case *b.Config.SampleSize > 0:
		sample = int(*b.Config.SampleSize)
	}
	cfg := accum.Config{
		Warmup: s.info.Warmup, Cooldown: s.info.Cooldown, Constraints: out,
		Start: int64(sr.ScheduledStartNs), ExactCap: int(b.Extras.Requests.ExactCap),
		SampleSize: sample, Seed: uint64(s.info.Seed) ^ uint64(k),
	}
	// The request type and the prompt overhead the shards applied, as
	// their reports say (a shard that compared no prompt counts says none).
	for typ, o := range b.Extras.PromptOverhead {
		if o != nil {
			cfg.RequestType, cfg.PromptOverhead = typ, int(o.Applied)
		}
	}
	for _, w := range b.Extras.TokenWarnings {
		cfg.Tokenizer = w.Tokenizer
	}
	// The shards' interval confidence; none when they carry no intervals
	// (an older goodput's shards).
	cfg.Confidence = -1
	if d := b.Metrics.RequestLatency; d != nil && d.Total != nil && d.Total.MeanCI != nil {
		cfg.Confidence = float64(d.Total.MeanCI.Confidence)
	} else if b.Extras.Censored != nil {
		cfg.Confidence = float64(b.Extras.Censored.Confidence)
	}
	// The measurements the shards were asked for.
	if q := b.Extras.Streaming; q != nil {
		cfg.Streaming = &accum.StreamingConfig{TTFTDeadlineNs: int64(math.Round(float64(q.TTFTDeadlineMs) * 1e6)),
			TBTDeadlineNs: int64(math.Round(float64(q.TBTDeadlineMs) * 1e6)), FluidityFloor: float64(q.FluidityFloor)}
	}
	if sl := b.Extras.Slices; sl != nil {
		cfg.SliceNs = int64(math.Round(float64(sl.DurationS) * 1e9))
	}
	if pt := b.Extras.Percentiles; pt != nil {
		for _, p := range pt.Percentiles {
			cfg.Percentiles = append(cfg.Percentiles, float64(p))
		}
	}
	// Each request counts by its own shard's window, as the shard
	// counted it: the union of the windows would also hold a request a
	// shard dispatched just after its own stop.
	wins := s.shardWindows(k)
	cfg.InWindow = func(r *record.Record, start, end int64) bool {
		if r.Shard < 0 || r.Shard >= len(wins) {
			return false
		}
		w := wins[r.Shard]
		return end >= w.from && start <= w.to
	}
	// The breakdowns and input counts the shards made, so the merged
	// round makes them too.
	for _, g := range b.Extras.ByModel {
		cfg.Models = append(cfg.Models, g.Name)
	}
	for _, g := range b.Extras.ByTarget {
		cfg.Targets = append(cfg.Targets, g.Name)
	}
	if in := b.Extras.Inputs; in != nil {
		cfg.InputKind = in.Kind
	}
	return cfg, nil
}

// shardWindow is one shard's measurement window of a round, in its own
// accumulator's terms (Unix ns): it holds a request that ends at or after
// from and starts at or before to.
type shardWindow struct{ from, to int64 }

// shardWindows are round k's windows of every shard, as each shard's
// accumulator drew it: from its warmup's end (none without a warmup: the
// window then opens at the shard's first request) to its cooldown's start,
// else its engine's stop (exact, in ns), else none (the last request).
func (s *shardSet) shardWindows(k int) []shardWindow {
	out := make([]shardWindow, s.n())
	for i := range s.files {
		b, sr := s.round(i, k)
		w := shardWindow{from: math.MinInt64, to: math.MaxInt64}
		if b.WarmupDuration != nil && *b.WarmupDuration > 0 && b.StartTime != nil {
			w.from = accum.SecToNs(float64(*b.StartTime))
		}
		switch {
		case b.CooldownDuration != nil && *b.CooldownDuration > 0 && b.EndTime != nil:
			w.to = accum.SecToNs(float64(*b.EndTime))
		case sr.StopNs != 0:
			w.to = int64(sr.StopNs)
		}
		out[i] = w
	}
	return out
}

// mergedInfo is the BenchmarkInfo of the whole run's round k: the shared
// start, the latest stop and end (the union of the shards' windows), the
// shards' counters added and the run's strategy.
func (s *shardSet) mergedInfo(k int) accum.BenchmarkInfo {
	b0, r0 := s.round(0, k)
	info := accum.BenchmarkInfo{
		RunID: s.info.RunID, RunIndex: k, Strategy: r0.Total,
		Profile: b0.Config.Profile, Backend: b0.Config.Backend, Requests: b0.Config.Requests,
		Environment: json.RawMessage(fmt.Sprintf(`{"kind":"goodput","distributed":true,"shards":%d}`, s.n())),
		Start:       int64(r0.ScheduledStartNs),
	}
	var lastEnd int64 = -1
	for i := range s.files {
		b, sr := s.round(i, k)
		st := b.SchedulerState
		info.Workers += int(st.NumProcesses)
		c := &info.Scheduler
		c.Created += int(st.CreatedRequests)
		c.Queued += int(st.QueuedRequests)
		c.Pending += int(st.PendingRequests)
		c.Processing += int(st.ProcessingRequests)
		c.Processed += int(st.ProcessedRequests)
		c.Successful += int(st.SuccessfulRequests)
		c.Errored += int(st.ErroredRequests)
		c.Cancelled += int(st.CancelledRequests)
		if sr.Empty {
			continue
		}
		info.StopTime = max(info.StopTime, int64(sr.StopNs))
		info.QueuingEnd = info.StopTime
		if int64(sr.EndNs) > lastEnd {
			lastEnd = int64(sr.EndNs)
			info.End, info.ProcessingEnd = lastEnd, lastEnd
			info.StopReason = b.Extras.StopReason
		}
	}
	if lastEnd < 0 { // every shard was empty
		info.End, info.ProcessingEnd = info.Start, info.Start
		info.StopReason = b0.Extras.StopReason
	}
	return info
}

// mergeClient combines the shards' client loads: CPU and cores add, lags
// are the worst shard's, saturated if any shard was.
func mergeClient(bs []*report.Benchmark) *report.ClientLoad {
	var out *report.ClientLoad
	var reasons []string
	for i, b := range bs {
		if b.Extras == nil || b.Extras.Client == nil {
			continue
		}
		c := b.Extras.Client
		if out == nil {
			out = &report.ClientLoad{}
		}
		out.CPUSeconds += c.CPUSeconds
		out.WallSeconds = max(out.WallSeconds, c.WallSeconds)
		out.Cores += c.Cores
		out.MaxProcs += c.MaxProcs
		out.MinProcs += c.MinProcs
		out.ProcsChanges += c.ProcsChanges
		out.GOGC = max(out.GOGC, c.GOGC)
		out.SchedLagP50us = max(out.SchedLagP50us, c.SchedLagP50us)
		out.SchedLagP99us = max(out.SchedLagP99us, c.SchedLagP99us)
		out.SchedLagMaxus = max(out.SchedLagMaxus, c.SchedLagMaxus)
		out.DeliveryLagP50us = max(out.DeliveryLagP50us, c.DeliveryLagP50us)
		out.DeliveryLagP99us = max(out.DeliveryLagP99us, c.DeliveryLagP99us)
		out.DeliverySamples += c.DeliverySamples
		out.ReadLagP50us = max(out.ReadLagP50us, c.ReadLagP50us)
		out.ReadLagP99us = max(out.ReadLagP99us, c.ReadLagP99us)
		out.ReadLagSamples += c.ReadLagSamples
		out.Backoffs += c.Backoffs
		out.BackoffS += c.BackoffS
		out.ConnRetries += c.ConnRetries
		out.ClosedIdleConns += c.ClosedIdleConns
		switch {
		case out.ArrivalTimestamps == "":
			out.ArrivalTimestamps = c.ArrivalTimestamps
		case out.ArrivalTimestamps != c.ArrivalTimestamps && c.ArrivalTimestamps != "":
			out.ArrivalTimestamps = "mixed across shards"
		}
		switch {
		case out.HTTPClient == "":
			out.HTTPClient = c.HTTPClient
		case out.HTTPClient != c.HTTPClient && c.HTTPClient != "":
			out.HTTPClient = "mixed across shards"
		}
		if c.Saturated {
			out.Saturated = true
			reasons = append(reasons, fmt.Sprintf("shard %d: %s", i, c.Reason))
		}
	}
	if out != nil {
		out.Reason = strings.Join(reasons, "; ")
	}
	return out
}

// benchmarksOf returns round k's benchmark of every shard.
func (s *shardSet) benchmarksOf(k int) []*report.Benchmark {
	out := make([]*report.Benchmark, s.n())
	for i := range s.files {
		out[i], _ = s.round(i, k)
	}
	return out
}

// finishMerged sets what both paths add after the benchmark is built:
// the client load and the never-sent count of every shard, the shards'
// own inexact reasons, and the run's arrival shape.
func finishMerged(b *report.Benchmark, bs []*report.Benchmark) {
	if b.Extras == nil {
		return
	}
	b.Extras.Client = mergeClient(bs)
	if sr := bs[0].Extras.Shard; sr != nil {
		b.Extras.Arrival = sr.TotalArrival
	}
	var notSent report.Int
	for i, sb := range bs {
		notSent += sb.Extras.Requests.NotSent
		for _, r := range sb.Extras.InexactReasons {
			b.Extras.InexactReasons = append(b.Extras.InexactReasons, fmt.Sprintf("shard %d: %s", i, r))
		}
	}
	b.Extras.Requests.NotSent = notSent
	if len(b.Extras.InexactReasons) > 0 {
		b.Extras.Exact = false
	}
}

// parseConstraints reads BenchmarkConfig.constraints back into
// Constraints, in a stable order.
func parseConstraints(m map[string]json.RawMessage) ([]report.Constraint, error) {
	kinds := make([]string, 0, len(m))
	for k := range m {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var out []report.Constraint
	for _, k := range kinds {
		var raw struct {
			Kind          string   `json:"kind"`
			StoppingScope string   `json:"stopping_scope"`
			Seconds       *float64 `json:"seconds"`
			Count         *float64 `json:"count"`
			Rate          *float64 `json:"rate"`
			Window        *float64 `json:"window"`
			Minimum       *float64 `json:"minimum"`
		}
		if err := json.Unmarshal(m[k], &raw); err != nil {
			return nil, fmt.Errorf("constraint %q: %w", k, err)
		}
		c := report.Constraint{Kind: k, StoppingScope: raw.StoppingScope}
		get := func(p *float64) float64 {
			if p == nil {
				return 0
			}
			return *p
		}
		c.Seconds, c.Count, c.Rate = get(raw.Seconds), int(get(raw.Count)), get(raw.Rate)
		c.Window, c.Minimum = int(get(raw.Window)), int(get(raw.Minimum))
		if _, err := c.MarshalJSON(); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}
