package main

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/accum"
)

// cmpRun describes a synthetic run: n sequential requests (one after the
// other, like GuideLLM's synchronous strategy) with lognormal TTFT and
// per-request ITL, reported through report's Accumulator.
type cmpRun struct {
	seed              uint64
	n                 int
	ttftMs, itlMs     float64 // medians
	ttftSig, itlSig   float64
	out               int
	strategy          report.Strategy
	goodput, thrTokS  float64 // SLO figures (0: no SLO result)
	errored           int
	stripGoodputExtra bool // write a GuideLLM v2 report (no goodput keys)
}

func (c cmpRun) write(t *testing.T, dir, name string) string {
	t.Helper()
	const t0 = int64(1_700_000_000) * 1e9
	acc, err := accum.New(accum.Config{Start: t0, SampleSize: -1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(c.seed, 3))
	var r record.Record
	at := t0
	for i := 0; i < c.n; i++ {
		r.Reset()
		r.ID = uint64(i + 1)
		r.Intended, r.Dispatched, r.Sent = at, at, at
		r.PromptTokens, r.ServerPromptTokens, r.ClientPromptTokens, r.ClientOutputTokens, r.CachedTokens = 256, 256, -1, -1, -1
		if i < c.errored {
			r.Status, r.ErrorClass, r.HTTPStatus, r.End, r.Iterations, r.ServerOutputTokens = record.StatusErrored, record.ErrHTTPStatus, 500, at+2e6, 1, -1
		} else {
			first := at + int64(c.ttftMs*math.Exp(c.ttftSig*rng.NormFloat64())*1e6)
			itl := c.itlMs * math.Exp(c.itlSig*rng.NormFloat64()) * 1e6
			r.Status = record.StatusSuccessful
			r.Headers, r.FirstChunk, r.FirstToken, r.FirstOutputToken = first, first, first, first
			for k := 0; k < c.out; k++ {
				r.ChunkTimes = append(r.ChunkTimes, first+int64(float64(k)*itl))
			}
			r.LastToken = r.ChunkTimes[c.out-1]
			r.End = r.LastToken + 1e5
			r.Iterations, r.OutputTokens, r.ServerOutputTokens, r.OutputSource, r.FinishReason = c.out+1, c.out, c.out, record.TokensUsage, "length"
		}
		acc.Add(&r)
		at = r.End
	}
	st := c.strategy
	if st.Type == "" {
		st = report.Strategy{Type: report.StrategySynchronous}
	}
	b := acc.Finish(accum.BenchmarkInfo{RunID: name, Strategy: st, Start: t0, End: at, StopReason: "max_requests"})
	if c.goodput > 0 {
		b.Extras.SLO = &report.SLOResult{Spec: "ttft_p99=500ms,itl_p95=50ms", Pass: true,
			GoodputOutputTokS: report.Float(c.goodput), ThroughputOutputTokS: report.Float(c.thrTokS)}
	}
	rep := report.NewReport("test", nil, b)
	rep.Run = &report.RunExtras{Version: 1, RunID: name}
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	if c.stripGoodputExtra {
		data = stripGoodputKeys(t, data)
	}
	path := filepath.Join(dir, name+".json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// stripGoodputKeys turns a goodput report into a plain GuideLLM v2 one.
func stripGoodputKeys(t *testing.T, data []byte) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "goodput")
	delete(m["metadata"].(map[string]any), "goodput_version")
	for _, b := range m["benchmarks"].([]any) {
		delete(b.(map[string]any), "goodput")
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func compareCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := realMain(append([]string{"compare"}, args...), &cli.Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""), Getenv: func(string) string { return "" }})
	return code, out.String(), errb.String()
}

