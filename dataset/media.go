package dataset

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/loadgen"
)

// MediaSpec is the synthetic media of every request (GuideLLM's
// synthetic_image keys, prefixed: image_width, image_height,
// image_count, image_format; and audio_seconds, audio_sample_rate,
// audio_count), generated locally (loadgen.SyntheticImage,
// SyntheticAudio) and sent as data URLs with the user message.
type MediaSpec struct {
	ImageCount, ImageWidth, ImageHeight int
	ImageFormat                         string // png (default) or jpeg
	AudioCount, AudioSeconds            int
	AudioSampleRate                     int // Hz, default 16000
}

// mediaPoolSize is how many distinct images (clips) are generated: request
// i takes the next ones in turn, so that the encoding is paid once.
const mediaPoolSize = 16

var mediaKeys = []string{"image_width", "image_height", "image_count", "image_format", "audio_seconds", "audio_sample_rate", "audio_count"}

// param sets the media key p; false when p is not one.
func (m *MediaSpec) param(p param) (bool, error) {
	if p.key == "image_format" {
		if p.val != "png" && p.val != "jpeg" && p.val != "jpg" {
			return true, fmt.Errorf("image_format=%s: want png or jpeg", p.shown())
		}
		m.ImageFormat = p.val
		return true, nil
	}
	dst := map[string]*int{"image_width": &m.ImageWidth, "image_height": &m.ImageHeight, "image_count": &m.ImageCount,
		"audio_seconds": &m.AudioSeconds, "audio_sample_rate": &m.AudioSampleRate, "audio_count": &m.AudioCount}[p.key]
	if dst == nil {
		return false, nil
	}
	n, err := intParam(p, 1)
	*dst = n
	return true, err
}

// images and clips are the counts per request (a size given implies one).
func (m MediaSpec) images() int {
	if m.ImageCount == 0 && (m.ImageWidth > 0 || m.ImageHeight > 0) {
		return 1
	}
	return m.ImageCount
}

func (m MediaSpec) clips() int {
	if m.AudioCount == 0 && m.AudioSeconds > 0 {
		return 1
	}
	return m.AudioCount
}

func (m MediaSpec) validate() error {
	if m.images() > 0 && (m.ImageWidth == 0 || m.ImageHeight == 0) {
		return fmt.Errorf("images need image_width and image_height, e.g. image_width=512,image_height=512")
	}
	if m.images() > 16 || m.clips() > 16 {
		return fmt.Errorf("image_count and audio_count: at most 16 per request")
	}
	if m.ImageWidth > 8192 || m.ImageHeight > 8192 {
		return fmt.Errorf("image_width and image_height: at most 8192 pixels")
	}
	if m.clips() > 0 && m.AudioSeconds == 0 {
		return fmt.Errorf("audio_count needs audio_seconds, e.g. audio_seconds=10")
	}
	if m.AudioSeconds > 3600 || m.AudioSampleRate != 0 && (m.AudioSampleRate < 1000 || m.AudioSampleRate > 192000) {
		return fmt.Errorf("audio_seconds: at most 3600; audio_sample_rate: 1000 to 192000 Hz")
	}
	return nil
}

// keys renders the set keys, in a fixed order.
func (m MediaSpec) keys() []string {
	var out []string
	add := func(k string, v int) {
		if v > 0 {
			out = append(out, k+"="+strconv.Itoa(v))
		}
	}
	add("image_width", m.ImageWidth)
	add("image_height", m.ImageHeight)
	add("image_count", m.ImageCount)
	if m.ImageFormat != "" {
		out = append(out, "image_format="+m.ImageFormat)
	}
	add("audio_seconds", m.AudioSeconds)
	add("audio_sample_rate", m.AudioSampleRate)
	add("audio_count", m.AudioCount)
	return out
}

// pool generates the distinct images and clips requests take in turn
// (nil without media).
func (m MediaSpec) pool(seed uint64) ([]loadgen.Media, []loadgen.Media, error) {
	var imgs, clips []loadgen.Media
	if n := m.images(); n > 0 {
		for k := range max(n, mediaPoolSize) {
			img, err := loadgen.SyntheticImage(m.ImageWidth, m.ImageHeight, m.ImageFormat, seed^uint64(k)*0x9e3779b97f4a7c15)
			if err != nil {
				return nil, nil, err
			}
			imgs = append(imgs, img)
		}
	}
	if n := m.clips(); n > 0 {
		rate := m.AudioSampleRate
		if rate == 0 {
			rate = 16000
		}
		for k := range max(n, 4) {
			clip, err := loadgen.SyntheticAudio(float64(m.AudioSeconds), rate, seed^uint64(k+1)*0xbf58476d1ce4e5b9)
			if err != nil {
				return nil, nil, err
			}
			clips = append(clips, clip)
		}
	}
	return imgs, clips, nil
}

// mediaFor returns request i's media from the pools.
func (s *Synthetic) mediaFor(i uint64) []loadgen.Media {
	ni, na := s.spec.Media.images(), s.spec.Media.clips()
	if ni+na == 0 {
		return nil
	}
	out := make([]loadgen.Media, 0, ni+na)
	for k := range ni {
		out = append(out, s.images[(i*uint64(ni)+uint64(k))%uint64(len(s.images))])
	}
	for k := range na {
		out = append(out, s.clips[(i*uint64(na)+uint64(k))%uint64(len(s.clips))])
	}
	return out
}

// mediaFiles reads the media files a data file's image and audio columns
// name (a path, or a JSON list of paths; relative to the data file's
// directory unless found from the working directory), each once.
type mediaFiles struct {
	dir  string
	read map[string]loadgen.Media
}

func (f *mediaFiles) cell(c cell) ([]loadgen.Media, error) {
	var paths []string
	if c.isJSON() && isArray(c.raw) {
		if err := json.Unmarshal(c.raw, &paths); err != nil {
			return nil, fmt.Errorf("want a file path or a list of paths")
		}
	} else {
		p, err := cellString(c)
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(p) != "" {
			paths = []string{p}
		}
	}
	out := make([]loadgen.Media, 0, len(paths))
	for _, p := range paths {
		if strings.HasPrefix(p, "http://") || strings.HasPrefix(p, "https://") || strings.HasPrefix(p, "data:") {
			return nil, fmt.Errorf("%q: want a local file path (media are sent as data URLs)", p)
		}
		if !filepath.IsAbs(p) {
			if _, err := os.Stat(p); err != nil {
				p = filepath.Join(f.dir, p)
			}
		}
		m, ok := f.read[p]
		if !ok {
			var err error
			if m, err = loadgen.ReadMedia(p); err != nil {
				return nil, err
			}
			f.read[p] = m
		}
		out = append(out, m)
	}
	return out, nil
}
