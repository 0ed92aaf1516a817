package loadgen

import (
	"bytes"
	"encoding/base64"
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

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/reqtype"
)

// Media input: images, audio and video sent with the last user message
// of a chat, Responses or Messages request, as base64 data URLs, in each
// API's content-part form:
//
//	chat        {"type":"image_url","image_url":{"url":"data:image/png;base64,…"}}
//	            {"type":"input_audio","input_audio":{"data":"…","format":"wav"}}
//	            {"type":"video_url","video_url":{"url":"data:video/mp4;base64,…"}}
//	responses   {"type":"input_image","image_url":"data:image/png;base64,…"}
//	messages    {"type":"image","source":{"type":"base64","media_type":"image/png","data":"…"}}
//
// The Responses and Messages APIs take no audio or video input (their
// content parts are text, images and files): a request with either cannot
// be rendered for them (CheckMedia says so before the run).

// Media is one image, audio clip or video of a request.
type Media struct {
	Kind string // "image", "audio" or "video"
	MIME string // image/png, image/jpeg, image/webp, image/gif, audio/wav, audio/mpeg, video/mp4, …
	Data []byte
	// Seconds is an audio clip's or a video's length, Frames a video's
	// frame count, Pixels an image's, Samples an audio clip's (0 when
	// unknown).
	Seconds float64
	Frames  int
	Pixels  int
	Samples int
}

// MediaFigures sums a request's media by kind for its record, and the
// length of its audio; a figure that some part of its kind lacks (a .webp
// image's pixels, an .mp4's frames) is 0 for the whole kind.
func (r *Request) MediaFigures() (m record.Media, audioSeconds float64) {
	var noPixels, noSamples, noFrames, noSeconds bool
	for _, p := range r.Media {
		switch p.Kind {
		case "image":
			m.ImageCount++
			m.ImageBytes += len(p.Data)
			m.ImagePixels += p.Pixels
			noPixels = noPixels || p.Pixels == 0
		case "audio":
			m.AudioBytes += len(p.Data)
			m.AudioSamples += p.Samples
			noSamples = noSamples || p.Samples == 0
			audioSeconds += p.Seconds
		case "video":
			m.VideoBytes += len(p.Data)
			m.VideoFrames += p.Frames
			m.VideoSeconds += p.Seconds
			noFrames, noSeconds = noFrames || p.Frames == 0, noSeconds || p.Seconds == 0
		}
	}
	if noPixels {
		m.ImagePixels = 0
	}
	if noSamples {
		m.AudioSamples = 0
	}
	if noFrames {
		m.VideoFrames = 0
	}
	if noSeconds {
		m.VideoSeconds = 0
	}
	return m, audioSeconds
}

// MediaBytes is the raw size of a request's media (before base64).
func (r *Request) MediaBytes() int {
	n := 0
	for _, m := range r.Media {
		n += len(m.Data)
	}
	return n
}

// videoTypes are the video files ReadMedia takes, by extension.
var videoTypes = map[string]string{".mp4": "video/mp4", ".m4v": "video/mp4", ".webm": "video/webm", ".mov": "video/quicktime",
	".avi": "video/x-msvideo", ".mkv": "video/x-matroska"}

// ReadMedia reads a media file, its kind and type from its extension
// (.png, .jpg/.jpeg, .webp, .gif; .wav, .mp3, .flac, .ogg; .mp4, .m4v,
// .webm, .mov, .avi, .mkv). A WAV file's length and an AVI file's frames
// and length are read from their headers.
func ReadMedia(path string) (Media, error) {
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
		return Media{}, fmt.Errorf("media file %s: want .png, .jpg, .webp, .gif, .wav, .mp3, .flac, .ogg, .mp4, .webm, .mov, .avi or .mkv", path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Media{}, fmt.Errorf("media file: %w", err)
	}
	m := Media{Kind: kind, MIME: typ, Data: b}
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
func SyntheticImage(width, height int, format string, seed uint64) (Media, error) {
	if width < 1 || height < 1 || width > 8192 || height > 8192 {
		return Media{}, fmt.Errorf("image %d×%d: want 1 to 8192 pixels a side", width, height)
	}
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	x := seed
	for py := range height {
		for px := range width {
			x = mix64(x + uint64(py*width+px))
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
			return Media{}, err
		}
		return Media{Kind: "image", MIME: "image/png", Data: buf.Bytes(), Pixels: width * height}, nil
	case "jpeg", "jpg":
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
			return Media{}, err
		}
		return Media{Kind: "image", MIME: "image/jpeg", Data: buf.Bytes(), Pixels: width * height}, nil
	}
	return Media{}, fmt.Errorf("image format %q: want png or jpeg", format)
}

// SyntheticAudio encodes seconds of 16-bit mono PCM at sampleRate Hz as a
// WAV file: a tone whose pitch depends on seed, under noise.
func SyntheticAudio(seconds float64, sampleRate int, seed uint64) (Media, error) {
	if !(seconds > 0) || seconds > 3600 || sampleRate < 1000 || sampleRate > 192000 {
		return Media{}, fmt.Errorf("audio %gs at %d Hz: want 0 < seconds ≤ 3600 and 1000 to 192000 Hz", seconds, sampleRate)
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
		x = mix64(x + uint64(i))
		v := 8000*math.Sin(2*math.Pi*freq*float64(i)/float64(sampleRate)) + float64(int16(x))/16
		binary.LittleEndian.PutUint16(b[44+2*i:], uint16(int16(v)))
	}
	return Media{Kind: "audio", MIME: "audio/wav", Data: b, Seconds: float64(n) / float64(sampleRate), Samples: n}, nil
}

