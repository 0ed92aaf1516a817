package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/mock"
)

// TestSessionTTFTByTurnMatchesCapacityModel runs conversations one at a
// time (synchronous: every request alone in the engine, where the
// lone-request model holds) against the mock with its prefix cache and a
// prefill-heavy capacity model. The cached tokens the records carry add
// up to the mock's own account of prefix-cache hits, and the TTFT of
// turns ≥ 1 is lower than turn 0's by what CapacityModel.LoneTTFT
// predicts from each record's prompt and cached tokens, within 10 %.
func TestSessionTTFTByTurnMatchesCapacityModel(t *testing.T) {
	if raceEnabled() {
		t.Skip("real-time test; the race detector skews the mock's step times")
	}
	m := mock.CapacityModel{Name: "prefill-heavy", MaxNumSeqs: 4, MaxNumBatchedTokens: 4096, StepBase: 2 * time.Millisecond,
		PrefillPerToken: 200 * time.Microsecond, GPUs: 1, GPU: mock.DefaultGPU()}
	srv := startMockServer(t, func(c *mock.Config) { c.Capacity = &m })
	dir := t.TempDir()
	const sessions, turns = 3, 3
	code, _, stderr := runGoodput(t, "benchmark", "--target", srv.url(), "--data", "turns=3,prompt_tokens=64,output_tokens=16,prefix_tokens=384",
		"--rate-type", "synchronous", "--max-requests", "9", "--output-dir", dir, "--disable-progress")
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
	var measured, predicted [turns]float64 // mean TTFT by turn, seconds
	var n [turns]int
	cachedSum := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		var r struct {
			Turn       int   `json:"turn_index"`
			Dispatched int64 `json:"dispatched_ns"`
			FirstToken int64 `json:"first_token_ns"`
			Prompt     *int  `json:"server_prompt_tokens"`
			Cached     *int  `json:"cached_tokens"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.Prompt == nil || r.Cached == nil || r.FirstToken == 0 || r.Turn >= turns {
			t.Fatalf("record %.300s: %v", sc.Text(), err)
		}
		want, err := m.LoneTTFT(*r.Prompt, *r.Cached)
		if err != nil {
			t.Fatal(err)
		}
		measured[r.Turn] += float64(r.FirstToken-r.Dispatched) / 1e9
		predicted[r.Turn] += want.Seconds()
		n[r.Turn]++
		cachedSum += *r.Cached
	}
	if st := srv.mock.Stats(); uint64(cachedSum) != st.PrefixCacheHits || st.PrefixCacheHits == 0 {
		t.Errorf("the records' cached tokens add up to %d, the mock's prefix cache counted %d hits", cachedSum, st.PrefixCacheHits)
	}
	for k := range turns {
		if n[k] != sessions {
			t.Fatalf("turn %d: %d records, want %d", k, n[k], sessions)
		}
		measured[k] /= sessions
		predicted[k] /= sessions
	}
	for k := 1; k < turns; k++ {
		got, want := measured[0]-measured[k], predicted[0]-predicted[k]
		t.Logf("turn %d: TTFT %.1f ms vs turn 0's %.1f ms: %.1f ms lower; the capacity model says %.1f ms (%.1f and %.1f)",
			k, 1e3*measured[k], 1e3*measured[0], 1e3*got, 1e3*want, 1e3*predicted[k], 1e3*predicted[0])
		if !(want > 0) || got < 0.9*want || got > 1.1*want {
			t.Errorf("turn %d: TTFT %.1f ms lower than turn 0's, want %.1f ms ± 10 %%", k, 1e3*got, 1e3*want)
		}
	}
}
