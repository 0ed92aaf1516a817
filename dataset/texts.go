package dataset

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/goodput-dev/goodput/loadgen"
)

// AIPerf's single_turn records for its embeddings and rankings endpoints
// (Options.Pooling): each record is one request. For embeddings every
// text is one input, {"texts": ["a", "b"]} (AIPerf's
// docs/tutorials/embeddings.md; named texts' contents count alike); for
// rankings the texts are named, a query and the passages to rank:
// {"texts": [{"name": "query", "contents": ["q"]}, {"name": "passages",
// "contents": ["p1", "p2"]}]} (docs/tutorials/rankings.md; "queries" is
// AIPerf's older name of the query).

// Pooling values: what an AIPerf texts record becomes
// (reqtype.Type.Batch of the endpoint).
const (
	PoolingInputs    = "inputs"    // embeddings: the texts are the inputs
	PoolingDocuments = "documents" // rankings: a query and its passages
)

// isTextsTable reports whether t holds AIPerf's texts records: a texts
// column, or multi_turn records (whose turns hold the texts).
func isTextsTable(t *table) bool {
	_, ok := t.index["texts"]
	return (ok && (t.format == formatJSONL || t.format == formatJSON)) || isMultiTurnTable(t)
}

// aiperfText is one element of a record's texts: a string, or a named
// text of several contents.
type aiperfText struct {
	Name     *string  `json:"name"`
	Contents []string `json:"contents"`
}

// textsRows reads AIPerf's texts records as one pooling request each; a
// record that does not fit the endpoint is a one-line error naming its
// field. In a multi_turn file (a "turns" column) each conversation must
// be one turn: AIPerf's embeddings and rankings endpoints send one turn
// per request. tok, when set, counts each input's tokens.
func textsRows(t *table, pooling string, tok interface{ Count(string) int }) ([]fileRow, error) {
	rows := make([]fileRow, 0, len(t.rows))
	for i := range t.rows {
		tr := &t.rows[i]
		obj, field := tr.obj, ""
		if isMultiTurnTable(t) {
			c, ok := t.get(tr, "turns")
			var turns []map[string]json.RawMessage
			if !ok || json.Unmarshal(c.raw, &turns) != nil || len(turns) != 1 {
				return nil, fmt.Errorf(`%s: field "turns": want one turn, [{"texts": […]}]: AIPerf's %s endpoints send one turn per request`, t.at(tr), poolingName(pooling))
			}
			obj, field = turns[0], "turns[0]."
		}
		req, err := textsRequest(obj, pooling, tok)
		var fe fieldError
		if errors.As(err, &fe) {
			return nil, fmt.Errorf("%s: field %q: %v", t.at(tr), field+fe.field, fe.err)
		} else if err != nil {
			return nil, fmt.Errorf("%s: %v", t.at(tr), err)
		}
		rows = append(rows, fileRow{line: tr.line, promptCount: -1, outputCount: -1, pooled: req})
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no records", t.name)
	}
	return rows, nil
}

// textsRequest builds the pooling request of a record's (or a turn's)
// texts.
func textsRequest(obj map[string]json.RawMessage, pooling string, tok interface{ Count(string) int }) (*loadgen.Request, error) {
	texts, err := recordTexts(obj, pooling)
	if err != nil {
		return nil, err
	}
	if pooling == PoolingDocuments {
		return rankingsRequest(texts, tok)
	}
	return embeddingsRequest(texts, tok)
}

// fieldError is a record's error and the field it names.
type fieldError struct {
	field string
	err   error
}

func (e fieldError) Error() string { return fmt.Sprintf("field %q: %v", e.field, e.err) }

func errField(field, format string, args ...any) error {
	return fieldError{field, fmt.Errorf(format, args...)}
}

// recordTexts reads a record's (or a turn's) texts, or its one text.
func recordTexts(obj map[string]json.RawMessage, pooling string) ([]aiperfText, error) {
	for _, media := range []string{"image", "images", "audio", "audios", "video", "videos"} {
		if v, ok := obj[media]; ok && string(v) != "null" {
			return nil, errField(media, "%s requests carry texts only", poolingName(pooling))
		}
	}
	raw, ok := obj["texts"]
	text, hasText := obj["text"]
	ok, hasText = ok && string(raw) != "null", hasText && string(text) != "null"
	switch {
	case ok && hasText:
		return nil, errField("text", `give "text" or "texts", not both (AIPerf's rule)`)
	case hasText:
		var s string
		if err := json.Unmarshal(text, &s); err != nil {
			return nil, errField("text", "want a string, got %s", abbrev(text))
		}
		return []aiperfText{{Contents: []string{s}}}, nil
	case !ok:
		return nil, errField("texts", `missing (want {"texts": ["…", …]})`)
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, errField("texts", `want a list such as ["…", …] or [{"name": "query", "contents": ["…"]}, …]: %s`, jsonErr(err))
	}
	out := make([]aiperfText, 0, len(list))
	for k, r := range list {
		var s string
		if json.Unmarshal(r, &s) == nil {
			out = append(out, aiperfText{Contents: []string{s}})
			continue
		}
		var tx aiperfText
		if err := json.Unmarshal(r, &tx); err != nil {
			return nil, errField(fmt.Sprintf("texts[%d]", k), `want a string or {"name": "…", "contents": ["…", …]}: %s`, jsonErr(err))
		}
		out = append(out, tx)
	}
	return out, nil
}

