package mock

import (
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/goodput-dev/goodput/reqtype"
)

// Audio transcription and translation (POST /v1/audio/transcriptions and
// /v1/audio/translations, multipart, alike but for the chunks' object), as
// vLLM serves them: the audio's length sets the work,
//
//	latency = TTFT + seconds × TranscribeTime
//
// and the text is TranscribeWords words per audio second. Streamed
// (stream=true), the first word goes out after TTFT and the others
// evenly until the end, as chat-style chunks (delta.content), then a
// usage chunk when stream_include_usage is set, then [DONE]; otherwise
// one {"text": …, "usage": {…}} body.

// TranscribeTime is the mock's processing time per second of audio (a
// real-time factor of 0.02).
const TranscribeTime = 20 * time.Millisecond

// TranscribeWords is the words per second of audio the mock transcribes.
const TranscribeWords = 2.5

var _ = serves(reqtype.APITranscriptions, (*Server).serveTranscription)

// serveTranscription serves POST on the transcription and translation
// paths.
func (s *Server) serveTranscription(w http.ResponseWriter, r *http.Request) {
	arrival := time.Now()
	r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
	if err := r.ParseMultipartForm(maxBodyBytes); err != nil {
		s.stats.rejected.Add(1)
		writeAPIError(w, badRequest("", "want a multipart/form-data body: %v", err))
		return
	}
	if m := r.FormValue("model"); m != "" && !s.cfg.serves(m) {
		s.stats.rejected.Add(1)
		writeAPIError(w, &apiError{status: http.StatusNotFound, typ: "NotFoundError", param: "model", message: fmt.Sprintf("The model `%s` does not exist.", m)})
		return
	}
	f, _, err := r.FormFile("file")
	if err != nil {
		s.stats.rejected.Add(1)
		writeAPIError(w, badRequest("file", "file: Field required"))
		return
	}
	audio, err := io.ReadAll(f)
	f.Close()
	if err != nil || len(audio) == 0 {
		s.stats.rejected.Add(1)
		writeAPIError(w, badRequest("file", "file: empty or unreadable"))
		return
	}
	seconds := audioSeconds(audio)
	stream := r.FormValue("stream") == "true"
	usage := r.FormValue("stream_include_usage") == "true"
	k, done, ok := s.admitOne(w)
	if !ok {
		return
	}
	defer done()

	words := max(1, int(seconds*TranscribeWords+0.5))
	total := s.cfg.TTFT + time.Duration(seconds*float64(TranscribeTime))
	promptTokens := int(seconds * 50) // a Whisper encoder reads 50 frames per second
	wait := func(at time.Time) bool {
		t := time.NewTimer(time.Until(at))
		defer t.Stop()
		select {
		case <-t.C:
			return true
		case <-r.Context().Done():
		case <-s.ctx.Done():
		}
		s.stats.aborted.Add(1)
		return false
	}
	id, object := "trsc-"+strconv.FormatUint(k, 10), `","object":"transcription.chunk","created":`
	if r.URL.Path == reqtype.PathTranslations {
		id, object = "trsl-"+strconv.FormatUint(k, 10), `","object":"translation.chunk","created":`
	}
	if !stream {
		if !wait(arrival.Add(total)) {
			return
		}
		b := append([]byte(`{"text":`), appendJSONString(nil, transcript(words))...)
		b = append(b, `,"usage":{"type":"duration","seconds":`...)
		b = appendInt(b, int64(seconds+0.999))
		b = append(b, `,"prompt_tokens":`...)
		b = appendInt(b, int64(promptTokens))
		b = append(b, `,"completion_tokens":`...)
		b = appendInt(b, int64(words))
		b = append(b, "}}"...)
		s.stats.completed.Add(1)
		s.stats.tokens.Add(uint64(words))
		writeJSON(w, http.StatusOK, b)
		return
	}
	h := w.Header()
	h["Content-Type"] = eventStreamCT
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	flush := func() {
		if fl != nil {
			fl.Flush()
		}
	}
	flush()
	chunk := func(content string, finish bool, u int) []byte {
		b := append([]byte(`data: {"id":"`), id...)
		b = append(b, object...)
		b = appendInt(b, arrival.Unix())
		b = append(b, `,"model":`...)
		b = append(b, s.modelJSON...)
		if u >= 0 {
			b = append(b, `,"choices":[],"usage":{"prompt_tokens":`...)
			b = appendInt(b, int64(promptTokens))
			b = append(b, `,"completion_tokens":`...)
			b = appendInt(b, int64(u))
			b = append(b, `,"total_tokens":`...)
			b = appendInt(b, int64(promptTokens+u))
			return append(b, "}}\n\n"...)
		}
		b = append(b, `,"choices":[{"index":0,"delta":{"content":`...)
		b = appendJSONString(b, content)
		b = append(b, `},"finish_reason":`...)
		if finish {
			b = append(b, `"stop"`...)
		} else {
			b = append(b, "null"...)
		}
		return append(b, "}]}\n\n"...)
	}
	step := time.Duration(0)
	if words > 1 {
		step = (total - s.cfg.TTFT) / time.Duration(words-1)
	}
	for i := range words {
		if !wait(arrival.Add(s.cfg.TTFT + time.Duration(i)*step)) {
			return
		}
		word := vocabWord(i)
		if i == 0 {
			word = word[1:]
		}
		if _, err := w.Write(chunk(word, i == words-1, -1)); err != nil {
			s.stats.aborted.Add(1)
			return
		}
		s.stats.tokens.Add(1)
		flush()
	}
	if usage {
		_, _ = w.Write(chunk("", false, words))
	}
	_, _ = w.Write([]byte("data: [DONE]\n\n"))
	flush()
	s.stats.completed.Add(1)
}

// audioSeconds is a WAV file's length (its data chunk over its byte
// rate), else the size at 16 kB/s (16-bit mono 8 kHz, or compressed).
func audioSeconds(b []byte) float64 {
	if len(b) >= 44 && string(b[0:4]) == "RIFF" && string(b[8:12]) == "WAVE" {
		rate := binary.LittleEndian.Uint32(b[28:32])
		for i := 12; i+8 <= len(b) && rate > 0; {
			size := int(binary.LittleEndian.Uint32(b[i+4:]))
			if string(b[i:i+4]) == "data" {
				return float64(min(size, len(b)-i-8)) / float64(rate)
			}
			i += 8 + size + size%2
		}
	}
	return float64(len(b)) / 16000
}

// transcript is n words of the mock's vocabulary.
func transcript(n int) string {
	b := make([]byte, 0, 8*n)
	for i := range n {
		b = append(b, vocabWord(i)...)
	}
	return string(b[1:])
}

// vocabWord is word i of a transcript, with its leading space.
func vocabWord(i int) string { return vocab[i%len(vocab)] }
