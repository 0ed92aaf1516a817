package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/report"
)

// benchmarkRun runs `goodput benchmark` against the mock and returns the
// run directory (benchmarks.json, benchmarks.csv, requests.jsonl).
func benchmarkRun(t *testing.T) string {
	t.Helper()
	url := clitest.Mock(t, nil)
	dir := t.TempDir()
	code, _, stderr := runGoodput(t, "benchmark", "--target", url, "--rate-type", "concurrent", "--rate", "2,3",
		"--data", "prompt_tokens=16,output_tokens=8", "--max-requests", "6", "--output-dir", dir, "--run-id", "r1",
		"--disable-console-outputs")
	if code != cli.ExitOK {
		t.Fatalf("benchmark: exit %d: %s", code, stderr)
	}
	return filepath.Join(dir, "r1")
}

const legacyFixture = "../../report/testdata/benchmarks_stripped_legacy_v0.3.json"

// TestReportGoodputJSON: a goodput report re-renders to the same CSV and
// byte-identical JSON, and its AIPerf exports come from requests.jsonl.
func TestReportGoodputJSON(t *testing.T) {
	runDir := benchmarkRun(t)
	in := filepath.Join(runDir, "benchmarks.json")
	code, stdout, stderr := runGoodput(t, "report", in)
	if code != cli.ExitOK || !strings.Contains(stdout, "concurrent 2") || !strings.Contains(stdout, "Latency, successful requests") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	out := t.TempDir()
	code, stdout, stderr = runGoodput(t, "report", in, "--csv", filepath.Join(out, "x.csv"), "--json", filepath.Join(out, "x.json"),
		"--aiperf", filepath.Join(out, "aiperf"))
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stdout != "" {
		t.Errorf("no console output was asked for: %q", stdout)
	}
	orig, _ := os.ReadFile(in)
	again, _ := os.ReadFile(filepath.Join(out, "x.json"))
	if !bytes.Equal(orig, again) {
		t.Error("a goodput report written again must be byte-identical")
	}
	origCSV, _ := os.ReadFile(filepath.Join(runDir, "benchmarks.csv"))
	csv, _ := os.ReadFile(filepath.Join(out, "x.csv"))
	if !bytes.Equal(origCSV, csv) {
		t.Error("the re-rendered CSV differs from the run's")
	}
	rep, err := report.Read(in)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range []string{"concurrency_2", "concurrency_3"} {
		x := clitest.ReadAIPerf(t, filepath.Join(out, "aiperf", l, "profile_export_aiperf.json"))
		if x.Goodput.Source != "records" || !x.Goodput.Exact || x.Goodput.BenchmarkIndex != i {
			t.Errorf("%s: %+v", l, x.Goodput)
		}
		rq := rep.Benchmarks[i].Extras.Requests
		ok, errs := clitest.MetricAvg(t, x, "request_count"), clitest.MetricAvg(t, x, "error_request_count")
		if ok+errs != float64(rq.Recorded-rq.Invalid-rq.NotDispatched) || ok < 1 {
			t.Errorf("%s: request_count %v + error_request_count %v, report recorded %+v", l, ok, errs, rq)
		}
		if m := x.Metric("time_to_first_token"); m == nil || float64(*m.Count) != ok {
			t.Errorf("%s: time_to_first_token %+v", l, m)
		}
		if _, err := os.Stat(filepath.Join(out, "aiperf", l, "profile_export_aiperf.csv")); err != nil {
			t.Error(err)
		}
	}
	if strings.Contains(stderr, "approximated") {
		t.Errorf("records were beside the report: %s", stderr)
	}
}

