package loadgen

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/reqtype"
	"github.com/goodput-dev/goodput/sse"
)

// Image generation, OpenAI's API: one JSON body {"model", "prompt", "n",
// "size", "response_format"} (n is BatchSize, default 1; --extra-body
// keys replace size 1024x1024 and response_format b64_json), answered
// with {"created", "data": [{"b64_json"} or {"url"}, …], "usage"?}. The
// request has no tokens to time: its latency is the request's, and the
// images it brought back are the record's inputs.
var _ = register(reqtype.APIImages, &api{body: (*Client).appendImagesBody, read: (*Client).readImages})

// appendImagesBody renders an image generation request: the request's
// text is the prompt.
func (c *Client) appendImagesBody(b []byte, req *Request, model []byte) []byte {
	b = append(b, `{"model":`...)
	b = append(b, model...)
	b = record.AppendJSONString(append(b, `,"prompt":`...), req.Text())
	if !c.hasExtra("n") {
		b = strconv.AppendInt(append(b, `,"n":`...), int64(max(c.cfg.BatchSize, 1)), 10)
	}
	if !c.hasExtra("size") {
		b = append(b, `,"size":"1024x1024"`...)
	}
	if !c.hasExtra("response_format") {
		b = append(b, `,"response_format":"b64_json"`...)
	}
	return c.closeBody(b)
}

// imagesBody is the part of an image generation response that is read:
// each image is checked to carry its data or its URL, never decoded.
type imagesBody struct {
	Data *[]struct {
		B64 json.RawMessage `json:"b64_json"`
		URL json.RawMessage `json:"url"`
	} `json:"data"`
	Usage *struct {
		InputTokens *int `json:"input_tokens"`
	} `json:"usage"`
}

// readImages reads an image generation response: it must bring back
// between 1 and n images, each with its data or URL. Its prompt tokens are
// the server's usage, else the client's count.
func (c *Client) readImages(ctx context.Context, resp *http.Response, st *streamState, wd *watchdog, _ *Request) {
	rec, cn := st.rec, st.cn
	if !c.readAll(ctx, resp, st, wd) {
		return
	}
	var body imagesBody
	if err := json.Unmarshal(cn.text, &body); err != nil || body.Data == nil {
		ch := chunks.Get().(*sse.Chunk)
		defer chunks.Put(ch)
		switch {
		case sse.DecodeResponse(cn.text, ch) == nil && ch.Err != nil:
			c.fail(rec, record.ErrStreamError, ch.Err.Error())
		case err != nil:
			c.fail(rec, record.ErrProtocol, "malformed response: "+err.Error())
		default:
			c.fail(rec, record.ErrProtocol, "malformed response: no data")
		}
		return
	}
	rec.OutputTokens, rec.OutputSource = 0, record.TokensUnknown
	if u := body.Usage; u != nil && u.InputTokens != nil {
		rec.ServerPromptTokens, rec.PromptTokens = *u.InputTokens, *u.InputTokens
	} else if rec.ClientPromptTokens >= 0 {
		rec.PromptTokens = rec.ClientPromptTokens
	}
	images, want := *body.Data, max(c.cfg.BatchSize, 1)
	switch {
	case len(images) == 0:
		c.fail(rec, record.ErrEmptyResponse, "response carried no image")
		return
	case len(images) > want && !c.hasExtra("n"):
		c.fail(rec, record.ErrProtocol, fmt.Sprintf("response carried %d images for n=%d", len(images), want))
		return
	}
	for i, im := range images {
		if blank(im.B64) && blank(im.URL) {
			c.fail(rec, record.ErrProtocol, fmt.Sprintf("image %d carries neither b64_json nor url", i))
			return
		}
	}
	rec.Inputs = len(images)
	rec.Status = record.StatusSuccessful
}

// blank reports whether a JSON value is absent, null or "".
func blank(v json.RawMessage) bool {
	return len(v) == 0 || string(v) == "null" || string(v) == `""`
}
