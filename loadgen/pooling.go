package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/reqtype"
	"github.com/goodput-dev/goodput/sse"
)

// Pooling endpoints: one JSON body, no stream, no output tokens. What is
// measured is the request latency, the inputs (embedded texts, ranked
// documents) and their prompt tokens. Their bodies differ in the keys of
// the query and the inputs only; vLLM's /pooling sends a data object
// instead where the data gives one (NewPoolingDataRequest).
var (
	_ = register(reqtype.APIEmbeddings, poolingAPI("", "input"))
	_ = register(reqtype.APIRerank, poolingAPI("query", "documents"))
	_ = register(reqtype.APITEIRerank, poolingAPI("query", "texts"))
	_ = register(reqtype.APINIMRanking, &api{body: (*Client).appendNIMRankingBody, read: (*Client).readPooling})
	_ = register(reqtype.APIScore, poolingAPI("text_1", "text_2"))
	_ = register(reqtype.APIPooling, &api{body: (*Client).appendVLLMPoolingBody, read: (*Client).readPooling})
)

// poolingAPI is a pooling API whose body sends the query (none when
// query is "") and the inputs under these keys.
func poolingAPI(query, inputs string) *api {
	return &api{
		body: func(c *Client, b []byte, req *Request, model []byte) []byte {
			return c.appendPoolingBody(b, req, model, query, inputs)
		},
		read: (*Client).readPooling,
	}
}

// pooled is what a pooling request sends beside (or instead of) the chat
// messages: the inputs of an embeddings request, or a rerank's query and
// documents.
type pooled struct {
	inputs []string // embeddings inputs, or rerank documents
	query  string   // rerank and score only
	// data is a /pooling request's `"data":…,"priority":…` members
	// (NewPoolingDataRequest), sent instead of inputs; nil for others.
	data []byte
}

// NewEmbeddingsRequest builds an embeddings request of several inputs.
// PromptTokens and TargetPromptTokens are -1 (unknown) until set.
func NewEmbeddingsRequest(inputs []string) *Request {
	r := NewChatRequest(nil, -1)
	r.pool = &pooled{inputs: inputs}
	return r
}

// NewRerankRequest builds a rerank (or score) request: a query and the
// documents to rank against it.
func NewRerankRequest(query string, documents []string) *Request {
	r := NewChatRequest(nil, -1)
	r.pool = &pooled{inputs: documents, query: query}
	return r
}

// NewPoolingDataRequest builds a request of vLLM's /pooling endpoint
// served with an IO processor plugin (a geospatial model's, e.g.
// Prithvi's): obj is a JSON object whose "data" (required: the plugin's
// input) and "priority" members are sent as the body's, as GuideLLM's
// pooling column sends them; its other members are not sent. The
// request has no text and no prompt tokens.
func NewPoolingDataRequest(obj []byte) (*Request, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil || m == nil {
		return nil, errors.New(`want a JSON object such as {"data": {...}, "priority": 0}`)
	}
	data := m["data"]
	if len(data) == 0 || string(data) == "null" {
		return nil, errors.New(`no "data" member (the IO processor plugin's input), e.g. {"data": {...}, "priority": 0}`)
	}
	var b bytes.Buffer
	b.WriteString(`"data":`)
	if err := json.Compact(&b, data); err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	if p := m["priority"]; len(p) > 0 && string(p) != "null" {
		var n int64
		if json.Unmarshal(p, &n) != nil {
			return nil, fmt.Errorf("priority: want an integer, got %s", p)
		}
		b.WriteString(`,"priority":`)
		b.WriteString(strconv.FormatInt(n, 10))
	}
	r := NewChatRequest(nil, -1)
	r.pool = &pooled{data: b.Bytes()}
	return r, nil
}

// checkPooled reports whether endpoint e can send req: a /pooling data
// object goes to /pooling only.
func checkPooled(e Endpoint, req *Request) error {
	if req.pool == nil || req.pool.data == nil {
		return nil
	}
	if t, ok := e.Type(); !ok || t.API != reqtype.APIPooling {
		return fmt.Errorf("%s cannot send a pooling_column's data objects: use --request-type pooling (%s)", e, reqtype.PathPooling)
	}
	return nil
}