func TestCompareExitCodes(t *testing.T) {
	dir := t.TempDir()
	base := cmpRun{seed: 1, n: 600, ttftMs: 50, ttftSig: 0.3, itlMs: 5, itlSig: 0.1, out: 32, goodput: 180, thrTokS: 190}
	basePath := base.write(t, dir, "base")
	improved := cmpRun{seed: 2, n: 600, ttftMs: 35, ttftSig: 0.3, itlMs: 3.5, itlSig: 0.1, out: 32, goodput: 250, thrTokS: 260}.write(t, dir, "improved")
	regressed := cmpRun{seed: 2, n: 600, ttftMs: 65, ttftSig: 0.3, itlMs: 6.5, itlSig: 0.1, out: 32, goodput: 140, thrTokS: 150}.write(t, dir, "regressed")
	smallBase := cmpRun{seed: 100, n: 25, ttftMs: 50, ttftSig: 0.5, itlMs: 5, itlSig: 0.4, out: 32, goodput: 180, thrTokS: 190}.write(t, dir, "small-base")
	noisy := cmpRun{seed: 13, n: 25, ttftMs: 60, ttftSig: 0.5, itlMs: 6, itlSig: 0.4, out: 32, goodput: 180, thrTokS: 190}.write(t, dir, "noisy")

	tests := []struct {
		name     string
		args     []string
		code     int
		contains []string
	}{
		{"improved", []string{basePath, improved}, 0, []string{"Verdict: PASS", "improved"}},
		{"regressed", []string{basePath, regressed}, 1, []string{"Verdict: FAIL", "REGRESSION"}},
		// 25 requests: the medians' crossings are within noise, the tails'
		// undecidable (no upper bound): exit 5 unless --allow-undecided.
		{"noisy", []string{smallBase, noisy}, cli.ExitUndecided, []string{"Verdict: UNDECIDED", "within noise", "--strict would fail", "368 requests per run would decide"}},
		{"noisy, undecided allowed", []string{"--allow-undecided", smallBase, noisy}, 0, []string{"Verdict: PASS", "passed with --allow-undecided"}},
		{"noisy, strict", []string{"--strict", smallBase, noisy}, 1, []string{"Verdict: FAIL"}},
		{"regression tolerated by looser limits", []string{"--max-goodput-drop", "30%", "--max-throughput-drop", "30%",
			"--max-ttft-p50-increase", "off", "--max-ttft-p90-increase", "off", "--max-ttft-p99-increase", "off",
			"--max-itl-p50-increase", "500ms", "--max-itl-p95-increase", "500ms", basePath, regressed}, 0, []string{"Verdict: PASS"}},
		{"same file", []string{basePath, basePath}, 0, []string{"Verdict: PASS: 0 regressions"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := compareCmd(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errOut)
			}
			for _, c := range tt.contains {
				if !strings.Contains(oneSpaced(out), c) {
					t.Errorf("stdout lacks %q:\n%s", c, out)
				}
			}
		})
	}
}

