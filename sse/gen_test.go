package sse

import (
	"bytes"
	"math/rand"
	"strconv"
	"testing"
)

// gen writes random, mostly well-typed chunk JSON: the fields the decoders
// interpret, in random order, with nulls, wrong types, escapes, odd numbers,
// unknown fields and random whitespace.
type gen struct {
	rng *rand.Rand
	b   bytes.Buffer
}

var genStrings = []string{
	``, `a`, ` the`, `\n`, `\"q\"`, `\\`, `\/`, `\b\f\r\t`, `\u0041`, `\u00e9t\u00e9`, `\uD83D\uDE80`,
	`\uD83D`, `\uDE80x`, `\uD83D\u0041`, `世界`, "\xff", "a\xc3", "\xed\xa0\x80", `{\"city\": \"Paris\"}`,
	`assistant`, `stop`, `length`, `tool_calls`, `error`, `chat.completion.chunk`,
}

func (g *gen) ws() {
	if g.rng.Intn(4) == 0 {
		g.b.WriteString([]string{" ", "\n", "\t", "\r\n  "}[g.rng.Intn(4)])
	}
}

func (g *gen) str() {
	g.b.WriteByte('"')
	g.b.WriteString(genStrings[g.rng.Intn(len(genStrings))])
	if g.rng.Intn(3) == 0 {
		g.b.WriteString(genStrings[g.rng.Intn(len(genStrings))])
	}
	g.b.WriteByte('"')
}

func (g *gen) number() {
	switch g.rng.Intn(40) {
	case 0:
		g.b.WriteString("-" + strconv.Itoa(g.rng.Intn(100)))
	case 1:
		g.b.WriteString("1.5")
	case 2:
		g.b.WriteString("2e3")
	case 3:
		g.b.WriteString("99999999999999999999")
	case 4:
		g.b.WriteString("9223372036854775807")
	case 5:
		g.b.WriteString("-9223372036854775808")
	default:
		g.b.WriteString(strconv.Itoa(g.rng.Intn(5000)))
	}
}

// any writes a random value of any kind (depth-bounded).
func (g *gen) any(depth int) {
	k := g.rng.Intn(7)
	if depth > 3 && k >= 5 {
		k = 0
	}
	switch k {
	case 0:
		g.str()
	case 1:
		g.number()
	case 2:
		g.b.WriteString("true")
	case 3:
		g.b.WriteString("false")
	case 4:
		g.b.WriteString("null")
	case 5:
		g.object(depth+1, nil)
	case 6:
		g.array(depth+1, func() { g.any(depth + 1) })
	}
}

// typed writes a value that is usually of the wanted kind, sometimes null,
// rarely anything.
func (g *gen) typed(want func()) {
	switch n := g.rng.Intn(80); {
	case n == 0:
		g.any(3)
	case n < 8:
		g.b.WriteString("null")
	default:
		want()
	}
}

func (g *gen) array(depth int, elem func()) {
	g.b.WriteByte('[')
	n := g.rng.Intn(3)
	for i := 0; i < n; i++ {
		if i > 0 {
			g.b.WriteByte(',')
		}
		g.ws()
		elem()
		g.ws()
	}
	g.b.WriteByte(']')
}

type member struct {
	key string
	val func()
}

// object writes the members in random order, each present with probability
// 3/4, plus random unknown members and, rarely, a duplicate.
func (g *gen) object(depth int, members []member) {
	g.rng.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	var out []member
	for _, m := range members {
		if g.rng.Intn(4) != 0 {
			out = append(out, m)
		}
	}
	if depth < 4 {
		for n := g.rng.Intn(3); n > 0; n-- {
			out = append(out, member{"x" + strconv.Itoa(g.rng.Intn(3)), func() { g.any(depth) }})
		}
	}
	if len(out) > 0 && g.rng.Intn(30) == 0 {
		out = append(out, out[g.rng.Intn(len(out))])
	}
	g.b.WriteByte('{')
	for i, m := range out {
		if i > 0 {
			g.b.WriteByte(',')
		}
		g.ws()
		g.b.WriteString(strconv.Quote(m.key))
		g.ws()
		g.b.WriteByte(':')
		g.ws()
		m.val()
		g.ws()
	}
	g.b.WriteByte('}')
}

