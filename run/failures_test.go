package run

import (
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
)

// A benchmark without a successful request is diagnosed from its most
// common error, with the likely cause; one with a success is not, nor
// one whose requests were only cut off at its end, and
// --allow-all-errors diagnoses nothing.
func TestNoSuccessDiagnosis(t *testing.T) {
	bench := func(total, ok int64, class string, by map[string]report.Int, msg string) *report.Benchmark {
		b := &report.Benchmark{Extras: &report.Extras{Errors: report.ErrorCounts{ByClass: map[string]report.Int{}, ByHTTPStatus: by}}}
		b.Config.Strategy = report.Strategy{Type: report.StrategySynchronous}
		b.Metrics.RequestTotals = &report.StatusCounts{Successful: report.Int(ok), Errored: report.Int(total - ok), Total: report.Int(total)}
		if class != "" {
			b.Extras.Errors.ByClass[class] = report.Int(total - ok)
			b.Extras.Errors.Messages = map[string]report.ErrorMessage{class: {Message: msg, Count: report.Int(total - ok)}}
		}
		return b
	}
	cutOff := bench(4, 4, "", nil, "")
	cutOff.Metrics.RequestTotals = &report.StatusCounts{Incomplete: 4, Total: 4}
	for _, c := range []struct {
		name, target, path string
		b                  *report.Benchmark
		want               string
	}{
		{"endpoint path in the URL", "http://h:8000/v1/chat/completions", "", bench(20, 0, "http_status", map[string]report.Int{"404": 20}, "HTTP 404: Not Found"),
			`benchmark 0 (synchronous): every request got HTTP 404 from http://h:8000/v1/chat/completions/v1/chat/completions ("HTTP 404: Not Found"): give the base URL (http://h:8000): goodput appends /v1/chat/completions`},
		{"no such route", "http://h:8000", "", bench(20, 0, "http_status", map[string]report.Int{"404": 15, "500": 5}, "HTTP 404: Not Found"),
			`benchmark 0 (synchronous): no successful request: 15 of 20 got HTTP 404 from http://h:8000/v1/chat/completions ("HTTP 404: Not Found"): the server has no /v1/chat/completions`},
		{"not implemented", "http://h:8000", "", bench(20, 0, "http_status", map[string]report.Int{"501": 20}, "HTTP 501"),
			`every request got HTTP 501 from http://h:8000/v1/chat/completions ("HTTP 501"): the server does not implement /v1/chat/completions`},
		{"request path", "http://h:8000/v1beta/openai", "/chat/completion", bench(20, 0, "http_status", map[string]report.Int{"404": 20}, "HTTP 404: Not Found"),
			`every request got HTTP 404 from http://h:8000/v1beta/openai/chat/completion ("HTTP 404: Not Found"): the server has no /chat/completion`},
		{"API key", "http://h:8000", "", bench(3, 0, "http_status", map[string]report.Int{"401": 3}, "HTTP 401: unauthorized"), `: check the API key`},
		{"refused", "http://h:8000", "", bench(3, 0, "connect", nil, "connection refused"),
			`every request failed with a connect error at http://h:8000/v1/chat/completions ("connection refused"): is the server running`},
		{"failed without a class", "http://h:8000", "", bench(4, 0, "", nil, ""), `no successful request: 4 of 4 failed`},
		{"one success", "http://h:8000", "", bench(20, 1, "http_status", map[string]report.Int{"404": 19}, "HTTP 404"), ""},
		{"only cut off", "http://h:8000", "", cutOff, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			client, err := loadgen.NewClient(loadgen.ClientConfig{Target: c.target, Endpoint: loadgen.EndpointChat, Path: c.path, Model: "m"}, loadgen.NewClock())
			if err != nil {
				t.Fatal(err)
			}
			rep := &report.Report{Benchmarks: []*report.Benchmark{c.b}}
			s := &state{cfg: &Config{}, client: client}
			err = s.noSuccess(rep)
			if c.want == "" {
				if err != nil {
					t.Fatalf("diagnosed %v", err)
				}
				return
			}
			ns, ok := err.(*NoSuccessError)
			if !ok || len(ns.Lines) != 1 || !strings.Contains(ns.Lines[0], c.want) {
				t.Fatalf("diagnosis %v, want a line with %q", err, c.want)
			}
			s.cfg.AllowAllErrors = true
			if err := s.noSuccess(rep); err != nil {
				t.Errorf("--allow-all-errors: %v", err)
			}
		})
	}
}