func TestCompareBadInputExitsTwo(t *testing.T) {
	dir := t.TempDir()
	base := cmpRun{seed: 1, n: 50, ttftMs: 50, itlMs: 5, out: 8}.write(t, dir, "base")
	other := cmpRun{seed: 1, n: 50, ttftMs: 50, itlMs: 5, out: 8, strategy: report.Strategy{Type: report.StrategyConcurrent, Streams: 4}}.write(t, dir, "other")
	garbage := filepath.Join(dir, "garbage.json")
	if err := os.WriteFile(garbage, []byte(`{"benchmarks": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		msg  string
	}{
		{"missing file", []string{filepath.Join(dir, "absent.json"), base}, "absent.json: no such file or directory"},
		{"truncated JSON", []string{garbage, base}, "garbage.json: truncated JSON"},
		{"no matching benchmarks", []string{base, other}, "no matching benchmarks: baseline has synchronous; current has concurrent 4"},
		{"one argument", []string{base}, "want two reports, got 1 argument(s)"},
		{"bare number", []string{"--max-goodput-drop", "5", base, base}, `invalid argument "5" for "--max-goodput-drop" flag: "5": a bare number is ambiguous; want a percentage like 5% or off`},
		{"wrong unit", []string{"--max-error-rate-increase", "0.5%", base, base}, "want percentage points like 0.5pp or off"},
		{"drop over 100%", []string{"--max-throughput-drop", "150%", base, base}, "a drop cannot exceed 100%"},
		{"resamples", []string{"--bootstrap-resamples", "5", base, base}, "--bootstrap-resamples 5: want 100 to 100000"},
		{"directory without report", []string{dir, base}, "is a directory without benchmarks.json"},
		{"unwritable markdown", []string{"--markdown", filepath.Join(dir, "no", "such", "dir.md"), base, base}, "--markdown: writing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := compareCmd(t, tt.args...)
			if code != 2 {
				t.Fatalf("exit %d, want 2\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			if !strings.Contains(errOut, tt.msg) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
				t.Errorf("stderr %q: want one line containing %q", errOut, tt.msg)
			}
		})
	}
}

func TestCompareGuideLLMBaselines(t *testing.T) {
	dir := t.TempDir()
	// The legacy fixture: one synchronous benchmark of 46 requests, TTFT
	// p99 21.3 ms, ITL p95 5.03 ms, 128 output tokens at about 198 tok/s.
	legacy := filepath.Join("..", "..", "report", "testdata", "benchmarks_stripped_legacy_v0.3.json")
	same := cmpRun{seed: 7, n: 200, ttftMs: 16.4, ttftSig: 0.1, itlMs: 4.92, itlSig: 0.01, out: 128, goodput: 195, thrTokS: 198}.write(t, dir, "same")
	slower := cmpRun{seed: 7, n: 200, ttftMs: 25, ttftSig: 0.1, itlMs: 6.5, itlSig: 0.01, out: 128, goodput: 150, thrTokS: 150}.write(t, dir, "slower")
	v2 := cmpRun{seed: 8, n: 200, ttftMs: 16.4, ttftSig: 0.1, itlMs: 4.92, itlSig: 0.01, out: 128, stripGoodputExtra: true}.write(t, dir, "guidellm-v2")

	tests := []struct {
		name     string
		args     []string
		code     int
		contains []string
	}{
		{"legacy baseline, like current", []string{legacy, same}, 0,
			[]string{"(guidellm-v0.2-0.3", "n/a, not gated [1]", "[1] Goodput (out tok/s): baseline: a guidellm-v0.2-0.3 report has no goodput", "Verdict: PASS"}},
		{"legacy baseline, slower current", []string{legacy, slower}, 1, []string{"REGRESSION", "Verdict: FAIL"}},
		{"GuideLLM v2 baseline", []string{v2, same}, 0,
			[]string{"(guidellm-v2", "n/a, not gated [1]", "[1] Goodput (out tok/s): baseline: a guidellm-v2 report has no goodput", "Verdict: PASS"}},
		{"GuideLLM v2 current", []string{same, v2}, 0, []string{"n/a, not gated [1]", "[1] Goodput (out tok/s): current: a guidellm-v2 report has no goodput"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := compareCmd(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errOut)
			}
			for _, c := range tt.contains {
				if !strings.Contains(oneSpaced(out), c) {
					t.Errorf("stdout lacks %q:\n%s", c, out)
				}
			}
		})
	}
}

func TestCompareWritesMarkdownAndJSON(t *testing.T) {
	dir := t.TempDir()
	runDir := filepath.Join(dir, "20260101T000000-abcdef")
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		t.Fatal(err)
	}
	base := cmpRun{seed: 1, n: 600, ttftMs: 50, ttftSig: 0.3, itlMs: 5, itlSig: 0.1, out: 32, goodput: 180, thrTokS: 190}.write(t, dir, "base")
	cur := cmpRun{seed: 2, n: 600, ttftMs: 65, ttftSig: 0.3, itlMs: 6.5, itlSig: 0.1, out: 32, goodput: 140, thrTokS: 150}.write(t, dir, "cur")
	// A run directory stands for its benchmarks.json.
	if err := os.Rename(cur, filepath.Join(runDir, "benchmarks.json")); err != nil {
		t.Fatal(err)
	}
	md, js := filepath.Join(dir, "cmp.md"), filepath.Join(dir, "cmp.json")
	code, out, errOut := compareCmd(t, "--markdown", md, "--json", js, base, runDir)
	if code != 1 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	mdText, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(mdText), "## goodput compare: FAIL") || !strings.Contains(string(mdText), "| TTFT p99 (ms) |") {
		t.Errorf("markdown:\n%s", mdText)
	}
	var verdict struct {
		Pass        bool `json:"pass"`
		Regressions int  `json:"regressions"`
		Current     struct {
			Name string `json:"name"`
		} `json:"current"`
		Pairs []struct {
			Rows []struct {
				Metric string `json:"metric"`
				Status string `json:"status"`
			} `json:"rows"`
		} `json:"pairs"`
	}
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &verdict); err != nil {
		t.Fatal(err)
	}
	if verdict.Pass || verdict.Regressions == 0 || verdict.Current.Name != filepath.Join(runDir, "benchmarks.json") || len(verdict.Pairs) != 1 {
		t.Errorf("verdict %+v", verdict)
	}
}

// Client-cost reports (make bench's gate section) are judged on the
// ratio goodput ÷ minimal client: exit 1 on a regression beyond the limit
// and the pairs' spread, 0 with the limit loosened, 2 when only one side
// is a client-cost report.
func TestCompareClientCostReports(t *testing.T) {
	dir := t.TempDir()
	write := func(name, gp string) string {
		p := filepath.Join(dir, name)
		doc := `{"layout":"goodput-client-cost/v1","machine":"2cpu-amd64","rows":[{"name":"zero-delay, 16 streams",` +
			`"goodput_us_per_token":[` + gp + `],"minclient_us_per_token":[4,4,4,4,4]}]}`
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := write("base.json", "2,2,2,2,2")            // ratio 0.5
	slow := write("slow.json", "2.4,2.5,2.3,2.4,2.45") // ratio 0.6: +20 %
	report := cmpRun{seed: 1, n: 50, ttftMs: 50, itlMs: 5, out: 8}.write(t, dir, "report")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"same", []string{base, base}, 0, "PASS"},
		{"20 % slower", []string{base, slow}, 1, "regression"},
		{"limit loosened", []string{"--max-client-cpu-increase", "25%", base, slow}, 0, "PASS"},
		{"mixed layouts", []string{base, report}, 2, "one is a client-cost report"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := compareCmd(t, tt.args...)
			if code != tt.code || !strings.Contains(out+errOut, tt.want) {
				t.Fatalf("exit %d, want %d with %q:\n%s%s", code, tt.code, tt.want, out, errOut)
			}
		})
	}
}

// oneSpaced is s with every run of spaces and line breaks one space: the
// console wraps long lines to fit a terminal.
func oneSpaced(s string) string { return strings.Join(strings.Fields(s), " ") }
