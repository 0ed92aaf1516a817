package tokenize

import (
	"hash/maphash"
	"slices"
	"strings"
	"sync/atomic"
)

// wordCache remembers the ids of recently seen short words. It is bounded (a
// fixed number of slots, each holding at most one word of at most
// maxCachedWordLen bytes) and safe for concurrent use without locks: a slot is an
// atomic pointer to an immutable entry, replaced as a whole. It is direct-mapped
// (a word can only live in the slot its hash selects, and a newer word evicts the
// older one), which keeps lookups to one hash, one load and one comparison.
type wordCache struct {
	seed  maphash.Seed
	slots []atomic.Pointer[cacheEntry]
	mask  uint64
}

type cacheEntry struct {
	word string
	ids  []int32
}

const (
	cacheSlots       = 1 << 14
	maxCachedWordLen = 32
	maxCachedIDs     = 16
)

func newWordCache() *wordCache {
	return &wordCache{
		seed:  maphash.MakeSeed(),
		slots: make([]atomic.Pointer[cacheEntry], cacheSlots),
		mask:  cacheSlots - 1,
	}
}

func (c *wordCache) slot(w string) *atomic.Pointer[cacheEntry] {
	return &c.slots[maphash.String(c.seed, w)&c.mask]
}

// get appends the cached ids of w to out; ok is false on a miss.
func (c *wordCache) get(w string, out []int32) ([]int32, bool) {
	e := c.slot(w).Load()
	if e == nil || e.word != w {
		return out, false
	}
	return append(out, e.ids...), true
}

// put stores the ids of w when both are small enough.
func (c *wordCache) put(w string, ids []int32) {
	if len(w) > maxCachedWordLen || len(ids) > maxCachedIDs {
		return
	}
	c.slot(w).Store(&cacheEntry{word: strings.Clone(w), ids: slices.Clip(slices.Clone(ids))})
}