func (g *gen) chunk() []byte {
	g.b.Reset()
	str := func() { g.typed(g.str) }
	num := func() { g.typed(g.number) }
	function := func() {
		g.typed(func() { g.object(3, []member{{"name", str}, {"arguments", str}}) })
	}
	toolEntry := func() {
		g.object(3, []member{{"index", num}, {"id", str}, {"type", str}, {"function", function}})
	}
	msg := func() {
		g.typed(func() {
			g.object(2, []member{
				{"role", str}, {"content", str}, {"reasoning_content", str}, {"reasoning", str}, {"refusal", str},
				{"tool_calls", func() {
					if g.rng.Intn(5) == 0 {
						g.typed(toolEntry)
					} else {
						g.typed(func() { g.array(3, toolEntry) })
					}
				}},
				{"function_call", function},
			})
		})
	}
	choice := func() {
		g.object(1, []member{{"index", num}, {"text", str}, {"finish_reason", str}, {"delta", msg}, {"message", msg}, {"logprobs", func() { g.any(2) }}})
	}
	details := func(key string) func() {
		return func() { g.typed(func() { g.object(2, []member{{key, num}, {"audio_tokens", num}}) }) }
	}
	errObj := func() {
		switch g.rng.Intn(3) {
		case 0:
			g.typed(g.str)
		default:
			g.typed(func() {
				g.object(1, []member{{"message", str}, {"type", str}, {"code", func() { g.typed(g.number) }}, {"param", str}})
			})
		}
	}
	objectVal := func() {
		if g.rng.Intn(4) == 0 {
			g.b.WriteString(`"error"`)
		} else {
			g.typed(g.str)
		}
	}
	g.ws()
	g.object(0, []member{
		{"id", str}, {"object", objectVal}, {"created", num}, {"model", str},
		{"choices", func() { g.typed(func() { g.array(1, choice) }) }},
		{"usage", func() {
			g.typed(func() {
				g.object(1, []member{{"prompt_tokens", num}, {"completion_tokens", num}, {"total_tokens", num},
					{"prompt_tokens_details", details("cached_tokens")}, {"completion_tokens_details", details("reasoning_tokens")}})
			})
		}},
		{"error", errObj}, {"error_type", str}, {"message", str}, {"type", str}, {"code", func() { g.any(2) }},
		{"goodput_emit_ns", num}, {"detail", func() { g.any(2) }},
		{"timings", func() {
			g.typed(func() {
				g.object(1, []member{{"prompt_n", num}, {"predicted_n", num}, {"cache_n", num},
					{"prompt_ms", num}, {"predicted_ms", num}, {"prompt_per_second", num}})
			})
		}},
	})
	g.ws()
	return g.b.Bytes()
}

// TestFastMatchesReferenceRandom compares the two decoders on many random
// chunks, most of them valid JSON of the right shape, so that the fast
// path's accepting branches are exercised (a byte fuzzer mostly finds
// malformed JSON, which the fast path hands over at once).
func TestFastMatchesReferenceRandom(t *testing.T) {
	n := 3000 // FuzzDecodeChunkGen explores further
	if testing.Short() {
		n = 300
	}
	g := &gen{rng: rand.New(rand.NewSource(7))}
	handled, ok := 0, 0
	for i := 0; i < n; i++ {
		data := g.chunk()
		ok += compareDecoders(t, data)
		for _, resp := range []bool{false, true} {
			var probe Chunk
			probe.Reset()
			if decodeFast(data, &probe, resp) {
				handled++
			}
		}
	}
	// The generator must reach the fast path's accepting code, or this test
	// proves little.
	if ok < n/2 || handled < ok/2 {
		t.Fatalf("weak generator: %d of %d decodes succeeded, fast path handled %d", ok, 2*n, handled)
	}
	t.Logf("%d decodes, %d succeeded, fast path handled %d", 2*n, ok, handled)
}
