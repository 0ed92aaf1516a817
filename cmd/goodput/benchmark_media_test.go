package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/dataset"
	"github.com/goodput-dev/goodput/record"
)

// Synthetic video runs end to end against the mock as chat_completions
// (each record's media_bytes is the AVI's size, and GuideLLM's
// metrics.video gives its frames, seconds and bytes); a video column is refused
// for responses and messages before any load, with a one-line error.
func TestBenchmarkVideo(t *testing.T) {
	url := clitest.Mock(t, nil)
	dir := t.TempDir()
	code, _, stderr := runGoodput(t, "benchmark", "--target", url, "--rate-type", "concurrent", "--rate", "2",
		"--data", "prompt_tokens=8,output_tokens=2,video_seconds=1,video_fps=2,video_width=32,video_height=32", "--max-requests", "4",
		"--output-dir", dir, "--run-id", "v", "--outputs", "json,jsonl")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	f, err := os.Open(filepath.Join(dir, "v", "requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		var r record.Record
		if err := record.UnmarshalLine(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		// A 32×32 two-frame AVI: headers and two small JPEGs.
		if r.Status != record.StatusSuccessful || r.MediaBytes < 500 || r.MediaBytes > 20000 || r.AudioSeconds != 0 {
			t.Fatalf("record %s", sc.Text())
		}
		n++
	}
	if n != 4 {
		t.Fatalf("%d records", n)
	}
	// GuideLLM's video metrics: two frames, one second, the AVI's bytes.
	v := clitest.ReadReport(t, filepath.Join(dir, "v", "benchmarks.json")).Benchmarks[0].Metrics.Video
	if v == nil || v.Frames == nil || v.Seconds == nil || v.Bytes == nil || v.Frames.Input.Total.Count != 4 || v.Frames.Input.Total.Mean != 2 ||
		v.Seconds.Input.Total.Mean != 1 || v.Bytes.Input.Total.Mean < 500 || v.Tokens != nil {
		t.Fatalf("metrics.video %+v", v)
	}

	clip, _ := dataset.SyntheticVideo(1, 2, 16, 16, 1)
	data := filepath.Join(dir, "clips.jsonl")
	if err := os.WriteFile(filepath.Join(dir, "c.avi"), clip.Data, 0o600); err != nil {
		t.Fatal(err)
	}
	// The first row has no video: the column still decides.
	if err := os.WriteFile(data, []byte(`{"prompt":"hi"}`+"\n"+`{"prompt":"what happens?","video":"c.avi"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, rt := range []string{"responses", "messages"} {
		code, _, stderr = runGoodput(t, "benchmark", "--target", url, "--request-type", rt, "--data", data,
			"--data-column-mapper", `{"text_column":"prompt","video_column":"video"}`, "--max-requests", "1", "--outputs", "console")
		if code != cli.ExitUsage || !strings.Contains(stderr, "video_column: /v1/"+rt+" takes no video input") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%s: exit %d: %s", rt, code, stderr)
		}
	}
}
