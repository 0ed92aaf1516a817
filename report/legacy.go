package report

import (
	"encoding/json"
	"fmt"
)

// GuideLLM v0.2–v0.3 layout ({"benchmarks": [...]} only; see
// shared/fixtures/guidellm/README.md).
type legacyReport struct {
	Benchmarks []*legacyBenchmark `json:"benchmarks"`
}

type legacyBenchmark struct {
	Type  string `json:"type_"`
	ID    string `json:"id_"`
	RunID string `json:"run_id"`
	Args  struct {
		Profile          json.RawMessage `json:"profile"`
		StrategyIndex    Int             `json:"strategy_index"`
		Strategy         Strategy        `json:"strategy"`
		MaxNumber        *Float          `json:"max_number"`
		MaxDuration      *Float          `json:"max_duration"`
		WarmupNumber     *Float          `json:"warmup_number"`
		WarmupDuration   *Float          `json:"warmup_duration"`
		CooldownNumber   *Float          `json:"cooldown_number"`
		CooldownDuration *Float          `json:"cooldown_duration"`
	} `json:"args"`
	RunStats struct {
		StartTime                        *Float        `json:"start_time"`
		EndTime                          *Float        `json:"end_time"`
		RequestsMade                     *StatusCounts `json:"requests_made"`
		QueuedTimeAvg                    *Float        `json:"queued_time_avg"`
		RequestStartTimeTargetedDelayAvg *Float        `json:"request_start_time_targeted_delay_avg"`
		RequestTimeAvg                   *Float        `json:"request_time_avg"`
		// WorkerTimeAvg (worker_end − worker_start) and
		// WorkerStartTimeTargetedDelayAvg (worker_start −
		// targeted_start_time) are GuideLLM v2's resolve_time_avg and
		// resolve_targeted_start_delay_avg: worker_start is v2's
		// resolve_start, worker_end its resolve_end.
		WorkerTimeAvg                   *Float `json:"worker_time_avg"`
		WorkerStartTimeTargetedDelayAvg *Float `json:"worker_start_time_targeted_delay_avg"`
	} `json:"run_stats"`
	Worker        json.RawMessage                       `json:"worker"`
	RequestLoader json.RawMessage                       `json:"request_loader"`
	Metrics       map[string]*StatusDistributionSummary `json:"metrics"`
	StartTime     *Float                                `json:"start_time"`
	EndTime       *Float                                `json:"end_time"`
	Duration      *Float                                `json:"duration"`
	RequestTotals *StatusCounts                         `json:"request_totals"`
	// RequestSamples is the number of request records kept per status
	// (null: all of them).
	RequestSamples json.RawMessage `json:"request_samples"`
	Requests       struct {
		Successful []*legacyRequest `json:"successful"`
		Errored    []*legacyRequest `json:"errored"`
		Incomplete []*legacyRequest `json:"incomplete"`
	} `json:"requests"`
}

type legacyRequest struct {
	RequestID     string  `json:"request_id"`
	RequestType   string  `json:"request_type"` // text_completions or chat_completions
	Output        *string `json:"output"`
	Error         *string `json:"error"`
	SchedulerInfo struct {
		TargetedStartTime *Float `json:"targeted_start_time"`
		QueuedTime        *Float `json:"queued_time"`
		DequeuedTime      *Float `json:"dequeued_time"`
		ScheduledTime     *Float `json:"scheduled_time"`
		WorkerStart       *Float `json:"worker_start"`
		RequestStart      *Float `json:"request_start"`
		RequestEnd        *Float `json:"request_end"`
		WorkerEnd         *Float `json:"worker_end"`
		ProcessID         Int    `json:"process_id"`
	} `json:"scheduler_info"`
	PromptTokens          *Int   `json:"prompt_tokens"`
	OutputTokens          *Int   `json:"output_tokens"`
	StartTime             *Float `json:"start_time"`
	EndTime               *Float `json:"end_time"`
	FirstTokenTime        *Float `json:"first_token_time"`
	LastTokenTime         *Float `json:"last_token_time"`
	RequestLatency        *Float `json:"request_latency"`
	TimeToFirstTokenMs    *Float `json:"time_to_first_token_ms"`
	TimePerOutputTokenMs  *Float `json:"time_per_output_token_ms"`
	InterTokenLatencyMs   *Float `json:"inter_token_latency_ms"`
	TokensPerSecond       *Float `json:"tokens_per_second"`
	OutputTokensPerSecond *Float `json:"output_tokens_per_second"`
}

// decodeLegacy maps a GuideLLM v0.2–v0.3 report into the model: the 10
// metrics it has, the request counts, the run statistics GuideLLM v2 also
// has, and its request records. Everything else stays nil.
func decodeLegacy(data []byte) (*Report, error) {
	var lr legacyReport
	if err := json.Unmarshal(data, &lr); err != nil {
		return nil, err
	}
	rep := &Report{Layout: LayoutLegacy03, Benchmarks: make([]*Benchmark, 0, len(lr.Benchmarks))}
	for i, lb := range lr.Benchmarks {
		if lb == nil {
			return nil, fmt.Errorf("key \"benchmarks[%d]\" is null, want an object", i)
		}
		rep.Benchmarks = append(rep.Benchmarks, lb.toBenchmark())
	}
	return rep, nil
}