// Inputs is the number of inputs a pooling request carries (texts to
// embed, documents to rank, one /pooling data object); 0 for other
// requests.
func (r *Request) Inputs() int {
	switch {
	case r.pool == nil:
		return 0
	case r.pool.data != nil:
		return 1
	}
	return len(r.pool.inputs)
}

// Group returns the source the client's endpoint needs from a source of
// single prompts: for embeddings, requests of BatchSize inputs (the texts
// of BatchSize consecutive requests); for rerank and score, a query (one
// request's text) and BatchSize documents (the next BatchSize texts); for
// /pooling, one input (or the request's data object) each. For other
// endpoints, and for a source whose requests carry their own inputs
// (Pooled, AIPerf's texts records), src itself.
func (c *Client) Group(src Source) Source {
	rt, ok := c.cfg.Endpoint.Type()
	if src == nil || !ok || !rt.Pooling() {
		return src
	}
	if p, ok := src.(interface{ Pooled() bool }); ok && p.Pooled() {
		return src // each request carries its own inputs (AIPerf's texts records)
	}
	n := max(c.cfg.BatchSize, 1)
	if rt.Batch == "" {
		n = 1
	}
	g := &grouped{src: src, n: n, rerank: rt.Batch == "documents"}
	if g.rerank {
		g.stride = uint64(n) + 1
	} else {
		g.stride = uint64(n)
	}
	if f, ok := src.(interface{ Len() int }); ok {
		return finiteGroup{g, f.Len()}
	}
	return g
}

// grouped gathers consecutive requests of src into pooling requests.
type grouped struct {
	src    Source
	n      int
	stride uint64
	rerank bool
}

func (g *grouped) Request(i uint64) (*Request, bool) {
	base := i * g.stride
	first, ok := g.src.Request(base)
	if !ok {
		return nil, false
	}
	if first.pool != nil && first.pool.data != nil { // a /pooling data object, sent as it is (n is 1)
		return first, true
	}
	texts := make([]string, 0, g.n)
	known, target := 0, 0
	query := first.Text()
	if !g.rerank {
		texts = append(texts, query)
		known, target = first.PromptTokens, first.TargetPromptTokens
	}
	for len(texts) < g.n {
		r, ok := g.src.Request(base + uint64(len(texts)) + boolInt(g.rerank))
		if !ok {
			break // a finite source's last group may be short
		}
		texts = append(texts, r.Text())
		known, target = addKnown(known, r.PromptTokens), addKnown(target, r.TargetPromptTokens)
	}
	if len(texts) == 0 {
		return nil, false
	}
	var out *Request
	if g.rerank {
		// A reranker reads the query with each document: the tokens of
		// the request are the query's once per document plus the
		// documents'.
		out = NewRerankRequest(query, texts)
		known = addKnown(known, mulKnown(first.PromptTokens, len(texts)))
		target = addKnown(target, mulKnown(first.TargetPromptTokens, len(texts)))
	} else {
		out = NewEmbeddingsRequest(texts)
	}
	out.PromptTokens, out.TargetPromptTokens = known, target
	return out, true
}

func mulKnown(a, n int) int {
	if a < 0 {
		return -1
	}
	return a * n
}

