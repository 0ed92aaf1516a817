package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The rebuilt golden report carries GuideLLM's newest fields (config.slo,
// metrics.slo_attainment, metrics.slo_determined_requests) and loads in
// both GuideLLM v0.7.3 and its newest release (the checker's --newest
// rules); a broken value of each new field fails the newest rules, so the
// check can fail.
func TestNewestGuideLLMFields(t *testing.T) {
	if testing.Short() {
		t.Skip("runs GuideLLM's newest loader rules on every field (make check)")
	}
	path := filepath.Join("testdata", "rebuild", "benchmarks.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Decode(bytes.NewReader(raw), path)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range r.Benchmarks {
		if b.Config.SLO == nil || b.Config.SLO.TTFTMs == nil || b.Metrics.SLOAttainment == nil || b.Metrics.SLODeterminedRequests == nil {
			t.Fatalf("benchmark %d lacks the newest fields: slo %+v, attainment %v", b.Config.RunIndex, b.Config.SLO, b.Metrics.SLOAttainment)
		}
	}
	if out := guidellmCheck(t, path, false); out != "OK" {
		t.Errorf("v0.7.3 loader: %s", out)
	}
	if out := guidellmCheckNewest(t, path); out != "OK" {
		t.Errorf("newest loader: %s", out)
	}
	for _, bad := range []struct {
		name string
		edit func(b map[string]any)
		want string
	}{
		{"attainment above 1", func(b map[string]any) { b["metrics"].(map[string]any)["slo_attainment"] = 1.5 }, "slo_attainment"},
		{"no objective", func(b map[string]any) { b["config"].(map[string]any)["slo"] = map[string]any{} }, "at least one of"},
		{"negative threshold", func(b map[string]any) { b["config"].(map[string]any)["slo"] = map[string]any{"ttft_ms": -1} }, "ttft_ms"},
		{"determined not an int", func(b map[string]any) { b["metrics"].(map[string]any)["slo_determined_requests"] = "x" }, "slo_determined_requests"},
	} {
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		bad.edit(doc["benchmarks"].([]any)[0].(map[string]any))
		data, _ := json.Marshal(doc)
		p := filepath.Join(t.TempDir(), "bad.json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if out := guidellmCheckNewest(t, p); !strings.Contains(out, bad.want) || strings.HasSuffix(out, "OK") {
			t.Errorf("%s: newest check %q, want a violation naming %s", bad.name, out, bad.want)
		}
	}
}

// guidellmCheckNewest runs the checker with GuideLLM's newest rules.
func guidellmCheckNewest(t *testing.T, path string) string {
	t.Helper()
	return guidellmCheckArgs(t, "--newest", path)
}
