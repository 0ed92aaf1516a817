package loadgen

import (
	"bytes"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Synthetic images decode to the requested size and format, differ by
// seed, and synthetic audio is a WAV file of the requested length.
func TestSyntheticMedia(t *testing.T) {
	for _, f := range []string{"png", "jpeg"} {
		m, err := SyntheticImage(97, 41, f, 1)
		if err != nil {
			t.Fatal(err)
		}
		cfg, format, err := image.DecodeConfig(bytes.NewReader(m.Data))
		if err != nil || cfg.Width != 97 || cfg.Height != 41 || format != f || m.MIME != "image/"+f || m.Kind != "image" {
			t.Fatalf("%s: decoded %+v %s %v (%s)", f, cfg, format, err, m.MIME)
		}
		other, _ := SyntheticImage(97, 41, f, 2)
		if bytes.Equal(m.Data, other.Data) {
			t.Fatalf("%s: two seeds gave the same image", f)
		}
	}
	if _, err := SyntheticImage(0, 10, "png", 1); err == nil {
		t.Error("a 0-pixel image was made")
	}
	a, err := SyntheticAudio(1.5, 16000, 3)
	if err != nil {
		t.Fatal(err)
	}
	if a.MIME != "audio/wav" || len(a.Data) != 44+2*24000 || math.Abs(wavSeconds(a.Data)-1.5) > 1e-9 || a.Seconds != 1.5 {
		t.Fatalf("audio: %d bytes, %gs", len(a.Data), wavSeconds(a.Data))
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "clip.wav")
	if err := os.WriteFile(path, a.Data, 0o600); err != nil {
		t.Fatal(err)
	}
	if m, err := ReadMedia(path); err != nil || m.Seconds != 1.5 || m.Kind != "audio" {
		t.Fatalf("ReadMedia: %+v %v", m.Seconds, err)
	}
	if _, err := ReadMedia(filepath.Join(dir, "missing.png")); err == nil || !strings.Contains(err.Error(), "media file") {
		t.Fatalf("missing file: %v", err)
	}
	if _, err := ReadMedia(filepath.Join(dir, "x.txt")); err == nil {
		t.Fatal("a .txt file read as media")
	}
}

// mediaRequest is the golden bodies' request with one image and one clip.
func mediaRequest(audio bool) *Request {
	r := NewRequest("be brief", "what is this?", 8)
	r.Media = []Media{{Kind: "image", MIME: "image/png", Data: []byte("PNG")}}
	if audio {
		r.Media = append(r.Media, Media{Kind: "audio", MIME: "audio/wav", Data: []byte("RIFF")})
	}
	return r
}

// videoRequest is the golden body's request with an image and a video.
func videoRequest() *Request {
	r := NewRequest("", "what happens?", 8)
	r.Media = []Media{{Kind: "image", MIME: "image/jpeg", Data: []byte("JPG")}, {Kind: "video", MIME: "video/mp4", Data: []byte("MP4 video")}}
	return r
}

func TestCheckMedia(t *testing.T) {
	if err := CheckMedia(EndpointMessages, mediaRequest(true)); err == nil {
		t.Error("audio accepted for messages")
	}
	if err := CheckMedia(EndpointEmbeddings, mediaRequest(false)); err == nil {
		t.Error("an image accepted for embeddings")
	}
	if err := CheckMedia(EndpointChat, mediaRequest(true)); err != nil {
		t.Error(err)
	}
}

// A request's media figures sum its parts by kind; a figure one part of a
// kind lacks (an MP4's frames) is 0 for the kind, and read files carry
// their pixels and samples.
func TestMediaFigures(t *testing.T) {
	img, _ := SyntheticImage(40, 30, "png", 1)
	clip, _ := SyntheticAudio(0.5, 8000, 1)
	vid, _ := SyntheticVideo(1, 4, 16, 16, 1)
	r := NewRequest("", "x", 1)
	r.Media = []Media{img, img, clip, vid}
	m, secs := r.MediaFigures()
	if m.ImageCount != 2 || m.ImagePixels != 2*1200 || m.ImageBytes != 2*len(img.Data) || m.AudioSamples != 4000 || m.AudioBytes != len(clip.Data) ||
		secs != 0.5 || m.VideoFrames != 4 || m.VideoSeconds != 1 || m.VideoBytes != len(vid.Data) {
		t.Fatalf("figures %+v, audio %gs", m, secs)
	}
	r.Media = append(r.Media, Media{Kind: "video", MIME: "video/mp4", Data: []byte("mp4")})
	if m, _ = r.MediaFigures(); m.VideoFrames != 0 || m.VideoSeconds != 0 || m.VideoBytes != len(vid.Data)+3 || m.ImagePixels != 2400 {
		t.Fatalf("with an MP4: %+v", m)
	}
	dir := t.TempDir()
	for name, b := range map[string][]byte{"a.png": img.Data, "b.wav": clip.Data} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if m, err := ReadMedia(filepath.Join(dir, "a.png")); err != nil || m.Pixels != 1200 {
		t.Fatalf("png: %d pixels, %v", m.Pixels, err)
	}
	if m, err := ReadMedia(filepath.Join(dir, "b.wav")); err != nil || m.Samples != 4000 || m.Seconds != 0.5 {
		t.Fatalf("wav: %d samples, %gs, %v", m.Samples, m.Seconds, err)
	}
}
