package loadgen

import (
	"testing"
)

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
// kind lacks (an MP4's frames) is 0 for the kind.
func TestMediaFigures(t *testing.T) {
	img := Media{Kind: "image", MIME: "image/png", Data: make([]byte, 700), Pixels: 1200}
	clip := Media{Kind: "audio", MIME: "audio/wav", Data: make([]byte, 8044), Seconds: 0.5, Samples: 4000}
	vid := Media{Kind: "video", MIME: "video/x-msvideo", Data: make([]byte, 3000), Frames: 4, Seconds: 1}
	r := NewRequest("", "x", 1)
	r.Media = []Media{img, img, clip, vid}
	m, secs := r.MediaFigures()
	if m.ImageCount != 2 || m.ImagePixels != 2*1200 || m.ImageBytes != 2*700 || m.AudioSamples != 4000 || m.AudioBytes != 8044 ||
		secs != 0.5 || m.VideoFrames != 4 || m.VideoSeconds != 1 || m.VideoBytes != 3000 {
		t.Fatalf("figures %+v, audio %gs", m, secs)
	}
	if r.MediaBytes() != 2*700+8044+3000 {
		t.Fatalf("media bytes %d", r.MediaBytes())
	}
	r.Media = append(r.Media, Media{Kind: "video", MIME: "video/mp4", Data: []byte("mp4")})
	if m, _ = r.MediaFigures(); m.VideoFrames != 0 || m.VideoSeconds != 0 || m.VideoBytes != 3003 || m.ImagePixels != 2400 {
		t.Fatalf("with an MP4: %+v", m)
	}
}

// Responses and Messages refuse video, chat takes it.
func TestVideoMedia(t *testing.T) {
	r := NewRequest("", "what happens?", 8)
	r.Media = []Media{{Kind: "video", MIME: "video/mp4", Data: []byte("\x00\x00\x00\x18ftypisom")}}
	if err := CheckMedia(EndpointChat, r); err != nil {
		t.Error(err)
	}
	for _, e := range []Endpoint{EndpointResponses, EndpointMessages} {
		if err := CheckMedia(e, r); err == nil || err.Error() != string(e)+" takes no video input: use chat_completions" {
			t.Errorf("%s: %v", e, err)
		}
	}
	if err := CheckMedia(EndpointEmbeddings, r); err == nil {
		t.Error("a video accepted for embeddings")
	}
}
