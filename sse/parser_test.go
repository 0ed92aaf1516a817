package sse

import (
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// ev is a comparable copy of an Event.
type ev struct {
	Type, Data, ID string
	Retry          int64
}

func (e ev) String() string {
	return fmt.Sprintf("{type=%q data=%q id=%q retry=%d}", e.Type, e.Data, e.ID, e.Retry)
}

// d is an event with data only.
func d(data string) ev { return ev{Data: data, Retry: -1} }

// parseAll feeds the pieces in order, then finishes the stream.
func parseAll(p *Parser, pieces ...[]byte) ([]ev, error) {
	var out []ev
	emit := func(e *Event) error {
		out = append(out, ev{Type: e.Type, Data: string(e.Data), ID: e.ID, Retry: e.Retry})
		return nil
	}
	for _, b := range pieces {
		if err := p.Feed(b, emit); err != nil {
			return out, err
		}
	}
	return out, p.Finish(emit)
}

func parseString(s string, opts ...Option) ([]ev, error) {
	return parseAll(NewParser(opts...), []byte(s))
}

var parserCases = []struct {
	name string
	in   string
	want []ev
}{
	{"LF", "data: a\n\ndata: b\n\n", []ev{d("a"), d("b")}},
	{"CRLF", "data: a\r\n\r\ndata: b\r\n\r\n", []ev{d("a"), d("b")}},
	{"CR", "data: a\r\rdata: b\r\r", []ev{d("a"), d("b")}},
	{"mixed line endings in one event", "data: a\r\ndata: b\rdata: c\n\r\n", []ev{d("a\nb\nc")}},
	{"CRLF then LF is a blank line", "data: a\r\n\ndata: b\n\n", []ev{d("a"), d("b")}},
	{"LF then CR is a blank line", "data: a\n\rdata: b\n\n", []ev{d("a"), d("b")}},
	{"comments ignored", ": ping\n\ndata: x\n: inside\ndata: y\n\n:\n\n", []ev{d("x\ny")}},
	{"multi-line data joined with LF", "data: a\ndata:\ndata: b\n\n", []ev{d("a\n\nb")}},
	{"event id retry", "event: delta\nid: 7\nretry: 1500\ndata: x\n\n", []ev{{Type: "delta", Data: "x", ID: "7", Retry: 1500}}},
	{"last event field wins", "event: a\nevent: b\ndata: x\n\n", []ev{{Type: "b", Data: "x", Retry: -1}}},
	{"empty event field is the default type", "event: a\nevent:\ndata: x\n\n", []ev{d("x")}},
	{"event type does not carry over", "event: t\ndata: 1\n\ndata: 2\n\n", []ev{{Type: "t", Data: "1", Retry: -1}, d("2")}},
	{"id with NUL ignored", "id: 1\nid: a\x00b\ndata: x\n\n", []ev{{Data: "x", ID: "1", Retry: -1}}},
	{"empty id is an id", "id: 5\nid:\ndata: x\n\n", []ev{{Data: "x", ID: "", Retry: -1}}},
	{"id does not carry over", "id: 5\ndata: x\n\ndata: y\n\n", []ev{{Data: "x", ID: "5", Retry: -1}, d("y")}},
	{"retry needs digits only", "retry: 10\nretry: 12a\nretry: -5\nretry: \nretry: 1.5\ndata: x\n\n", []ev{{Data: "x", Retry: 10}}},
	{"retry overflow ignored", "retry: 99999999999999999999\ndata: x\n\n", []ev{d("x")}},
	{"retry max int64", "retry: 9223372036854775807\ndata: x\n\n", []ev{{Data: "x", Retry: 9223372036854775807}}},
	{"no space after colon", "data:x\n\n", []ev{d("x")}},
	{"only one space stripped", "data:  x \n\n", []ev{d(" x ")}},
	{"tab is not stripped", "data:\tx\n\n", []ev{d("\tx")}},
	{"colon in value kept", "data: a: b:c\n\n", []ev{d("a: b:c")}},
	{"field without colon has empty value", "data\n\n", []ev{d("")}},
	{"two bare data lines", "data\ndata\n\n", []ev{d("\n")}},
	{"empty data value dispatches", "data:\n\ndata: \n\n", []ev{d(""), d("")}},
	{"unknown fields ignored", "foo: bar\nDATA: no\nData: no\n data: no\ndata: x\n\n", []ev{d("x")}},
	{"event without data not dispatched", "event: ping\nid: 3\nretry: 5\n\ndata: x\n\n", []ev{d("x")}},
	{"blank lines alone", "\n\n\r\n\r\r", nil},
	{"empty stream", "", nil},
	{"leading BOM stripped", "\xEF\xBB\xBFdata: x\n\n", []ev{d("x")}},
	{"only one BOM stripped", "\xEF\xBB\xBF\xEF\xBB\xBFdata: x\n\n", nil},
	{"partial BOM is content", "\xEFdata: x\n\n", nil},
	{"partial BOM then unknown field", "\xEF\xBB: c\ndata: y\n\n", []ev{d("y")}},
	{"BOM-only stream", "\xEF\xBB\xBF", nil},
	{"BOM inside data kept", "data: \xEF\xBB\xBFx\n\n", []ev{d("\xEF\xBB\xBFx")}},
	{"final event without blank line (LF)", "data: a\n\ndata: b\n", []ev{d("a"), d("b")}},
	{"final event without line ending", "data: a\n\ndata: b", []ev{d("a"), d("b")}},
	{"final event ending in CR", "data: b\r", []ev{d("b")}},
	{"final comment without line ending", "data: a\n\n: bye", []ev{d("a")}},
	{"final field without data not dispatched", "data: a\n\nevent: x", []ev{d("a")}},
	{"UTF-8 passed through", "data: héllo 世界 🚀\n\n", []ev{d("héllo 世界 🚀")}},
	{"invalid UTF-8 passed through", "data: \xff\xfe\xc3\n\n", []ev{d("\xff\xfe\xc3")}},
	{"NUL in data kept", "data: a\x00b\n\n", []ev{d("a\x00b")}},
	{"OpenAI-style stream", "data: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: [DONE]\n\n", []ev{d(`{"a":1}`), d(`{"b":2}`), d("[DONE]")}},
}

func TestParserRules(t *testing.T) {
	for _, tc := range parserCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseString(tc.in)
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("events\n got %v\nwant %v", got, tc.want)
			}
		})
	}
}

