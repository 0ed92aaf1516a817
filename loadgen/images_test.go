package loadgen

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/reqtype"
)

const endpointImages = Endpoint(reqtype.PathImages)

// The body is OpenAI's: the model, the prompt, n from BatchSize, and size
// and response_format unless --extra-body gives them.
func TestImagesBody(t *testing.T) {
	for _, tc := range []struct {
		extra string
		want  string
	}{
		{"", `{"model":"m","prompt":"a red fox","n":3,"size":"1024x1024","response_format":"b64_json"}`},
		{`{"size":"256x256","response_format":"url","quality":"low"}`, `{"model":"m","prompt":"a red fox","n":3,"quality":"low","response_format":"url","size":"256x256"}`},
	} {
		var got []byte
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got, _ = io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"created":1,"data":[{"url":"https://x/1.png"}]}`)
		}))
		c, err := NewClient(ClientConfig{Target: srv.URL, Endpoint: endpointImages, Model: "m", BatchSize: 3, ExtraBody: tc.extra}, NewClock())
		if err != nil {
			t.Fatal(err)
		}
		rec := record.New()
		c.Do(context.Background(), NewRequest("", "a red fox", 64), rec, newConn())
		srv.Close()
		if string(got) != tc.want || rec.Status != record.StatusSuccessful || rec.Inputs != 1 {
			t.Fatalf("extra %s: body %s (want %s), %s %s, %d images", tc.extra, got, tc.want, rec.Status, rec.Error, rec.Inputs)
		}
	}
}

// Against the mock, a request's latency is TTFT + n × mock.ImageTime and
// it brings back n images, in either response format.
func TestImagesAgainstMock(t *testing.T) {
	srv := startMock(t, func(c *mock.Config) { c.TTFT = 10 * time.Millisecond })
	for _, format := range []string{"", `{"response_format":"url"}`} {
		c, err := NewClient(ClientConfig{Target: srv.URL(), Endpoint: endpointImages, Model: srv.Config().Model, BatchSize: 2, ExtraBody: format}, NewClock())
		if err != nil {
			t.Fatal(err)
		}
		rec := record.New()
		c.Do(context.Background(), NewRequest("", "a lighthouse at dusk", -1), rec, newConn())
		want := 10*time.Millisecond + 2*mock.ImageTime
		lat := time.Duration(rec.End - rec.Dispatched)
		if rec.Status != record.StatusSuccessful || rec.Inputs != 2 || rec.FirstToken != 0 || rec.ServerPromptTokens <= 0 || lat < want || lat > want+200*time.Millisecond {
			t.Fatalf("format %s: %s %s, %d images, %d prompt tokens, latency %v, want %v", format, rec.Status, rec.Error, rec.Inputs, rec.ServerPromptTokens, lat, want)
		}
	}
}

// An answer with no image, more images than asked, an image with neither
// data nor URL, or an error body fails the request.
func TestImagesBadAnswers(t *testing.T) {
	for body, want := range map[string]record.ErrorClass{
		`{"created":1,"data":[]}`:                           record.ErrEmptyResponse,
		`{"created":1,"data":[{"url":"u"},{"url":"u"}]}`:    record.ErrProtocol,
		`{"created":1,"data":[{"b64_json":null}]}`:          record.ErrProtocol,
		`{"created":1}`:                                     record.ErrProtocol,
		`{"error":{"message":"content policy","type":"x"}}`: record.ErrStreamError,
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, body)
		}))
		c, err := NewClient(ClientConfig{Target: srv.URL, Endpoint: endpointImages, Model: "m"}, NewClock())
		if err != nil {
			t.Fatal(err)
		}
		rec := record.New()
		c.Do(context.Background(), NewRequest("", "x", -1), rec, newConn())
		srv.Close()
		if rec.Status == record.StatusSuccessful || rec.ErrorClass != want {
			t.Errorf("%s: %s %s %q, want %s", body, rec.Status, rec.ErrorClass, rec.Error, want)
		}
	}
}