// wavSeconds reads a PCM WAV file's length, 0 when it cannot.
func wavSeconds(b []byte) float64 {
	s, _ := wavInfo(b)
	return s
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

// CheckMedia reports whether endpoint e can send req's media.
func CheckMedia(e Endpoint, req *Request) error {
	if t, ok := e.Type(); ok && t.NeedsMedia == "audio" && audioOf(req) == nil {
		return fmt.Errorf("%s needs audio: give audio_seconds in a synthetic spec, or an audio_column", e)
	}
	kinds := make([]string, len(req.Media))
	for i, m := range req.Media {
		kinds[i] = m.Kind
	}
	return CheckMediaKinds(e, kinds...)
}

// CheckMediaKinds reports whether endpoint e can send media of the given
// kinds ("image", "audio", "video"): those its row of reqtype.All takes.
func CheckMediaKinds(e Endpoint, kinds ...string) error {
	if len(kinds) == 0 {
		return nil
	}
	t, _ := e.Type()
	if t == nil || len(t.Media) == 0 {
		return fmt.Errorf("%s takes no image, audio or video input: use %s", e, mediaTypes("image"))
	}
	for _, k := range kinds {
		if !t.Takes(k) {
			return fmt.Errorf("%s takes no %s input: use %s", e, k, mediaTypes(k))
		}
	}
	return nil
}

// mediaTypes names the request types whose prompts carry media of kind.
func mediaTypes(kind string) string {
	return reqtype.Names(func(t *reqtype.Type) bool { return t.Takes(kind) && t.NeedsMedia == "" },
		func(t *reqtype.Type) string { return t.Name }, "or")
}

// appendMediaContent appends the content of the last user message: its
// text, then each media part, in api's form.
func appendMediaContent(b []byte, api Endpoint, text string, media []Media) []byte {
	textType := "text"
	if api == EndpointResponses {
		textType = "input_text"
	}
	b = append(b, `[{"type":"`...)
	b = append(b, textType...)
	b = append(b, `","text":`...)
	b = appendJSONStr(b, text)
	b = append(b, '}')
	for _, m := range media {
		b = append(b, ',')
		switch {
		case api == EndpointMessages:
			b = append(b, `{"type":"image","source":{"type":"base64","media_type":"`...)
			b = append(b, m.MIME...)
			b = append(b, `","data":"`...)
			b = base64.StdEncoding.AppendEncode(b, m.Data)
			b = append(b, `"}}`...)
		case m.Kind == "video":
			b = append(b, `{"type":"video_url","video_url":{"url":"data:`...)
			b = append(b, m.MIME...)
			b = append(b, `;base64,`...)
			b = base64.StdEncoding.AppendEncode(b, m.Data)
			b = append(b, `"}}`...)
		case m.Kind == "audio":
			b = append(b, `{"type":"input_audio","input_audio":{"data":"`...)
			b = base64.StdEncoding.AppendEncode(b, m.Data)
			b = append(b, `","format":"`...)
			b = append(b, strings.TrimPrefix(strings.TrimPrefix(m.MIME, "audio/"), "x-")...)
			b = append(b, `"}}`...)
		case api == EndpointResponses:
			b = append(b, `{"type":"input_image","image_url":"data:`...)
			b = append(b, m.MIME...)
			b = append(b, `;base64,`...)
			b = base64.StdEncoding.AppendEncode(b, m.Data)
			b = append(b, `"}`...)
		default:
			b = append(b, `{"type":"image_url","image_url":{"url":"data:`...)
			b = append(b, m.MIME...)
			b = append(b, `;base64,`...)
			b = base64.StdEncoding.AppendEncode(b, m.Data)
			b = append(b, `"}}`...)
		}
	}
	return append(b, ']')
}

// appendMediaMessages is appendMessages with the media in the last user
// message's content.
func appendMediaMessages(b []byte, api Endpoint, msgs []Message, media []Media) []byte {
	last := -1
	for i, m := range msgs {
		if m.Role == "user" {
			last = i
		}
	}
	b = append(b, `"messages":[`...)
	for i, m := range msgs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"role":`...)
		b = appendJSONStr(b, m.Role)
		b = append(b, `,"content":`...)
		if i == last {
			b = appendMediaContent(b, api, m.Content, media)
		} else {
			b = appendJSONStr(b, m.Content)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// withMedia renders the messages with the media for api, once: the
// system prefix of a Messages request as anthropic does.
func (r *Request) withMedia(api Endpoint) []byte {
	r.mediaOnce.Do(func() {
		msgs := r.Messages
		var b []byte
		if api == EndpointMessages {
			n := 0
			for n < len(msgs) && msgs[n].Role == "system" {
				n++
			}
			if n > 0 {
				parts := make([]string, n)
				for i, m := range msgs[:n] {
					parts[i] = m.Content
				}
				b = append(appendJSONStr(append(b, `"system":`...), strings.Join(parts, "\n\n")), ',')
				msgs = msgs[n:]
			}
		}
		r.mediaJSON = appendMediaMessages(b, api, msgs, r.Media)
	})
	return r.mediaJSON
}
