package loadgen

import (
	"encoding/json"
	"strconv"

	"github.com/goodput-dev/goodput/reqtype"
	"github.com/goodput-dev/goodput/sse"
)

// The transcription API (EndpointTranscriptions) is OpenAI's, as vLLM
// serves it: a multipart/form-data request (the audio file, the model,
// stream), answered with {"text": …} or, streamed, with chat-style
// chunks whose delta.content carries the text. Its audio is the
// request's first audio clip (Request.Media).
var _ = register(reqtype.APITranscriptions, &api{
	body:        (*Client).appendMultipart,
	decode:      sse.DecodeTranscriptionEvent,
	decodeAll:   decodeTranscription,
	contentType: "multipart/form-data; boundary=" + multipartBoundary,
})

// multipartBoundary separates the parts of a transcription request: long
// and random enough never to occur in an audio file by chance.
const multipartBoundary = "goodput-7c1e0b5f9a3d4e62b8f1c0a9d7e5b3f1"

// audioOf returns the first audio clip of req (nil when none).
func audioOf(req *Request) *Media {
	for i := range req.Media {
		if req.Media[i].Kind == "audio" {
			return &req.Media[i]
		}
	}
	return nil
}

// appendMultipart renders a transcription request's body: the fields
// model, response_format json, stream (and vLLM's usage options when
// streamed), then the file.
func (c *Client) appendMultipart(b []byte, req *Request, model []byte) []byte {
	field := func(b []byte, name, value string) []byte {
		b = append(b, "--"+multipartBoundary+"\r\nContent-Disposition: form-data; name=\""...)
		b = append(b, name...)
		b = append(b, "\"\r\n\r\n"...)
		b = append(b, value...)
		return append(b, "\r\n"...)
	}
	var name string
	_ = json.Unmarshal(model, &name)
	b = field(b, "model", name)
	b = field(b, "response_format", "json")
	b = field(b, "stream", strconv.FormatBool(!c.cfg.NoStream))
	if !c.cfg.NoStream && !c.cfg.NoStreamUsage {
		b = field(b, "stream_include_usage", "true")
		b = field(b, "stream_continuous_usage_stats", "true")
	}
	for _, f := range c.extra { // --extra-body keys as form fields
		v := string(f.raw)
		var s string
		if json.Unmarshal(f.raw, &s) == nil {
			v = s
		}
		b = field(b, f.key, v)
	}
	if a := audioOf(req); a != nil {
		ext := map[string]string{"audio/wav": "wav", "audio/mpeg": "mp3", "audio/flac": "flac", "audio/ogg": "ogg"}[a.MIME]
		b = append(b, "--"+multipartBoundary+"\r\nContent-Disposition: form-data; name=\"file\"; filename=\"audio."...)
		b = append(b, ext...)
		b = append(b, "\"\r\nContent-Type: "...)
		b = append(b, a.MIME...)
		b = append(b, "\r\n\r\n"...)
		b = append(b, a.Data...)
		b = append(b, "\r\n"...)
	}
	return append(b, "--"+multipartBoundary+"--\r\n"...)
}

// decodeTranscription decodes a non-streamed transcription body,
// {"text": …, "usage": {…}}, into c (an error body as DecodeResponse
// does).
func decodeTranscription(body []byte, c *sse.Chunk) error {
	var t struct {
		Text  *string `json:"text"`
		Usage *struct {
			PromptTokens *int `json:"prompt_tokens"`
			OutputTokens *int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(body, &t); err != nil || t.Text == nil {
		return sse.DecodeResponse(body, c) // an error body, or not a transcription
	}
	c.Reset()
	c.Content = []byte(*t.Text)
	c.FinishReason = []byte("stop")
	if u := t.Usage; u != nil && u.OutputTokens != nil {
		c.Usage.Present = true
		c.Usage.CompletionTokens = *u.OutputTokens
		if u.PromptTokens != nil {
			c.Usage.PromptTokens = *u.PromptTokens
		}
	}
	return nil
}
