package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/tokenize"
)

// bodySpread is how many units the random body has beyond the longest
// prompt, so that prompts start at many different places in it.
const bodySpread = 8192

// Synthetic generates requests from a Spec. Lengths, texts and prefixes
// depend only on the seed and the request index, so runs are reproducible.
// Every user prompt opens with a marker unique to its request (and round),
// so no two requests share a cache prefix by accident; a shared system
// prefix exists only when prefix_tokens or prefix_buckets asks for one.
//
// With a tokenizer (NewExactSynthetic) every prompt has exactly the sampled
// number of tokens: Request.PromptTokens equals TargetPromptTokens and a
// fresh Encode of Request.Text(). Without one (NewSynthetic) the prompt is
// that many common English words, approximately that many tokens, and
// PromptTokens is -1.
//
// Request(i) never runs out; it costs one text build and loadgen.NewRequest
// (no tokenization). Synthetic is safe for concurrent use.
type Synthetic struct {
	spec     Spec
	seed     uint64
	gen      *textGen
	exact    bool
	overhead int          // tokens the server adds to each prompt, taken off the content (exact mode)
	prefixes []prefixText // distinct prefixes, bucket by bucket
	buckets  []bucketRef
	totalW   float64
	pool     []draw // spec.Samples draws; nil draws per request
	shape    *sessionShape
	// media is the synthetic media requests take in turn (media.go).
	media mediaPool
}

type prefixText struct {
	text   string // system message
	tokens int    // tokens it adds to Request.Text(): its own and the join's
}

// bucketRef locates a prefix bucket's prefixes in Synthetic.prefixes.
type bucketRef struct {
	first, count int // count 0: requests of this bucket have no prefix
	cumW         float64
}

// draw is what request (or sample) k asked for.
type draw struct {
	n, out, off, prefix int // prompt tokens (user part), max_tokens or -1, body offset, prefix index or -1
}

// NewSynthetic returns an approximate synthetic source (no tokenizer): each
// prompt is the sampled number of common English words.
func NewSynthetic(spec Spec, seed uint64) *Synthetic {
	s, err := newSynthetic(spec, approxVocab(), seed, 0)
	if err != nil { // approximate mode has no failing checks
		panic(err)
	}
	return s
}

// NewExactSynthetic returns a synthetic source whose prompts have exactly the
// sampled number of tokens for tok. It selects and proves the vocabulary
// (see "Exactness" in README.md), builds the prompt body and the shared
// prefixes, and re-encodes the first requests as a final check: tens of
// milliseconds for common specs. It fails when the tokenizer does not allow
// exact prompts or a prefix is too short to hold the join.
func NewExactSynthetic(spec Spec, tok *tokenize.Tokenizer, seed uint64) (*Synthetic, error) {
	return newExactSynthetic(spec, tok, seed, 0)
}

