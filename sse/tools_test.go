package sse

import (
	"reflect"
	"testing"
)

func TestToolCallAccumulatorChat(t *testing.T) {
	chunks := []string{
		`{"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"lookup","arguments":"{}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
	}
	want := []ToolCall{{ID: "call_a", Name: "get_weather", Arguments: `{"city":"Paris"}`}, {ID: "call_b", Name: "lookup", Arguments: "{}"}}
	for name, decode := range map[string]func([]byte, *Chunk) error{"fast": DecodeChunk, "full": DecodeChunkFull} {
		var a ToolCallAccumulator
		var c Chunk
		for _, s := range chunks {
			if err := decode([]byte(s), &c); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			a.Add(&c)
		}
		if got := a.Calls(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: calls %+v, want %+v", name, got, want)
		}
		a.Reset()
		if a.Len() != 0 || a.Calls() != nil {
			t.Errorf("%s: Reset left %d calls", name, a.Len())
		}
	}
}

func TestToolDeltaIndexAndIDAgree(t *testing.T) {
	for _, s := range []string{
		`{"choices":[{"delta":{"tool_calls":[{"index":3,"id":"c\u0031","function":{"name":"f"}}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":"x","id":7,"function":{"name":"f"}}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":99999999999,"function":{"name":"f"}}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":1.5,"function":{"name":"f"}}]}}]}`,
	} {
		var fast, full Chunk
		errA, errB := DecodeChunk([]byte(s), &fast), DecodeChunkFull([]byte(s), &full)
		if errA != nil || errB != nil {
			t.Fatalf("%s: %v / %v", s, errA, errB)
		}
		if len(fast.ToolDeltas) != 1 || len(full.ToolDeltas) != 1 {
			t.Fatalf("%s: deltas %d / %d", s, len(fast.ToolDeltas), len(full.ToolDeltas))
		}
		a, b := fast.ToolDeltas[0], full.ToolDeltas[0]
		if a.Index != b.Index || string(a.ID) != string(b.ID) || string(a.Name) != string(b.Name) {
			t.Errorf("%s: fast %d %q, full %d %q", s, a.Index, a.ID, b.Index, b.ID)
		}
	}
}

func TestToolCallAccumulatorEvents(t *testing.T) {
	var a ToolCallAccumulator
	a.Add(&Chunk{ToolCalls: 1, ToolArgs: []byte("search")})
	a.Add(&Chunk{ToolArgs: []byte(`{"q":`)})
	a.Add(&Chunk{ToolArgs: []byte(`1}`)})
	want := []ToolCall{{ID: "call_0", Name: "search", Arguments: `{"q":1}`}}
	if got := a.Calls(); !reflect.DeepEqual(got, want) {
		t.Errorf("calls %+v, want %+v", got, want)
	}
}
