package report

// WarmupPhase is the warmup phase run before a benchmark's measured one
// (AIPerf's warmup phase): its load, its stop conditions and what it
// sent. Its requests are outside the measurement window.
type WarmupPhase struct {
	Strategy Strategy `json:"strategy"`
	Arrival  *Arrival `json:"arrival,omitempty"`
	// The stop conditions given (the first reached ends the phase).
	MaxRequests Int   `json:"max_requests,omitempty"`
	MaxSessions Int   `json:"max_sessions,omitempty"`
	MaxSeconds  Float `json:"max_seconds,omitempty"`
	// GraceS is how long requests in flight at MaxSeconds could finish
	// before they were cancelled; nil: every one was waited for.
	GraceS     *Float `json:"grace_s,omitempty"`
	StopReason string `json:"stop_reason"`
	Successful Int    `json:"successful"`
	Errored    Int    `json:"errored"`
	Incomplete Int    `json:"incomplete"`
	// DurationS runs from the phase's start to its last request's end.
	DurationS Float `json:"duration_s"`
}
