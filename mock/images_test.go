package mock

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The mock answers OpenAI's image generation with n small PNGs, the same
// for the same seed and request, after TTFT + n × ImageTime, and with
// vLLM-style 400s for a bad request.
func TestServeImages(t *testing.T) {
	cfg := fastConfig()
	cfg.TTFT = 5 * time.Millisecond
	s := startServer(t, cfg)
	url := s.URL() + "/v1/images/generations"
	type answer struct {
		Data []struct {
			B64 string `json:"b64_json"`
			URL string `json:"url"`
		} `json:"data"`
		Usage struct {
			InputTokens int `json:"input_tokens"`
		} `json:"usage"`
	}
	get := func(body string) (answer, time.Duration) {
		t.Helper()
		start := time.Now()
		resp := post(t, nil, url, body)
		raw := readAll(t, resp)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: HTTP %d %s", body, resp.StatusCode, raw)
		}
		var a answer
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatal(err)
		}
		return a, time.Since(start)
	}
	a, lat := get(`{"model":"` + cfg.Model + `","prompt":"a red fox","n":3,"size":"1024x1024","response_format":"b64_json"}`)
	if want := cfg.TTFT + 3*ImageTime; len(a.Data) != 3 || a.Usage.InputTokens <= 0 || lat < want {
		t.Fatalf("%d images, %d input tokens, latency %v (want ≥ %v)", len(a.Data), a.Usage.InputTokens, lat, want)
	}
	for i, d := range a.Data {
		raw, err := base64.StdEncoding.DecodeString(d.B64)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(raw))
		if err != nil || img.Bounds().Dx() != ImageSide || img.Bounds().Dy() != ImageSide {
			t.Fatalf("image %d: %v %v", i, err, img)
		}
	}
	u, _ := get(`{"prompt":"a red fox"}`) // OpenAI's defaults: one image, as a URL
	if len(u.Data) != 1 || !strings.HasPrefix(u.Data[0].URL, "data:image/png;base64,") || u.Data[0].B64 != "" {
		t.Fatalf("default answer %+v", u)
	}

	// The same seed and request number draw the same images.
	s2 := startServer(t, cfg)
	again := post(t, nil, s2.URL()+"/v1/images/generations", `{"prompt":"a red fox","n":3,"response_format":"b64_json"}`)
	var b answer
	if err := json.Unmarshal(readAll(t, again), &b); err != nil || len(b.Data) != 3 || b.Data[1].B64 != a.Data[1].B64 {
		t.Fatalf("another server, same seed: %v, %+v", err, b)
	}

	for _, body := range []string{`{"n":1}`, `{"prompt":"x","n":0}`, `{"prompt":"x","n":11}`, `{"prompt":"x","response_format":"png"}`,
		`{"prompt":"x","size":"big"}`, `[1]`} {
		resp := post(t, nil, url, body)
		raw := readAll(t, resp)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(raw), `"type":"BadRequestError"`) {
			t.Errorf("%s: HTTP %d %s", body, resp.StatusCode, raw)
		}
	}
}
