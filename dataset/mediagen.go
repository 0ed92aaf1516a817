package dataset

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	_ "image/gif" // ReadMedia reads a GIF's size
	"image/jpeg"
	"image/png"
	"math"
	"mime"
	"os"
	"path/filepath"
	"strings"

	"github.com/goodput-dev/goodput/loadgen"
)

// The media a request carries (loadgen.Media): files read by extension,
// and synthetic images, WAV clips and Motion-JPEG videos (avi.go) made
// from a seed, for MediaSpec and the media columns.

// videoTypes are the video files ReadMedia takes, by extension.
var videoTypes = map[string]string{".mp4": "video/mp4", ".m4v": "video/mp4", ".webm": "video/webm", ".mov": "video/quicktime",
	".avi": "video/x-msvideo", ".mkv": "video/x-matroska"}

// ReadMedia reads a media file, its kind and type from its extension
// (.png, .jpg/.jpeg, .webp, .gif; .wav, .mp3, .flac, .ogg; .mp4, .m4v,
// .webm, .mov, .avi, .mkv). A WAV file's length and an AVI file's frames
// and length are read from their headers.
func ReadMedia(path string) (loadgen.Media, error) {
	ext := strings.ToLower(filepath.Ext(path))
	var kind, typ string
	switch ext {
	case ".png", ".jpg", ".jpeg", ".webp", ".gif":
		kind, typ = "image", mime.TypeByExtension(ext)
		if ext == ".webp" {
			typ = "image/webp"
		}
	case ".wav":
		kind, typ = "audio", "audio/wav"
	case ".mp3":
		kind, typ = "audio", "audio/mpeg"
	case ".flac":
		kind, typ = "audio", "audio/flac"
	case ".ogg":
		kind, typ = "audio", "audio/ogg"
	default:
		if typ = videoTypes[ext]; typ != "" {
			kind = "video"
			break
		}
		return loadgen.Media{}, fmt.Errorf("media file %s: want .png, .jpg, .webp, .gif, .wav, .mp3, .flac, .ogg, .mp4, .webm, .mov, .avi or .mkv", path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return loadgen.Media{}, fmt.Errorf("media file: %w", err)
	}
	m := loadgen.Media{Kind: kind, MIME: typ, Data: b}
	switch typ {
	case "image/png", "image/jpeg", "image/gif":
		if c, _, err := image.DecodeConfig(bytes.NewReader(b)); err == nil {
			m.Pixels = c.Width * c.Height
		}
	case "audio/wav":
		m.Seconds, m.Samples = wavInfo(b)
	case "video/x-msvideo":
		m.Frames, m.Seconds = aviFrames(b)
	}
	return m, nil
}

// SyntheticImage encodes a width × height image (format png or jpeg)
// whose pixels are a function of seed: a smooth gradient under noise, so
// it neither compresses to nothing nor repeats across seeds.
func SyntheticImage(width, height int, format string, seed uint64) (loadgen.Media, error) {
	if width < 1 || height < 1 || width > 8192 || height > 8192 {
		return loadgen.Media{}, fmt.Errorf("image %d×%d: want 1 to 8192 pixels a side", width, height)
	}
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	x := seed
	for py := range height {
		for px := range width {
			x = splitmix64(x + uint64(py*width+px))
			img.Pix[(py*width+px)*4+0] = uint8(px*255/width) ^ uint8(x)&0x3f
			img.Pix[(py*width+px)*4+1] = uint8(py*255/height) ^ uint8(x>>8)&0x3f
			img.Pix[(py*width+px)*4+2] = uint8(seed) ^ uint8(x>>16)&0x3f
			img.Pix[(py*width+px)*4+3] = 0xff
		}
	}
	var buf bytes.Buffer
	switch format {
	case "png", "":
		if err := png.Encode(&buf, img); err != nil {
			return loadgen.Media{}, err
		}
		return loadgen.Media{Kind: "image", MIME: "image/png", Data: buf.Bytes(), Pixels: width * height}, nil
	case "jpeg", "jpg":
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
			return loadgen.Media{}, err
		}
		return loadgen.Media{Kind: "image", MIME: "image/jpeg", Data: buf.Bytes(), Pixels: width * height}, nil
	}
	return loadgen.Media{}, fmt.Errorf("image format %q: want png or jpeg", format)
}

// SyntheticAudio encodes seconds of 16-bit mono PCM at sampleRate Hz as a
// WAV file: a tone whose pitch depends on seed, under noise.
func SyntheticAudio(seconds float64, sampleRate int, seed uint64) (loadgen.Media, error) {
	if !(seconds > 0) || seconds > 3600 || sampleRate < 1000 || sampleRate > 192000 {
		return loadgen.Media{}, fmt.Errorf("audio %gs at %d Hz: want 0 < seconds ≤ 3600 and 1000 to 192000 Hz", seconds, sampleRate)
	}
	n := int(math.Round(seconds * float64(sampleRate)))
	b := make([]byte, 44+2*n)
	copy(b[0:], "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+2*n))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1) // PCM
	binary.LittleEndian.PutUint16(b[22:], 1) // mono
	binary.LittleEndian.PutUint32(b[24:], uint32(sampleRate))
	binary.LittleEndian.PutUint32(b[28:], uint32(2*sampleRate))
	binary.LittleEndian.PutUint16(b[32:], 2)
	binary.LittleEndian.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], uint32(2*n))
	freq := 200 + float64(seed%600)
	x := seed
	for i := range n {
		x = splitmix64(x + uint64(i))
		v := 8000*math.Sin(2*math.Pi*freq*float64(i)/float64(sampleRate)) + float64(int16(x))/16
		binary.LittleEndian.PutUint16(b[44+2*i:], uint16(int16(v)))
	}
	return loadgen.Media{Kind: "audio", MIME: "audio/wav", Data: b, Seconds: float64(n) / float64(sampleRate), Samples: n}, nil
}

// wavInfo reads a PCM WAV file's length and sample frames (per channel),
// 0, 0 when it cannot.
func wavInfo(b []byte) (float64, int) {
	if len(b) < 44 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return 0, 0
	}
	byteRate := binary.LittleEndian.Uint32(b[28:32])
	blockAlign := int(binary.LittleEndian.Uint16(b[32:34]))
	for i := 12; i+8 <= len(b); {
		size := int(binary.LittleEndian.Uint32(b[i+4:]))
		if string(b[i:i+4]) == "data" && byteRate > 0 && blockAlign > 0 {
			n := min(size, len(b)-i-8)
			return float64(n) / float64(byteRate), n / blockAlign
		}
		i += 8 + size + size%2
	}
	return 0, 0
}

// splitmix64 is splitmix64's step: the golden-ratio increment, then the
// finalizer (mix64).
func splitmix64(x uint64) uint64 { return mix64(x + 0x9e3779b97f4a7c15) }
