package mock

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/goodput-dev/goodput/reqtype"
)

// Pooling endpoints: embeddings, rerank, score and vLLM's /pooling,
// answered with one JSON body after a forward pass whose time grows with
// the tokens read:
//
//	latency = TTFT + tokens × PoolingTokenTime
//
// where the tokens are an embeddings (or /pooling) request's inputs, or a
// rerank's (query + document) pairs, so a rerank's time grows with its
// documents. A /pooling request with a "data" object (an IO processor
// plugin's input, such as a geospatial model's GeoTIFF) takes
// TTFT + PoolingDataTime and is answered as TerraTorch's segmentation
// plugin answers: {"request_id","created_at","data":{"type":"b64_json",
// "format":"tiff","data":…}}. TTFT is the configured mean, without its
// stdev: the latency is exact.

// PoolingTokenTime is the mock's time per token of a pooling request (a
// prefill of 50 000 tokens/s).
const PoolingTokenTime = 20 * time.Microsecond

// PoolingDataTime is the mock's time for one /pooling data object (the
// plugin's pre-processing and forward pass).
const PoolingDataTime = 10 * time.Millisecond

// EmbeddingDims is the length of the mock's embedding vectors (as
// BAAI/bge-small-en's).
const EmbeddingDims = 384

// poolKind is the form of a pooling request.
type poolKind int

const (
	poolEmbeddings poolKind = iota
	poolRerank              // Cohere/vLLM/Jina: {"query","documents","top_n"}
	poolTEIRerank           // TEI: {"query","texts"} → a bare array
	poolNIMRanking          // NIM: {"query":{"text"},"passages":[{"text"}]} → {"rankings"}
	poolScore               // vLLM: {"text_1","text_2"}
	poolVLLM                // vLLM's /pooling: {"input"} or an IO plugin's {"data","priority"}
)

// The pooling APIs the mock serves (reqtype.All's rows name their paths).
var (
	_ = serves(reqtype.APIEmbeddings, func(s *Server, w http.ResponseWriter, r *http.Request) { s.servePooling(w, r, poolEmbeddings) })
	_ = serves(reqtype.APIRerank, func(s *Server, w http.ResponseWriter, r *http.Request) { s.servePooling(w, r, poolRerank) })
	_ = serves(reqtype.APITEIRerank, func(s *Server, w http.ResponseWriter, r *http.Request) { s.servePooling(w, r, poolTEIRerank) })
	_ = serves(reqtype.APINIMRanking, func(s *Server, w http.ResponseWriter, r *http.Request) { s.servePooling(w, r, poolNIMRanking) })
	_ = serves(reqtype.APIScore, func(s *Server, w http.ResponseWriter, r *http.Request) { s.servePooling(w, r, poolScore) })
	_ = serves(reqtype.APIPooling, func(s *Server, w http.ResponseWriter, r *http.Request) { s.servePooling(w, r, poolVLLM) })
)

// poolRequest is the union of the pooling request bodies.
type poolRequest struct {
	Model     *string         `json:"model"`
	Input     json.RawMessage `json:"input"`
	Query     json.RawMessage `json:"query"`
	Documents json.RawMessage `json:"documents"`
	Texts     json.RawMessage `json:"texts"`
	Passages  json.RawMessage `json:"passages"`
	Text1     json.RawMessage `json:"text_1"`
	Text2     json.RawMessage `json:"text_2"`
	TopN      *int            `json:"top_n"`
	Data      json.RawMessage `json:"data"`
	Priority  json.RawMessage `json:"priority"`
}

