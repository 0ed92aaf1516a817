package cli

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/clitest"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
)

// AIPerf's --concurrency with --user-centric-rate caps the users
// mid-session (docs/tutorials/user-centric-timing.md, "Concurrency").
// 4 users at 200 req/s (slots 5 ms apart) against a mock that answers in
// at least 30 ms, capped at 2: never more than 2 requests in flight, and
// the users whose slot came while both were taken went out late, the
// wait counted from their slot. goodput benchmark's --max-concurrency
// with --rate-type user_centric is the same cap.
func TestUserCentricConcurrencyCap(t *testing.T) {
	url := clitest.Mock(t, func(c *mock.Config) { c.TTFT = 30 * time.Millisecond })
	dir := t.TempDir()
	for i, args := range [][]string{
		{"profile", "--url", url, "--model", "goodput-mock", "--artifact-dir", filepath.Join(dir, "profile"), "--ui-type", "none",
			"--user-centric-rate", "200", "--num-users", "4", "--concurrency", "2", "--request-count", "12", "--isl", "8", "--osl", "2"},
		{"benchmark", "--target", url, "--model", "goodput-mock", "--output-dir", filepath.Join(dir, "benchmark"), "--outputs", "json,jsonl",
			"--rate-type", "user_centric", "--rate", "200", "--users", "4", "--max-concurrency", "2", "--max-requests", "12",
			"--data", "prompt_tokens=8,output_tokens=2"},
	} {
		checkUserCap(t, args, filepath.Join(dir, []string{"profile", "benchmark"}[i]))
	}
	// AIPerf's export says the phase's users and their cap.
	b, err := os.ReadFile(filepath.Join(dir, "profile", "profile_export_aiperf.json"))
	if err != nil {
		t.Fatal(err)
	}
	var x struct {
		InputConfig struct {
			Phases []struct {
				Type               string
				Users, Concurrency int
			}
		} `json:"input_config"`
	}
	if err := json.Unmarshal(b, &x); err != nil || len(x.InputConfig.Phases) != 1 {
		t.Fatalf("export: %v, %+v", err, x.InputConfig)
	}
	if ph := x.InputConfig.Phases[0]; ph.Type != "user_centric" || ph.Users != 4 || ph.Concurrency != 2 {
		t.Errorf("export's phase %+v, want user_centric, 4 users, concurrency 2", ph)
	}
	// A list is one benchmark per value elsewhere; here it is refused.
	code, _, stderr := runGoodput(t, "profile", "--url", url, "--model", "goodput-mock", "--ui-type", "none",
		"--user-centric-rate", "2", "--num-users", "4", "--concurrency", "2,4")
	if code != ExitUsage || !strings.Contains(stderr, "caps the users mid-session, one value") {
		t.Errorf("a --concurrency list: exit %d: %s", code, stderr)
	}
}

// checkUserCap runs a user-centric run of 12 requests capped at 2 and
// checks its records, the JSON Lines file under out.
func checkUserCap(t *testing.T, args []string, out string) {
	t.Helper()
	code, _, stderr := runGoodput(t, args...)
	if code != ExitOK {
		t.Fatalf("%s: exit %d: %s", args[0], code, stderr)
	}
	var files []string
	_ = filepath.WalkDir(out, func(path string, _ fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".jsonl") {
			files = append(files, path)
		}
		return nil
	})
	if len(files) != 1 {
		t.Fatalf("%s: records files %q, want one", args[0], files)
	}
	recs := clitest.ReadRecords(t, files[0])
	if len(recs) != 12 {
		t.Fatalf("%s: %d records, want 12", args[0], len(recs))
	}
	late := 0
	for _, r := range recs {
		if r.Status != record.StatusSuccessful {
			t.Fatalf("request %d: %s %s", r.ID, r.Status, r.Error)
		}
		if r.Dispatched-r.Intended >= int64(10*time.Millisecond) {
			late++
		}
	}
	if n := clitest.MostOpen(recs, clitest.Dispatched, clitest.Ended, 0); n > 2 {
		t.Fatalf("%d requests in flight at once, over --concurrency 2", n)
	}
	if late == 0 {
		t.Errorf("%s: no request waited for a slot: the cap never bound", args[0])
	}
}
