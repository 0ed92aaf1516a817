package loadgen

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
)

// A transcription request is a multipart body Go's own reader parses:
// the model, stream and usage fields, and the audio file as sent.
func TestTranscriptionMultipart(t *testing.T) {
	clip := wavClip(0.25, 8000)
	got := make(chan *http.Request, 1)
	bodies := make(chan []byte, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- r
		bodies <- b
		http.Error(w, "no", http.StatusTeapot)
	}))
	defer srv.Close()
	c, err := NewClient(ClientConfig{Target: srv.URL, Endpoint: EndpointTranscriptions, Model: "whisper", ExtraBody: `{"language":"en"}`}, NewClock())
	if err != nil {
		t.Fatal(err)
	}
	req := NewRequest("", "ignored", -1)
	req.Media = []Media{clip}
	c.Do(context.Background(), req, record.New(), newConn())
	r, body := <-got, <-bodies
	typ, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || typ != "multipart/form-data" || r.URL.Path != "/v1/audio/transcriptions" {
		t.Fatalf("content type %q %v, path %s", r.Header.Get("Content-Type"), err, r.URL.Path)
	}
	form, err := multipart.NewReader(bytes.NewReader(body), params["boundary"]).ReadForm(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"model": "whisper", "stream": "true", "stream_include_usage": "true", "response_format": "json", "language": "en"} {
		if v := form.Value[k]; len(v) != 1 || v[0] != want {
			t.Errorf("field %s = %v, want %s", k, v, want)
		}
	}
	fh := form.File["file"]
	if len(fh) != 1 || fh[0].Filename != "audio.wav" || fh[0].Header.Get("Content-Type") != "audio/wav" {
		t.Fatalf("file part %+v", fh)
	}
	f, _ := fh[0].Open()
	data, _ := io.ReadAll(f)
	if !bytes.Equal(data, clip.Data) {
		t.Fatal("the audio file changed on the way")
	}
}

// Against the mock, a transcription's latency is TTFT + seconds ×
// mock.TranscribeTime, streamed (TTFT at the first words) or not, and
// grows with the audio's length.
func TestTranscriptionAgainstMock(t *testing.T) {
	srv := startMock(t, func(c *mock.Config) { c.TTFT = 10 * time.Millisecond })
	for _, noStream := range []bool{false, true} {
		c, err := NewClient(ClientConfig{Target: srv.URL(), Endpoint: EndpointTranscriptions, Model: srv.Config().Model, NoStream: noStream}, NewClock())
		if err != nil {
			t.Fatal(err)
		}
		for _, sec := range []float64{1, 4} {
			clip := wavClip(sec, 16000)
			req := NewRequest("", "x", -1)
			req.Media = []Media{clip}
			rec := record.New()
			c.Do(context.Background(), req, rec, newConn())
			want := 10*time.Millisecond + time.Duration(sec*float64(mock.TranscribeTime))
			lat := time.Duration(rec.End - rec.Dispatched)
			if rec.Status != record.StatusSuccessful || rec.AudioSeconds != sec || rec.OutputTokens < int(sec*2) || lat < want || lat > want+200*time.Millisecond {
				t.Fatalf("no-stream %v, %gs: %s %s, latency %v, want %v, %d tokens", noStream, sec, rec.Status, rec.Error, lat, want, rec.OutputTokens)
			}
			if ttft := time.Duration(rec.FirstToken - rec.Dispatched); !noStream && (ttft < 10*time.Millisecond || ttft > want) {
				t.Fatalf("streamed TTFT %v", ttft)
			}
		}
	}
	// No audio in the data: refused before the run.
	if err := CheckMedia(EndpointTranscriptions, NewRequest("", "x", -1)); err == nil {
		t.Fatal("a transcription without audio accepted")
	}
}

// wavClip is seconds of silent 16-bit mono PCM at rate Hz as a WAV file
// (package dataset makes the real ones; loadgen only sends them).
func wavClip(seconds float64, rate int) Media {
	n := int(seconds * float64(rate))
	b := make([]byte, 44+2*n)
	le := binary.LittleEndian
	copy(b, "RIFF")
	le.PutUint32(b[4:], uint32(36+2*n))
	copy(b[8:], "WAVEfmt ")
	le.PutUint32(b[16:], 16)
	le.PutUint16(b[20:], 1) // PCM
	le.PutUint16(b[22:], 1) // mono
	le.PutUint32(b[24:], uint32(rate))
	le.PutUint32(b[28:], uint32(2*rate))
	le.PutUint16(b[32:], 2)
	le.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	le.PutUint32(b[40:], uint32(2*n))
	return Media{Kind: "audio", MIME: "audio/wav", Data: b, Seconds: float64(n) / float64(rate), Samples: n}
}
