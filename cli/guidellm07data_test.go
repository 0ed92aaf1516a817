package cli

import (
	"slices"
	"strings"
	"testing"
)

// GuideLLM's synthetic_image source folds into the text source's image_*
// keys with GuideLLM's resolution presets and defaults (JPEG, one image,
// even sides); synthetic_video folds into the video_* keys of the same
// clip shape, its bitrate noted as not applied; a Hub id among several
// sources keeps its own message.
func TestFoldData(t *testing.T) {
	text := "kind=synthetic_text,prompt_tokens=200"
	fold := func(args ...string) ([]string, error) {
		got, notes, err := foldData(args)
		if len(notes) > 0 {
			t.Errorf("%q: notes %q", args, notes)
		}
		return got, err
	}

	got, err := fold("--target", "u", "--data", text, "--data", "kind=synthetic_image,resolution=720p,output_tokens=64")
	want := `{"image_count":1,"image_format":"jpeg","image_height":720,"image_width":1280,"kind":"synthetic_text","output_tokens":64,"prompt_tokens":200}`
	if err != nil || !slices.Equal(got, []string{"--target", "u", "--data", want}) {
		t.Errorf("720p: %q, %v; want the text source with %s", got, err, want)
	}
	got, err = fold("--data", text, "--data=kind=synthetic_image,width=1281,height=720,format=png,images_per_request=2")
	want = `{"image_count":2,"image_format":"png","image_height":720,"image_width":1280,"kind":"synthetic_text","prompt_tokens":200}`
	if err != nil || !slices.Equal(got, []string{"--data", want}) {
		t.Errorf("width=1281: %q, %v; want %s (even width, as GuideLLM makes it)", got, err, want)
	}
	got, err = fold("--data", text, "--data", "kind=synthetic_image,height=480,aspect_ratio=4:3")
	if err != nil || len(got) != 2 || !strings.Contains(got[1], `"image_width":640`) {
		t.Errorf("aspect_ratio=4:3 height=480: %q, %v; want width 640", got, err)
	}

	got, err = fold("--data", "kind=synthetic_text,prompt_tokens=64", "--data", "kind=synthetic_video,width=1281,height=720,frames=12,fps=3,output_tokens=128")
	want = `{"kind":"synthetic_text","output_tokens":128,"prompt_tokens":64,"video_count":1,"video_fps":3,"video_height":720,"video_seconds":4,"video_width":1280}`
	if err != nil || !slices.Equal(got, []string{"--data", want}) {
		t.Errorf("synthetic_video: %q, %v; want %s (a 4 s clip at 3 fps)", got, err, want)
	}
	got, notes, err := foldData([]string{"--data", "kind=synthetic_text,prompt_tokens=64", "--data", "kind=synthetic_video,resolution=480p,frames=6,fps=1,video_bitrate=2M"})
	if err != nil || len(got) != 2 || !strings.Contains(got[1], `"video_width":854`) || !strings.Contains(got[1], `"video_seconds":6`) ||
		len(notes) != 1 || !strings.Contains(notes[0], "video_bitrate=2M: not applied") {
		t.Errorf("480p with a bitrate: %q, notes %q, %v", got, notes, err)
	}
	for _, bad := range []string{"kind=synthetic_image,resolution=999p", "kind=synthetic_image,width=64", "kind=synthetic_image,width=64,height=64,jpeg_quality=90",
		"kind=synthetic_video,width=64,height=64", "kind=synthetic_video,width=64,height=64,frames=4,fps=2.5", "kind=synthetic_video,resolution=480p,frames=4,fps=2,codec=h264"} {
		if _, err := fold("--data", text, "--data", bad); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v; want a one-line refusal", bad, err)
		}
	}
	if _, err := fold("--data", "kind=synthetic_text,prompt_tokens=8,output_tokens=4", "--data", "kind=synthetic_image,width=64,height=64,output_tokens=8"); err == nil || !strings.Contains(err.Error(), "output_tokens") {
		t.Errorf("output_tokens on both sources: %v; want it named", err)
	}

	got, err = fold("--data", "prompt_tokens=8", "--data", "openslr/librispeech_asr", "--data-args", "{}")
	if err != nil || !slices.Equal(got, []string{"--data", "openslr/librispeech_asr", "--data-args", "{}"}) {
		t.Errorf("Hub id: %q, %v; want only it kept", got, err)
	}
	got, err = fold("--data", "prompt_tokens=8", "--data", "prompt_tokens=16")
	if err != nil || len(got) != 4 {
		t.Errorf("goodput's repeated --data: %q, %v; want it left to the flag (the last wins)", got, err)
	}
}

// GuideLLM's backend key tool_call_missing_behavior lands on the data's
// session key of the same name, in goodput's words; a different value
// given on the data too is named.
func TestV07ToolCallMissingBehavior(t *testing.T) {
	for _, c := range []struct{ backend, data, want string }{
		{"ignore_continue", "kind=synthetic_text,prompt_tokens=8,turns=3,tool_call_turns=2", "kind=synthetic_text,prompt_tokens=8,turns=3,tool_call_turns=2,tool_call_missing_behavior=continue"},
		{"ignore_stop", `{"kind":"synthetic_text","turns":2}`, `{"kind":"synthetic_text","tool_call_missing_behavior":"skip","turns":2}`},
		{"error_stop", "kind=synthetic_text,tool_call_missing_behavior=error", "kind=synthetic_text,tool_call_missing_behavior=error"},
	} {
		o := benchOptions{data: c.data}
		a := &v07Applier{o: &o, opt: "backend", key: "tool_call_missing_behavior"}
		row := v07Row{}
		for _, r := range v07Table() {
			if r.Opt == "backend" && r.Key == "tool_call_missing_behavior" {
				row = r
			}
		}
		if err := row.apply(a, c.backend); err != nil || o.data != c.want {
			t.Errorf("%s on %s: data %s, %v; want %s", c.backend, c.data, o.data, err, c.want)
		}
	}
	o := benchOptions{data: "kind=synthetic_text,tool_call_missing_behavior=skip"}
	a := &v07Applier{o: &o, opt: "backend", key: "tool_call_missing_behavior"}
	if err := a.dataKey("tool_call_missing_behavior", "continue"); err == nil || !strings.Contains(err.Error(), "give it once") {
		t.Errorf("conflicting values: %v; want both named", err)
	}
}
