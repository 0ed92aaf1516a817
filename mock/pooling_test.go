package mock

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"
)

// vLLM's /pooling: a prompt's input gets one vector per input with its
// usage after TTFT + tokens × PoolingTokenTime; an IO plugin's data object
// gets the segmentation plugin's answer, the same for the same seed and
// request, after TTFT + PoolingDataTime; a bad body is a 400.
func TestServeVLLMPooling(t *testing.T) {
	cfg := fastConfig()
	cfg.TTFT = 5 * time.Millisecond
	s := startServer(t, cfg)
	url := s.URL() + "/pooling"
	call := func(s *Server, body string) ([]byte, time.Duration) {
		t.Helper()
		start := time.Now()
		resp := post(t, nil, s.URL()+"/pooling", body)
		raw := readAll(t, resp)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: HTTP %d %s", body, resp.StatusCode, raw)
		}
		return raw, time.Since(start)
	}

	raw, lat := call(s, `{"model":"`+cfg.Model+`","input":["a flooded field","a dry field"]}`)
	var vec struct {
		Object string `json:"object"`
		Data   []struct {
			Index  int       `json:"index"`
			Object string    `json:"object"`
			Data   []float64 `json:"data"`
		} `json:"data"`
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(raw, &vec); err != nil {
		t.Fatal(err)
	}
	want := cfg.TTFT + time.Duration(vec.Usage.PromptTokens)*PoolingTokenTime
	if vec.Object != "list" || len(vec.Data) != 2 || vec.Data[1].Index != 1 || vec.Data[1].Object != "pooling" || len(vec.Data[1].Data) != EmbeddingDims ||
		vec.Usage.PromptTokens < 6 || lat < want {
		t.Fatalf("input: %d results, usage %d, latency %v (want ≥ %v): %.200s", len(vec.Data), vec.Usage.PromptTokens, lat, want, raw)
	}

	flood := `{"model":"` + cfg.Model + `","data":{"data":"https://example.com/a.tif","data_format":"url","out_data_format":"b64_json","indices":[1,2,3]},"priority":0}`
	raw, lat = call(s, flood)
	var out struct {
		RequestID string `json:"request_id"`
		CreatedAt int64  `json:"created_at"`
		Data      struct {
			Type, Format, Data string
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	tiff, err := base64.StdEncoding.DecodeString(out.Data.Data)
	if err != nil || out.RequestID == "" || out.CreatedAt == 0 || out.Data.Type != "b64_json" || out.Data.Format != "tiff" ||
		len(tiff) != 8 || !bytes.HasPrefix(tiff, []byte("II*\x00")) || lat < cfg.TTFT+PoolingDataTime {
		t.Fatalf("data: %s (tiff %v), latency %v", raw, err, lat)
	}
	// Request k of another server with the same seed draws the same output.
	s2 := startServer(t, cfg)
	call(s2, `{"input":"x"}`)
	raw2, _ := call(s2, flood)
	if !bytes.Equal(raw2[bytes.Index(raw2, []byte(`"data":`)):], raw[bytes.Index(raw, []byte(`"data":`)):]) {
		t.Fatalf("same seed, same request: %s then %s", raw, raw2)
	}

	for _, body := range []string{`{}`, `{"data":"a.tif"}`, `{"data":{},"priority":"high"}`, `{"input":[]}`, `[1]`} {
		resp := post(t, nil, url, body)
		raw := readAll(t, resp)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(raw), `"type":"BadRequestError"`) {
			t.Errorf("%s: HTTP %d %s", body, resp.StatusCode, raw)
		}
	}
}

// Translations are served as transcriptions, with vLLM's translation
// chunks.
func TestServeTranslation(t *testing.T) {
	cfg := fastConfig()
	s := startServer(t, cfg)
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("model", cfg.Model)
	_ = mw.WriteField("stream", "true")
	f, _ := mw.CreateFormFile("file", "a.wav")
	_, _ = f.Write(make([]byte, 16000)) // one second at the mock's 16 kB/s of a non-WAV file
	_ = mw.Close()
	resp, err := http.Post(s.URL()+"/v1/audio/translations", mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	raw := string(readAll(t, resp))
	if resp.StatusCode != http.StatusOK || !strings.Contains(raw, `"object":"translation.chunk"`) || strings.Contains(raw, "transcription") || !strings.HasSuffix(raw, "data: [DONE]\n\n") {
		t.Fatalf("HTTP %d %s", resp.StatusCode, raw)
	}
}