func (lb *legacyBenchmark) toBenchmark() *Benchmark {
	b := &Benchmark{Type: "generative_benchmark"}
	c := &b.Config
	c.ID, c.RunID, c.RunIndex = lb.ID, lb.RunID, lb.Args.StrategyIndex
	c.Strategy = lb.Args.Strategy
	c.Constraints = map[string]json.RawMessage{}
	if d := lb.Args.MaxDuration; d != nil && *d > 0 {
		if raw, err := (Constraint{Kind: ConstraintMaxDuration, Seconds: float64(*d)}).MarshalJSON(); err == nil {
			c.Constraints[ConstraintMaxDuration] = raw
		}
	}
	if n := lb.Args.MaxNumber; n != nil && *n >= 1 {
		if raw, err := (Constraint{Kind: ConstraintMaxRequests, Count: int(*n)}).MarshalJSON(); err == nil {
			c.Constraints[ConstraintMaxRequests] = raw
		}
	}
	phase := func(num, dur *Float) TransientPhase {
		switch {
		case dur != nil && *dur > 0:
			v := float64(*dur)
			return TransientPhase{Value: &v, Mode: PhaseDuration}
		case num != nil && *num > 0:
			v := float64(*num)
			return TransientPhase{Value: &v, Mode: PhaseRequests}
		}
		return TransientPhase{}
	}
	c.Warmup = phase(lb.Args.WarmupNumber, lb.Args.WarmupDuration)
	c.Cooldown = phase(lb.Args.CooldownNumber, lb.Args.CooldownDuration)
	c.PreferResponseMetrics = true
	c.Profile = lb.Args.Profile
	c.Requests = lb.RequestLoader
	c.Backend = lb.Worker
	c.Environment = json.RawMessage("{}")

	rs := lb.RunStats
	b.SchedulerMetrics = &SchedulerMetrics{
		StartTime: rs.StartTime, EndTime: rs.EndTime, RequestsMade: rs.RequestsMade,
		QueuedTimeAvg: rs.QueuedTimeAvg, RequestTargetedStartDelayAvg: rs.RequestStartTimeTargetedDelayAvg,
		RequestTimeAvg: rs.RequestTimeAvg, ResolveTimeAvg: rs.WorkerTimeAvg,
		ResolveTargetedStartDelayAvg: rs.WorkerStartTimeTargetedDelayAvg,
	}
	m := &b.Metrics
	m.RequestTotals = lb.RequestTotals
	get := func(k string) *StatusDistributionSummary { return lb.Metrics[k] }
	m.RequestsPerSecond = get("requests_per_second")
	m.RequestConcurrency = get("request_concurrency")
	m.RequestLatency = get("request_latency")
	m.PromptTokenCount = get("prompt_token_count")
	m.OutputTokenCount = get("output_token_count")
	m.TimeToFirstTokenMs = get("time_to_first_token_ms")
	m.TimePerOutputTokenMs = get("time_per_output_token_ms")
	m.InterTokenLatencyMs = get("inter_token_latency_ms")
	m.OutputTokensPerSecond = get("output_tokens_per_second")
	m.TokensPerSecond = get("tokens_per_second")
	b.StartTime, b.EndTime, b.Duration = lb.StartTime, lb.EndTime, lb.Duration

	conv := func(list []*legacyRequest, status string) []*RequestStats {
		out := make([]*RequestStats, 0, len(list))
		for _, r := range list {
			if r != nil {
				out = append(out, r.toStats(status))
			}
		}
		return out
	}
	b.Requests = RequestsByStatus{
		Successful: conv(lb.Requests.Successful, "completed"),
		Errored:    conv(lb.Requests.Errored, "errored"),
		Incomplete: conv(lb.Requests.Incomplete, "cancelled"),
	}
	src := &legacySource{requestSamples: lb.RequestSamples}
	for _, list := range [][]*legacyRequest{lb.Requests.Successful, lb.Requests.Errored, lb.Requests.Incomplete} {
		for _, r := range list {
			if r != nil && r.RequestType != "" && src.requestType == "" {
				src.requestType = r.RequestType
			}
		}
	}
	b.legacy = src
	return b
}

func (r *legacyRequest) toStats(status string) *RequestStats {
	si := r.SchedulerInfo
	s := &RequestStats{Type: "generative_request_stats", RequestID: r.RequestID, Output: r.Output}
	s.Info = RequestInfo{
		RequestID: r.RequestID, Status: status, SchedulerNodeID: -1, SchedulerProcessID: si.ProcessID,
		Error: r.Error, StartedAt: r.StartTime, CompletedAt: r.EndTime,
		Timings: RequestTimings{
			TargetedStart: si.TargetedStartTime, Queued: si.QueuedTime, Dequeued: si.DequeuedTime,
			ScheduledAt: si.ScheduledTime, ResolveStart: si.WorkerStart, RequestStart: si.RequestStart,
			FirstTokenIteration: r.FirstTokenTime, LastTokenIteration: r.LastTokenTime,
			RequestEnd: si.RequestEnd, ResolveEnd: si.WorkerEnd,
		},
	}
	s.InputMetrics.TextTokens, s.InputMetrics.TotalTokens = r.PromptTokens, r.PromptTokens
	s.OutputMetrics.TextTokens, s.OutputMetrics.TotalTokens = r.OutputTokens, r.OutputTokens
	s.RequestStartTime, s.RequestEndTime, s.RequestLatency = r.StartTime, r.EndTime, r.RequestLatency
	s.PromptTokens, s.OutputTokens = r.PromptTokens, r.OutputTokens
	if r.PromptTokens != nil || r.OutputTokens != nil {
		var t Int
		if r.PromptTokens != nil {
			t += *r.PromptTokens
		}
		if r.OutputTokens != nil {
			t += *r.OutputTokens
		}
		s.TotalTokens = &t
	}
	s.TimeToFirstTokenMs, s.TimePerOutputTokenMs = r.TimeToFirstTokenMs, r.TimePerOutputTokenMs
	s.InterTokenLatencyMs, s.TokensPerSecond, s.OutputTokensPerSecond = r.InterTokenLatencyMs, r.TokensPerSecond, r.OutputTokensPerSecond
	return s
}