func newExactSynthetic(spec Spec, tok *tokenize.Tokenizer, seed, salt uint64) (*Synthetic, error) {
	if tok == nil {
		return nil, fmt.Errorf("exact synthetic data needs a tokenizer")
	}
	if err := spec.validate(); err != nil {
		return nil, err
	}
	v, err := newExactVocab(tok, spec.buckets() != nil)
	if err != nil {
		return nil, err
	}
	s, err := newSynthetic(spec, v, seed, salt)
	if err != nil {
		return nil, err
	}
	for _, i := range []uint64{0, 1, 2, 1<<31 - 1} {
		if err := s.Check(0, i); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// newSynthetic builds the source; a salt other than 0 changes every
// marker (Options.Salt), not the lengths.
func newSynthetic(spec Spec, v *vocab, seed, salt uint64) (*Synthetic, error) {
	s := &Synthetic{spec: spec, seed: seed, exact: v.tok != nil}
	_, longest := spec.Prompt.Bounds()
	for _, p := range spec.Mix {
		_, hi := p.Prompt.Bounds()
		longest = max(longest, hi)
	}
	for _, b := range spec.buckets() {
		longest = max(longest, b.Tokens)
	}
	for _, l := range spec.Session.TurnLengths {
		_, hi := l.Prompt.Bounds()
		longest = max(longest, hi)
	}
	s.gen = newTextGen(v, longest+bodySpread, seed)
	s.gen.salt = salt
	if err := s.gen.verifyBody(); err != nil {
		return nil, err
	}
	if err := s.buildPrefixes(); err != nil {
		return nil, err
	}
	var err error
	if s.shape, err = newSessionShape(spec.Session, s.gen, seed); err != nil {
		return nil, err
	}
	if spec.Samples > 0 {
		s.pool = make([]draw, spec.Samples)
		for k := range s.pool {
			s.pool[k] = s.draw(uint64(k))
		}
	}
	return s, nil
}

// buildPrefixes makes every distinct system prefix: a marker for its index,
// body units and the tail unit, so that with the join it has exactly the
// bucket's prefix_tokens tokens.
func (s *Synthetic) buildPrefixes() error {
	v := s.gen.v
	sep := v.sepTokens()
	rng := rand.New(rand.NewPCG(s.seed, 0x707265666978))
	for _, b := range s.spec.buckets() {
		ref := bucketRef{first: len(s.prefixes)}
		if b.Tokens > 0 {
			ref.count = b.Count
			units := b.Tokens - sep // prefix units including the tail
			if units < 2 {
				if s.exact {
					return fmt.Errorf("prefix_tokens=%d is too short: with tokenizer %s a system prefix and its blank-line join need at least %d tokens", b.Tokens, v.tok.Name(), sep+2)
				}
				units = 2
			}
			for range b.Count {
				p := len(s.prefixes)
				off := rng.IntN(s.gen.bodyUnits() - units + 2)
				buf := s.gen.appendUnits(nil, uint64(p)+1<<48, ctxStart, units-1, off)
				text := string(append(append(buf, v.tail...), v.pad...))
				if s.exact {
					if got := v.tok.Count(text + joinSep); got != b.Tokens {
						return fmt.Errorf("tokenizer %s: system prefix %d encodes to %d tokens, not %d", v.tok.Name(), p, got, b.Tokens)
					}
				}
				s.prefixes = append(s.prefixes, prefixText{text: text, tokens: b.Tokens})
			}
		}
		s.totalW += float64(b.Weight)
		ref.cumW = s.totalW
		s.buckets = append(s.buckets, ref)
	}
	return nil
}

// draw samples request (or sample) k.
func (s *Synthetic) draw(k uint64) draw {
	rng := rand.New(rand.NewPCG(s.seed^0x73796e746865, k))
	prompt, output := s.spec.Prompt, s.spec.Output
	if len(s.spec.Mix) > 0 {
		p := pick(s.spec.Mix, rng)
		prompt, output = p.Prompt, p.Output
	}
	d := draw{n: prompt.Sample(rng), out: -1, prefix: -1}
	if output.Set() {
		d.out = output.Sample(rng)
	}
	d.off = rng.IntN(s.gen.bodyUnits() - d.n + 1)
	switch len(s.buckets) {
	case 0:
	case 1:
		if b := s.buckets[0]; b.count > 0 {
			d.prefix = b.first + int(k%uint64(b.count))
		}
	default:
		// A low-discrepancy point picks the bucket in proportion to its
		// weight; within a bucket, prefixes take turns.
		_, frac := math.Modf(float64(k) * 0.6180339887498949)
		u := frac * s.totalW
		for _, b := range s.buckets {
			if u < b.cumW {
				if b.count > 0 {
					d.prefix = b.first + int(k%uint64(b.count))
				}
				break
			}
		}
	}
	return d
}

// Request returns request i of round 0. It never runs out.
func (s *Synthetic) Request(i uint64) (*loadgen.Request, bool) {
	return s.request(0, i), true
}

// Round returns a source whose requests have the same lengths as this one's
// but markers of their own, so that benchmarks of a sweep (which all start
// at request 0) never share a cache prefix with each other. Round(0) is s.
func (s *Synthetic) Round(r uint32) loadgen.Source {
	if r == 0 {
		return s
	}
	return roundSource{s, r}
}

type roundSource struct {
	s *Synthetic
	r uint32
}

func (rs roundSource) Request(i uint64) (*loadgen.Request, bool) {
	return rs.s.request(rs.r, i), true
}

func (s *Synthetic) request(round uint32, i uint64) *loadgen.Request {
	var d draw
	if s.pool != nil {
		d = s.pool[i%uint64(len(s.pool))]
	} else {
		d = s.draw(i)
	}
	ctx, system, pt := ctxStart, "", 0
	if d.prefix >= 0 {
		p := s.prefixes[d.prefix]
		ctx, system, pt = ctxJoin, p.text, p.tokens
	}
	prompt := s.gen.text(markerValue(round, i), ctx, s.contentTokens(d.n), d.off)
	r := loadgen.NewRequest(system, prompt, d.out)
	r.Media = s.mediaFor(i)
	r.TargetPromptTokens = pt + d.n
	switch {
	case s.exact && s.gen.v.tok.Remote():
		// A server's tokenizer is not asked per request: that would send
		// the server under test one more request for every one measured.
		// The count is the one the vocabulary's proof and Check guarantee;
		// the server's usage still shows any difference.
		r.PromptTokens = pt + s.contentTokens(d.n)
	case s.exact:
		// The count is a fresh encode of the final text, not the target
		// the prompt was built for: if the two ever differ, the record
		// shows it.
		r.PromptTokens = s.gen.v.tok.Count(r.Text())
	}
	return r
}

// Marker values: the first markerRounds rounds of markerRequests requests
// each share one marker width class, in which markers are all distinct,
// so no two of those requests share their first marker-width tokens.
// Beyond, values move to wider classes, where a shared start is merely
// improbable.
const (
	markerRequests = 1 << 22
	markerRounds   = minMarkerValues / markerRequests
)

func markerValue(round uint32, i uint64) uint64 {
	if round < markerRounds && i < markerRequests {
		return uint64(round)*markerRequests + i
	}
	return minMarkerValues + (uint64(round)<<40 | i)
}

// Exact reports whether prompt token counts are exact (a tokenizer was given).
func (s *Synthetic) Exact() bool { return s.exact }

// Check re-encodes request i of round r with the tokenizer and compares the
// count with PromptTokens. It is the test of exactness; it costs a full
// encode, so it is not on the request path. Approximate sources always pass.
func (s *Synthetic) Check(round uint32, i uint64) error {
	if !s.exact {
		return nil
	}
	r := s.request(round, i)
	want := r.TargetPromptTokens
	if s.overhead > 0 {
		var d draw
		if s.pool != nil {
			d = s.pool[i%uint64(len(s.pool))]
		} else {
			d = s.draw(i)
		}
		want -= d.n - s.contentTokens(d.n)
	}
	if got := s.gen.v.tok.Count(r.Text()); got != want {
		return fmt.Errorf("tokenizer %s: request %d (round %d) encodes to %d tokens, not %d", s.gen.v.tok.Name(), i, round, got, want)
	}
	return nil
}

// contentTokens is the user prompt's length for a drawn n: n less the
// server's overhead, keeping at least one token.
func (s *Synthetic) contentTokens(n int) int {
	if s.overhead <= 0 {
		return n
	}
	return max(n-s.overhead, 1)
}

// WithOverhead returns a copy of an exact source whose prompt contents are
// overhead tokens shorter than requested, so that a server adding overhead
// tokens to each prompt (a chat template) bills the requested count:
// TargetPromptTokens stays the requested length and PromptTokens counts the
// shorter content. A prompt keeps at least one token of content. An
// approximate source, or an overhead of 0, is returned as it is.
func (s *Synthetic) WithOverhead(overhead int) (*Synthetic, error) {
	if overhead < 0 {
		return nil, fmt.Errorf("prompt overhead %d: want 0 or more tokens", overhead)
	}
	if !s.exact || overhead == 0 {
		return s, nil
	}
	c := *s
	c.overhead = overhead
	for _, i := range []uint64{0, 1, 2} {
		if err := c.Check(0, i); err != nil {
			return nil, err
		}
	}
	return &c, nil
}

// Overhead is the prompt overhead the source takes off its prompts (0 when
// none).
func (s *Synthetic) Overhead() int { return s.overhead }
