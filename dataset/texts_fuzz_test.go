package dataset

import (
	"encoding/json"
	"testing"
)

// runeCount counts a text's runes as its tokens.
type runeCount struct{}

func (runeCount) Count(s string) int { return len([]rune(s)) }

// Any JSON object read as an AIPerf texts record either becomes one
// pooling request or is refused with one line naming a field; a request's
// prompt tokens are never negative.
func FuzzTextsRecord(f *testing.F) {
	for _, s := range []string{
		`{"texts": ["a", "b"]}`,
		`{"texts": [{"name": "query", "contents": ["q"]}, {"name": "passages", "contents": ["p1", "p2"]}]}`,
		`{"text": "one"}`, `{"texts": []}`, `{"texts": [1]}`, `{"text": "x", "texts": ["y"]}`,
		`{"texts": [{"name": "passage", "contents": ["p"]}]}`, `{"image": "x.png", "texts": ["a"]}`,
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, line string, documents bool) {
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(line), &obj) != nil {
			return
		}
		pooling := PoolingInputs
		if documents {
			pooling = PoolingDocuments
		}
		r, err := textsRequest(obj, pooling, runeCount{})
		if err != nil {
			oneLine(t, err)
			if _, ok := err.(fieldError); !ok {
				t.Fatalf("%s: error %v names no field", line, err)
			}
			return
		}
		if r == nil || r.PromptTokens < 0 {
			t.Fatalf("%s: request %+v", line, r)
		}
	})
}
