package dataset

import (
	"bytes"
	"image"
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
	if a.MIME != "audio/wav" || len(a.Data) != 44+2*24000 || math.Abs(wavSecs(a.Data)-1.5) > 1e-9 || a.Seconds != 1.5 {
		t.Fatalf("audio: %d bytes, %gs", len(a.Data), wavSecs(a.Data))
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

// Read files carry their pixels and samples.
func TestReadMediaFigures(t *testing.T) {
	img, _ := SyntheticImage(40, 30, "png", 1)
	clip, _ := SyntheticAudio(0.5, 8000, 1)
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

// wavSecs is a WAV file's length as ReadMedia reads it.
func wavSecs(b []byte) float64 {
	s, _ := wavInfo(b)
	return s
}
