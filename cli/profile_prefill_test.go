package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/clitest"
	"github.com/goodput-dev/goodput/loadgen"
)

// aiperfPhasesOf reads the phases of an AIPerf export's input_config.
func aiperfPhasesOf(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var x struct {
		InputConfig struct {
			Phases []map[string]any `json:"phases"`
		} `json:"input_config"`
	}
	if err := json.Unmarshal(b, &x); err != nil {
		t.Fatal(err)
	}
	return x.InputConfig.Phases
}

// AIPerf's prefill tutorial, shortened: 4 streams, at most 1 request
// waiting for its first token, warmup at its own cap. The cap holds in
// both phases, and the report and the AIPerf export say so.
func TestProfilePrefillConcurrency(t *testing.T) {
	dir := t.TempDir()
	rep, warm, measured, _ := warmupRun(t, dir, "--concurrency", "4", "--prefill-concurrency", "1", "--request-count", "8",
		"--warmup-request-count", "4", "--warmup-concurrency", "2", "--warmup-prefill-concurrency", "2")
	if len(warm) != 4 || len(measured) != 8 {
		t.Fatalf("%d warmup and %d measured records, want 4 and 8", len(warm), len(measured))
	}
	if m := clitest.MostOpen(measured, clitest.Dispatched, clitest.FirstToken, 0); m != 1 {
		t.Errorf("%d measured requests waited for their first token at once, want --prefill-concurrency 1", m)
	}
	if m := clitest.MostOpen(warm, clitest.Dispatched, clitest.FirstToken, 0); m > 2 {
		t.Errorf("%d warmup requests waited for their first token at once, over --warmup-prefill-concurrency 2", m)
	}
	b := rep.Benchmarks[0]
	if a := b.Extras.Arrival; a == nil || a.MaxPrefill != 1 || a.PrefillRamp != nil {
		t.Errorf("arrival %+v, want max_prefill 1 and no ramp", a)
	}
	if w := b.Extras.WarmupPhase; w == nil || w.Arrival == nil || w.Arrival.MaxPrefill != 2 {
		t.Errorf("warmup phase %+v, want its own max_prefill 2", w)
	}
	phases := aiperfPhasesOf(t, filepath.Join(dir, "profile_export_aiperf.json"))
	if len(phases) != 2 || phases[0]["prefill_concurrency"] != 2.0 || phases[1]["prefill_concurrency"] != 1.0 {
		t.Errorf("AIPerf export phases %v, want prefill_concurrency 2 (warmup) and 1 (profiling)", phases)
	}
}

// AIPerf's "Combined with Request Rate": an open loop under a prefill cap.
// A request that waits for a slot goes out late, its place in the
// schedule kept as its intended time.
func TestProfilePrefillWithRate(t *testing.T) {
	dir := t.TempDir()
	_, _, measured, _ := warmupRun(t, dir, "--request-rate", "1000", "--request-rate-mode", "constant", "--concurrency", "10",
		"--prefill-concurrency", "1", "--request-count", "5")
	if len(measured) != 5 {
		t.Fatalf("%d records, want 5", len(measured))
	}
	if m := clitest.MostOpen(measured, clitest.Dispatched, clitest.FirstToken, 0); m != 1 {
		t.Errorf("%d requests waited for their first token at once, want 1", m)
	}
	sort.Slice(measured, func(i, j int) bool { return measured[i].Intended < measured[j].Intended })
	gap := measured[1].Intended - measured[0].Intended
	if gap != int64(time.Millisecond) {
		t.Errorf("intended 1 ms apart, got %v: the schedule moved", time.Duration(gap))
	}
	for k := 1; k < len(measured); k++ {
		if measured[k].Dispatched < measured[k-1].FirstToken {
			t.Errorf("request %d sent before request %d's first token", k, k-1)
		}
	}
	// Each first token comes 5 ms or more after its send (the mock's
	// TTFT), the next slot in the schedule 1 ms after: the 5th request
	// waited for the 4 before it, at least 4 × 4 ms.
	if late := measured[4].Dispatched - measured[4].Intended; late < int64(16*time.Millisecond) {
		t.Errorf("the 5th request went out %v late, want at least 16 ms (waiting for prefill slots)", time.Duration(late))
	}
}

