package loadgen

import (
	"encoding/base64"
	"fmt"
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

// Media is one image, audio clip or video of a request. Package dataset
// reads media files and makes synthetic ones (dataset.ReadMedia,
// SyntheticImage, SyntheticAudio, SyntheticVideo).
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

// CheckMedia reports whether endpoint e can send req's media (and its
// /pooling data object).
func CheckMedia(e Endpoint, req *Request) error {
	if err := checkPooled(e, req); err != nil {
		return err
	}
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
// text (with the content extras parts, see parts.go), then each media
// part, in api's form.
func appendMediaContent(b []byte, api Endpoint, text string, media []Media, parts []byte) []byte {
	b = appendTextPart(append(b, '['), api, text, parts)
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
			b = appendMediaContent(b, api, m.Content, media, nil)
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
