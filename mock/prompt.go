package mock

// A request's prompt as the mock tokenizes it: text pieces in order, each
// counted with the prompt token counter, and, for the prefix cache, a
// stream of pseudo token ids consistent with those counts (as many ids as
// the piece counts tokens) whose block hashes are chained as in vLLM's
// automatic prefix caching.

// Piece tags: what a piece is, mixed into its token ids (as a chat
// template's role markers make the same text different tokens in
// different roles).
const (
	tagPrompt    uint8 = iota + 1 // a completion prompt
	tagSystem                     // system message, instructions
	tagUser                       // user message
	tagAssistant                  // assistant message, output text
	tagTool                       // tool result
	tagToolCall                   // a tool call's name or arguments
	tagTools                      // the tool definitions
	tagTemplate                   // the chat template's tokens
	tagOther                      // any other role
)

// roleTag is the tag of a message role.
func roleTag(role string) uint8 {
	switch role {
	case "user":
		return tagUser
	case "assistant":
		return tagAssistant
	case "system", "developer":
		return tagSystem
	case "tool":
		return tagTool
	}
	return tagOther
}

// piece is one text piece of a prompt and its token count.
type piece struct {
	tag  uint8
	text string
	ids  []int // its token ids when known: a prompt of ids, or PromptTokenIDs'
	n    int   // its tokens
}

// promptCounter counts a text piece's tokens (count), or tokenizes it
// (encode, when set: its ids then count and hash it).
type promptCounter struct {
	count  func(string) int
	encode func(string) []int
}

// promptBuilder collects a prompt's pieces.
type promptBuilder struct {
	pc     promptCounter
	pieces []piece
	tokens int
	at     int // the first input piece
}

// add adds a text piece; an empty one counts nothing and is left out.
func (b *promptBuilder) add(tag uint8, text string) {
	if text == "" {
		return
	}
	p := piece{tag: tag, text: text}
	if b.pc.encode != nil {
		p.ids = b.pc.encode(text)
		p.n = len(p.ids)
	} else {
		p.n = b.pc.count(text)
	}
	b.pieces = append(b.pieces, p)
	b.tokens += p.n
}

// addIDs adds a piece given as token ids.
func (b *promptBuilder) addIDs(tag uint8, ids []int) {
	b.pieces = append(b.pieces, piece{tag: tag, ids: ids, n: len(ids)})
	b.tokens += len(ids)
}

// inputAt marks where the input starts (a Responses request's stored
// history goes before it).
func (b *promptBuilder) inputAt() { b.at = len(b.pieces) }

// Token id derivation modes of blockHasher.
const (
	idsFromBytes    = iota // the default counter, ceil(bytes/4): token j is bytes 4j..4j+3
	idsFromSegments        // another counter: token j of n is the j-th of n equal byte segments
)

// blockHasher turns a prompt's tokens into the chained hashes of its full
// blocks: the hash after block j's last token depends on every token
// before it, as vLLM's block hash chains its parent's.
type blockHasher struct {
	size   int // tokens per block
	mode   int
	h      uint64
	n      int // tokens in the current block
	hashes []uint64
}

func (bh *blockHasher) reset(size, mode int, hashes []uint64) {
	*bh = blockHasher{size: size, mode: mode, hashes: hashes[:0]}
}

func (bh *blockHasher) token(id uint64) {
	bh.h = splitmix64(bh.h ^ id)
	if bh.n++; bh.n == bh.size {
		bh.hashes = append(bh.hashes, bh.h)
		bh.n = 0
	}
}

// piece feeds a piece's p.n tokens.
func (bh *blockHasher) piece(p *piece) {
	tag := uint64(p.tag) << 40
	first := uint64(1) << 63 // marks a piece's first token: pieces do not run together
	switch {
	case p.ids != nil:
		for _, id := range p.ids {
			bh.token(uint64(uint32(id)) | tag | first)
			first = 0
		}
	case bh.mode == idsFromBytes && p.n == (len(p.text)+3)/4:
		s := p.text
		for j := 0; j < len(s); j += 4 {
			var v uint64
			end := min(j+4, len(s))
			for i := j; i < end; i++ {
				v = v<<8 | uint64(s[i])
			}
			bh.token(v | uint64(end-j)<<32 | tag | first)
			first = 0
		}
	default:
		s, n := p.text, p.n
		for j := range n {
			seg := s[j*len(s)/n : (j+1)*len(s)/n]
			v := uint64(14695981039346656037) // FNV-1a
			for i := 0; i < len(seg); i++ {
				v = (v ^ uint64(seg[i])) * 1099511628211
			}
			bh.token(v&(1<<40-1) | tag | first)
			first = 0
		}
	}
}

// template feeds the chat template's n tokens.
func (bh *blockHasher) template(n int) {
	for j := range n {
		bh.token(uint64(tagTemplate)<<40 | uint64(j))
	}
}

// hashPrompt returns the block hashes of req's prompt (tools and system,
// the stored history, the input, the template), appended to hashes[:0].
func hashPrompt(req *request, size, mode int, hashes []uint64, chain []*storedResponse) ([]uint64, []*storedResponse) {
	return hashPieces(req, nil, req.template, size, mode, hashes, chain)
}

// hashConversation returns the block hashes of req's prompt without the
// template's tokens, followed by the answer's pieces.
func hashConversation(req *request, answer []piece, size, mode int, hashes []uint64, chain []*storedResponse) ([]uint64, []*storedResponse) {
	return hashPieces(req, answer, 0, size, mode, hashes, chain)
}

func hashPieces(req *request, after []piece, template, size, mode int, hashes []uint64, chain []*storedResponse) ([]uint64, []*storedResponse) {
	var bh blockHasher
	bh.reset(size, mode, hashes)
	for i := range req.pieces[:req.inputAt] {
		bh.piece(&req.pieces[i])
	}
	chain = req.hist.chain(chain[:0])
	for _, r := range chain {
		for i := range r.pieces {
			bh.piece(&r.pieces[i])
		}
	}
	for i := range req.pieces[req.inputAt:] {
		bh.piece(&req.pieces[req.inputAt+i])
	}
	for i := range after {
		bh.piece(&after[i])
	}
	bh.template(template)
	clear(chain)
	return bh.hashes, chain[:0]
}