// With a rate, AIPerf's --concurrency-ramp-duration raises the in-flight
// cap from 1 to --concurrency (its session slots): the ramp reaches the
// strategy of every load shape that has a cap, and the report records it.
func TestProfileConcurrencyRampWithRate(t *testing.T) {
	for _, c := range []struct {
		args []string
		kind loadgen.Kind
	}{
		{[]string{"--request-rate", "100", "--concurrency", "20", "--concurrency-ramp-duration", "6"}, loadgen.Poisson},
		{[]string{"--user-centric-rate", "2", "--num-users", "8", "--concurrency", "4", "--concurrency-ramp-duration", "6"}, loadgen.UserCentric},
	} {
		s, err := setupProfile(t, c.args...)
		if err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		if r := rounds(s)[0]; r.Kind != c.kind || r.CapRampup != 6*time.Second || r.Rampup != 0 {
			t.Errorf("%q: strategy %+v, want %s with the cap ramped over 6 s", c.args, r, c.kind)
		}
	}
	dir := t.TempDir()
	rep, _, measured, _ := warmupRun(t, dir, "--request-rate", "100", "--concurrency", "4", "--concurrency-ramp-duration", "0.3", "--request-count", "6")
	if len(measured) != 6 || rep.Run != nil && len(rep.Run.Notes) > 0 {
		t.Fatalf("%d records, notes %v; want 6 and none", len(measured), rep.Run.Notes)
	}
	if a := rep.Benchmarks[0].Extras.Arrival; a == nil || a.CapRamp == nil || a.CapRamp.DurationS != 0.3 || a.CapRamp.From != 1 || a.CapRamp.To != 4 || a.CapRamp.Unit != "slots" {
		t.Errorf("arrival %+v, want a cap ramp from 1 to 4 slots over 0.3 s", a)
	}
	phases := aiperfPhasesOf(t, filepath.Join(dir, "profile_export_aiperf.json"))
	if len(phases) != 1 || phases[0]["concurrency_ramp"] != 0.3 || phases[0]["concurrency"] != 4.0 {
		t.Errorf("AIPerf export phases %v, want concurrency 4 and concurrency_ramp 0.3", phases)
	}
}

// A ramp with nothing to ramp says so, once.
func TestProfilePrefillNotes(t *testing.T) {
	url := clitest.Mock(t, nil)
	for _, c := range []struct {
		args []string
		note string
	}{
		{[]string{"--request-rate", "100", "--concurrency-ramp-duration", "2"},
			"--concurrency-ramp-duration ignored: with a rate it ramps the in-flight cap, and no --concurrency gives one"},
	} {
		dir := t.TempDir()
		code, _, stderr := runGoodput(t, append([]string{"profile", "--url", url, "--model", "goodput-mock", "--artifact-dir", dir, "--ui-type", "none",
			"--no-server-metrics", "--isl", "16", "--osl", "4", "--request-count", "4"}, c.args...)...)
		if code != ExitOK || strings.Count(stderr, c.note) != 1 {
			t.Errorf("%q: exit %d, stderr %q; want 0 and the note %q once", c.args, code, stderr, c.note)
		}
	}
}

// Bad prefill options are one-line usage errors naming the flag.
func TestProfilePrefillErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--concurrency", "2", "--prefill-concurrency", "3"}, "--prefill-concurrency 3 is more than --concurrency 2: want at most the concurrency"},
		{[]string{"--concurrency", "4,1", "--prefill-concurrency", "2"}, "--prefill-concurrency 2 is more than --concurrency 1"},
		{[]string{"--prefill-concurrency", "-1"}, "--prefill-concurrency -1: want requests ≥ 1"},
		{[]string{"--prefill-concurrency-ramp-duration", "5"}, "--prefill-concurrency-ramp-duration needs --prefill-concurrency"},
		{[]string{"--prefill-concurrency", "1", "--prefill-concurrency-ramp-duration", "-2"}, "--prefill-concurrency-ramp-duration -2: want seconds > 0"},
		{[]string{"--no-streaming", "--concurrency", "4", "--prefill-concurrency", "2"}, "--prefill-concurrency needs --streaming"},
		{[]string{"--no-streaming", "--warmup-request-count", "2", "--warmup-prefill-concurrency", "1"}, "--warmup-prefill-concurrency needs --streaming"},
	} {
		args := []string{"profile", "--url", "http://127.0.0.1:1", "--model", "m", "--artifact-dir", t.TempDir()}
		if rest, ok := strings.CutPrefix(strings.Join(c.args, " "), "--no-streaming "); ok {
			args = append(args, strings.Fields(rest)...)
		} else {
			args = append(append(args, "--streaming"), c.args...)
		}
		code, _, stderr := runGoodput(t, args...)
		if line := strings.TrimSpace(stderr); code != ExitUsage || strings.Contains(line, "\n") || !strings.Contains(line, c.want) {
			t.Errorf("%q: exit %d, %q; want exit 2 and one line with %q", c.args, code, stderr, c.want)
		}
	}
}

