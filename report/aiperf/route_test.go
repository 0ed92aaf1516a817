package aiperf

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

// A report of goodput's own request types names GuideLLM's nearest
// format; the export reads the route it went to from api_routes.
func TestExportReadsTheRealRoute(t *testing.T) {
	for rf, typ := range map[string]string{
		"/v1/rerank": "cohere_rankings", "/rerank": "hf_tei_rankings", "/v1/messages": "messages", "/v1/chat/completions": "chat",
	} {
		sc, err := report.NewScenario(report.SpecInput{Backend: report.Backend{Target: "http://127.0.0.1:8000", Model: "m", RequestFormat: rf},
			Profile: report.Profile{Kind: "synchronous"}, Data: []report.SyntheticText{{PromptTokens: 8}}})
		if err != nil {
			t.Fatal(err)
		}
		b := &report.Benchmark{}
		rep := report.NewReport("test", sc, b)
		if got, want := poolingReport(rep), rf == "/v1/rerank" || rf == "/rerank"; got != want {
			t.Errorf("%s: pooling %v, want %v", rf, got, want)
		}
		raw, err := aiperfInputConfig(rep, b, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var in struct {
			Endpoint struct {
				URLs []string `json:"urls"`
				Type string   `json:"type"`
			} `json:"endpoint"`
		}
		if err := json.Unmarshal(raw, &in); err != nil {
			t.Fatal(err)
		}
		if in.Endpoint.Type != typ || len(in.Endpoint.URLs) != 1 || !strings.HasSuffix(in.Endpoint.URLs[0], rf) {
			t.Errorf("%s: endpoint %+v, want type %s at …%s", rf, in.Endpoint, typ, rf)
		}
	}
}
