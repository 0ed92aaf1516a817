package sse

import "testing"

// DecodePoolingBody reads the result count, usage and errors of each
// pooling API's documented body.
func TestDecodePoolingBody(t *testing.T) {
	for _, tc := range []struct {
		name, body    string
		results, toks int
		usage         bool
		err           string // Chunk.Err's message
		bad           bool   // a decode error
	}{
		{name: "openai embeddings", body: `{"object":"list","data":[{"object":"embedding","embedding":[0.0023,-0.0093],"index":0},{"object":"embedding","embedding":[1e-3,2],"index":1}],"model":"text-embedding-3-small","usage":{"prompt_tokens":8,"total_tokens":8}}`,
			results: 2, toks: 8, usage: true},
		{name: "vllm score", body: `{"id":"score-1","object":"list","created":1,"model":"m","data":[{"index":0,"object":"score","score":0.99}],"usage":{"prompt_tokens":12,"total_tokens":12,"completion_tokens":0,"prompt_tokens_details":null}}`,
			results: 1, toks: 12, usage: true},
		{name: "vllm rerank", body: `{"id":"rerank-1","model":"m","usage":{"total_tokens":30},"results":[{"index":1,"document":{"text":"b"},"relevance_score":0.9},{"index":0,"document":{"text":"a"},"relevance_score":0.1}]}`,
			results: 2, toks: 30, usage: true},
		{name: "cohere rerank", body: `{"id":"x","results":[{"index":3,"relevance_score":0.999}],"meta":{"api_version":{"version":"2"},"billed_units":{"search_units":1}}}`,
			results: 1},
		{name: "nim ranking", body: `{"rankings":[{"index":0,"logit":-1.2421875},{"index":3,"logit":-3.029296875},{"index":2,"logit":-5.41015625}]}`, results: 3},
		{name: "nim ranking usage", body: `{"rankings":[{"index":0,"logit":0.5}],"usage":{"prompt_tokens":9,"total_tokens":9}}`, results: 1, toks: 9, usage: true},
		{name: "nim rankings object", body: `{"rankings":{"index":0}}`, bad: true},
		{name: "tei rerank", body: ` [{"index":1,"score":0.98},{"index":0,"score":0.01}] `, results: 2},
		{name: "vllm pooling", body: `{"id":"pool-1","object":"list","created":1,"model":"m","data":[{"index":0,"object":"pooling","data":[0.5,-0.25]}],"usage":{"prompt_tokens":5,"total_tokens":5,"completion_tokens":0}}`,
			results: 1, toks: 5, usage: true},
		{name: "vllm pooling io plugin", body: `{"request_id":"pool-7","created_at":1,"data":{"type":"b64_json","format":"tiff","data":"SUkqAA=="}}`, results: 1},
		{name: "io plugin request_id", body: `{"request_id":7,"data":{}}`, bad: true},
		{name: "openai error", body: `{"error":{"message":"The model does not exist.","type":"NotFoundError","param":"model","code":404}}`, err: "The model does not exist."},
		{name: "vllm error", body: `{"object":"error","message":"too long","type":"BadRequestError","code":400}`, err: "too long"},
		{name: "tei error", body: `{"error":"Input validation error","error_type":"Validation"}`, err: "Input validation error"},
		{name: "truncated", body: `{"data":[{"embedding":[0.1,`, bad: true},
		{name: "number", body: `42`, bad: true},
		{name: "usage string", body: `{"data":[],"usage":{"prompt_tokens":"8"}}`, bad: true},
		{name: "empty", body: "  ", bad: true},
	} {
		var c Chunk
		n, err := DecodePoolingBody([]byte(tc.body), &c)
		if (err != nil) != tc.bad {
			t.Fatalf("%s: error %v", tc.name, err)
		}
		if tc.bad {
			continue
		}
		if n != tc.results || c.Usage.Present != tc.usage || c.Usage.PromptTokens != tc.toks || (tc.name == "vllm pooling io plugin" && string(c.ID) != "pool-7") {
			t.Fatalf("%s: %d results, usage %+v", tc.name, n, c.Usage)
		}
		if got := ""; c.Err != nil || tc.err != "" {
			if c.Err != nil {
				got = c.Err.Message
			}
			if got != tc.err {
				t.Fatalf("%s: error %q, want %q", tc.name, got, tc.err)
			}
		}
	}
}

// The pooling and transcription decoders never panic, and leave the
// chunk Reset when they fail.
func FuzzDecodePoolingBody(f *testing.F) {
	for _, s := range []string{`{"data":[{"embedding":[1]}],"usage":{"prompt_tokens":3}}`, `[{"index":0,"score":1}]`,
		`{"results":[],"usage":{"total_tokens":2}}`, `{"error":"x"}`, `{"object":"error","message":"m"}`,
		`{"type":"transcript.text.done","usage":{"input_tokens":1}}`, `{"type":"transcript.text.delta","delta":"a"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var c Chunk
		n, err := DecodePoolingBody(b, &c)
		if n < 0 || err != nil && (n != 0 || c.Usage.Present || c.Err != nil || c.ID != nil) {
			t.Fatalf("results %d, err %v, chunk %+v", n, err, c)
		}
		if err := DecodeTranscriptionEvent(b, &c); err != nil && (c.Usage.Present || c.Done || c.Content != nil) {
			t.Fatalf("transcription error %v left %+v", err, c)
		}
	})
}