// TestReportGuideLLMv2: a GuideLLM v2 report (goodput's keys removed)
// re-renders; its AIPerf export is approximated, and says so.
func TestReportGuideLLMv2(t *testing.T) {
	runDir := benchmarkRun(t)
	v2 := filepath.Join(t.TempDir(), "guidellm.json")
	writeGuideLLMv2(t, filepath.Join(runDir, "benchmarks.json"), v2)
	rep, err := report.Read(v2)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Layout != report.LayoutV2 {
		t.Fatalf("layout %s, want GuideLLM v2", rep.Layout)
	}
	out := t.TempDir()
	code, stdout, stderr := runGoodput(t, "report", v2, "--console", "--aiperf", out, "--json", filepath.Join(out, "v2.json"))
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "concurrent 3") {
		t.Errorf("console:\n%s", stdout)
	}
	if !strings.Contains(stderr, "note: "+v2+": no per-request records found") || !strings.Contains(stderr, "approximated") {
		t.Errorf("stderr %q", stderr)
	}
	x := clitest.ReadAIPerf(t, filepath.Join(out, "concurrency_2", "profile_export_aiperf.json"))
	if x.Goodput.Source != "report" || x.Goodput.Exact || clitest.MetricAvg(t, x, "request_count") != float64(rep.Benchmarks[0].Metrics.RequestTotals.Successful) {
		t.Errorf("approximate export: %+v", x.Goodput)
	}
	if _, err := report.Read(filepath.Join(out, "v2.json")); err != nil {
		t.Fatalf("rewritten JSON: %v", err)
	}
}

// writeGuideLLMv2 strips goodput's keys from a goodput report: what
// GuideLLM v0.7 itself writes.
func writeGuideLLMv2(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	var strip func(any)
	strip = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			delete(x, "goodput")
			delete(x, "goodput_version")
			for _, e := range x {
				strip(e)
			}
		case []any:
			for _, e := range x {
				strip(e)
			}
		}
	}
	strip(v)
	nb, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, nb, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReportLegacy: GuideLLM's v0.3 layout renders like the report
// package's golden console and CSV.
func TestReportLegacy(t *testing.T) {
	out := filepath.Join(t.TempDir(), "legacy.csv")
	code, stdout, stderr := runGoodput(t, "report", legacyFixture, "--console", "--csv", out)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wantConsole, err := os.ReadFile("../../report/testdata/golden/legacy_v0.3.console.txt")
	if err != nil {
		t.Fatal(err)
	}
	if stdout != string(wantConsole) {
		t.Errorf("console differs from the golden file:\n%s", stdout)
	}
	got, _ := os.ReadFile(out)
	want, err := os.ReadFile("../../report/testdata/golden/legacy_v0.3.csv")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("CSV differs from the golden file")
	}
}

