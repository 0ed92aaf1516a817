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
// image_count, image_format; audio_seconds, audio_sample_rate,
// audio_count; and AIPerf's --video-* as video_seconds, video_fps,
// video_width, video_height, video_count), generated locally
// (SyntheticImage, SyntheticAudio, SyntheticVideo: a Motion-JPEG
// AVI) and sent as data URLs with the user message.
type MediaSpec struct {
	ImageCount, ImageWidth, ImageHeight int
	ImageFormat                         string // png (default) or jpeg
	AudioCount, AudioSeconds            int
	AudioSampleRate                     int // Hz, default 16000
	VideoCount                          int
	VideoSeconds                        float64
	VideoFPS                            int // default 4 (AIPerf's)
	VideoWidth, VideoHeight             int // default 640×480 (AIPerf's)
}

// mediaPoolSize is how many distinct images (clips) are generated: request
// i takes the next ones in turn, so that the encoding is paid once.
const mediaPoolSize = 16

var mediaKeys = []string{"image_width", "image_height", "image_count", "image_format", "audio_seconds", "audio_sample_rate", "audio_count",
	"video_seconds", "video_fps", "video_width", "video_height", "video_count"}

// param sets the media key p; false when p is not one.
func (m *MediaSpec) param(p param) (bool, error) {
	if p.key == "image_format" {
		if p.val != "png" && p.val != "jpeg" && p.val != "jpg" {
			return true, fmt.Errorf("image_format=%s: want png or jpeg", p.shown())
		}
		m.ImageFormat = p.val
		return true, nil
	}
	if p.key == "video_seconds" {
		v, err := strconv.ParseFloat(p.val, 64)
		if err != nil || !(v > 0) || v > 600 {
			return true, fmt.Errorf("video_seconds=%s: want a number of seconds above 0, at most 600", p.shown())
		}
		m.VideoSeconds = v
		return true, nil
	}
	dst := map[string]*int{"image_width": &m.ImageWidth, "image_height": &m.ImageHeight, "image_count": &m.ImageCount,
		"audio_seconds": &m.AudioSeconds, "audio_sample_rate": &m.AudioSampleRate, "audio_count": &m.AudioCount,
		"video_fps": &m.VideoFPS, "video_width": &m.VideoWidth, "video_height": &m.VideoHeight, "video_count": &m.VideoCount}[p.key]
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

// videos is the count of videos per request (video_seconds implies one).
func (m MediaSpec) videos() int {
	if m.VideoCount == 0 && m.VideoSeconds > 0 {
		return 1
	}
	return m.VideoCount
}

// videoShape is the videos' rate and size, AIPerf's defaults filled in.
func (m MediaSpec) videoShape() (fps, width, height int) {
	fps, width, height = m.VideoFPS, m.VideoWidth, m.VideoHeight
	if fps == 0 {
		fps = 4
	}
	if width == 0 {
		width = 640
	}
	if height == 0 {
		height = 480
	}
	return fps, width, height
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
	if (m.VideoCount > 0 || m.VideoFPS > 0 || m.VideoWidth > 0 || m.VideoHeight > 0) && m.VideoSeconds == 0 {
		return fmt.Errorf("video_count, video_fps, video_width and video_height need video_seconds, e.g. video_seconds=5")
	}
	if m.videos() > 4 {
		return fmt.Errorf("video_count: at most 4 per request")
	}
	if fps, w, h := m.videoShape(); m.videos() > 0 {
		if fps > 120 || w < 16 || h < 16 || w > 3840 || h > 2160 {
			return fmt.Errorf("video_fps: at most 120; video_width and video_height: 16×16 to 3840×2160 pixels")
		}
		if n := m.VideoSeconds * float64(fps); n < 0.5 || n > 3600 {
			return fmt.Errorf("video_seconds × video_fps: %g frames, want 1 to 3600", n)
		}
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
	if m.VideoSeconds > 0 {
		out = append(out, "video_seconds="+strconv.FormatFloat(m.VideoSeconds, 'g', -1, 64))
	}
	add("video_fps", m.VideoFPS)
	add("video_width", m.VideoWidth)
	add("video_height", m.VideoHeight)
	add("video_count", m.VideoCount)
	return out
}

// mediaPool is the distinct images, clips and videos requests take in
// turn (nil without).
type mediaPool struct {
	images, clips, videos []loadgen.Media
}

// pool generates the media pool.
func (m MediaSpec) pool(seed uint64) (mediaPool, error) {
	var imgs, clips, videos []loadgen.Media
	if n := m.images(); n > 0 {
		for k := range max(n, mediaPoolSize) {
			img, err := SyntheticImage(m.ImageWidth, m.ImageHeight, m.ImageFormat, seed^uint64(k)*0x9e3779b97f4a7c15)
			if err != nil {
				return mediaPool{}, err
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
			clip, err := SyntheticAudio(float64(m.AudioSeconds), rate, seed^uint64(k+1)*0xbf58476d1ce4e5b9)
			if err != nil {
				return mediaPool{}, err
			}
			clips = append(clips, clip)
		}
	}
	if n := m.videos(); n > 0 {
		fps, w, h := m.videoShape()
		for k := range max(n, 4) {
			v, err := SyntheticVideo(m.VideoSeconds, fps, w, h, seed^uint64(k+1)*0x94d049bb133111eb)
			if err != nil {
				return mediaPool{}, err
			}
			videos = append(videos, v)
		}
	}
	return mediaPool{imgs, clips, videos}, nil
}

// mediaFor returns request i's media from the pools.
func (s *Synthetic) mediaFor(i uint64) []loadgen.Media {
	ni, na, nv := s.spec.Media.images(), s.spec.Media.clips(), s.spec.Media.videos()
	if ni+na+nv == 0 {
		return nil
	}
	out := make([]loadgen.Media, 0, ni+na+nv)
	for _, p := range []struct {
		n    int
		pool []loadgen.Media
	}{{ni, s.media.images}, {na, s.media.clips}, {nv, s.media.videos}} {
		for k := range p.n {
			out = append(out, p.pool[(i*uint64(p.n)+uint64(k))%uint64(len(p.pool))])
		}
	}
	return out
}

// mediaFiles reads the media files a data file's image, audio and video columns
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
			if m, err = ReadMedia(p); err != nil {
				return nil, err
			}
			f.read[p] = m
		}
		out = append(out, m)
	}
	return out, nil
}
