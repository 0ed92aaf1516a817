package loadgen

import (
	"context"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/reqtype"
)

const (
	endpointPooling      = Endpoint(reqtype.PathPooling)
	endpointTranslations = Endpoint(reqtype.PathTranslations)
)

// The /pooling body is vLLM's: a data object's "data" and "priority"
// members after the model (GuideLLM's geospatial form), or, from a
// prompt, the text as the one input of a pooling completion request;
// --extra-body's keys go last.
func TestVLLMPoolingBody(t *testing.T) {
	flood := `{"data": {"data": "https://example.com/a.tif", "data_format": "url", "indices": [1, 2]}, "priority": 0, "note": "not sent"}`
	data, err := NewPoolingDataRequest([]byte(flood))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		req   *Request
		extra string
		want  string
	}{
		{"data", data, "", `{"model":"m","data":{"data":"https://example.com/a.tif","data_format":"url","indices":[1,2]},"priority":0}`},
		{"data, extra body", data, `{"softmax":false}`, `{"model":"m","data":{"data":"https://example.com/a.tif","data_format":"url","indices":[1,2]},"priority":0,"softmax":false}`},
		{"prompt", NewRequest("", "a flooded field", -1), "", `{"model":"m","input":["a flooded field"],"encoding_format":"float"}`},
	} {
		var got []byte
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got, _ = io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"request_id":"r1","created_at":1,"data":{"type":"b64_json","format":"tiff","data":"SUkqAA=="}}`)
		}))
		c, err := NewClient(ClientConfig{Target: srv.URL, Endpoint: endpointPooling, Model: "m", ExtraBody: tc.extra}, NewClock())
		if err != nil {
			t.Fatal(err)
		}
		req, _ := c.Group(listSource{tc.req}).Request(0)
		rec := record.New()
		c.Do(context.Background(), req, rec, newConn())
		srv.Close()
		if string(got) != tc.want || rec.Status != record.StatusSuccessful || rec.Inputs != 1 || rec.ResponseID != "r1" {
			t.Fatalf("%s: body %s (want %s), %s %s, %d inputs, id %q", tc.name, got, tc.want, rec.Status, rec.Error, rec.Inputs, rec.ResponseID)
		}
	}
}

// listSource is a finite source of given requests.
type listSource []*Request

func (l listSource) Request(i uint64) (*Request, bool) {
	if i >= uint64(len(l)) {
		return nil, false
	}
	return l[i], true
}

func (l listSource) Len() int { return len(l) }

// A data object must carry "data"; its priority is an integer.
func TestNewPoolingDataRequestErrors(t *testing.T) {
	for in, want := range map[string]string{
		`"a flood"`:                        "want a JSON object",
		`{"priority":1}`:                   `no "data" member`,
		`{"data":null}`:                    `no "data" member`,
		`{"data":{},"priority":1.5}`:       "priority: want an integer, got 1.5",
		`{"data":{"x":1},"priority":null}`: "",
	} {
		_, err := NewPoolingDataRequest([]byte(in))
		if (err == nil) != (want == "") || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: error %v, want %q", in, err, want)
		}
	}
}

// Against the mock, a data object's request takes TTFT + PoolingDataTime
// and a prompt's TTFT + tokens × PoolingTokenTime, with the server's
// usage; a data object sent to another pooling type is refused before
// the run.
func TestVLLMPoolingAgainstMock(t *testing.T) {
	srv := startMock(t, func(c *mock.Config) { c.TTFT = 5 * time.Millisecond })
	c, err := NewClient(ClientConfig{Target: srv.URL(), Endpoint: endpointPooling, Model: srv.Config().Model}, NewClock())
	if err != nil {
		t.Fatal(err)
	}
	data, err := NewPoolingDataRequest([]byte(`{"data":{"data":"https://example.com/a.tif","data_format":"url"},"priority":0}`))
	if err != nil {
		t.Fatal(err)
	}
	src := c.Group(listSource{data, NewRequest("", "the river rose over the fields", -1)})
	for i, name := range []string{"data", "prompt"} {
		req, _ := src.Request(uint64(i))
		rec := record.New()
		c.Do(context.Background(), req, rec, newConn())
		want := 5*time.Millisecond + mock.PoolingDataTime
		if name == "prompt" {
			if rec.ServerPromptTokens < 5 {
				t.Fatalf("prompt: server tokens %d", rec.ServerPromptTokens)
			}
			want = 5*time.Millisecond + time.Duration(rec.ServerPromptTokens)*mock.PoolingTokenTime
		}
		lat := time.Duration(rec.End - rec.Dispatched)
		if rec.Status != record.StatusSuccessful || rec.Inputs != 1 || rec.FirstToken != 0 || lat < want || lat > want+200*time.Millisecond {
			t.Fatalf("%s: %s %s, %d inputs, latency %v, want %v", name, rec.Status, rec.Error, rec.Inputs, lat, want)
		}
	}
	if err := CheckMedia(EndpointEmbeddings, data); err == nil || !strings.Contains(err.Error(), "--request-type pooling") {
		t.Fatalf("embeddings with a data object: %v", err)
	}
}

// A translation is a transcription's multipart request on its own path,
// and measured alike against the mock.
func TestTranslationAgainstMock(t *testing.T) {
	var (
		mu          sync.Mutex // the proxy's handler writes, the test reads
		path, model string
		hits        int
	)
	srv := startMock(t, func(c *mock.Config) { c.TTFT = 10 * time.Millisecond })
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		hits++
		path = r.URL.Path
		if _, params, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil {
			body, _ := io.ReadAll(r.Body)
			form, err := multipart.NewReader(strings.NewReader(string(body)), params["boundary"]).ReadForm(1 << 20)
			if err == nil {
				model = strings.Join(form.Value["model"], ",")
			}
			r.Body = io.NopCloser(strings.NewReader(string(body)))
		}
		resp, err := http.Post(srv.URL()+r.URL.Path, r.Header.Get("Content-Type"), r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	defer proxy.Close()
	c, err := NewClient(ClientConfig{Target: proxy.URL, Endpoint: endpointTranslations, Model: srv.Config().Model}, NewClock())
	if err != nil {
		t.Fatal(err)
	}
	req := NewRequest("", "x", -1)
	req.Media = []Media{wavClip(2, 16000)}
	rec := record.New()
	c.Do(context.Background(), req, rec, newConn())
	want := 10*time.Millisecond + 2*mock.TranscribeTime
	lat := time.Duration(rec.End - rec.Dispatched)
	mu.Lock()
	defer mu.Unlock()
	if hits != 1 || path != reqtype.PathTranslations || model != srv.Config().Model {
		t.Fatalf("sent %d requests to %q, model %q", hits, path, model)
	}
	if rec.Status != record.StatusSuccessful || rec.AudioSeconds != 2 || rec.OutputTokens < 4 || lat < want || lat > want+200*time.Millisecond {
		t.Fatalf("%s %s, %g s, %d tokens, latency %v, want %v", rec.Status, rec.Error, rec.AudioSeconds, rec.OutputTokens, lat, want)
	}
	if err := CheckMedia(endpointTranslations, NewRequest("", "x", -1)); err == nil {
		t.Fatal("a translation without audio accepted")
	}
}
