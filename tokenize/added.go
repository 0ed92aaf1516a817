package tokenize

import (
	"strings"
	"unicode/utf8"
)

// addedToken is an entry of tokenizer.json's added_tokens.
type addedToken struct {
	content    string
	id         int32
	singleWord bool
	lstrip     bool
	rstrip     bool
	normalized bool
	special    bool
}

// addedVocab reproduces Hugging Face's AddedVocabulary: tokens matched in the text
// before pre-tokenization, the non-normalized ones on the raw input and the
// normalized ones on each normalized segment.
type addedVocab struct {
	byID      map[int32]*addedToken // latest definition of each id
	byContent map[string]int32
	raw       *tokenTrie // tokens with normalized == false, matched on raw text
	norm      *tokenTrie // tokens with normalized == true, matched on normalized text
}

// tokenTrie finds added tokens with Aho-Corasick's leftmost-longest semantics:
// the match that starts first and, among those, the longest.
type tokenTrie struct {
	nodes []trieNode
	root  [256]int32 // child of the root per first byte, -1 if none
}

type trieNode struct {
	edges []trieEdge
	id    int32 // token id when a pattern ends here, else -1
}

type trieEdge struct {
	b    byte
	node int32
}

func newTokenTrie() *tokenTrie {
	t := &tokenTrie{nodes: []trieNode{{id: -1}}}
	for i := range t.root {
		t.root[i] = -1
	}
	return t
}

// add inserts a pattern; the first pattern inserted for a string wins, as with the
// lowest pattern index in Aho-Corasick.
func (t *tokenTrie) add(pattern string, id int32) {
	if pattern == "" {
		return
	}
	cur := int32(-1)
	for i := 0; i < len(pattern); i++ {
		b := pattern[i]
		var nx int32 = -1
		if cur < 0 {
			nx = t.root[b]
		} else {
			for _, e := range t.nodes[cur].edges {
				if e.b == b {
					nx = e.node
					break
				}
			}
		}
		if nx < 0 {
			nx = int32(len(t.nodes))
			t.nodes = append(t.nodes, trieNode{id: -1})
			if cur < 0 {
				t.root[b] = nx
			} else {
				t.nodes[cur].edges = append(t.nodes[cur].edges, trieEdge{b, nx})
			}
		}
		cur = nx
	}
	if t.nodes[cur].id < 0 {
		t.nodes[cur].id = id
	}
}

func (t *tokenTrie) empty() bool { return len(t.nodes) == 1 }

// longestAt returns the id and length of the longest pattern starting at s[i:].
func (t *tokenTrie) longestAt(s string, i int) (int32, int) {
	cur := t.root[s[i]]
	bestID, bestLen := int32(-1), 0
	for j := i; cur >= 0; {
		if id := t.nodes[cur].id; id >= 0 {
			bestID, bestLen = id, j+1-i
		}
		j++
		if j >= len(s) {
			break
		}
		b := s[j]
		nx := int32(-1)
		for _, e := range t.nodes[cur].edges {
			if e.b == b {
				nx = e.node
				break
			}
		}
		cur = nx
	}
	return bestID, bestLen
}

// next returns the leftmost-longest match at or after from: its start, end and id.
func (t *tokenTrie) next(s string, from int) (int, int, int32, bool) {
	for i := from; i < len(s); i++ {
		if t.root[s[i]] < 0 {
			continue
		}
		if id, n := t.longestAt(s, i); n > 0 {
			return i, i + n, id, true
		}
	}
	return 0, 0, -1, false
}

// split appends to dst the pieces of p: added tokens (id >= 0) and the text around
// them (id -1), as Hugging Face's AddedVocabulary::find_matches and
// split_with_indices do. Empty pieces are dropped.
func (av *addedVocab) split(p piece, trie *tokenTrie, dst []piece) []piece {
	s := p.s
	if trie == nil || trie.empty() || s == "" {
		if s == "" {
			return dst
		}
		return append(dst, p)
	}
	startOffset := 0
	for from := 0; from < len(s); {
		start, stop, id, ok := trie.next(s, from)
		if !ok {
			break
		}
		from = stop // the search resumes after the raw match whatever the flags do
		tok := av.byID[id]
		if tok.singleWord {
			startSpace := start == 0 || !endsWithWord(s[:start])
			stopSpace := stop == len(s) || !startsWithWord(s[stop:])
			if !startSpace || !stopSpace {
				continue
			}
		}
		if tok.lstrip {
			newStart := len(strings.TrimRightFunc(s[:start], isWhiteSpace))
			start = max(newStart, startOffset)
		}
		if tok.rstrip {
			stop += len(s[stop:]) - len(strings.TrimLeftFunc(s[stop:], isWhiteSpace))
		}
		if startOffset < start {
			dst = append(dst, p.sub(startOffset, start))
		}
		dst = append(dst, piece{s: s[start:stop], id: id})
		startOffset = stop
	}
	if startOffset < len(s) {
		dst = append(dst, p.sub(startOffset, len(s)))
	}
	return dst
}

func endsWithWord(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return s != "" && isRustWordChar(r)
}

func startsWithWord(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return s != "" && isRustWordChar(r)
}
