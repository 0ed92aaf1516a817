package sse

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// refParse is a deliberately naive, whole-input reading of the same rules
// (WHATWG interpretation plus the final-event deviation), used to check the
// incremental parser.
func refParse(in []byte) []ev {
	in = bytes.TrimPrefix(in, []byte(bom))
	var lines [][]byte
	start := 0
	for i := 0; i < len(in); i++ {
		switch in[i] {
		case '\r':
			lines = append(lines, in[start:i])
			if i+1 < len(in) && in[i+1] == '\n' {
				i++
			}
			start = i + 1
		case '\n':
			lines = append(lines, in[start:i])
			start = i + 1
		}
	}
	if start < len(in) {
		lines = append(lines, in[start:])
	}
	lines = append(lines, nil) // end of stream dispatches like a blank line
	var out []ev
	var data []string
	cur := ev{Retry: -1}
	for _, l := range lines {
		if len(l) == 0 {
			if data != nil {
				cur.Data = string(bytes.Join(toBytes(data), []byte("\n")))
				out = append(out, cur)
			}
			data, cur = nil, ev{Retry: -1}
			continue
		}
		if l[0] == ':' {
			continue
		}
		name, value, found := bytes.Cut(l, []byte(":"))
		if found && len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		switch string(name) {
		case "data":
			data = append(data, string(value))
		case "event":
			cur.Type = string(value)
		case "id":
			if !bytes.Contains(value, []byte{0}) {
				cur.ID = string(value)
			}
		case "retry":
			if n, ok := parseDigits(value); ok {
				cur.Retry = n
			}
		}
	}
	return out
}

func toBytes(s []string) [][]byte {
	out := make([][]byte, len(s))
	for i, x := range s {
		out[i] = []byte(x)
	}
	return out
}

func FuzzParser(f *testing.F) {
	for _, s := range splitStreams() {
		f.Add([]byte(s), int64(len(s)))
	}
	f.Add([]byte("data: x\r"), int64(1))
	f.Add([]byte("\xEF\xBB"), int64(2))
	f.Fuzz(func(t *testing.T, in []byte, seed int64) {
		whole, err := parseAll(NewParser(), in)
		if err != nil {
			t.Fatalf("whole input: %v", err)
		}
		if want := refParse(in); !reflect.DeepEqual(whole, want) {
			t.Fatalf("parser %v\nreference %v", whole, want)
		}
		rng := rand.New(rand.NewSource(seed))
		pieces := randomSplit(rng, in, seed%7 == 0)
		got, err := parseAll(NewParser(), pieces...)
		if err != nil || !reflect.DeepEqual(got, whole) {
			t.Fatalf("split %q: %v (err %v), whole %v", pieces, got, err, whole)
		}
		// A small limit fails the same way, whatever the split.
		small := func(pieces ...[]byte) ([]ev, bool) {
			evs, err := parseAll(NewParser(MaxEventBytes(16)), pieces...)
			if err != nil && !errors.Is(err, ErrEventTooLarge) {
				t.Fatalf("unexpected error %v", err)
			}
			return evs, err != nil
		}
		we, wf := small(in)
		ge, gf := small(pieces...)
		if wf != gf || !reflect.DeepEqual(we, ge) {
			t.Fatalf("limit 16: whole %v failed=%v, split %v failed=%v", we, wf, ge, gf)
		}
	})
}

