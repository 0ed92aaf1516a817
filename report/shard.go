package report

import (
	"fmt"
	"hash/fnv"
)

// Shards of a multi-pod run.
//
// When one pod cannot generate the load, an Indexed Job runs n pods (the
// shards); each generates its share of every round, all starting at one
// wall-clock instant, and writes an ordinary report plus its identity:
// ShardInfo at the top level ("goodput"."shard": GuideLLM's loader drops
// the top-level key, which is right: it describes the file, not a
// benchmark) and ShardRound per benchmark ("benchmarks[i].goodput.shard":
// kept by GuideLLM's loader, like every goodput key there). merge.Shards
// combines the shard reports into the run's report.

// ShardInfo identifies one shard report of a multi-pod run.
type ShardInfo struct {
	Index Int `json:"index"` // 0 .. Count-1
	Count Int `json:"count"`
	// ConfigHash is a hash of everything that defines the run (target,
	// model, data, strategy and rates, limits, phases, seed, shard count,
	// start instant, round gap); every shard of one run has the same.
	ConfigHash string `json:"config_hash"`
	// RunID is the id of the whole run (shared by all shards; the merged
	// report takes it).
	RunID string `json:"run_id"`
	// StartAt is the run's shared start (RFC 3339 with nanoseconds, UTC) and
	// StartAtNs the same instant in Unix nanoseconds.
	StartAt   string `json:"start_at"`
	StartAtNs Int    `json:"start_at_ns"`
	// RoundSeconds is the duration of every round (the max-duration limit),
	// 0 for a single request-bound round; GapSeconds the fixed pause between
	// rounds. Round k starts at StartAt + k × (RoundSeconds + GapSeconds).
	RoundSeconds Float `json:"round_seconds"`
	GapSeconds   Float `json:"gap_seconds"`
	Rounds       Int   `json:"rounds"`
	// Warmup, Cooldown and MaxRequests are the whole run's settings before
	// the split (a shard's own benchmark config holds its share); Seed is
	// the run's seed before the per-shard derivation. Merging from records
	// rebuilds the run's accumulators from them.
	Warmup      TransientPhase `json:"warmup"`
	Cooldown    TransientPhase `json:"cooldown"`
	MaxRequests Int            `json:"max_requests"`
	Seed        Int            `json:"seed"`
}

// ShardRound is one benchmark's place in the shared timetable of a
// sharded run.
type ShardRound struct {
	Shard Int `json:"shard"` // shard index
	Count Int `json:"count"` // shard count
	Round Int `json:"round"` // round (benchmark) index
	// ScheduledStartNs is the round's shared start (Unix ns), the same in
	// every shard; ScheduledEndNs its shared end (0 for a request-bound
	// round).
	ScheduledStartNs Int `json:"scheduled_start_ns"`
	ScheduledEndNs   Int `json:"scheduled_end_ns"`
	// OffsetNs is this shard's phase offset from the shared start: a
	// constant-rate shard i of n starts i/r later so that the shards'
	// sends interleave into one evenly spaced stream of rate r. 0 for other
	// strategies. The shard's deadline stays ScheduledEndNs.
	OffsetNs Int `json:"offset_ns"`
	// Total is the whole run's strategy of this round (the benchmark's own
	// strategy is this shard's share).
	Total Strategy `json:"total_strategy"`
	// TotalArrival is Total's shape beyond the strategy object (see
	// Extras.Arrival); the merged benchmark gets it.
	TotalArrival *Arrival `json:"total_arrival,omitempty"`
	// Empty is set when the shard had no share of the round (more shards
	// than streams or requests): the benchmark is a valid empty one.
	Empty bool `json:"empty"`
	// StartNs, StopNs and EndNs are the engine's exact times of the round
	// (Unix ns): when scheduling began, when the stop condition fired (0 if
	// none did) and when the last request resolved.
	StartNs Int `json:"start_ns"`
	StopNs  Int `json:"stop_ns"`
	EndNs   Int `json:"end_ns"`
}

// MergeInfo describes a report merged from shards ("goodput"."merge").
type MergeInfo struct {
	Shards     Int      `json:"shards"`
	ConfigHash string   `json:"config_hash"`
	Inputs     []string `json:"inputs"` // shard reports, in shard order
	// Path is "records" when every benchmark was rebuilt by feeding all
	// shards' request records into one accumulator per round (exact: the
	// report one process would have written for those requests), or
	// "histograms" when it was combined from the shard reports alone.
	Path  string `json:"path"`
	Exact bool   `json:"exact"`
	// Reason says why the records were not used (histograms path).
	Reason string `json:"reason"`
	// Window is the rule for the merged benchmark's window (see
	// MergeWindowRule).
	Window           string       `json:"window"`
	ToleranceSeconds Float        `json:"tolerance_seconds"`
	Rounds           []MergeRound `json:"rounds"`
}

// MergeRound is what the merge saw of one round.
type MergeRound struct {
	Round            Int `json:"round"`
	ScheduledStartNs Int `json:"scheduled_start_ns"`
	ScheduledEndNs   Int `json:"scheduled_end_ns"`
	// StartSkewMs is the spread of the shards' first dispatches after
	// their own scheduled starts (max − min, ms; non-empty shards only).
	StartSkewMs Float `json:"start_skew_ms"`
	// Union and Intersection of the shards' measurement windows (Unix s).
	UnionStart        Float             `json:"union_start"`
	UnionEnd          Float             `json:"union_end"`
	IntersectionStart Float             `json:"intersection_start"`
	IntersectionEnd   Float             `json:"intersection_end"`
	Shards            []MergeRoundShard `json:"shards"`
}

// MergeRoundShard is one shard's part in a merged round.
type MergeRoundShard struct {
	Shard Int `json:"shard"`
	// FirstDispatchNs is the shard's first dispatch of the round (0 when it
	// sent nothing); LatenessMs how much later than its scheduled start
	// (shared start + offset) that was.
	FirstDispatchNs Int    `json:"first_dispatch_ns"`
	LatenessMs      Float  `json:"lateness_ms"`
	Requests        Int    `json:"requests"` // in-window requests
	StopReason      string `json:"stop_reason"`
	// Client is the shard's own load (nil when its report had none).
	Client *ClientLoad `json:"client,omitempty"`
}

// MergeWindowRule is the documented window rule of merged benchmarks.
const MergeWindowRule = "union: the merged measurement window runs from the earliest shard's measure start to the latest shard's measure end, so every request a shard measured is in the merged benchmark and no other: each request counts by its own shard's window, from the records as from the histograms, so counts and sums are the shards' sums; shards start together (--start-at, checked within the tolerance) and time-bound rounds share one deadline, so the union exceeds the intersection only by the skew of the shards' starts and stops"

// BenchmarkID is the id_ Finish derives for a benchmark without
// BenchmarkInfo.ID: a UUID-shaped FNV-128a hash of the run id and the
// benchmark's index (GuideLLM uses a random UUID; goodput's is
// reproducible).
func BenchmarkID(runID string, runIndex int) string {
	h := fnv.New128a()
	fmt.Fprintf(h, "%s/%d", runID, runIndex)
	b := h.Sum(nil)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
