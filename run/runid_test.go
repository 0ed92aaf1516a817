package run

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
)

// Runs started in the same second with the same configuration share a
// generated run id: each claims its files atomically and a taken id gets
// the next suffix, so runs started at once never write the same files,
// whether they write into run directories or beside --output-path files
// of one directory (where the scorecard is named after the run id).
func TestSimultaneousRunsGetTheirOwnFiles(t *testing.T) {
	const runs = 4
	for _, mode := range []string{"output-dir", "output-path"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			states := make([]*state, runs)
			errs := make([]error, runs)
			var wg sync.WaitGroup
			for i := range states {
				o := Outputs{Dir: dir, Kinds: map[string]bool{"json": true, "scorecard": true}}
				if mode == "output-path" {
					o.Path = filepath.Join(dir, "run"+string(rune('a'+i))+".json")
				}
				states[i] = &state{cfg: &Config{Outputs: o}, runID: "20260616T120000-3f2a9c", generated: true}
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					errs[i] = states[i].prepareFiles(context.Background())
				}(i)
			}
			wg.Wait()
			var ids, cards []string
			for i, s := range states {
				if errs[i] != nil {
					t.Fatalf("run %d: %v", i, errs[i])
				}
				ids = append(ids, s.runID)
				cards = append(cards, s.scPath)
			}
			sort.Strings(ids)
			want := []string{"20260616T120000-3f2a9c", "20260616T120000-3f2a9c-2", "20260616T120000-3f2a9c-3", "20260616T120000-3f2a9c-4"}
			for i := range want {
				if ids[i] != want[i] {
					t.Fatalf("run ids %v, want %v", ids, want)
				}
			}
			seen := map[string]bool{}
			for _, c := range cards {
				if seen[c] {
					t.Fatalf("two runs write the scorecard %s", c)
				}
				seen[c] = true
				if _, err := os.Stat(c); mode == "output-path" && err != nil {
					t.Errorf("scorecard %s not claimed: %v", c, err)
				}
			}
		})
	}
}

// A run that fails after claiming its scorecard beside an --output-path
// file leaves no empty file behind: the id stays usable.
func TestFailedRunReleasesItsClaim(t *testing.T) {
	dir := t.TempDir()
	s := &state{cfg: &Config{Outputs: Outputs{Path: filepath.Join(dir, "r.json"), Kinds: map[string]bool{"json": true, "scorecard": true}}},
		runID: "20260616T120000-3f2a9c", generated: true}
	if err := s.prepareFiles(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s.claimed == "" {
		t.Fatal("no claim made")
	}
	s.release()
	if _, err := os.Stat(s.claimed); !os.IsNotExist(err) {
		t.Errorf("the claim %s is left: %v", s.claimed, err)
	}
}