// servePooling serves POST on a pooling path.
func (s *Server) servePooling(w http.ResponseWriter, r *http.Request, kind poolKind) {
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
	var req poolRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.stats.rejected.Add(1)
		writeAPIError(w, badRequest("", "request body is not a valid JSON object: %v", err))
		return
	}
	if kind != poolTEIRerank && req.Model != nil && *req.Model != "" && !s.cfg.serves(*req.Model) {
		s.stats.rejected.Add(1)
		writeAPIError(w, &apiError{status: http.StatusNotFound, typ: "NotFoundError", param: "model",
			message: fmt.Sprintf("The model `%s` does not exist.", *req.Model)})
		return
	}
	var query string
	var items []string
	var apiErr *apiError
	data := kind == poolVLLM && len(req.Data) > 0 && string(req.Data) != "null"
	switch {
	case data:
		apiErr = checkPluginInput(req.Data, req.Priority)
	case kind == poolEmbeddings || kind == poolVLLM:
		items, apiErr = textList(req.Input, "input", false)
	case kind == poolRerank || kind == poolTEIRerank:
		field, raw := "documents", req.Documents
		if kind == poolTEIRerank {
			field, raw = "texts", req.Texts
		}
		if apiErr = textField(req.Query, "query", &query); apiErr == nil {
			items, apiErr = textList(raw, field, true)
		}
	case kind == poolNIMRanking:
		if apiErr = textObject(req.Query, "query", &query); apiErr == nil {
			items, apiErr = textList(req.Passages, "passages", true)
		}
	case kind == poolScore:
		if apiErr = textField(req.Text1, "text_1", &query); apiErr == nil {
			items, apiErr = textList(req.Text2, "text_2", false)
		}
	}
	if apiErr != nil {
		s.stats.rejected.Add(1)
		writeAPIError(w, apiErr)
		return
	}
	tokens, q := 0, 0
	if kind != poolEmbeddings && kind != poolVLLM {
		q = s.count(query)
	}
	for _, t := range items {
		tokens += q + s.count(t)
	}
	work := time.Duration(tokens) * PoolingTokenTime
	if data {
		work = PoolingDataTime
	}
	k, done, ok := s.admitOne(w)
	if !ok {
		return
	}
	defer done()
	if !s.holdUntil(r, arrival.Add(s.cfg.TTFT+work)) {
		return
	}
	var b []byte
	switch {
	case data:
		b = s.appendPluginOutput(make([]byte, 0, 128), k, arrival)
	case kind == poolEmbeddings || kind == poolVLLM:
		b = s.appendEmbeddings(make([]byte, 0, len(items)*EmbeddingDims*12+256), kind, k, len(items), tokens, arrival)
	default:
		b = s.appendRanking(make([]byte, 0, 64*len(items)+256), kind, k, items, req.TopN, tokens, arrival)
	}
	s.stats.completed.Add(1)
	s.metrics.e2e.observeN(time.Since(arrival), 1)
	writeJSON(w, http.StatusOK, b)
}

// textField reads a required string field.
func textField(raw json.RawMessage, field string, dst *string) *apiError {
	if len(raw) == 0 || string(raw) == "null" {
		return badRequest(field, "%s: Field required", field)
	}
	if json.Unmarshal(raw, dst) != nil {
		return badRequest(field, "%s: want a string", field)
	}
	return nil
}

// textObject reads a required {"text": …} object (NIM's query).
func textObject(raw json.RawMessage, field string, dst *string) *apiError {
	if len(raw) == 0 || string(raw) == "null" {
		return badRequest(field, "%s: Field required", field)
	}
	var obj struct {
		Text *string `json:"text"`
	}
	if json.Unmarshal(raw, &obj) != nil || obj.Text == nil {
		return badRequest(field, `%s: want an object {"text": "…"}`, field)
	}
	*dst = *obj.Text
	return nil
}

// textList reads a string or a non-empty list of strings (with objects,
// Cohere's {"text": ...} documents).
func textList(raw json.RawMessage, field string, objects bool) ([]string, *apiError) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, badRequest(field, "%s: Field required", field)
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil || len(list) == 0 {
		return nil, badRequest(field, "%s: want a string or a non-empty list of strings", field)
	}
	out := make([]string, len(list))
	for i, e := range list {
		if json.Unmarshal(e, &out[i]) == nil {
			continue
		}
		var doc struct {
			Text *string `json:"text"`
		}
		if !objects || json.Unmarshal(e, &doc) != nil || doc.Text == nil {
			return nil, badRequest(field, "%s[%d]: want a string", field, i)
		}
		out[i] = *doc.Text
	}
	return out, nil
}

// poolValue is a deterministic value in [-1, 1) for request k, item i,
// position j.
func (s *Server) poolValue(k uint64, i, j int) float64 {
	x := splitmix64(s.cfg.Seed ^ splitmix64(k<<20^uint64(i)<<10^uint64(j)))
	return float64(x>>11)/(1<<52) - 1
}

// checkPluginInput checks a /pooling IO plugin request: data an object,
// priority an integer or absent.
func checkPluginInput(data, priority json.RawMessage) *apiError {
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil {
		return badRequest("data", "data: want an object (the IO processor plugin's input)")
	}
	var p int64
	if len(priority) > 0 && string(priority) != "null" && json.Unmarshal(priority, &p) != nil {
		return badRequest("priority", "priority: want an integer")
	}
	return nil
}

// appendPluginOutput renders an IO processor plugin's response: 8
// deterministic bytes of a little-endian TIFF, as base64.
func (s *Server) appendPluginOutput(b []byte, k uint64, arrival time.Time) []byte {
	tiff := binary.LittleEndian.AppendUint32([]byte("II*\x00"), uint32(splitmix64(s.cfg.Seed^k)))
	b = append(b, `{"request_id":"pool-`...)
	b = strconv.AppendUint(b, k, 10)
	b = append(b, `","created_at":`...)
	b = appendInt(b, arrival.Unix())
	b = append(b, `,"data":{"type":"b64_json","format":"tiff","data":"`...)
	b = base64.StdEncoding.AppendEncode(b, tiff)
	return append(b, `"}}`...)
}

