package dataset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A column named by image_column, audio_column or video_column holds
// media file paths
// (one, or a JSON list), relative to the data file's directory; a file
// that cannot be read is a one-line error naming the line and column.
func TestMediaColumns(t *testing.T) {
	dir := t.TempDir()
	img, _ := SyntheticImage(8, 6, "png", 1)
	clip, _ := SyntheticAudio(0.5, 8000, 1)
	video, _ := SyntheticVideo(1, 2, 16, 16, 1)
	for name, b := range map[string][]byte{"a.png": img.Data, "b.wav": clip.Data, "c.avi": video.Data, "d.mp4": []byte("mp4")} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	data := filepath.Join(dir, "d.jsonl")
	if err := os.WriteFile(data, []byte(`{"prompt":"what is it?","pic":"a.png","clip":["b.wav"]}`+"\n"+`{"prompt":"and this?","pic":["a.png","a.png"],"film":["c.avi","d.mp4"]}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := Open(data, Options{ColumnMapper: `{"text_column":"prompt","image_column":"pic","audio_column":"clip","video_column":"film"}`})
	if err != nil {
		t.Fatal(err)
	}
	r0, _ := d.Source.Request(0)
	r1, _ := d.Source.Request(1)
	if len(r0.Media) != 2 || r0.Media[0].MIME != "image/png" || r0.Media[1].Kind != "audio" || len(r1.Media) != 4 ||
		r0.MediaBytes() != len(img.Data)+len(clip.Data) {
		t.Fatalf("media %+v %+v", len(r0.Media), len(r1.Media))
	}
	if v, mp4 := r1.Media[2], r1.Media[3]; v.Kind != "video" || v.MIME != "video/x-msvideo" || v.Frames != 2 || v.Seconds != 1 ||
		mp4.Kind != "video" || mp4.MIME != "video/mp4" || string(mp4.Data) != "mp4" {
		t.Fatalf("videos %s %s %d %g, %s %s", v.Kind, v.MIME, v.Frames, v.Seconds, mp4.Kind, mp4.MIME)
	}
	if got := d.Description.Columns["video_column"]; got != "film" {
		t.Errorf("described video column %q", got)
	}
	if err := os.WriteFile(data, []byte(`{"prompt":"x","pic":"missing.png"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Open(data, Options{ColumnMapper: `{"text_column":"prompt","image_column":"pic"}`})
	if err == nil || !strings.Contains(err.Error(), `column "pic"`) || !strings.Contains(err.Error(), "missing.png") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("missing file: %v", err)
	}
}
