package accum

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

func TestStrategyJSON(t *testing.T) {
	tests := []struct {
		s    report.Strategy
		want string
	}{
		{report.Strategy{Type: report.StrategySynchronous}, `{"type_":"synchronous","worker_count":null,"max_concurrency":null}`},
		{report.Strategy{Type: report.StrategyConcurrent, Streams: 8, WorkerCount: 2}, `{"type_":"concurrent","worker_count":2,"max_concurrency":null,"streams":8,"rampup_duration":0.0}`},
		{report.Strategy{Type: report.StrategyThroughput, MaxConcurrency: 512}, `{"type_":"throughput","worker_count":null,"max_concurrency":512,"rampup_duration":0.0}`},
		{report.Strategy{Type: report.StrategyConstant, Rate: 4, RampupDuration: 5}, `{"type_":"constant","worker_count":null,"max_concurrency":null,"rate":4.0,"rampup_duration":5.0}`},
		{report.Strategy{Type: report.StrategyPoisson, Rate: 2.5, RandomSeed: 42}, `{"type_":"poisson","worker_count":null,"max_concurrency":null,"rate":2.5,"random_seed":42}`},
		{report.Strategy{Type: report.StrategyReplay}, `{"type_":"trace","worker_count":null,"max_concurrency":null,"time_scale":1.0}`},
	}
	for _, tc := range tests {
		b, err := json.Marshal(tc.s)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("%s:\n got  %s\n want %s", tc.s.Type, b, tc.want)
		}
		var back report.Strategy
		if err := json.Unmarshal(b, &back); err != nil || back.Type != tc.s.Type || back.Rate != tc.s.Rate || back.Streams != tc.s.Streams {
			t.Errorf("%s: read back %+v (%v)", tc.s.Type, back, err)
		}
		if err := tc.s.Validate(); err != nil {
			t.Errorf("%s: %v", tc.s.Type, err)
		}
	}
	for _, bad := range []report.Strategy{{Type: "async"}, {Type: report.StrategyConstant}, {Type: report.StrategyConcurrent}, {Type: report.StrategyThroughput, MaxConcurrency: -1}} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

func TestConstraintJSON(t *testing.T) {
	tests := []struct {
		c    report.Constraint
		want string
	}{
		{report.Constraint{Kind: report.ConstraintMaxDuration, Seconds: 30}, `{"kind":"max_duration","stopping_scope":"current","seconds":30}`},
		{report.Constraint{Kind: report.ConstraintMaxDuration, Seconds: 2.5, StoppingScope: "all"}, `{"kind":"max_duration","stopping_scope":"all","seconds":2.5}`},
		{report.Constraint{Kind: report.ConstraintMaxRequests, Count: 1000}, `{"kind":"max_requests","stopping_scope":"current","count":1000}`},
		{report.Constraint{Kind: report.ConstraintMaxErrors, Count: 5}, `{"kind":"max_errors","stopping_scope":"current","count":5}`},
		{report.Constraint{Kind: report.ConstraintMaxErrorRate, Rate: 0.1}, `{"kind":"max_error_rate","stopping_scope":"current","rate":0.1,"window":30}`},
		{report.Constraint{Kind: report.ConstraintMaxGlobalErrorRate, Rate: 0.05, Minimum: 50}, `{"kind":"max_global_error_rate","stopping_scope":"current","rate":0.05,"minimum":50}`},
	}
	for _, tc := range tests {
		b, err := json.Marshal(tc.c)
		if err != nil || string(b) != tc.want {
			t.Errorf("%s: %s (%v), want %s", tc.c.Kind, b, err, tc.want)
		}
	}
	for _, bad := range []report.Constraint{{Kind: "max_tokens"}, {Kind: report.ConstraintMaxDuration}, {Kind: report.ConstraintMaxErrorRate, Rate: 10},
		{Kind: report.ConstraintMaxRequests, Count: 5, StoppingScope: "some"}} {
		if _, err := json.Marshal(bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
		if _, err := New(Config{Constraints: []report.Constraint{bad}}); err == nil {
			t.Errorf("%+v: New accepted it", bad)
		}
	}
}

func TestNewSpecValidation(t *testing.T) {
	ok := report.SpecInput{Backend: report.Backend{Target: "http://h:8000"}, Profile: report.Profile{Kind: "synchronous"},
		Data: []report.SyntheticText{{PromptTokens: 10}}}
	if _, err := report.NewScenario(ok); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		edit func(*report.SpecInput)
		want string
	}{
		{"no target", func(s *report.SpecInput) { s.Backend.Target = "" }, "backend target is required"},
		{"bad request format", func(s *report.SpecInput) { s.Backend.RequestFormat = "/v2/chat" }, "request format"},
		{"unknown profile", func(s *report.SpecInput) { s.Profile.Kind = "ramp" }, "unknown kind"},
		{"constant without rate", func(s *report.SpecInput) { s.Profile = report.Profile{Kind: "constant"} }, "rate is required"},
		{"concurrent without streams", func(s *report.SpecInput) { s.Profile = report.Profile{Kind: "concurrent"} }, "streams are required"},
		{"sweep size", func(s *report.SpecInput) { s.Profile = report.Profile{Kind: "sweep", SweepSize: 1} }, "sweep_size"},
		{"no data", func(s *report.SpecInput) { s.Data = nil }, "at least one data source"},
		{"bad data", func(s *report.SpecInput) { s.Data = []report.SyntheticText{{PromptTokens: 0}} }, "prompt_tokens must be > 0"},
		{"bad raw data", func(s *report.SpecInput) { s.RawData = []json.RawMessage{json.RawMessage("{")} }, "not valid JSON"},
		{"bad output", func(s *report.SpecInput) { s.Outputs = []report.Output{{Kind: "pdf"}} }, "unknown output kind"},
		{"bad constraint", func(s *report.SpecInput) { s.Constraints = []report.Constraint{{Kind: "max_tokens"}} }, "unknown kind"},
	}
	for _, tc := range tests {
		in := ok
		tc.edit(&in)
		_, err := report.NewScenario(in)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err %v, want one line containing %q", tc.name, err, tc.want)
		}
	}
	// Header values (they may carry credentials) are never written.
	in := ok
	in.Backend.ExtraHeaders = []string{"Authorization"}
	sc, err := report.NewScenario(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(sc.Spec.Backend), `"headers":{"Authorization":"**********"}`) {
		t.Errorf("backend: %s", sc.Spec.Backend)
	}
}

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
	if b.Goodput.Requests.Invalid != 1 || b.Goodput.Requests.Recorded != 2 || b.Metrics.RequestTotals.Total != 1 {
		t.Errorf("requests %+v", b.Goodput.Requests)
	}
	if again := a.Finish(BenchmarkInfo{RunID: "y"}); again != b {
		t.Error("a second Finish must return the same benchmark")
	}
}
