package scorecard

import (
	"bytes"
	"encoding/csv"
	"os"
	"strings"
	"testing"
)

func TestDecodeLenient(t *testing.T) {
	in := `{
	  "metadata": {"model": "m", "isl_tokens": "1024", "gpus": 4, "precision": 8, "engine": {"name": "vllm"},
	               "labels": {"team": "a", "n": 3}, "bench_tool_aiperf": "0.2.0"},
	  "performance": {"goodput_tok_s": "3 120", "ttft_p99_ms": "n/a", "itl_p95_ms": null, "slo_pass": "yes",
	                  "throughput_peak_tok_s": "3,890.5", "elbow_concurrency": 28.0, "slo_failures": "TTFT"},
	  "cost": {"cpm_eur_1m": "0.97", "currency": "EUR"},
	  "energy": null,
	  "carbon": {"grid_intensity_gco2_kwh": "40"}
	}`
	f, warns, err := Decode([]byte(in), "results/x/scorecard-20260616T1200.json")
	if err != nil {
		t.Fatal(err)
	}
	if f.RunID != "20260616T1200" {
		t.Errorf("run id %q, want the file name's", f.RunID)
	}
	p := f.Performance
	if p.GoodputTokS.F() != 3120 || p.TTFTP99Ms.Valid || p.ITLP95Ms.Valid || p.ElbowConcurrency.F() != 28 {
		t.Errorf("performance %+v", p)
	}
	if p.ThroughputPeakTokS.Valid {
		t.Errorf("3,890.5 is ambiguous (comma and point) and must not be read, got %v", p.ThroughputPeakTokS)
	}
	if len(p.SLOFailures) != 1 || p.SLOFailures[0] != "TTFT" || p.SLOPass != nil {
		t.Errorf("slo %v %v", p.SLOPass, p.SLOFailures)
	}
	md := f.Metadata
	if md.ISLTokens.F() != 1024 || md.GPUs.F() != 4 || md.Precision != "8" || md.Labels["n"] != "3" || md.Engine != "" {
		t.Errorf("metadata %+v", md)
	}
	if string(md.Extra["bench_tool_aiperf"]) != `"0.2.0"` || string(md.Extra["engine"]) != `{"name": "vllm"}` {
		t.Errorf("metadata extra %q", md.Extra)
	}
	if f.Energy != nil || f.Cost.CPMEUR1M.F() != 0.97 || f.Carbon.GridIntensityGCO2KWh.F() != 40 {
		t.Errorf("blocks %+v %+v %+v", f.Energy, f.Cost, f.Carbon)
	}
	joined := strings.Join(warns, "\n")
	for _, w := range []string{"metadata.engine: want a string, got an object (kept as is)", "performance.slo_pass: want true or false", "performance.throughput_peak_tok_s: want a number", "no run_id"} {
		if !strings.Contains(joined, w) {
			t.Errorf("warnings lack %q:\n%s", w, joined)
		}
	}
	// Unknown metadata keys are written back after the known ones.
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"bench_tool_aiperf": "0.2.0"`) {
		t.Errorf("extra metadata lost on write:\n%s", buf.String())
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "s.json: empty file, not a scorecard"},
		{"[1]", "s.json: not a scorecard: the top-level JSON value is an array, want an object"},
		{"null", "s.json: not a scorecard: the top-level JSON value is null, want an object"},
		{`{"run_id": "x"}`, "s.json: not a scorecard: none of the keys performance, cost, energy, carbon"},
		{`{"performance": {}`, "s.json: invalid JSON at byte"},
		{`{"performance": [1]}`, ""}, // a block of the wrong type is a warning
	} {
		_, warns, err := Decode([]byte(tc.in), "s.json")
		switch {
		case tc.want == "" && (err != nil || len(warns) == 0):
			t.Errorf("%q: err %v warns %q, want a warning", tc.in, err, warns)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestNum(t *testing.T) {
	for _, tc := range []struct {
		in    string
		v     float64
		valid bool
		err   bool
	}{
		{"0.97", 0.97, true, false}, {`"0.97"`, 0.97, true, false}, {`"1,890"`, 1890, true, false},
		{`"3 120"`, 3120, true, false}, {"\"3\u202f120\"", 3120, true, false}, {`"-1,000,000"`, -1e6, true, false},
		{`"1,89"`, 0, false, true}, {`"n/a"`, 0, false, false}, {`"-"`, 0, false, false}, {"null", 0, false, false},
		{`""`, 0, false, false}, {`"NaN"`, 0, false, false}, {"true", 0, false, true}, {`"abc"`, 0, false, true},
		{"1e400", 0, false, true},
	} {
		var n Num
		err := n.UnmarshalJSON([]byte(tc.in))
		if (err != nil) != tc.err || n.Valid != tc.valid || n.V != tc.v {
			t.Errorf("%s: %+v err %v", tc.in, n, err)
		}
	}
	for _, tc := range []struct {
		v    float64
		want string
	}{{0.000616, "0.000616"}, {3120, "3120"}, {1e-7, "1e-07"}, {0.9615384615384616, "0.9615384615384616"}, {2e20, "2e+20"}} {
		if b, _ := N(tc.v).MarshalJSON(); string(b) != tc.want {
			t.Errorf("%v written %s, want %s", tc.v, b, tc.want)
		}
	}
}

// TestCSVArticle flattens the five article scorecards.
func TestCSVArticle(t *testing.T) {
	entries, _, err := Collect([]string{"testdata/article"})
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := ParseJudgeSpec("ttft_p99=500ms,itl_p95=50ms")
	var buf bytes.Buffer
	if err := WriteCSV(&buf, entries, Frontier(entries, Judge{Spec: spec})); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 6 {
		t.Fatalf("%d CSV records, want a header and 5 rows", len(recs))
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, k := range []string{"run_id", "metadata.model", "metadata.bench_tool_aiperf", "performance.goodput_tok_s", "cost.cpm_eur_1m",
		"cost.currency", "energy.wh_per_token", "energy.pue", "carbon.co2_per_1m_tokens_g", "pareto.status", "pareto.reason", "source_file"} {
		if _, ok := col[k]; !ok {
			t.Errorf("no column %s in %v", k, recs[0])
		}
	}
	if recs[0][0] != "run_id" {
		t.Errorf("first column %q", recs[0][0])
	}
	// Numbers are normalised (A's goodput is the string "1,890" in its file).
	want := map[string][]string{
		"run_id":                    {"A", "B", "C", "D", "E"},
		"performance.goodput_tok_s": {"1890", "3120", "3410", "2240", "3590"},
		"cost.cpm_eur_1m":           {"1.64", "0.97", "0.88", "1.31", "0.84"},
		"pareto.status":             {"dominated", "dominated", "frontier", "frontier", "breaks_slo"},
		"pareto.dominated_by":       {"C; D", "C", "", "", ""},
		"metadata.max_batch":        {"", "", "", "", "128"},
	}
	for k, vs := range want {
		for i, v := range vs {
			if got := recs[i+1][col[k]]; got != v {
				t.Errorf("%s row %d: %q, want %q", k, i, got, v)
			}
		}
	}
}

// FuzzDecode: the lenient reader never panics, and what it reads writes
// and reads back to the same rows.
func FuzzDecode(f *testing.F) {
	for _, p := range []string{"testdata/article/B/scorecard-B.json", "testdata/article/A/scorecard-A.json"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"performance": {"goodput_tok_s": "1,000"}, "metadata": {"x": [1, {"y": null}]}, "rounds": [{"cost": {}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		card, _, err := Decode(data, "scorecard-f.json")
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := card.Write(&buf); err != nil {
			t.Fatalf("write: %v", err)
		}
		back, _, err := Decode(buf.Bytes(), "scorecard-f.json")
		if err != nil {
			t.Fatalf("read back: %v\n%s", err, buf.Bytes())
		}
		var again bytes.Buffer
		if err := back.Write(&again); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), again.Bytes()) {
			t.Fatalf("not stable:\n%s\n%s", buf.Bytes(), again.Bytes())
		}
		if _, _, err := flatten(buf.Bytes()); err != nil {
			t.Fatalf("flatten: %v", err)
		}
	})
}
