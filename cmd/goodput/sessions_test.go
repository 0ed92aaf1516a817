package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchmarkSessions runs synthetic conversations against the mock:
// every turn's record carries its session, the report its session
// figures and the console its by-turn table.
func TestBenchmarkSessions(t *testing.T) {
	srv := startMockServer(t, nil)
	dir := t.TempDir()
	code, out, stderr := runGoodput(t, "benchmark", "--target", srv.url(), "--data", "turns=3,prompt_tokens=16,output_tokens=4,delay=0.01,prefix_tokens=32",
		"--rate-type", "concurrent", "--rate", "2", "--max-requests", "12", "--session-header", "x-session-id", "--output-dir", dir, "--disable-progress")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "Sessions by turn") {
		t.Errorf("console lacks the sessions table:\n%s", out)
	}
	runs, _ := filepath.Glob(filepath.Join(dir, "*", "requests.jsonl"))
	if len(runs) != 1 {
		t.Fatalf("records files: %v", runs)
	}
	f, err := os.Open(runs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	turns := map[string][]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r struct {
			Session string `json:"session_id"`
			Turn    int    `json:"turn_index"`
			History int    `json:"history_messages"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.Session == "" || r.History != 1+2*r.Turn {
			t.Fatalf("record %s: %+v %v", sc.Text(), r, err)
		}
		turns[r.Session] = append(turns[r.Session], r.Turn)
	}
	if len(turns) != 4 {
		t.Errorf("sessions %v, want 4 of 3 turns", turns)
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(runs[0]), "benchmarks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Benchmarks []struct {
			Goodput struct {
				Sessions struct {
					Sessions, Completed int
					ByTurn              []json.RawMessage `json:"by_turn"`
				} `json:"sessions"`
			} `json:"goodput"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal(b, &rep); err != nil || len(rep.Benchmarks) != 1 {
		t.Fatalf("report: %v", err)
	}
	if s := rep.Benchmarks[0].Goodput.Sessions; s.Sessions != 4 || s.Completed != 4 || len(s.ByTurn) != 3 {
		t.Errorf("session extras %+v", s)
	}
}
