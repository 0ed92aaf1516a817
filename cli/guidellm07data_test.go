package cli

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/internal/clitest"
	"github.com/goodput-dev/goodput/record"
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

// GuideLLM's turn_pivot (multiturn.md's example, its prompt_token_stdev
// typo corrected): each --data source is one turn of every conversation,
// the first source's prefix on the session; one source of one turn is
// left alone; what a per-turn source cannot carry is named.
func TestV07TurnPivot(t *testing.T) {
	srcs := []string{"kind=synthetic_text,prefix_tokens=512,prompt_tokens=128,output_tokens=256",
		"kind=synthetic_text,prompt_tokens=256,prompt_tokens_stdev=32,output_tokens=128",
		"kind=synthetic_text,prompt_tokens=64,output_tokens=128,output_tokens_stdev=16"}
	got, _, err := foldData([]string{"--target", "u", "--data", srcs[0], "--data", srcs[1], "--data=" + srcs[2], "--data-preprocessor", "kind=turn_pivot"})
	want := `{"kind":"synthetic_text","output_tokens":256,"prefix_tokens":512,"prompt_tokens":128,"turn_lengths":[{"output_tokens":256,"prompt_tokens":128},` +
		`{"output_tokens":128,"prompt_tokens":256,"prompt_tokens_stdev":32},{"output_tokens":128,"output_tokens_stdev":16,"prompt_tokens":64}],"turns":3}`
	if err != nil || !slices.Equal(got, []string{"--target", "u", "--data", want}) {
		t.Fatalf("three sources: %q, %v; want one --data %s", got, err, want)
	}
	got, _, err = foldData([]string{"--data", "kind=synthetic_text,prompt_tokens=8", "--data-preprocessor={\"kind\":\"turn_pivot\"}"})
	if err != nil || !slices.Equal(got, []string{"--data", "kind=synthetic_text,prompt_tokens=8"}) {
		t.Errorf("one source of one turn: %q, %v; want it as it is", got, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--data", "kind=synthetic_text,prompt_tokens=8,turns=3", "--data-preprocessor", "kind=turn_pivot"}, "one source of turns=3 sends all its prompts as one request"},
		{[]string{"--data", srcs[0], "--data", "kind=synthetic_text,prompt_tokens=8,prefix_tokens=4", "--data-preprocessor", "kind=turn_pivot"}, "--data source 2: prefix_tokens=4: not supported: each --data kind=synthetic_text source is one turn"},
		{[]string{"--data", srcs[0], "--data", "kind=synthetic_text,prompt_tokens=256,prompt_token_stdev=32", "--data-preprocessor", "kind=turn_pivot"}, `unknown key "prompt_token_stdev"`},
		{[]string{"--data", srcs[0], "--data", "data.jsonl", "--data-preprocessor", "kind=turn_pivot"}, "goodput pivots synthetic sources only"},
	} {
		if _, _, err := foldData(c.args); err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v; want one line with %q", c.args, err, c.want)
		}
	}

	// End to end: every conversation's turn k has source k's lengths.
	url := clitest.Mock(t, nil)
	dir := t.TempDir()
	code, _, stderr := runGoodput(t, "run", "--backend", "kind=openai_http,target="+url+",request_format=/v1/chat/completions", "--profile", "kind=concurrent,streams=2",
		"--constraint", "kind=max_requests,count=9", "--data", srcs[0], "--data", srcs[1], "--data", srcs[2], "--data-preprocessor", "kind=turn_pivot",
		"--output-dir", dir, "--run-id", "r", "--outputs", "json,jsonl", "--server-metrics", "off", "--disable-progress")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs := clitest.ReadRecords(t, filepath.Join(dir, "r", "requests.jsonl"))
	if len(recs) != 9 {
		t.Fatalf("%d records; want 9 (3 conversations of 3 turns)", len(recs))
	}
	for _, r := range recs {
		p, o, k := r.RequestedPromptTokens, r.RequestedOutputTokens, r.Session.Turn
		ok := r.Session.Turns == 3 && r.Status == record.StatusSuccessful
		switch k {
		case 0:
			ok = ok && p == 128 && o == 256 && r.Session.HistoryMessages == 1 // the system prefix
		case 1:
			ok = ok && p >= 256-5*32 && p <= 256+5*32 && o == 128
		case 2:
			ok = ok && p == 64 && o >= 128-5*16 && o <= 128+5*16
		}
		if !ok {
			t.Errorf("turn %d of %d: prompt %d, output %d, %d history messages, %s", k, r.Session.Turns, p, o, r.Session.HistoryMessages, r.Status)
		}
	}
}

// GuideLLM's key=value form of a list is its bracket notation
// (tool_calling.md's tool_call_turns list, given without JSON): the data
// value becomes its JSON object; a gap or a repeated item is named.
func TestV07DataListNotation(t *testing.T) {
	got, _, err := foldData([]string{"--data", "kind=synthetic_text,prompt_tokens=20,turns=4,tool_call_turns[0]=0,tool_call_turns[1]=2,server_tool_call_turns[0]=3", "--target", "u"})
	want := `{"kind":"synthetic_text","prompt_tokens":20,"server_tool_call_turns":[3],"tool_call_turns":[0,2],"turns":4}`
	if err != nil || !slices.Equal(got, []string{"--data", want, "--target", "u"}) {
		t.Fatalf("%q, %v; want --data %s", got, err, want)
	}
	if got, _, err := foldData([]string{"--data=kind=synthetic_text,prompt_tokens=20"}); err != nil || got[0] != "--data=kind=synthetic_text,prompt_tokens=20" {
		t.Errorf("no list: %q, %v; want the value as given", got, err)
	}
	if _, _, err := foldData([]string{"--data", "kind=synthetic_text,tool_call_turns[0]=0,tool_call_turns[0]=1"}); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("an item twice: %v; want it named", err)
	}
}
