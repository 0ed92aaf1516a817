package cli

import (
	"strings"
	"testing"
)

// AIPerf's --video-* flags shape the synthetic spec's video, on only with
// both a width and a height (AIPerf's rule); the other flags alone, bad
// values, --input-file and an unsupported format are one-line refusals.
func TestProfileVideoFlags(t *testing.T) {
	_, p, err := profilePlan(t, "--video-width", "320", "--video-height", "240", "--video-duration", "2.5", "--batch-size-video", "2")
	if err != nil {
		t.Fatal(err)
	}
	m := p.Data.Synthetic.Media
	if m.VideoWidth != 320 || m.VideoHeight != 240 || m.VideoFPS != 4 || m.VideoSeconds != 2.5 || m.VideoCount != 2 ||
		!strings.Contains(p.Data.Synthetic.String(), "video_seconds=2.5,video_fps=4,video_width=320,video_height=240,video_count=2") {
		t.Fatalf("video %+v, data %s", m, p.Data.Synthetic)
	}
	if _, p, err = profilePlan(t); err != nil || p.Data.Synthetic.Media.VideoSeconds != 0 || strings.Contains(p.Data.Synthetic.String(), "video") {
		t.Fatalf("no video flags: %+v %v", p.Data.Synthetic.Media, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--video-fps", "8"}, "--video-fps needs --video-width and --video-height"},
		{[]string{"--video-width", "320"}, "--video-width 320 --video-height 0: give both"},
		{[]string{"--video-width", "8", "--video-height", "8"}, "video_width and video_height"},
		{[]string{"--video-width", "64", "--video-height", "64", "--video-duration", "0"}, "--video-duration 0"},
		{[]string{"--video-width", "64", "--video-height", "64", "--input-file", "x.jsonl"}, "--video-width: shapes synthetic prompts, not --input-file"},
	} {
		_, _, err := profilePlan(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
	code, _, stderr := runGoodput(t, "profile", "--url", "http://127.0.0.1:1", "--model", "m", "--video-format", "mp4")
	if code != ExitUsage || !strings.Contains(stderr, "--video-format: an AIPerf flag goodput profile does not support: goodput writes Motion-JPEG AVI") {
		t.Errorf("--video-format: exit %d: %s", code, stderr)
	}
}