// embeddingsRequest sends every non-empty content as one input, as
// AIPerf's embeddings endpoint does.
func embeddingsRequest(texts []aiperfText, tok interface{ Count(string) int }) (*loadgen.Request, error) {
	var inputs []string
	for _, tx := range texts {
		for _, s := range tx.Contents {
			if s != "" {
				inputs = append(inputs, s)
			}
		}
	}
	if len(inputs) == 0 {
		return nil, errField("texts", "no text to embed")
	}
	r := loadgen.NewEmbeddingsRequest(inputs)
	r.PromptTokens = countAll(tok, inputs, 0)
	return r, nil
}

// rankingsRequest sends the query and the passages of named texts. A
// reranker reads the query with each passage: the request's tokens are
// the query's once per passage plus the passages'.
func rankingsRequest(texts []aiperfText, tok interface{ Count(string) int }) (*loadgen.Request, error) {
	var queries, passages []string
	for k, tx := range texts {
		switch {
		case tx.Name == nil:
			return nil, errField(fmt.Sprintf("texts[%d]", k), `a rankings request needs named texts: [{"name": "query", "contents": ["…"]}, {"name": "passages", "contents": ["…", …]}]`)
		case *tx.Name == "query" || *tx.Name == "queries":
			queries = append(queries, tx.Contents...)
		case *tx.Name == "passages":
			passages = append(passages, tx.Contents...)
		default:
			return nil, errField(fmt.Sprintf("texts[%d].name", k), `%q: want "query" or "passages"`, *tx.Name)
		}
	}
	switch {
	case len(queries) != 1:
		return nil, errField("texts", `%d queries; a rankings request has one ({"name": "query", "contents": ["…"]})`, len(queries))
	case len(passages) == 0:
		return nil, errField("texts", `no passages to rank ({"name": "passages", "contents": ["…", …]})`)
	}
	r := loadgen.NewRerankRequest(queries[0], passages)
	if tok != nil {
		r.PromptTokens = countAll(tok, passages, tok.Count(queries[0])*len(passages))
	}
	return r, nil
}

// countAll is base plus the tokens of every text; -1 without a tokenizer.
func countAll(tok interface{ Count(string) int }, texts []string, base int) int {
	if tok == nil {
		return -1
	}
	for _, s := range texts {
		base += tok.Count(s)
	}
	return base
}

// poolingName names the requests of a Pooling value for messages.
func poolingName(pooling string) string {
	if pooling == PoolingDocuments {
		return "rankings"
	}
	return "embeddings"
}

// textsDataset builds the dataset of a texts table: one pooling request
// per record, sent as it is (List.Pooled).
func textsDataset(t *table, src origin, opts Options) (*Dataset, error) {
	if opts.Pooling != PoolingInputs && opts.Pooling != PoolingDocuments {
		return nil, fmt.Errorf("pooling %q: want %s or %s", opts.Pooling, PoolingInputs, PoolingDocuments)
	}
	var tok interface{ Count(string) int }
	if opts.Tokenizer != nil {
		tok = opts.Tokenizer
	}
	rows, err := textsRows(t, opts.Pooling, tok)
	if err != nil {
		return nil, err
	}
	rows = selectRows(rows, opts.Shuffle, opts.Seed, opts.Samples)
	reqs := make([]*loadgen.Request, len(rows))
	var ps statsAcc
	for i := range rows {
		reqs[i] = rows[i].pooled
		if n := reqs[i].PromptTokens; n >= 0 {
			ps.add(n)
		}
	}
	desc := Description{Kind: src.kind(), Path: src.path, Format: src.format, SHA256: src.sha256, Split: src.split,
		Requests: len(reqs), Columns: map[string]string{roleText: "texts"}, Seed: opts.Seed, Shuffle: opts.Shuffle, Samples: opts.Samples,
		PromptTokens: ps.stats()}
	desc.GuideLLM = src.guideLLM()
	desc.setTokenizer(opts.Tokenizer, opts.Tokenizer != nil)
	if opts.Tokenizer == nil {
		desc.Counts = countsUnknown
	}
	return &Dataset{Source: &List{reqs: reqs, pooled: true}, Description: desc, columns: t.describeColumns()}, nil
}