// A YAML config's phases take prefill_concurrency and prefill_ramp (in
// seconds or AIPerf's {duration, strategy}), each phase its own.
func TestProfilePrefillConfig(t *testing.T) {
	config := writeFile(t, "aiperf.yaml", `schema_version: "2.0"
benchmark:
  model: goodput-mock
  endpoint: {streaming: true}
  phases:
    - {name: warmup, type: concurrency, concurrency: 2, requests: 4, prefill_concurrency: 1, prefill_ramp: {duration: 2, strategy: linear}}
    - {name: profiling, type: poisson, rate: 50, concurrency: 8, concurrency_ramp: 3, prefill_concurrency: 4, prefill_ramp: 5, requests: 3}
`)
	s, err := setupProfile(t, "--config", config)
	if err != nil {
		t.Fatal(err)
	}
	r, w := rounds(s)[0], s.cfg.Plan.WarmupPhase.Strategy
	if r.MaxPrefill != 4 || r.PrefillRampup != 5*time.Second || r.MaxConcurrency != 8 || r.CapRampup != 3*time.Second {
		t.Errorf("profiling strategy %+v, want prefill 4 ramped over 5 s, the cap 8 over 3 s", r)
	}
	if w.MaxPrefill != 1 || w.PrefillRampup != 2*time.Second || w.Streams != 2 {
		t.Errorf("warmup strategy %+v, want 2 streams, prefill 1 ramped over 2 s", w)
	}
	bad := writeFile(t, "bad.yaml", `schema_version: "2.0"
benchmark:
  model: goodput-mock
  phases:
    - {name: profiling, type: concurrency, concurrency: 8, prefill_concurrency: 4, prefill_ramp: {duration: 5, strategy: exponential}}
`)
	if _, err := setupProfile(t, "--config", bad); err == nil || !strings.Contains(err.Error(), "prefill_ramp") || !strings.Contains(err.Error(), "want linear") {
		t.Errorf("an exponential prefill ramp: %v, want an error naming prefill_ramp and linear", err)
	}
}

// goodput benchmark's --max-prefill-concurrency is the same cap: 4
// streams, at most 1 request waiting for its first token, recorded in the
// report. A negative cap is a usage error.
func TestBenchmarkMaxPrefillConcurrency(t *testing.T) {
	url := clitest.Mock(t, nil)
	dir := t.TempDir()
	code, _, stderr := runGoodput(t, "benchmark", "--target", url, "--rate-type", "concurrent", "--rate", "4", "--max-prefill-concurrency", "1",
		"--max-requests", "8", "--data", "prompt_tokens=16,output_tokens=4", "--output-dir", dir, "--run-id", "r", "--outputs", "json,jsonl", "--disable-progress")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs := clitest.ReadRecords(t, filepath.Join(dir, "r", "requests.jsonl"))
	if len(recs) != 8 {
		t.Fatalf("%d records, want 8", len(recs))
	}
	if m := clitest.MostOpen(recs, clitest.Dispatched, clitest.FirstToken, 0); m != 1 {
		t.Errorf("%d requests waited for their first token at once, want 1", m)
	}
	rep := clitest.ReadReport(t, filepath.Join(dir, "r", "benchmarks.json"))
	if a := rep.Benchmarks[0].Extras.Arrival; a == nil || a.MaxPrefill != 1 {
		t.Errorf("arrival %+v, want max_prefill 1", a)
	}
	for _, rt := range []string{"concurrent", "sweep"} {
		code, _, stderr = runGoodput(t, "benchmark", "--target", "http://127.0.0.1:1", "--rate-type", rt, "--max-prefill-concurrency", "-1", "--max-requests", "4", "--data", "prompt_tokens=16,output_tokens=4")
		if line := strings.TrimSpace(stderr); code != ExitUsage || !strings.Contains(line, "--max-prefill-concurrency -1: want a positive count") {
			t.Errorf("--rate-type %s --max-prefill-concurrency -1: exit %d, %q", rt, code, stderr)
		}
	}
}