// TestReportSeveralFiles: each report in turn on the console; file outputs
// go to a directory, one per input.
func TestReportSeveralFiles(t *testing.T) {
	runDir := benchmarkRun(t)
	in := filepath.Join(runDir, "benchmarks.json")
	code, stdout, stderr := runGoodput(t, "report", legacyFixture, in)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	i, j := strings.Index(stdout, "== "+legacyFixture+" =="), strings.Index(stdout, "== "+in+" ==")
	if i != 0 || j <= i {
		t.Errorf("console:\n%s", stdout)
	}
	out := filepath.Join(t.TempDir(), "csvs")
	code, _, stderr = runGoodput(t, "report", legacyFixture, in, "--csv", out, "--aiperf", filepath.Join(out, "aiperf"))
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range []string{"benchmarks_stripped_legacy_v0.3.csv", "benchmarks.csv",
		"aiperf/benchmarks/concurrency_2/profile_export_aiperf.json", "aiperf/benchmarks_stripped_legacy_v0.3/profile_export_aiperf.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	// A file, not a directory, cannot take several CSVs.
	file := filepath.Join(t.TempDir(), "one.csv")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runGoodput(t, "report", legacyFixture, in, "--csv", file)
	if code != cli.ExitUsage || !strings.Contains(stderr, "want a directory") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// TestReportBadInput: truncated, foreign and missing files, and misused
// flags, give one line and exit 2; nothing is written.
func TestReportBadInput(t *testing.T) {
	dir := t.TempDir()
	legacy, err := os.ReadFile(legacyFixture)
	if err != nil {
		t.Fatal(err)
	}
	trunc := filepath.Join(dir, "trunc.json")
	if err := os.WriteFile(trunc, legacy[:len(legacy)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(dir, "aiperf.json")
	if err := os.WriteFile(foreign, []byte(`{"schema_version": "1.0", "request_latency": {"unit": "ms", "avg": 1.0}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	typed := filepath.Join(dir, "typed.json")
	if err := os.WriteFile(typed, []byte(`{"benchmarks": {"a": 1}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"truncated", []string{"report", trunc, "--csv", out}, trunc + ": truncated JSON at byte"},
		{"foreign", []string{"report", foreign}, foreign + `: not a goodput or GuideLLM report: missing key "benchmarks"`},
		{"wrong type", []string{"report", typed}, `"benchmarks" is an object, want an array`},
		{"missing", []string{"report", filepath.Join(dir, "nope.json")}, "nope.json"},
		{"bad among good", []string{"report", legacyFixture, trunc, "--csv", out}, "trunc.json: truncated JSON"},
		{"no files", []string{"report"}, "give at least one report file"},
		{"records with several", []string{"report", legacyFixture, legacyFixture, "--aiperf", out, "--records", trunc}, "--records goes with --aiperf or --html and a single report file"},
		{"records without aiperf", []string{"report", legacyFixture, "--records", trunc}, "--records goes with --aiperf or --html"},
		{"unknown flag", []string{"report", legacyFixture, "--pdf", out}, "unknown flag: --pdf"},
		{"records of another run", []string{"report", legacyFixture, "--aiperf", out, "--records", trunc}, "trunc.json:1: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runGoodput(t, c.args...)
			if code != cli.ExitUsage {
				t.Fatalf("exit %d, want %d; stderr %q", code, cli.ExitUsage, stderr)
			}
			if strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 || !strings.Contains(stderr, c.want) {
				t.Fatalf("stderr %q: want one line containing %q", stderr, c.want)
			}
			if c.name != "records of another run" {
				if _, err := os.Stat(out); err == nil {
					t.Fatal("a failed report command wrote output")
				}
			}
		})
	}
}

// TestReportRecordsMismatch: a records file of another run is refused.
func TestReportRecordsMismatch(t *testing.T) {
	a, b := benchmarkRun(t), benchmarkRun(t)
	out := t.TempDir()
	code, _, stderr := runGoodput(t, "report", filepath.Join(a, "benchmarks.json"), "--aiperf", out, "--records", filepath.Join(b, "requests.jsonl"))
	if code != cli.ExitUsage || !strings.Contains(stderr, "does not belong to this report") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

// guidellmStrictCheck runs GuideLLM v0.7.3's loader rules
// (report/testdata/guidellm_v2_check.py, a copy of the project tool, or $GUIDELLM_V2_CHECK), strict, on
// a file and returns their output. It skips the test when python3 or the
// checker is missing, unless $GOODPUT_CI is set: CI must run it.
func guidellmStrictCheck(t *testing.T, path string) string {
	t.Helper()
	checker := os.Getenv("GUIDELLM_V2_CHECK")
	if checker == "" {
		checker = filepath.Join("..", "..", "report", "testdata", "guidellm_v2_check.py")
	}
	py, err := exec.LookPath("python3")
	if err == nil {
		_, err = os.Stat(checker)
	}
	if err != nil {
		msg := "GuideLLM v2 checker unavailable (python3 and " + checker + ", or set GUIDELLM_V2_CHECK): " + err.Error()
		if os.Getenv("GOODPUT_CI") != "" {
			t.Fatal(msg + " ($GOODPUT_CI is set: CI must run it)")
		}
		t.Skip(msg)
	}
	out, _ := exec.Command(py, checker, "--strict", path).CombinedOutput()
	return strings.TrimSpace(string(out))
}

// TestReportLegacyJSON: `report OLD.json --json OUT` on GuideLLM's v0.3
// layout writes a report v2 that goodput reads back (rendering the same
// console) and GuideLLM's loader rules accept.
func TestReportLegacyJSON(t *testing.T) {
	out := filepath.Join(t.TempDir(), "v2.json")
	code, stdout, stderr := runGoodput(t, "report", legacyFixture, "--json", out)
	if code != cli.ExitOK || stdout != "" {
		t.Fatalf("exit %d, stdout %q: %s", code, stdout, stderr)
	}
	rep, err := report.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Layout != report.LayoutV2 || rep.Config == nil || rep.Benchmarks[0].SchedulerState == nil {
		t.Errorf("read back as %s, config %v", rep.Layout, rep.Config)
	}
	code, stdout, stderr = runGoodput(t, "report", out)
	want, err := os.ReadFile("../../report/testdata/golden/legacy_v0.3.console.txt")
	if err != nil {
		t.Fatal(err)
	}
	if code != cli.ExitOK || stdout != string(want) {
		t.Errorf("exit %d (%s); console of the converted report:\n%s\nwant:\n%s", code, stderr, stdout, want)
	}
	if got := guidellmStrictCheck(t, out); got != "OK" {
		t.Errorf("GuideLLM loader check, strict:\n%s", got)
	}
}

// TestReportJSONRefused: an old report that cannot be written as report
// v2 honestly is refused with one line and exit 2, and nothing is
// written, while the console and CSV still render it.
func TestReportJSONRefused(t *testing.T) {
	dir := t.TempDir()
	raw, err := os.ReadFile(legacyFixture)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	doc["benchmarks"].([]any)[0].(map[string]any)["args"].(map[string]any)["warmup_duration"] = 5.0
	warm, _ := json.Marshal(doc)
	warmFile := filepath.Join(dir, "warm.json")
	doc["args"] = map[string]any{"target": "http://x"} // GuideLLM v0.4's {args, benchmarks}
	v04, _ := json.Marshal(doc)
	v04File := filepath.Join(dir, "v04.json")
	for f, b := range map[string][]byte{warmFile: warm, v04File: v04} {
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		file, want string
	}{
		{warmFile, warmFile + ": --json: cannot be written as GuideLLM report v2 (GuideLLM v0.2–v0.3 layout): benchmarks[0]: warmup or cooldown set"},
		{v04File, v04File + ": --json: cannot be written as GuideLLM report v2 (GuideLLM v0.4–v0.6 layout)"},
	} {
		code, _, stderr := runGoodput(t, "report", legacyFixture, c.file, "--csv", out, "--json", out)
		if code != cli.ExitUsage || strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("exit %d, stderr %q: want 2 and one line containing %q", code, stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatal("a refused --json wrote output")
		}
		if code, stdout, stderr := runGoodput(t, "report", c.file); code != cli.ExitOK || !strings.Contains(stdout, "Latency, successful requests") {
			t.Errorf("console: exit %d: %s", code, stderr)
		}
	}
}

// TestReportClientSaturated: re-rendering a goodput report marks the
// latency rows of a benchmark whose client was saturated, gives the
// reason in a footnote, and says so in the CSV.
func TestReportClientSaturated(t *testing.T) {
	runDir := benchmarkRun(t)
	rep, err := report.Read(filepath.Join(runDir, "benchmarks.json"))
	if err != nil {
		t.Fatal(err)
	}
	const reason = "timer lag P99 12.0 ms > 5ms: the client process is CPU-starved"
	rep.Benchmarks[0].Extras.Client = &report.ClientLoad{Saturated: true, Reason: reason}
	rep.Benchmarks[1].Extras.Client = &report.ClientLoad{Saturated: false}
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(t.TempDir(), "sat.json")
	if err := os.WriteFile(in, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	csvOut := filepath.Join(t.TempDir(), "sat.csv")
	code, stdout, stderr := runGoodput(t, "report", in, "--console", "--wide", "--csv", csvOut)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lat := stdout[strings.Index(stdout, "Latency, successful requests"):]
	if !strings.Contains(lat, " concurrent 2* ") || strings.Contains(lat, "concurrent 3*") {
		t.Errorf("latency rows: want concurrent 2 marked, concurrent 3 not:\n%s", stdout)
	}
	if want := "* benchmark 0 (concurrent 2): client saturated: latency figures unreliable: " + reason + "\n"; !strings.Contains(stdout, want) {
		t.Errorf("console lacks the footnote %q:\n%s", want, stdout)
	}
	f, err := os.Open(csvOut)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range rows[1] {
		if rows[0][i] != "Goodput" {
			continue
		}
		switch h {
		case "Client Saturated":
			if rows[3][i] != "True" || rows[4][i] != "False" {
				t.Errorf("Client Saturated: %q, %q; want True, False", rows[3][i], rows[4][i])
			}
		case "Client Saturation Reason":
			if rows[3][i] != reason || rows[4][i] != "" {
				t.Errorf("Client Saturation Reason: %q, %q", rows[3][i], rows[4][i])
			}
		}
	}
	if !strings.Contains(strings.Join(rows[1], ","), "Client Saturated,Client Saturation Reason") {
		t.Errorf("CSV lacks the saturation columns: %v", rows[1])
	}
}