// appendEmbeddings renders an embeddings response (OpenAI's and vLLM's
// shape) of n unit-free vectors; for /pooling (kind poolVLLM), vLLM's
// pooling response of the same vectors.
func (s *Server) appendEmbeddings(b []byte, kind poolKind, k uint64, n, tokens int, arrival time.Time) []byte {
	id, item := `{"id":"embd-`, `,"object":"embedding","embedding":[`
	if kind == poolVLLM {
		id, item = `{"id":"pool-`, `,"object":"pooling","data":[`
	}
	b = append(b, id...)
	b = strconv.AppendUint(b, k, 10)
	b = append(b, `","object":"list","created":`...)
	b = appendInt(b, arrival.Unix())
	b = append(b, `,"model":`...)
	b = append(b, s.modelJSON...)
	b = append(b, `,"data":[`...)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"index":`...)
		b = appendInt(b, int64(i))
		b = append(b, item...)
		for j := range EmbeddingDims {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendFloat(b, s.poolValue(k, i, j)/math.Sqrt(EmbeddingDims), 'g', 6, 64)
		}
		b = append(b, "]}"...)
	}
	b = append(b, `],"usage":{"prompt_tokens":`...)
	b = appendInt(b, int64(tokens))
	b = append(b, `,"total_tokens":`...)
	b = appendInt(b, int64(tokens))
	return append(b, `,"completion_tokens":0,"prompt_tokens_details":null}}`...)
}

// appendRanking renders a rerank or score response: vLLM's rerank
// (Cohere's results with vLLM's usage) ranked by score and cut to top_n,
// TEI's bare array ranked by score, NIM's rankings ranked by logit (the
// score's log-odds), or vLLM's score list in input order.
func (s *Server) appendRanking(b []byte, kind poolKind, k uint64, docs []string, topN *int, tokens int, arrival time.Time) []byte {
	order := make([]int, len(docs))
	scores := make([]float64, len(docs))
	for i := range docs {
		order[i] = i
		scores[i] = (s.poolValue(k, i, 0) + 1) / 2
	}
	if kind != poolScore {
		slices.SortStableFunc(order, func(x, y int) int {
			switch {
			case scores[x] > scores[y]:
				return -1
			case scores[x] < scores[y]:
				return 1
			}
			return 0
		})
	}
	if kind == poolRerank && topN != nil && *topN > 0 && *topN < len(order) {
		order = order[:*topN]
	}
	score := func(b []byte, i int) []byte { return strconv.AppendFloat(b, scores[i], 'g', 8, 64) }
	switch kind {
	case poolNIMRanking:
		b = append(b, `{"rankings":[`...)
		for n, i := range order {
			if n > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"index":`...)
			b = appendInt(b, int64(i))
			b = append(b, `,"logit":`...)
			p := min(max(scores[i], 1e-6), 1-1e-6)
			b = strconv.AppendFloat(b, math.Log(p/(1-p)), 'g', 8, 64)
			b = append(b, '}')
		}
		return append(b, "]}"...)
	case poolTEIRerank:
		b = append(b, '[')
		for n, i := range order {
			if n > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"index":`...)
			b = appendInt(b, int64(i))
			b = append(b, `,"score":`...)
			b = append(score(b, i), '}')
		}
		return append(b, ']')
	case poolScore:
		b = append(b, `{"id":"score-`...)
		b = strconv.AppendUint(b, k, 10)
		b = append(b, `","object":"list","created":`...)
		b = appendInt(b, arrival.Unix())
		b = append(b, `,"model":`...)
		b = append(b, s.modelJSON...)
		b = append(b, `,"data":[`...)
		for n, i := range order {
			if n > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"index":`...)
			b = appendInt(b, int64(i))
			b = append(b, `,"object":"score","score":`...)
			b = append(score(b, i), '}')
		}
		b = append(b, `],"usage":{"prompt_tokens":`...)
		b = appendInt(b, int64(tokens))
		b = append(b, `,"total_tokens":`...)
		b = appendInt(b, int64(tokens))
		return append(b, `,"completion_tokens":0,"prompt_tokens_details":null}}`...)
	}
	b = append(b, `{"id":"rerank-`...)
	b = strconv.AppendUint(b, k, 10)
	b = append(b, `","model":`...)
	b = append(b, s.modelJSON...)
	b = append(b, `,"usage":{"total_tokens":`...)
	b = appendInt(b, int64(tokens))
	b = append(b, `},"results":[`...)
	for n, i := range order {
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"index":`...)
		b = appendInt(b, int64(i))
		b = append(b, `,"document":{"text":`...)
		b = appendJSONString(b, docs[i])
		b = append(b, `},"relevance_score":`...)
		b = append(score(b, i), '}')
	}
	return append(b, "]}"...)
}