func TestParserCRLFSplitAcrossFeeds(t *testing.T) {
	// Each CR ends one Feed and its LF starts the next: one line ending each,
	// so this is a single event. Were the LFs seen as separate line endings,
	// each would be a blank line and dispatch early.
	p := NewParser()
	got, err := parseAll(p, []byte("data: a\r"), []byte("\ndata: b\r"), []byte("\n\r"), []byte("\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []ev{d("a\nb")}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// A lone CR at the end of a Feed followed by something else than LF.
	got, err = parseAll(NewParser(), []byte("data: a\r"), []byte("data: b\r"), []byte("\r"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []ev{d("a\nb")}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// Empty feeds between the CR and the LF do not cancel the pairing.
	got, err = parseAll(NewParser(), []byte("data: a\r"), nil, []byte{}, []byte("\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []ev{d("a")}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// vllmStream builds an n-chunk vLLM chat stream with continuous usage stats:
// a role chunk, content chunks, a finish chunk, a usage-only chunk, [DONE].
func vllmStream(n int) []byte {
	var b strings.Builder
	const head = `{"id":"chatcmpl-95f70ae00614b063","object":"chat.completion.chunk","created":1782114956,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,`
	fmt.Fprintf(&b, "data: %s\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,\"finish_reason\":null}],\"usage\":{\"prompt_tokens\":16,\"total_tokens\":16,\"completion_tokens\":0}}\n\n", head)
	words := []string{" the", " quick", " brown", " fox", " jumps", "\\n", " über", " 世界", " \\\"q\\\""}
	for i := 1; i <= n-3; i++ {
		fmt.Fprintf(&b, "data: %s\"delta\":{\"content\":\"%s\"},\"logprobs\":null,\"finish_reason\":null}],\"usage\":{\"prompt_tokens\":16,\"total_tokens\":%d,\"completion_tokens\":%d}}\n\n", head, words[i%len(words)], 16+i, i)
	}
	fmt.Fprintf(&b, "data: %s\"delta\":{\"content\":\"\"},\"logprobs\":null,\"finish_reason\":\"length\",\"stop_reason\":null}],\"usage\":{\"prompt_tokens\":16,\"total_tokens\":%d,\"completion_tokens\":%d}}\n\n", head, 16+n-3, n-3)
	fmt.Fprintf(&b, "data: {\"id\":\"chatcmpl-95f70ae00614b063\",\"object\":\"chat.completion.chunk\",\"created\":1782114956,\"model\":\"meta-llama/Llama-3.1-8B-Instruct\",\"choices\":[],\"usage\":{\"prompt_tokens\":16,\"total_tokens\":%d,\"completion_tokens\":%d}}\n\n", 16+n-3, n-3)
	b.WriteString("data: [DONE]\n\n")
	return []byte(b.String())
}

// splitStreams are the inputs of the split property tests.
func splitStreams() []string {
	s := []string{
		string(vllmStream(8)),
		"\xEF\xBB\xBFevent: e\r\nid: 1\r\nretry: 20\r\ndata: a\r\ndata:\r\n\r\n: c\rdata: \xe4\xb8\x96\xe7\x95\x8c\r\rdata: tail",
		"data: a\r\n\r\ndata: b\r\r\n\ndata: c\n\r\n\r",
	}
	for _, tc := range parserCases {
		s = append(s, tc.in)
	}
	return s
}

func TestParserSplitAnywhere(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i, s := range splitStreams() {
		whole, err := parseString(s)
		if err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
		in := []byte(s)
		// Every single split point.
		for k := 0; k <= len(in); k++ {
			got, err := parseAll(NewParser(), in[:k], in[k:])
			if err != nil || !reflect.DeepEqual(got, whole) {
				t.Fatalf("stream %d split at %d: got %v (err %v), want %v", i, k, got, err, whole)
			}
		}
		// Random multi-splits, including one byte at a time.
		for r := 0; r < 200; r++ {
			pieces := randomSplit(rng, in, r == 0)
			got, err := parseAll(NewParser(), pieces...)
			if err != nil || !reflect.DeepEqual(got, whole) {
				t.Fatalf("stream %d split %q: got %v (err %v), want %v", i, pieces, got, err, whole)
			}
		}
	}
}

// randomSplit cuts b into random pieces (single bytes when bytewise); it
// copies each piece so that a parser retaining input would be caught.
func randomSplit(rng *rand.Rand, b []byte, bytewise bool) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		n := 1
		if !bytewise {
			n = rng.Intn(len(b)) + 1
			if rng.Intn(3) == 0 {
				n = rng.Intn(4) + 1
			}
			if n > len(b) {
				n = len(b)
			}
		}
		out = append(out, append([]byte(nil), b[:n]...))
		if rng.Intn(8) == 0 {
			out = append(out, nil)
		}
		b = b[n:]
	}
	return out
}

func TestParserEmitErrorStops(t *testing.T) {
	errStop := errors.New("stop")
	p := NewParser()
	var got []string
	err := p.Feed([]byte("data: 1\n\ndata: 2\n\ndata: 3\n\n"), func(e *Event) error {
		got = append(got, string(e.Data))
		if string(e.Data) == "2" {
			return errStop
		}
		return nil
	})
	if !errors.Is(err, errStop) {
		t.Fatalf("Feed error = %v, want errStop", err)
	}
	if !reflect.DeepEqual(got, []string{"1", "2"}) {
		t.Fatalf("events = %q, want [1 2]", got)
	}
	// Finish returns emit's error too, and resets.
	p.Reset()
	if err := p.Feed([]byte("data: last"), func(*Event) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := p.Finish(func(*Event) error { return errStop }); !errors.Is(err, errStop) {
		t.Fatalf("Finish error = %v, want errStop", err)
	}
	evs, err := parseAll(p, []byte("\xEF\xBB\xBFdata: again\n\n"))
	if err != nil || !reflect.DeepEqual(evs, []ev{d("again")}) {
		t.Fatalf("after Finish: %v %v", evs, err)
	}
}

func TestParserFinishResets(t *testing.T) {
	p := NewParser()
	noop := func(*Event) error { return nil }
	// A pending partial line, a pending event and a pending CR.
	if err := p.Feed([]byte("event: x\ndata: a\r"), noop); err != nil {
		t.Fatal(err)
	}
	var got []ev
	err := p.Finish(func(e *Event) error {
		got = append(got, ev{Type: e.Type, Data: string(e.Data), ID: e.ID, Retry: e.Retry})
		return nil
	})
	if err != nil || !reflect.DeepEqual(got, []ev{{Type: "x", Data: "a", Retry: -1}}) {
		t.Fatalf("Finish: %v %v", got, err)
	}
	// Nothing of the old stream survives: no pending CR, no partial line,
	// and the BOM check applies again.
	if p.skipLF || len(p.line) != 0 || p.hasData || !reflect.DeepEqual(p.ev, Event{}) {
		t.Fatalf("state after Finish: skipLF=%v line=%q hasData=%v", p.skipLF, p.line, p.hasData)
	}
	evs, err := parseAll(p, []byte("\xEF\xBB\xBFdata: b\n\n"))
	if err != nil || !reflect.DeepEqual(evs, []ev{d("b")}) {
		t.Fatalf("after Finish: %v %v", evs, err)
	}
}

func TestParserEventTooLarge(t *testing.T) {
	t.Run("data of one event", func(t *testing.T) {
		// Lines of 16 bytes fit; the joined data (10+1+10) does not.
		got, err := parseString("data: 0123456789\n\ndata: 0123456789\ndata: 0123456789\n\n", MaxEventBytes(16))
		if !errors.Is(err, ErrEventTooLarge) {
			t.Fatalf("err = %v, want ErrEventTooLarge", err)
		}
		if want := []ev{d("0123456789")}; !reflect.DeepEqual(got, want) {
			t.Fatalf("events before the failure = %v, want %v", got, want)
		}
	})
	t.Run("exactly at the limit", func(t *testing.T) {
		got, err := parseString("data:0123\ndata:56789\n\n", MaxEventBytes(10))
		if err != nil || !reflect.DeepEqual(got, []ev{d("0123\n56789")}) {
			t.Fatalf("got %v, %v", got, err)
		}
	})
	t.Run("one long line, any split", func(t *testing.T) {
		in := []byte(": " + strings.Repeat("x", 100) + "\ndata: y\n\n")
		for k := 0; k <= len(in); k++ {
			_, err := parseAll(NewParser(MaxEventBytes(64)), in[:k], in[k:])
			if !errors.Is(err, ErrEventTooLarge) {
				t.Fatalf("split %d: err = %v, want ErrEventTooLarge", k, err)
			}
		}
	})
	t.Run("sticky until Reset", func(t *testing.T) {
		p := NewParser(MaxEventBytes(8))
		noop := func(*Event) error { return nil }
		if err := p.Feed([]byte("data: 0123456789"), noop); !errors.Is(err, ErrEventTooLarge) {
			t.Fatalf("err = %v", err)
		}
		if err := p.Feed([]byte("\n\n"), noop); !errors.Is(err, ErrEventTooLarge) {
			t.Fatalf("second Feed err = %v", err)
		}
		p.Reset()
		got, err := parseAll(p, []byte("data: ok\n\n"))
		if err != nil || !reflect.DeepEqual(got, []ev{d("ok")}) {
			t.Fatalf("after Reset: %v %v", got, err)
		}
	})
	t.Run("endless line keeps memory bounded", func(t *testing.T) {
		const limit = 1 << 20
		p := NewParser(MaxEventBytes(limit))
		piece := []byte(strings.Repeat("x", 64<<10))
		fed := 0
		var err error
		for fed < 64<<20 && err == nil {
			err = p.Feed(piece, func(*Event) error { return nil })
			fed += len(piece)
		}
		if !errors.Is(err, ErrEventTooLarge) {
			t.Fatalf("err = %v after %d bytes", err, fed)
		}
		if fed > limit+len(piece) {
			t.Fatalf("failed only after %d bytes, limit %d", fed, limit)
		}
		if cap(p.line) > 2*limit {
			t.Fatalf("line buffer grew to %d bytes", cap(p.line))
		}
	})
	t.Run("endless comments without blank lines use no memory", func(t *testing.T) {
		p := NewParser(MaxEventBytes(1 << 10))
		piece := []byte(strings.Repeat(": keep-alive\n", 1000))
		for i := 0; i < 100; i++ {
			if err := p.Feed(piece, func(*Event) error { return nil }); err != nil {
				t.Fatal(err)
			}
		}
		if cap(p.data) != 0 || cap(p.line) != 0 {
			t.Fatalf("buffers grew: data %d, line %d", cap(p.data), cap(p.line))
		}
	})
	t.Run("non-positive limit selects the default", func(t *testing.T) {
		if p := NewParser(MaxEventBytes(0)); p.max != DefaultMaxEventBytes {
			t.Fatalf("max = %d", p.max)
		}
		if p := NewParser(MaxEventBytes(-5)); p.max != DefaultMaxEventBytes {
			t.Fatalf("max = %d", p.max)
		}
	})
}

func TestParserNoAllocsSteadyState(t *testing.T) {
	stream := vllmStream(128)
	typed := []byte(strings.Repeat("event: delta\nid: 42\ndata: {\"x\":1}\n\n", 64))
	p := NewParser()
	n := 0
	emit := func(e *Event) error {
		n += len(e.Data)
		return nil
	}
	for _, in := range [][]byte{stream, typed} {
		run := func() {
			for off := 0; off < len(in); off += 1000 {
				end := min(off+1000, len(in))
				if err := p.Feed(in[off:end], emit); err != nil {
					t.Fatal(err)
				}
			}
			if err := p.Finish(emit); err != nil {
				t.Fatal(err)
			}
		}
		run() // warm the buffers and caches
		if a := testing.AllocsPerRun(20, run); a != 0 {
			t.Errorf("%d allocations per stream, want 0", int(a))
		}
	}
}
