package mock

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"time"

	"github.com/goodput-dev/goodput/reqtype"
)

// Image generation (OpenAI's images API): n images of ImageSide×ImageSide
// pixels, one flat colour each drawn from the seed, the request and the
// image's index (so deterministic), as PNG, sent as b64_json or, with
// response_format url, as a data: URL. The work grows with the images:
//
//	latency = TTFT + n × ImageTime
//
// The requested size is checked (auto or WIDTHxHEIGHT), not drawn.

// ImageTime is the mock's time per generated image.
const ImageTime = 20 * time.Millisecond

// ImageSide is the side, in pixels, of the mock's images.
const ImageSide = 8

// maxImages is the most images one request may ask for (OpenAI's limit).
const maxImages = 10

var _ = serves(reqtype.APIImages, (*Server).serveImages)

// imagesRequest is the image generation request the mock reads.
type imagesRequest struct {
	Model          *string `json:"model"`
	Prompt         *string `json:"prompt"`
	N              *int    `json:"n"`
	Size           *string `json:"size"`
	ResponseFormat *string `json:"response_format"`
}

// serveImages serves POST on the images path.
func (s *Server) serveImages(w http.ResponseWriter, r *http.Request) {
	arrival := time.Now()
	st := s.streams.Get().(*stream)
	defer s.putStream(st)
	body, err := readBody(r, st.body[:0])
	st.body = body[:0]
	if err != nil {
		s.stats.rejected.Add(1)
		writeAPIError(w, badRequest("", "reading request body: %v", err))
		return
	}
	var req imagesRequest
	n, format := 1, "url" // OpenAI's defaults
	if err := json.Unmarshal(body, &req); err != nil {
		s.stats.rejected.Add(1)
		writeAPIError(w, badRequest("", "request body is not a valid JSON object: %v", err))
		return
	}
	if req.N != nil {
		n = *req.N
	}
	if req.ResponseFormat != nil {
		format = *req.ResponseFormat
	}
	var apiErr *apiError
	switch {
	case req.Model != nil && *req.Model != "" && !s.cfg.serves(*req.Model):
		apiErr = &apiError{status: http.StatusNotFound, typ: "NotFoundError", param: "model",
			message: fmt.Sprintf("The model `%s` does not exist.", *req.Model)}
	case req.Prompt == nil || *req.Prompt == "":
		apiErr = badRequest("prompt", "prompt: Field required")
	case n < 1 || n > maxImages:
		apiErr = badRequest("n", "n: %d is not between 1 and %d", n, maxImages)
	case req.Size != nil && !validSize(*req.Size):
		apiErr = badRequest("size", "size: %q is not auto or WIDTHxHEIGHT", *req.Size)
	case format != "url" && format != "b64_json":
		apiErr = badRequest("response_format", "response_format: %q is not one of url, b64_json", format)
	}
	if apiErr != nil {
		s.stats.rejected.Add(1)
		writeAPIError(w, apiErr)
		return
	}
	tokens := s.count(*req.Prompt)
	k, done, ok := s.admitOne(w)
	if !ok {
		return
	}
	defer done()
	if !s.holdUntil(r, arrival.Add(s.cfg.TTFT+time.Duration(n)*ImageTime)) {
		return
	}
	b := append(make([]byte, 0, 256*n+256), `{"created":`...)
	b = appendInt(b, arrival.Unix())
	b = append(b, `,"data":[`...)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		data := base64.StdEncoding.EncodeToString(s.imagePNG(k, i))
		if format == "url" {
			b = appendJSONString(append(b, `{"url":`...), "data:image/png;base64,"+data)
		} else {
			b = appendJSONString(append(b, `{"b64_json":`...), data)
		}
		b = append(b, '}')
	}
	b = append(b, `],"usage":{"input_tokens":`...)
	b = appendInt(b, int64(tokens))
	b = append(b, `,"output_tokens":0,"total_tokens":`...)
	b = appendInt(b, int64(tokens))
	b = append(b, `,"input_tokens_details":{"text_tokens":`...)
	b = appendInt(b, int64(tokens))
	b = append(b, `,"image_tokens":0}}}`...)
	s.stats.completed.Add(1)
	s.metrics.e2e.observeN(time.Since(arrival), 1)
	writeJSON(w, http.StatusOK, b)
}

// imagePNG is request k's image i: a flat colour from the seed.
func (s *Server) imagePNG(k uint64, i int) []byte {
	x := splitmix64(s.cfg.Seed ^ splitmix64(k<<8^uint64(i)^0x696d616765))
	img := image.NewRGBA(image.Rect(0, 0, ImageSide, ImageSide))
	c := color.RGBA{R: uint8(x), G: uint8(x >> 8), B: uint8(x >> 16), A: 255}
	for p := 0; p < len(img.Pix); p += 4 {
		img.Pix[p], img.Pix[p+1], img.Pix[p+2], img.Pix[p+3] = c.R, c.G, c.B, c.A
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img) // writing to memory cannot fail
	return buf.Bytes()
}

// validSize reports whether size is auto or WIDTHxHEIGHT.
func validSize(size string) bool {
	var w, h int
	n, err := fmt.Sscanf(size, "%dx%d", &w, &h)
	return size == "auto" || err == nil && n == 2 && w > 0 && h > 0 && fmt.Sprintf("%dx%d", w, h) == size
}
