package report

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestStrategyJSON(t *testing.T) {
	tests := []struct {
		s    Strategy
		want string
	}{
		{Strategy{Type: StrategySynchronous}, `{"type_":"synchronous","worker_count":null,"max_concurrency":null}`},
		{Strategy{Type: StrategyConcurrent, Streams: 8, WorkerCount: 2}, `{"type_":"concurrent","worker_count":2,"max_concurrency":null,"streams":8,"rampup_duration":0.0}`},
		{Strategy{Type: StrategyThroughput, MaxConcurrency: 512}, `{"type_":"throughput","worker_count":null,"max_concurrency":512,"rampup_duration":0.0}`},
		{Strategy{Type: StrategyConstant, Rate: 4, RampupDuration: 5}, `{"type_":"constant","worker_count":null,"max_concurrency":null,"rate":4.0,"rampup_duration":5.0}`},
		{Strategy{Type: StrategyPoisson, Rate: 2.5, RandomSeed: 42}, `{"type_":"poisson","worker_count":null,"max_concurrency":null,"rate":2.5,"random_seed":42}`},
		{Strategy{Type: StrategyReplay}, `{"type_":"trace","worker_count":null,"max_concurrency":null,"time_scale":1.0}`},
	}
	for _, tc := range tests {
		b, err := json.Marshal(tc.s)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("%s:\n got  %s\n want %s", tc.s.Type, b, tc.want)
		}
		var back Strategy
		if err := json.Unmarshal(b, &back); err != nil || back.Type != tc.s.Type || back.Rate != tc.s.Rate || back.Streams != tc.s.Streams {
			t.Errorf("%s: read back %+v (%v)", tc.s.Type, back, err)
		}
		if err := tc.s.Validate(); err != nil {
			t.Errorf("%s: %v", tc.s.Type, err)
		}
	}
	for _, bad := range []Strategy{{Type: "async"}, {Type: StrategyConstant}, {Type: StrategyConcurrent}, {Type: StrategyThroughput, MaxConcurrency: -1}} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}
func TestConstraintJSON(t *testing.T) {
	tests := []struct {
		c    Constraint
		want string
	}{
		{Constraint{Kind: ConstraintMaxDuration, Seconds: 30}, `{"kind":"max_duration","stopping_scope":"current","seconds":30}`},
		{Constraint{Kind: ConstraintMaxDuration, Seconds: 2.5, StoppingScope: "all"}, `{"kind":"max_duration","stopping_scope":"all","seconds":2.5}`},
		{Constraint{Kind: ConstraintMaxRequests, Count: 1000}, `{"kind":"max_requests","stopping_scope":"current","count":1000}`},
		{Constraint{Kind: ConstraintMaxErrors, Count: 5}, `{"kind":"max_errors","stopping_scope":"current","count":5}`},
		{Constraint{Kind: ConstraintMaxErrorRate, Rate: 0.1}, `{"kind":"max_error_rate","stopping_scope":"current","rate":0.1,"window":30}`},
		{Constraint{Kind: ConstraintMaxGlobalErrorRate, Rate: 0.05, Minimum: 50}, `{"kind":"max_global_error_rate","stopping_scope":"current","rate":0.05,"minimum":50}`},
	}
	for _, tc := range tests {
		b, err := json.Marshal(tc.c)
		if err != nil || string(b) != tc.want {
			t.Errorf("%s: %s (%v), want %s", tc.c.Kind, b, err, tc.want)
		}
	}
	for _, bad := range []Constraint{{Kind: "max_tokens"}, {Kind: ConstraintMaxDuration}, {Kind: ConstraintMaxErrorRate, Rate: 10},
		{Kind: ConstraintMaxRequests, Count: 5, StoppingScope: "some"}} {
		if _, err := json.Marshal(bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}
func TestNewSpecValidation(t *testing.T) {
	ok := SpecInput{Backend: Backend{Target: "http://h:8000"}, Profile: Profile{Kind: "synchronous"},
		Data: []SyntheticText{{PromptTokens: 10}}}
	if _, err := NewScenario(ok); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		edit func(*SpecInput)
		want string
	}{
		{"no target", func(s *SpecInput) { s.Backend.Target = "" }, "backend target is required"},
		{"bad request format", func(s *SpecInput) { s.Backend.RequestFormat = "/v2/chat" }, "request format"},
		{"unknown profile", func(s *SpecInput) { s.Profile.Kind = "ramp" }, "unknown kind"},
		{"constant without rate", func(s *SpecInput) { s.Profile = Profile{Kind: "constant"} }, "rate is required"},
		{"concurrent without streams", func(s *SpecInput) { s.Profile = Profile{Kind: "concurrent"} }, "streams are required"},
		{"sweep size", func(s *SpecInput) { s.Profile = Profile{Kind: "sweep", SweepSize: 1} }, "sweep_size"},
		{"no data", func(s *SpecInput) { s.Data = nil }, "at least one data source"},
		{"bad data", func(s *SpecInput) { s.Data = []SyntheticText{{PromptTokens: 0}} }, "prompt_tokens must be > 0"},
		{"bad raw data", func(s *SpecInput) { s.RawData = []json.RawMessage{json.RawMessage("{")} }, "not valid JSON"},
		{"bad output", func(s *SpecInput) { s.Outputs = []Output{{Kind: "pdf"}} }, "unknown output kind"},
		{"bad constraint", func(s *SpecInput) { s.Constraints = []Constraint{{Kind: "max_tokens"}} }, "unknown kind"},
	}
	for _, tc := range tests {
		in := ok
		tc.edit(&in)
		_, err := NewScenario(in)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err %v, want one line containing %q", tc.name, err, tc.want)
		}
	}
	// Header values (they may carry credentials) are never written.
	in := ok
	in.Backend.ExtraHeaders = []string{"Authorization"}
	sc, err := NewScenario(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(sc.Spec.Backend), `"headers":{"Authorization":"**********"}`) {
		t.Errorf("backend: %s", sc.Spec.Backend)
	}
}

// goodput's own request formats are written as GuideLLM's nearest one
// (GuideLLM's request_format is a closed list its loader checks), with
// the route the requests went to in api_routes.
func TestBackendOwnFormatsLoadable(t *testing.T) {
	for rf, want := range map[string][2]string{
		"/v1/chat/completions": {"/v1/chat/completions", ""},
		"/v1/embeddings":       {"/v1/embeddings", ""},
		"/v1/rerank":           {"/pooling", "/v1/rerank"},
		"/rerank":              {"/pooling", "/rerank"},
		"/score":               {"/pooling", "/score"},
		"/v1/messages":         {"/v1/chat/completions", "/v1/messages"},
	} {
		sc, err := NewScenario(SpecInput{Backend: Backend{Target: "http://h:8000", RequestFormat: rf}, Profile: Profile{Kind: "synchronous"},
			Data: []SyntheticText{{PromptTokens: 10}}})
		if err != nil {
			t.Fatalf("%s: %v", rf, err)
		}
		var be struct {
			RequestFormat string            `json:"request_format"`
			APIRoutes     map[string]string `json:"api_routes"`
		}
		if err := json.Unmarshal(sc.Spec.Backend, &be); err != nil {
			t.Fatal(err)
		}
		if be.RequestFormat != want[0] || be.APIRoutes[want[0]] != want[1] || (want[1] == "" && len(be.APIRoutes) != 0) {
			t.Errorf("%s: request_format %q, api_routes %v; want %q routed to %q", rf, be.RequestFormat, be.APIRoutes, want[0], want[1])
		}
	}
}
