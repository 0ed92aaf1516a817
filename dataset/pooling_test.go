package dataset

import (
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/loadgen"
)

// floodRow is a row of GuideLLM's geospatial guide's data set
// (docs/guides/geospatial.md): the /pooling request's object under
// "prompt".
const floodRow = `{"prompt":{"data": {"data": "https://example.com/India_900498_S2Hand.tif","data_format": "url","out_data_format": "b64_json","indices": [1, 2, 3, 8, 11, 12]},"priority": 0}}`

// With the pooling column mapper, each record's "prompt" object is one
// /pooling request: no text, no prompt tokens, one input, refused for
// any other request type.
func TestPoolingColumn(t *testing.T) {
	path := writeFile(t, "flood_detection_dataset.jsonl", strings.Repeat(floodRow+"\n", 3))
	for _, mapper := range []string{"pooling_column_mapper", "kind=pooling_column_mapper"} {
		d, err := Open(path, Options{ColumnMapper: mapper, Tokenizer: builtin(t, "o200k_base")})
		if err != nil {
			t.Fatalf("%s: %v", mapper, err)
		}
		if n := d.Source.(interface{ Len() int }).Len(); n != 3 {
			t.Fatalf("%s: %d requests, want 3", mapper, n)
		}
		if c := d.Description.Columns["pooling_column"]; c != "prompt" {
			t.Fatalf("%s: pooling column %q, want prompt", mapper, c)
		}
		r, _ := d.Source.Request(2)
		if r.Inputs() != 1 || r.Text() != "" || r.PromptTokens != -1 {
			t.Fatalf("%s: inputs %d, text %q, prompt tokens %d; want 1, none, unknown", mapper, r.Inputs(), r.Text(), r.PromptTokens)
		}
		if err := loadgen.CheckMedia(loadgen.Endpoint("/pooling"), r); err != nil {
			t.Fatalf("%s: /pooling: %v", mapper, err)
		}
		if err := loadgen.CheckMedia(loadgen.EndpointEmbeddings, r); err == nil || !strings.Contains(err.Error(), "use --request-type pooling") {
			t.Fatalf("%s: embeddings: error %v, want one naming --request-type pooling", mapper, err)
		}
	}
	// Without the mapper the object is no prompt.
	if _, err := Open(path, Options{}); err == nil || !strings.Contains(err.Error(), "want a string") {
		t.Fatalf("default mapper: error %v, want the prompt's type refused", err)
	}
}

// A pooling column's cell must be an object with a "data" member, and an
// integer priority.
func TestPoolingColumnErrors(t *testing.T) {
	for _, c := range []struct{ name, data, want string }{
		{"string", `{"prompt":"a flood"}`, `x.jsonl:1: column "prompt": want a JSON object such as {"data"`},
		{"no data", `{"prompt":{"priority":0}}`, `x.jsonl:1: column "prompt": no "data" member`},
		{"priority", `{"prompt":{"data":{},"priority":"high"}}`, `x.jsonl:1: column "prompt": priority: want an integer, got "high"`},
		{"no column", `{"request":{"data":{}}}`, `pooling_column "prompt": no such column`},
	} {
		_, err := Open(writeFile(t, "x.jsonl", c.data+"\n"), Options{ColumnMapper: "pooling_column_mapper"})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line containing %q", c.name, err, c.want)
		}
	}
}
