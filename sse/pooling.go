package sse

import "fmt"

// Member names read by DecodePoolingBody.
var (
	poolingKeys      = [...]string{"id", "object", "data", "results", "usage", "error", "message", "type", "code", "request_id", "rankings"}
	poolingUsageKeys = [...]string{"prompt_tokens", "total_tokens"}
)

const (
	plID = iota
	plObject
	plData
	plResults
	plUsage
	plError
	plMessage
	plType
	plCode
	plRequestID
	plRankings
)

// DecodePoolingBody decodes the body of a pooling request into c and
// returns the number of results it carries:
//
//	embeddings (OpenAI, vLLM, TEI)   {"data":[{"embedding":[…]},…],"usage":{"prompt_tokens":N}}
//	score (vLLM)                     {"data":[{"score":…},…],"usage":{"prompt_tokens":N}}
//	rerank (Cohere, vLLM, Jina)      {"results":[{"index":…,"relevance_score":…},…],"usage":{"total_tokens":N}}
//	rerank (TEI)                     [{"index":…,"score":…},…]
//	ranking (NIM)                    {"rankings":[{"index":…,"logit":…},…]}
//	pooling (vLLM)                   {"data":[{"data":[…]},…],"usage":{"prompt_tokens":N}}
//	pooling, IO plugin (vLLM)        {"request_id":…,"data":{…}}: one result
//
// It sets ID (id, else request_id), Usage (PromptTokens is usage.prompt_tokens, else
// usage.total_tokens, as a pooling request has no output) and Err (an
// "error" string or object, or vLLM's {"object":"error","message":…}).
// The vectors and scores are validated as JSON, not read. On error c is
// left Reset.
func DecodePoolingBody(body []byte, c *Chunk) (results int, err error) {
	c.Reset()
	results, err = c.pooling(body)
	if err != nil {
		c.Reset()
		return 0, err
	}
	return results, nil
}

func (c *Chunk) pooling(body []byte) (int, error) {
	d := fastDec{data: body, c: c}
	if len(trimSpace(body)) == 0 {
		return 0, ErrEmptyPayload
	}
	var top rawVal
	if !d.raw(&top) {
		return 0, errMalformed
	}
	d.ws()
	if d.i != len(body) {
		return 0, errMalformed
	}
	count := func(v rawVal, path string) (int, error) {
		n := 0
		err := d.eachAt(v, path, func(rawVal) error { n++; return nil })
		return n, err
	}
	switch top.kind {
	case '[':
		return count(top, "body")
	case '{':
	default:
		return 0, fmt.Errorf("sse: body: want a JSON object or array")
	}
	var v [len(poolingKeys)]rawVal
	sub := d.at(top)
	if !sub.members(poolingKeys[:], v[:]) {
		return 0, errMalformed // cannot happen: top was validated
	}
	id, err := d.strAt(v[plID], "id")
	if err != nil {
		return 0, err
	}
	if id == nil {
		if id, err = d.strAt(v[plRequestID], "request_id"); err != nil {
			return 0, err
		}
	}
	c.ID = id
	object, err := d.strAt(v[plObject], "object")
	if err != nil {
		return 0, err
	}
	switch e := v[plError]; {
	case e.kind == '"':
		if msg := d.stringAt(e); len(msg) > 0 {
			c.setError(msg, nil, nil)
		}
	case e.kind == '{':
		var ev [len(errorKeys)]rawVal
		if _, err := d.objAt(e, "error", errorKeys[:], ev[:]); err != nil {
			return 0, err
		}
		if err := d.setErr(ev[:], "error", false); err != nil {
			return 0, err
		}
	case e.kind != 0 && e.kind != 'n':
		return 0, fmt.Errorf("sse: error: want a string, an object or null")
	}
	if c.Err == nil && string(object) == "error" {
		if err := d.setErr([]rawVal{v[plMessage], v[plType], v[plCode]}, "", true); err != nil {
			return 0, err
		}
	}
	if c.Err != nil {
		return 0, nil
	}
	var u [len(poolingUsageKeys)]rawVal
	present, err := d.objAt(v[plUsage], "usage", poolingUsageKeys[:], u[:])
	if err != nil {
		return 0, err
	}
	if present {
		prompt, ok, err := d.intAt(u[0], "usage.prompt_tokens")
		if err != nil {
			return 0, err
		}
		total, okTotal, err := d.intAt(u[1], "usage.total_tokens")
		if err != nil {
			return 0, err
		}
		if !ok {
			prompt, ok = total, okTotal
		}
		if ok {
			c.Usage.Present = true
			c.Usage.PromptTokens, c.Usage.TotalTokens = int(prompt), int(total)
		}
	}
	if v[plData].kind == '{' { // an IO processor plugin's output
		return 1, nil
	}
	n, err := count(v[plData], "data")
	if err != nil {
		return 0, err
	}
	m, err := count(v[plResults], "results")
	if err != nil {
		return 0, err
	}
	k, err := count(v[plRankings], "rankings")
	return n + m + k, err
}