func boolInt(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// addKnown adds two token counts, -1 (unknown) when either is.
func addKnown(a, b int) int {
	if a < 0 || b < 0 {
		return -1
	}
	return a + b
}

// finiteGroup is a grouped finite source: Len counts its requests.
type finiteGroup struct {
	*grouped
	rows int
}

func (f finiteGroup) Len() int {
	n, rest := f.rows/int(f.stride), f.rows%int(f.stride)
	if rest >= 2 || (rest == 1 && !f.rerank) { // a query needs a document
		n++
	}
	return n
}

// closeBody appends --extra-body's fields, which win over goodput's own,
// and closes the request's JSON object.
func (c *Client) closeBody(b []byte) []byte {
	for _, f := range c.extra {
		b = append(b, ',')
		b = appendJSONStr(b, f.key)
		b = append(b, ':')
		b = append(b, f.raw...)
	}
	return append(b, '}')
}

// appendPoolingBody renders the JSON body of a pooling request. Requests
// that are not pooling requests send their text as the one input (or
// the query with no document).
func (c *Client) appendPoolingBody(b []byte, req *Request, model []byte, queryKey, inputsKey string) []byte {
	p := req.pool
	if p == nil {
		p = &pooled{inputs: []string{req.Text()}}
	}
	b = append(b, '{')
	if c.rt.SendsModel { // TEI serves one model and takes none
		b = append(b, `"model":`...)
		b = append(b, model...)
		b = append(b, ',')
	}
	if queryKey != "" {
		b = record.AppendJSONString(append(appendJSONStr(b, queryKey), ':'), p.query)
		b = append(b, ',')
	}
	b = appendStrings(append(appendJSONStr(b, inputsKey), ':'), p.inputs)
	if queryKey == "" && !c.hasExtra("encoding_format") { // embeddings: vectors as numbers
		b = append(b, `,"encoding_format":"float"`...)
	}
	return c.closeBody(b)
}

// appendNIMRankingBody renders a NIM ranking request (/v1/ranking, as
// AIPerf's nim_rankings sends it): the model, the query as {"text": q}
// and each passage as {"text": p}.
func (c *Client) appendNIMRankingBody(b []byte, req *Request, model []byte) []byte {
	p := req.pool
	if p == nil {
		p = &pooled{inputs: []string{req.Text()}}
	}
	b = append(b, `{"model":`...)
	b = append(b, model...)
	b = record.AppendJSONString(append(b, `,"query":{"text":`...), p.query)
	b = append(b, `},"passages":[`...)
	for i, s := range p.inputs {
		if i > 0 {
			b = append(b, ',')
		}
		b = record.AppendJSONString(append(b, `{"text":`...), s)
		b = append(b, '}')
	}
	return c.closeBody(append(b, ']'))
}

// appendVLLMPoolingBody renders a /pooling request: the model and the
// data object's members, or (without one) the model and the text as the
// one input, as vLLM's pooling completion request takes it.
func (c *Client) appendVLLMPoolingBody(b []byte, req *Request, model []byte) []byte {
	if p := req.pool; p != nil && p.data != nil {
		b = append(b, `{"model":`...)
		b = append(b, model...)
		b = append(append(b, ','), p.data...)
		return c.closeBody(b)
	}
	return c.appendPoolingBody(b, req, model, "", "input")
}

func (c *Client) hasExtra(k string) bool {
	for _, f := range c.extra {
		if f.key == k {
			return true
		}
	}
	return false
}

func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = record.AppendJSONString(b, s)
	}
	return append(b, ']')
}

// readPooling handles the response of a pooling request: one JSON body
// whose results (embeddings, scores, ranked documents) must answer the
// request's inputs. The request ends when the body's last byte arrives;
// it has no tokens, so FirstToken and the chunk times stay unset, and
// its prompt tokens are the server's usage, else the client's count.
func (c *Client) readPooling(ctx context.Context, resp *http.Response, st *streamState, wd *watchdog, req *Request) {
	rec, cn := st.rec, st.cn
	if !c.readAll(ctx, resp, st, wd) {
		return
	}
	ch := chunks.Get().(*sse.Chunk)
	defer chunks.Put(ch)
	results, err := sse.DecodePoolingBody(cn.text, ch)
	if err != nil {
		c.fail(rec, record.ErrProtocol, "malformed response: "+err.Error())
		return
	}
	if ch.Err != nil {
		c.fail(rec, record.ErrStreamError, ch.Err.Error())
		return
	}
	rec.ResponseID = string(ch.ID)
	rec.OutputTokens, rec.OutputSource = 0, record.TokensUnknown
	if ch.Usage.Present {
		rec.ServerPromptTokens = ch.Usage.PromptTokens
		rec.PromptTokens = ch.Usage.PromptTokens
	} else if rec.ClientPromptTokens >= 0 {
		rec.PromptTokens = rec.ClientPromptTokens
	}
	want := max(req.Inputs(), 1)
	switch {
	case results == 0:
		c.fail(rec, record.ErrEmptyResponse, "response carried no result")
		return
	case c.rt.Batch == "inputs" && results != want:
		c.fail(rec, record.ErrProtocol, fmt.Sprintf("response carried %d embeddings for %d inputs", results, want))
		return
	case results > want:
		c.fail(rec, record.ErrProtocol, fmt.Sprintf("response ranked %d documents of %d", results, want))
		return
	}
	rec.Status = record.StatusSuccessful
}
