package dataset

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"
	"unsafe"
)

// textGen builds prompt texts of an exact number of units (tokens, in exact
// mode) from a vocab: a marker that encodes a number in units, then a slice
// of a long random body of mid units.
//
// The marker of value m is a fixed-width mixed-radix number: its first digit
// is an opening unit of the context, the others mid units, least significant
// first after a bijective scramble, so consecutive requests differ in their
// very first token and no two values share all marker tokens.
type textGen struct {
	v    *vocab
	body string  // random mid units
	offs []int32 // offs[k] is the byte offset of unit k in body; len = units+1
	dmin [numCtx]int
	// salt shifts every marker within its width class (Options.Salt):
	// other tokens, the same count, still distinct within the run.
	salt uint64
}

// minMarkerValues is how many distinct values a marker of the default width
// holds at least; larger values widen it.
const minMarkerValues = 1 << 28

// scramble maps m < c bijectively onto [0, c) (c = 0 meaning 2⁶⁴), mixing
// all bits, so that consecutive values have unrelated digits. It permutes
// the b-bit integers (2ᵇ ≥ c) with rounds of xorshift and odd multiplication,
// both invertible modulo 2ᵇ, and cycle-walks until the value is below c.
func scramble(m, c uint64) uint64 {
	b := 64
	if c != 0 {
		b = bits.Len64(c - 1)
	}
	mask := uint64(1)<<b - 1
	if b == 64 {
		mask = ^uint64(0)
	}
	s := max(1, b/2)
	x := m
	for {
		for _, k := range [...]uint64{0x9e3779b97f4a7c15, 0xbf58476d1ce4e5b9, 0x94d049bb133111eb} {
			x = (x + k) & mask
			x ^= x >> s
			x = (x * (k | 1)) & mask
		}
		if c == 0 || x < c {
			return x
		}
	}
}

func newTextGen(v *vocab, bodyUnits int, seed uint64) *textGen {
	g := &textGen{v: v}
	for ctx := range numCtx {
		if len(v.units[ctx]) == 0 {
			continue
		}
		d := 1
		for c := g.capacity(ctx, d); c != 0 && c < minMarkerValues && d < 64; c = g.capacity(ctx, d) {
			d++
		}
		g.dmin[ctx] = d
	}
	rng := rand.New(rand.NewPCG(seed, 0x626f6479))
	mid := v.units[ctxMid]
	var b strings.Builder
	b.Grow(bodyUnits * 7)
	g.offs = make([]int32, 0, bodyUnits+1)
	for range bodyUnits {
		g.offs = append(g.offs, int32(b.Len()))
		b.WriteString(mid[rng.IntN(len(mid))])
	}
	g.offs = append(g.offs, int32(b.Len()))
	g.body = b.String()
	return g
}

// bodyUnits returns the number of units in the random body.
func (g *textGen) bodyUnits() int { return len(g.offs) - 1 }

// capacity returns how many values a marker of d units holds in ctx; 0
// means 2⁶⁴ or more.
func (g *textGen) capacity(ctx, d int) uint64 {
	c := uint64(len(g.v.units[ctx]))
	k := uint64(len(g.v.units[ctxMid]))
	for range d - 1 {
		hi, lo := bits.Mul64(c, k)
		if hi != 0 {
			return 0
		}
		c = lo
	}
	return c
}

// width returns the marker width for value m in ctx.
func (g *textGen) width(m uint64, ctx int) int {
	d := g.dmin[ctx]
	for c := g.capacity(ctx, d); c != 0 && m >= c; c = g.capacity(ctx, d) {
		d++
	}
	return d
}

// appendUnits appends the first n units of the text for value m in ctx: the
// marker (truncated when n is shorter), then body units from unit off. The
// caller guarantees off+n ≤ bodyUnits.
func (g *textGen) appendUnits(b []byte, m uint64, ctx, n, off int) []byte {
	d := g.width(m, ctx)
	c := g.capacity(ctx, d)
	x := scramble(m, c)
	if g.salt != 0 {
		// x + salt mod c is a bijection of [0, c): markers stay distinct
		// and as wide; c = 0 (2⁶⁴) wraps by itself.
		if c == 0 {
			x += g.salt
		} else if s := g.salt % c; x >= c-s {
			x -= c - s
		} else {
			x += s
		}
	}
	w := min(d, n)
	for i := range w {
		alpha := g.v.units[ctxMid]
		if i == 0 {
			alpha = g.v.units[ctx]
		}
		base := uint64(len(alpha))
		b = append(b, alpha[x%base]...)
		x /= base
	}
	if n > w {
		b = append(b, g.body[g.offs[off]:g.offs[off+n-w]]...)
	}
	return b
}

// unitsLen returns the byte length of appendUnits' output, for sizing.
func (g *textGen) unitsLen(m uint64, ctx, n, off int) int {
	w := min(g.width(m, ctx), n)
	l := 0
	if n > w {
		l = int(g.offs[off+n-w] - g.offs[off])
	}
	return l + w*16
}

// text returns appendUnits as a string, built in place: the buffer is never
// touched again, so it becomes the string without a copy (as
// strings.Builder does).
func (g *textGen) text(m uint64, ctx, n, off int) string {
	b := g.appendUnits(make([]byte, 0, g.unitsLen(m, ctx, n, off)), m, ctx, n, off)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// verifyBody checks, in exact mode, that the body tokenizes as its units
// after an opening unit: a direct check of the proof's conclusion on the
// text every prompt is cut from, in overlapping chunks like provePairs.
func (g *textGen) verifyBody() error {
	v := g.v
	if v.tok == nil {
		return nil
	}
	index := make(map[string]int, len(v.units[ctxMid]))
	for i, u := range v.units[ctxMid] {
		index[u] = i
	}
	seq := make([]int, g.bodyUnits())
	for k := range seq {
		seq[k] = index[g.body[g.offs[k]:g.offs[k+1]]]
	}
	f0, f0id := v.units[ctxStart][0], v.ids[ctxStart][0]
	for lo := 0; lo < len(seq); lo += pairsChunk - 1 {
		hi := min(lo+pairsChunk, len(seq))
		if j := v.diffUnits(f0, f0id, seq[lo:hi]); j >= 0 {
			return fmt.Errorf("tokenizer %s: the prompt body does not tokenize word by word (unit %d), so exact prompts cannot be built", v.tok.Name(), lo+j)
		}
		if hi == len(seq) {
			break
		}
	}
	return nil
}
