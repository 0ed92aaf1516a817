package dataset

import (
	"bytes"
	"image"
	_ "image/jpeg"
	"strings"
	"testing"
)

// Synthetic media keys: every request carries image_count images of the
// requested size and format (and audio clips), taken in turn from a
// pool; bad values are one-line errors naming the key.
func TestSyntheticMediaSpec(t *testing.T) {
	sp, err := ParseSpec("prompt_tokens=16,output_tokens=4,image_width=40,image_height=30,image_count=2,image_format=jpeg,audio_seconds=1")
	if err != nil {
		t.Fatal(err)
	}
	if got := sp.String(); got != "prompt_tokens=16,output_tokens=4,image_width=40,image_height=30,image_count=2,image_format=jpeg,audio_seconds=1" {
		t.Fatalf("String %q", got)
	}
	d, err := OpenSynthetic(sp, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	r0, _ := d.Source.Request(0)
	r1, _ := d.Source.Request(1)
	if len(r0.Media) != 3 || r0.Media[2].Kind != "audio" || r0.Media[2].Seconds != 1 || bytes.Equal(r0.Media[0].Data, r1.Media[0].Data) {
		t.Fatalf("media %d parts", len(r0.Media))
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(r0.Media[1].Data))
	if err != nil || cfg.Width != 40 || cfg.Height != 30 || format != "jpeg" {
		t.Fatalf("image %+v %s %v", cfg, format, err)
	}
	sp, err = ParseSpec("prompt_tokens=16,output_tokens=4,video_seconds=1.5,video_fps=2,video_width=32,video_height=24")
	if err != nil {
		t.Fatal(err)
	}
	if got := sp.String(); got != "prompt_tokens=16,output_tokens=4,video_seconds=1.5,video_fps=2,video_width=32,video_height=24" {
		t.Fatalf("String %q", got)
	}
	if d, err = OpenSynthetic(sp, Options{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	r0, _ = d.Source.Request(0)
	if len(r0.Media) != 1 || r0.Media[0].Kind != "video" || r0.Media[0].MIME != "video/x-msvideo" || r0.Media[0].Frames != 3 || r0.Media[0].Seconds != 1.5 {
		t.Fatalf("video %+v", r0.Media)
	}
	for spec, want := range map[string]string{
		"prompt_tokens=8,video_fps=4":                          "need video_seconds",
		"prompt_tokens=8,video_seconds=0":                      "video_seconds=0",
		"prompt_tokens=8,video_seconds=1,video_width=8":        "video_width",
		"prompt_tokens=8,video_seconds=600,video_fps=30":       "frames, want 1 to 3600",
		"prompt_tokens=8,image_width=40":                       "image_width and image_height",
		"prompt_tokens=8,image_width=40,image_height=x":        "image_height=x",
		"prompt_tokens=8,image_format=gif,image_width=1":       "image_format=gif",
		"prompt_tokens=8,audio_count=2":                        "audio_seconds",
		"prompt_tokens=8,audio_seconds=1,audio_sample_rate=10": "audio_sample_rate",
	} {
		if _, err := ParseSpec(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
}
