package loadgen

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/reqtype"
)

// textSource hands out requests "p0", "p1", … of 3 tokens each; n > 0
// makes it finite.
type textSource struct{ n int }

func (s textSource) Request(i uint64) (*Request, bool) {
	if s.n > 0 && i >= uint64(s.n) {
		return nil, false
	}
	r := NewRequest("", "p"+strconv.FormatUint(i, 10), -1)
	r.PromptTokens, r.TargetPromptTokens = 3, 3
	return r, true
}

func (s textSource) Len() int { return s.n }

// Group gathers BatchSize prompts per embeddings request, and a query and
// BatchSize documents per rerank request, whose tokens count the query
// once per document; a finite source's last group may be short.
func TestGroupBatchesPrompts(t *testing.T) {
	emb := &Client{cfg: ClientConfig{Endpoint: EndpointEmbeddings, BatchSize: 3}}
	src := emb.Group(textSource{n: 7})
	if n := src.(interface{ Len() int }).Len(); n != 3 {
		t.Fatalf("Len %d, want 3", n)
	}
	var got [][]string
	for i := uint64(0); ; i++ {
		r, ok := src.Request(i)
		if !ok {
			break
		}
		got = append(got, r.pool.inputs)
		if r.PromptTokens != 3*len(r.pool.inputs) || r.Inputs() != len(r.pool.inputs) {
			t.Fatalf("request %d: %d tokens, %d inputs", i, r.PromptTokens, r.Inputs())
		}
	}
	if want := [][]string{{"p0", "p1", "p2"}, {"p3", "p4", "p5"}, {"p6"}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("groups %v, want %v", got, want)
	}

	rr := &Client{cfg: ClientConfig{Endpoint: EndpointRerank, BatchSize: 2}}
	src = rr.Group(textSource{n: 7})
	if n := src.(interface{ Len() int }).Len(); n != 2 { // p0|p1 p2, p3|p4 p5, p6 alone has no document
		t.Fatalf("Len %d, want 2", n)
	}
	r, ok := src.Request(1)
	if !ok || r.pool.query != "p3" || !slices.Equal(r.pool.inputs, []string{"p4", "p5"}) || r.PromptTokens != 2*3+2*3 {
		t.Fatalf("rerank request %+v %+v", r, r.pool)
	}
	if _, ok := src.Request(2); ok {
		t.Fatal("a query without a document was sent")
	}
	chat := &Client{cfg: ClientConfig{Endpoint: EndpointChat}}
	if s := (textSource{}); chat.Group(s) != Source(s) {
		t.Fatal("Group changed a chat source")
	}
	// Requests that carry their own inputs (AIPerf's texts records) go
	// as they are, whatever BatchSize says.
	if s := (pooledSource{textSource{n: 7}}); emb.Group(s) != Source(s) || rr.Group(s) != Source(s) {
		t.Fatal("Group regrouped a source of pooled requests")
	}
}

// pooledSource says its requests carry their own inputs.
type pooledSource struct{ textSource }

func (pooledSource) Pooled() bool { return true }

// Against the mock, whose latency is TTFT + tokens × PoolingTokenTime, a
// pooling request's latency is the mock's, its tokens the server's usage,
// and it has no first token; an answer with the wrong number of
// embeddings is a protocol error.
func TestPoolingMeasuresLatency(t *testing.T) {
	srv := startMock(t, func(c *mock.Config) { c.TTFT = 5 * time.Millisecond })
	for _, ep := range []Endpoint{EndpointEmbeddings, EndpointRerank, EndpointTEIRerank, EndpointNIMRanking, EndpointScore} {
		c, err := NewClient(ClientConfig{Target: srv.URL(), Endpoint: ep, Model: srv.Config().Model}, NewClock())
		if err != nil {
			t.Fatal(err)
		}
		docs := make([]string, 16)
		for i := range docs {
			docs[i] = "the quick brown fox jumps over the lazy dog " + strconv.Itoa(i)
		}
		req := NewRerankRequest("where is the fox?", docs)
		if ep == EndpointEmbeddings {
			req = NewEmbeddingsRequest(docs)
		}
		rec := record.New()
		c.Do(context.Background(), req, rec, newConn())
		if rec.Status != record.StatusSuccessful || rec.Inputs != 16 || rec.FirstToken != 0 || len(rec.ChunkTimes) != 0 {
			t.Fatalf("%s: %+v", ep, rec)
		}
		tokens := max(rec.ServerPromptTokens, 0)
		if ep != EndpointTEIRerank && ep != EndpointNIMRanking && tokens < 16*10 {
			t.Fatalf("%s: server tokens %d", ep, rec.ServerPromptTokens)
		}
		want := 5*time.Millisecond + time.Duration(tokens)*mock.PoolingTokenTime
		if lat := time.Duration(rec.End - rec.Dispatched); lat < want || lat > want+200*time.Millisecond {
			t.Fatalf("%s: latency %v, mock says %v", ep, lat, want)
		}
	}
	// One embedding for two inputs is a protocol error.
	one := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,0.2]}],"usage":{"prompt_tokens":2,"total_tokens":2}}`))
	}))
	defer one.Close()
	c, err := NewClient(ClientConfig{Target: one.URL, Endpoint: EndpointEmbeddings, Model: "m"}, NewClock())
	if err != nil {
		t.Fatal(err)
	}
	rec := record.New()
	c.Do(context.Background(), NewEmbeddingsRequest([]string{"a", "b"}), rec, newConn())
	if rec.ErrorClass != record.ErrProtocol || rec.Error != "response carried 1 embeddings for 2 inputs" {
		t.Fatalf("two inputs, one embedding: %+v", rec)
	}
	// An unknown model is the API's 404.
	c2, err := NewClient(ClientConfig{Target: srv.URL(), Endpoint: EndpointRerank, Model: "nope"}, NewClock())
	if err != nil {
		t.Fatal(err)
	}
	rec = record.New()
	c2.Do(context.Background(), NewRerankRequest("q", []string{"d"}), rec, newConn())
	if rec.ErrorClass != record.ErrHTTPStatus || rec.HTTPStatus != 404 {
		t.Fatalf("unknown model: %+v", rec)
	}
}

// Every request type of the table has its body and decoders registered.
func TestEveryRequestTypeHasAnAPI(t *testing.T) {
	for i := range reqtype.All {
		rt := &reqtype.All[i]
		a := apis[rt.API]
		switch {
		case a == nil || a.body == nil:
			t.Errorf("%s: no body", rt.Name)
		case rt.Stream && (a.decode == nil || a.decodeAll == nil):
			t.Errorf("%s streams without decoders", rt.Name)
		case !rt.Stream && a.read == nil:
			t.Errorf("%s: one body, no reader", rt.Name)
		}
	}
}
