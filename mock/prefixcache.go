package mock

import (
	"sync"
	"sync/atomic"
)

// prefixCache is the mock's automatic prefix cache: the hashes of full
// blocks of Config.BlockSize prompt tokens, LRU, at most capacity blocks.
// A request's hit is its longest run of cached leading blocks, capped
// below its prompt length (vLLM recomputes at least the last prompt token
// to get its logits), in whole blocks. Every full block of the prompt is
// then cached, its first block the most recently used, so that eviction
// takes the tails of prompts first, as vLLM frees a request's blocks in
// reverse order.
//
// Hashing happens outside the lock; the critical section is one map
// lookup and one list move per block.
type prefixCache struct {
	size int // tokens per block

	mu     sync.Mutex
	index  map[uint64]int32
	nodes  []lruNode
	head   int32 // most recently used, -1 when empty
	tail   int32 // least recently used
	blocks int   // capacity

	queries, hits atomic.Uint64 // tokens, as vllm:prefix_cache_queries/hits
}

type lruNode struct {
	hash       uint64
	prev, next int32
}

func newPrefixCache(size, capacityTokens int) *prefixCache {
	blocks := max(capacityTokens/size, 1)
	return &prefixCache{size: size, index: make(map[uint64]int32, min(blocks, 1<<16)), head: -1, tail: -1, blocks: blocks}
}

// lookup returns the cached tokens of a prompt of promptTokens tokens whose
// full blocks hash to hashes, and caches those blocks.
func (c *prefixCache) lookup(hashes []uint64, promptTokens int) int {
	maxHit := max(promptTokens-1, 0) / c.size
	c.mu.Lock()
	hit := 0
	for hit < maxHit && hit < len(hashes) {
		if _, ok := c.index[hashes[hit]]; !ok {
			break
		}
		hit++
	}
	for j := len(hashes) - 1; j >= 0; j-- {
		c.touch(hashes[j])
	}
	c.mu.Unlock()
	cached := hit * c.size
	c.queries.Add(uint64(promptTokens))
	c.hits.Add(uint64(cached))
	return cached
}

// insert caches the blocks hashes, the first most recently used, without
// a lookup (a finished request's conversation).
func (c *prefixCache) insert(hashes []uint64) {
	c.mu.Lock()
	for j := len(hashes) - 1; j >= 0; j-- {
		c.touch(hashes[j])
	}
	c.mu.Unlock()
}

// touch makes h the most recently used block, adding it (and evicting the
// least recently used one at capacity) if absent. Called under mu.
func (c *prefixCache) touch(h uint64) {
	if i, ok := c.index[h]; ok {
		c.unlink(i)
		c.pushFront(i)
		return
	}
	var i int32
	if len(c.nodes) < c.blocks {
		i = int32(len(c.nodes))
		c.nodes = append(c.nodes, lruNode{})
	} else {
		i = c.tail
		c.unlink(i)
		delete(c.index, c.nodes[i].hash)
	}
	c.nodes[i].hash = h
	c.index[h] = i
	c.pushFront(i)
}

func (c *prefixCache) unlink(i int32) {
	n := &c.nodes[i]
	if n.prev >= 0 {
		c.nodes[n.prev].next = n.next
	} else {
		c.head = n.next
	}
	if n.next >= 0 {
		c.nodes[n.next].prev = n.prev
	} else {
		c.tail = n.prev
	}
}

func (c *prefixCache) pushFront(i int32) {
	n := &c.nodes[i]
	n.prev, n.next = -1, c.head
	if c.head >= 0 {
		c.nodes[c.head].prev = i
	}
	c.head = i
	if c.tail < 0 {
		c.tail = i
	}
}

// cachedBlocks returns the number of blocks held.
func (c *prefixCache) cachedBlocks() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.index)
}

// appendPrefixCacheMetrics appends vLLM v1's prefix-cache counters, in
// tokens: queried (every prompt token of every lookup) and hit. They are 0
// with the cache off, as vLLM's are with --no-enable-prefix-caching.
func (s *Server) appendPrefixCacheMetrics(b []byte) []byte {
	var q, h float64
	if c := s.prefix; c != nil {
		q, h = float64(c.queries.Load()), float64(c.hits.Load())
	}
	labels := `engine="0",model_name="` + escapeLabel(s.cfg.Model) + `"`
	b = appendCounter(b, "vllm:prefix_cache_queries_total", "Prefix cache queries, in terms of number of queried tokens.", labels, q)
	return appendCounter(b, "vllm:prefix_cache_hits_total", "Prefix cache hits, in terms of number of cached tokens.", labels, h)
}