// FuzzParserData writes the values taken from the input as data lines, with
// line endings, comments and splits chosen by the seed, and checks that every
// byte of every value comes back, in order.
func FuzzParserData(f *testing.F) {
	f.Add([]byte("hello\nworld\n\n{\"a\":1}\n\xe4\xb8\x96\xff"), int64(3))
	f.Add([]byte(" leading space\n:colon\ndata: nested\n\xEF\xBB\xBF"), int64(4))
	f.Fuzz(func(t *testing.T, payload []byte, seed int64) {
		rng := rand.New(rand.NewSource(seed))
		values := bytes.Split(bytes.ReplaceAll(payload, []byte("\r"), nil), []byte("\n"))
		var stream []byte
		eols := []string{"\n", "\r\n", "\r"}
		for _, v := range values {
			if rng.Intn(4) == 0 {
				stream = append(stream, ": comment"+eols[rng.Intn(3)]...)
			}
			stream = append(stream, "data: "...)
			stream = append(stream, v...)
			eol := eols[rng.Intn(3)]
			stream = append(stream, eol...)
			blank := eols[rng.Intn(3)]
			if eol == "\r" && blank == "\n" {
				blank = "\r\n" // "\r" then "\n" would be one line ending
			}
			stream = append(stream, blank...)
		}
		got, err := parseAll(NewParser(), randomSplit(rng, stream, false)...)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(values) {
			t.Fatalf("%d events, wrote %d", len(got), len(values))
		}
		var all, want []byte
		for i, e := range got {
			if e.Data != string(values[i]) {
				t.Fatalf("event %d data %q, wrote %q", i, e.Data, values[i])
			}
			all = append(all, e.Data...)
			want = append(want, values[i]...)
		}
		if !bytes.Equal(all, want) {
			t.Fatal("concatenated data differs")
		}
	})
}

func FuzzDecodeChunk(f *testing.F) {
	for _, tc := range realChunks {
		f.Add([]byte(tc.json))
	}
	for _, tc := range realResponses {
		f.Add([]byte(tc.json))
	}
	for _, s := range []string{
		"[DONE]", " [DONE] ", "", "null", "[]", `{"choices":[{"delta":{"content":"\uD83D\u0041\xff"}}]}`,
		`{"usage":{"prompt_tokens":1e2}}`, `{"a":-0.5e+7,"b":[true,false,null,{}],"choices":[{"index":-0}]}`,
		`{"choices":[{"delta":{"content":"a","content":"b"}}]}`, `{"object":"error","code":7,"message":"m"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		compareDecoders(t, data)
	})
}

// FuzzDecodeChunkGen compares the decoders on chunks from the random
// generator of gen_test.go, seeded by the fuzzer: mostly valid JSON of the
// right shape, which a byte fuzzer rarely reaches.
func FuzzDecodeChunkGen(f *testing.F) {
	for seed := int64(0); seed < 8; seed++ {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed int64) {
		g := &gen{rng: rand.New(rand.NewSource(seed))}
		compareDecoders(t, g.chunk())
	})
}

// compareDecoders checks that DecodeChunk and DecodeResponse agree with the
// reference decoder on data: same success, same error text, same Chunk. It
// returns how many of the two decodes succeeded.
func compareDecoders(t *testing.T, data []byte) (succeeded int) {
	t.Helper()
	for _, resp := range []bool{false, true} {
		var fast, full Chunk
		var errFast, errFull error
		if resp {
			errFast = DecodeResponse(data, &fast)
			errFull = decodeFull(data, &full, true)
		} else {
			errFast = DecodeChunk(data, &fast)
			errFull = DecodeChunkFull(data, &full)
		}
		if (errFast == nil) != (errFull == nil) {
			t.Fatalf("resp=%v %q\nfast error %v\nreference error %v", resp, data, errFast, errFull)
		}
		if errFull != nil {
			if errFast.Error() != errFull.Error() {
				t.Fatalf("resp=%v %q: errors differ:\nfast %v\nfull %v", resp, data, errFast, errFull)
			}
			if len(errFull.Error()) > 400 {
				t.Fatalf("error too long (%d bytes)", len(errFull.Error()))
			}
			continue
		}
		succeeded++
		if a, b := viewOf(&fast), viewOf(&full); a != b {
			t.Fatalf("resp=%v %q: chunks differ\nfast %+v\nfull %+v", resp, data, a, b)
		}
		if a, b := toolDeltasOf(&fast), toolDeltasOf(&full); a != b {
			t.Fatalf("resp=%v %q: tool deltas differ\nfast %s\nfull %s", resp, data, a, b)
		}
	}
	return succeeded
}

// toolDeltasOf renders a chunk's tool deltas for comparison.
func toolDeltasOf(c *Chunk) string {
	var b strings.Builder
	for _, d := range c.ToolDeltas {
		fmt.Fprintf(&b, "%d|%q|%q|%q;", d.Index, d.ID, d.Name, d.Args)
	}
	return b.String()
}
