package dataset

import (
	"bytes"
	"encoding/binary"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// riffChunk is one chunk of a RIFF file as the test walks it.
type riffChunk struct {
	id   string
	typ  string // a LIST's type
	body []byte
	off  int // of the chunk's id in the file
}

// riffChunks splits b into chunks (word-aligned), failing on a size that
// runs past the end.
func riffChunks(t *testing.T, b []byte, base int) []riffChunk {
	t.Helper()
	var out []riffChunk
	for i := 0; i < len(b); {
		if i+8 > len(b) {
			t.Fatalf("truncated chunk header at %d", base+i)
		}
		n := int(binary.LittleEndian.Uint32(b[i+4:]))
		if i+8+n > len(b) {
			t.Fatalf("chunk %q at %d: size %d runs past the end", b[i:i+4], base+i, n)
		}
		c := riffChunk{id: string(b[i : i+4]), body: b[i+8 : i+8+n], off: base + i}
		if c.id == "LIST" {
			c.typ, c.body = string(c.body[:4]), c.body[4:]
		}
		out = append(out, c)
		i += 8 + n + n%2
	}
	return out
}

// A synthetic video is a well-formed Motion-JPEG AVI: the RIFF sizes add
// up, the headers give the frame count, rate and size asked for, the
// movi list holds that many JPEG frames that decode at that size, and the
// index points at each; ReadMedia reads its frames and length back.
func TestSyntheticVideo(t *testing.T) {
	m, err := SyntheticVideo(1.5, 10, 64, 48, 7)
	if err != nil {
		t.Fatal(err)
	}
	if m.Kind != "video" || m.MIME != "video/x-msvideo" || m.Frames != 15 || m.Seconds != 1.5 {
		t.Fatalf("media %s %s %d frames %gs", m.Kind, m.MIME, m.Frames, m.Seconds)
	}
	b := m.Data
	if string(b[0:4]) != "RIFF" || string(b[8:12]) != "AVI " || int(binary.LittleEndian.Uint32(b[4:])) != len(b)-8 {
		t.Fatalf("RIFF header %q, size %d of %d", b[:12], binary.LittleEndian.Uint32(b[4:]), len(b))
	}
	top := riffChunks(t, b[12:], 12)
	if len(top) != 3 || top[0].typ != "hdrl" || top[1].typ != "movi" || top[2].id != "idx1" {
		t.Fatalf("top-level chunks %+v", top)
	}
	hdrl := riffChunks(t, top[0].body, top[0].off+12)
	if len(hdrl) != 2 || hdrl[0].id != "avih" || len(hdrl[0].body) != 56 || hdrl[1].typ != "strl" {
		t.Fatalf("hdrl %+v", hdrl)
	}
	le := binary.LittleEndian
	avih := hdrl[0].body
	if us, frames, streams, w, h := le.Uint32(avih[0:]), le.Uint32(avih[16:]), le.Uint32(avih[24:]), le.Uint32(avih[32:]), le.Uint32(avih[36:]); us != 100000 || frames != 15 || streams != 1 || w != 64 || h != 48 {
		t.Fatalf("avih: %d µs/frame, %d frames, %d streams, %d×%d", us, frames, streams, w, h)
	}
	strl := riffChunks(t, hdrl[1].body, hdrl[1].off+12)
	if len(strl) != 2 || strl[0].id != "strh" || len(strl[0].body) != 56 || strl[1].id != "strf" || len(strl[1].body) != 40 {
		t.Fatalf("strl %+v", strl)
	}
	strh, strf := strl[0].body, strl[1].body
	if string(strh[:8]) != "vidsMJPG" || le.Uint32(strh[20:]) != 1 || le.Uint32(strh[24:]) != 10 || le.Uint32(strh[32:]) != 15 {
		t.Fatalf("strh %q scale %d rate %d length %d", strh[:8], le.Uint32(strh[20:]), le.Uint32(strh[24:]), le.Uint32(strh[32:]))
	}
	if le.Uint32(strf[0:]) != 40 || le.Uint32(strf[4:]) != 64 || le.Uint32(strf[8:]) != 48 || string(strf[16:20]) != "MJPG" {
		t.Fatalf("strf %x", strf)
	}
	frames := riffChunks(t, top[1].body, top[1].off+12)
	idx := top[2].body
	if len(frames) != 15 || len(idx) != 16*15 {
		t.Fatalf("%d frames, index of %d bytes", len(frames), len(idx))
	}
	moviFourCC := top[1].off + 8
	var first []byte
	for k, f := range frames {
		if f.id != "00dc" {
			t.Fatalf("frame %d: chunk %q", k, f.id)
		}
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(f.body))
		if err != nil || cfg.Width != 64 || cfg.Height != 48 {
			t.Fatalf("frame %d: %+v %v", k, cfg, err)
		}
		if _, err := jpeg.Decode(bytes.NewReader(f.body)); err != nil {
			t.Fatalf("frame %d: %v", k, err)
		}
		e := idx[16*k:]
		if string(e[:4]) != "00dc" || le.Uint32(e[4:])&0x10 == 0 || moviFourCC+int(le.Uint32(e[8:])) != f.off || int(le.Uint32(e[12:])) != len(f.body) {
			t.Fatalf("index entry %d: %q flags %x offset %d (chunk at %d) size %d", k, e[:4], le.Uint32(e[4:]), le.Uint32(e[8:]), f.off-moviFourCC, le.Uint32(e[12:]))
		}
		if k == 0 {
			first = f.body
		} else if k == 1 && bytes.Equal(first, f.body) {
			t.Error("the frames do not change")
		}
	}

	path := filepath.Join(t.TempDir(), "clip.avi")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := ReadMedia(path)
	if err != nil || r.Kind != "video" || r.MIME != "video/x-msvideo" || r.Frames != 15 || math.Abs(r.Seconds-1.5) > 1e-9 || len(r.Data) != len(b) {
		t.Fatalf("ReadMedia: %s %s %d frames %gs: %v", r.Kind, r.MIME, r.Frames, r.Seconds, err)
	}
	other, _ := SyntheticVideo(1.5, 10, 64, 48, 8)
	if bytes.Equal(other.Data, b) {
		t.Error("two seeds gave the same video")
	}
	for _, bad := range [][4]float64{{0, 10, 64, 48}, {1, 0, 64, 48}, {1, 10, 8, 48}, {1000, 30, 64, 48}} {
		if _, err := SyntheticVideo(bad[0], int(bad[1]), int(bad[2]), int(bad[3]), 1); err == nil {
			t.Errorf("video %v made", bad)
		}
	}
}

// Video files are read by extension: an MP4 as video/mp4, frames and
// length unknown.
func TestReadVideo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clip.mp4")
	if err := os.WriteFile(path, []byte("\x00\x00\x00\x18ftypisom"), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := ReadMedia(path)
	if err != nil || m.Kind != "video" || m.MIME != "video/mp4" || m.Frames != 0 || m.Seconds != 0 {
		t.Fatalf("ReadMedia: %+v %v", m, err)
	}
}
