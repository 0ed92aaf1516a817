package sse

import "strconv"

// ToolDelta is one tool-call entry of a chat completion chunk: its
// "index" (-1 when absent), "id", function.name and function.arguments.
// The slices follow Chunk's validity rule.
type ToolDelta struct {
	Index          int
	ID, Name, Args []byte
}

// ToolCall is one tool call assembled from a stream.
type ToolCall struct {
	ID, Name, Arguments string
}

// ToolCallAccumulator assembles the tool calls of one response from its
// chunks, as an OpenAI client does: deltas with the same index are one
// call (the id and name come once, the arguments in pieces). The
// Responses and Messages decoders give no index: a chunk that starts a
// call (ToolCalls > 0) opens a new one named by its ToolArgs, and
// argument bytes without a start extend the last call. Calls without an
// id get "call_<n>". The zero value is ready; no reflection.
type ToolCallAccumulator struct {
	calls []acc
}

type acc struct {
	index          int
	id, name, args []byte
}

// Reset forgets every call, keeping the buffers.
func (a *ToolCallAccumulator) Reset() {
	for i := range a.calls {
		c := &a.calls[i]
		c.id, c.name, c.args = c.id[:0], c.name[:0], c.args[:0]
	}
	a.calls = a.calls[:0]
}

// Add folds one decoded chunk's tool-call deltas in.
func (a *ToolCallAccumulator) Add(c *Chunk) {
	if len(c.ToolDeltas) == 0 {
		switch {
		case c.ToolCalls > 0:
			k := a.open(-1)
			k.name = append(k.name, c.ToolArgs...)
		case len(c.ToolArgs) > 0 && len(a.calls) > 0:
			k := &a.calls[len(a.calls)-1]
			k.args = append(k.args, c.ToolArgs...)
		}
		return
	}
	for _, d := range c.ToolDeltas {
		var k *acc
		if d.Index >= 0 {
			for i := range a.calls {
				if a.calls[i].index == d.Index {
					k = &a.calls[i]
					break
				}
			}
		}
		if k == nil {
			k = a.open(d.Index)
		}
		if len(k.id) == 0 {
			k.id = append(k.id, d.ID...)
		}
		k.name = append(k.name, d.Name...)
		k.args = append(k.args, d.Args...)
	}
}

func (a *ToolCallAccumulator) open(index int) *acc {
	if len(a.calls) < cap(a.calls) {
		a.calls = a.calls[:len(a.calls)+1]
	} else {
		a.calls = append(a.calls, acc{})
	}
	k := &a.calls[len(a.calls)-1]
	k.index = index
	k.id, k.name, k.args = k.id[:0], k.name[:0], k.args[:0]
	return k
}

// Len returns the number of calls so far.
func (a *ToolCallAccumulator) Len() int { return len(a.calls) }

// Calls returns the assembled calls, in the order they began.
func (a *ToolCallAccumulator) Calls() []ToolCall {
	if len(a.calls) == 0 {
		return nil
	}
	out := make([]ToolCall, len(a.calls))
	for i, c := range a.calls {
		id := string(c.id)
		if id == "" {
			id = "call_" + strconv.Itoa(i)
		}
		out[i] = ToolCall{ID: id, Name: string(c.name), Arguments: string(c.args)}
	}
	return out
}
