package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/cli"
)

// TestBenchmarkSessions runs synthetic conversations against the mock:
// every turn's record carries its session, the report its session
// figures and the console its by-turn table.
func TestBenchmarkSessions(t *testing.T) {
	srv := startMockServer(t, nil)
	dir := t.TempDir()
	code, out, stderr := runGoodput(t, "benchmark", "--target", srv.url(), "--data", "turns=3,prompt_tokens=16,output_tokens=4,delay=0.01,prefix_tokens=32",
		"--rate-type", "concurrent", "--rate", "2", "--max-requests", "12", "--session-header", "x-session-id", "--output-dir", dir, "--disable-progress")
	if code != cli.ExitOK {
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

// TestBenchmarkUserCentric runs 4 users at 40 req/s (a 100 ms gap per
// user) against the mock: a session's turns are due a gap apart and
// never sent before their slot, the turns of all users together are
// 1/rate apart, and the report says user_centric in its extras while
// GuideLLM's strategy object reads constant at the rate.
func TestBenchmarkUserCentric(t *testing.T) {
	srv := startMockServer(t, nil)
	dir := t.TempDir()
	code, _, stderr := runGoodput(t, "benchmark", "--target", srv.url(), "--data", "turns=3,prompt_tokens=16,output_tokens=4,prefix_tokens=32",
		"--rate-type", "user_centric", "--rate", "40", "--users", "4", "--max-requests", "12", "--output-dir", dir, "--disable-progress")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
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
	type rec struct {
		Session    string `json:"session_id"`
		Turn       int    `json:"turn_index"`
		Intended   int64  `json:"intended_ns"`
		Dispatched int64  `json:"dispatched_ns"`
	}
	bySession := map[string]map[int]rec{}
	var due []int64
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r rec
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.Session == "" {
			t.Fatalf("record %s: %v", sc.Text(), err)
		}
		if r.Dispatched < r.Intended {
			t.Errorf("%s turn %d sent before its slot", r.Session, r.Turn)
		}
		if bySession[r.Session] == nil {
			bySession[r.Session] = map[int]rec{}
		}
		bySession[r.Session][r.Turn] = r
		due = append(due, r.Intended)
	}
	if len(due) != 12 || len(bySession) != 4 {
		t.Fatalf("%d records in %d sessions, want 12 in 4 (one per user)", len(due), len(bySession))
	}
	for id, turns := range bySession {
		for k := 1; k < 3; k++ {
			if d := turns[k].Intended - turns[k-1].Intended; d != 100e6 {
				t.Errorf("%s: turn %d due %d ns after turn %d, want 100 ms", id, k, d, k-1)
			}
		}
	}
	slices.Sort(due)
	for i := range due {
		if d := due[i] - due[0] - int64(i)*25e6; d < -2 || d > 2 {
			t.Errorf("slot %d at %d ns, want every 25 ms", i, due[i]-due[0])
		}
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(runs[0]), "benchmarks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Benchmarks []struct {
			Config struct {
				Strategy struct {
					Type           string  `json:"type_"`
					Rate           float64 `json:"rate"`
					MaxConcurrency int     `json:"max_concurrency"`
				} `json:"strategy"`
			} `json:"config"`
			Goodput struct {
				Arrival struct {
					Process string  `json:"process"`
					Users   int     `json:"users"`
					Gap     float64 `json:"turn_gap_s"`
				} `json:"arrival"`
			} `json:"goodput"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal(b, &rep); err != nil || len(rep.Benchmarks) != 1 {
		t.Fatalf("report: %v", err)
	}
	bm := rep.Benchmarks[0]
	if s := bm.Config.Strategy; s.Type != "constant" || s.Rate != 40 || s.MaxConcurrency != 4 {
		t.Errorf("strategy %+v, want constant at 40 with max concurrency 4", s)
	}
	if a := bm.Goodput.Arrival; a.Process != "user_centric" || a.Users != 4 || a.Gap != 0.1 {
		t.Errorf("arrival extras %+v, want user_centric, 4 users, 0.1 s", a)
	}
}

// TestBenchmarkUserCentricFlags: --users belongs to user_centric, which
// needs it and a rate, and takes no rampup (--max-concurrency caps its
// users mid-session: cli's TestUserCentricConcurrencyCap).
func TestBenchmarkUserCentricFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--rate-type", "concurrent", "--rate", "2", "--users", "4"}, "--users 4"},
		{[]string{"--rate-type", "user_centric", "--rate", "2"}, "needs --users"},
		{[]string{"--rate-type", "user_centric", "--users", "4"}, "needs --rate"},
		{[]string{"--rate-type", "user_centric", "--rate", "2", "--users", "4", "--rampup", "8"}, "--rampup does not apply"},
	} {
		args := append([]string{"benchmark", "--target", "http://127.0.0.1:1", "--data", "turns=2,prompt_tokens=8,output_tokens=2", "--max-requests", "4", "--disable-progress"}, c.args...)
		code, _, stderr := runGoodput(t, args...)
		if code != cli.ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want exit %d naming %q", c.args, code, stderr, cli.ExitUsage, c.want)
		}
	}
}
