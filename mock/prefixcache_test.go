package mock

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// idsPrompt is a completion body whose prompt is the given token ids.
func idsPrompt(ids []int, extra string) string {
	var b strings.Builder
	b.WriteString(`{"prompt":[`)
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(id))
	}
	b.WriteString(`],"max_tokens":2,"ignore_eos":true` + extra + `}`)
	return b.String()
}

func seqIDs(from, to int) []int {
	var ids []int
	for i := from; i <= to; i++ {
		ids = append(ids, i)
	}
	return ids
}

// usageOf posts a non-streaming body and returns its usage.
func usageOf(t *testing.T, url, path, body string) (prompt, cached int) {
	t.Helper()
	resp := post(t, nil, url+path, body)
	b := readAll(t, resp)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	var r struct {
		Usage struct {
			PromptTokens        int `json:"prompt_tokens"`
			PromptTokensDetails *struct {
				CachedTokens int `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if r.Usage.PromptTokensDetails == nil {
		t.Fatalf("no usage.prompt_tokens_details: %s", b)
	}
	return r.Usage.PromptTokens, r.Usage.PromptTokensDetails.CachedTokens
}

// TestPrefixCacheCounts: a sequence of prompts sharing prefixes gets the
// cached tokens counted by hand (blocks of 4 tokens): only whole leading
// blocks hit, at most the prompt minus one token, and a block's hash covers
// every token before it. The /metrics counters sum them.
func TestPrefixCacheCounts(t *testing.T) {
	cfg := fastConfig()
	cfg.BlockSize = 4
	s := startServer(t, cfg)
	cat := func(a, b []int) []int { return append(append([]int(nil), a...), b...) }
	for i, tc := range []struct {
		ids            []int
		prompt, cached int
		why            string
	}{
		{seqIDs(1, 10), 10, 0, "empty cache; caches blocks 1-4 and 5-8"},
		{seqIDs(1, 14), 14, 8, "blocks 1-4 and 5-8 hit; 9-12 was never full"},
		{seqIDs(1, 14), 14, 12, "three blocks hit; 13-14 is no block"},
		{seqIDs(1, 12), 12, 8, "three blocks cached, but the last token is recomputed: 11 tokens hold two blocks"},
		{cat([]int{1, 2, 3, 99}, seqIDs(5, 12)), 12, 0, "the first block differs, so every later one does"},
		{cat(seqIDs(1, 4), seqIDs(100, 104)), 9, 4, "the first block hits, the second differs"},
	} {
		prompt, cached := usageOf(t, s.URL(), "/v1/completions", idsPrompt(tc.ids, ""))
		if prompt != tc.prompt || cached != tc.cached {
			t.Errorf("prompt %d (%s): usage %d prompt, %d cached; want %d, %d", i, tc.why, prompt, cached, tc.prompt, tc.cached)
		}
	}
	fams := scrape(t, s.URL())
	if q, h := value(t, fams, "vllm:prefix_cache_queries_total", nil), value(t, fams, "vllm:prefix_cache_hits_total", nil); q != 71 || h != 32 {
		t.Errorf("vllm:prefix_cache_queries_total %v, hits %v; want 71 (10+14+14+12+12+9), 32 (8+12+8+4)", q, h)
	}
	if st := s.Stats(); st.PrefixCacheQueries != 71 || st.PrefixCacheHits != 32 {
		t.Errorf("Stats: %d queried, %d hit; want 71, 32", st.PrefixCacheQueries, st.PrefixCacheHits)
	}
}

// TestPrefixCacheChatTurns: chat turns counted with the default counter
// (4 bytes a token) hit the blocks of the earlier turn's messages; the
// chat template's tokens come last and do not spoil the prefix.
func TestPrefixCacheChatTurns(t *testing.T) {
	cfg := fastConfig()
	cfg.BlockSize = 4
	cfg.ChatTemplateTokens = 2
	s := startServer(t, cfg)
	sys := `{"role":"system","content":"` + strings.Repeat("A", 32) + `"}`    // 8 tokens
	user := `{"role":"user","content":"` + strings.Repeat("B", 16) + `"}`     // 4 tokens
	asst := `{"role":"assistant","content":"` + strings.Repeat("C", 8) + `"}` // 2 tokens
	user2 := `{"role":"user","content":"` + strings.Repeat("D", 8) + `"}`     // 2 tokens
	userC := `{"role":"user","content":"` + strings.Repeat("A", 32) + `"}`    // 8 tokens, same text as the system's
	turn := func(msgs ...string) string {
		return `{"messages":[` + strings.Join(msgs, ",") + `],"max_tokens":1}`
	}
	for i, tc := range []struct {
		body           string
		prompt, cached int
	}{
		{turn(sys, user), 14, 0},               // 12 + 2 template tokens; caches 3 blocks
		{turn(sys, user, asst, user2), 18, 12}, // 3 blocks hit; the 4th (C C D D) is new
		{turn(sys, user, asst, user2), 18, 16}, // 4 blocks, at most 17 tokens: all 4
		{turn(userC, user), 14, 0},             // the same text as another role is other tokens
	} {
		prompt, cached := usageOf(t, s.URL(), "/v1/chat/completions", tc.body)
		if prompt != tc.prompt || cached != tc.cached {
			t.Errorf("turn %d: usage %d prompt, %d cached; want %d, %d", i, prompt, cached, tc.prompt, tc.cached)
		}
	}
}

// TestPrefixCacheCachesAnswers: a finished answer's blocks are cached
// after its prompt's (without the template's closing tokens), so the next
// turn, which sends the answer back, hits through it, as vLLM's cached
// output blocks make it.
func TestPrefixCacheCachesAnswers(t *testing.T) {
	cfg := fastConfig()
	cfg.BlockSize = 4
	cfg.ChatTemplateTokens = 3
	s := startServer(t, cfg)
	user := `{"role":"user","content":"` + strings.Repeat("u", 40) + `"}` // 10 tokens
	b := readAll(t, post(t, nil, s.URL()+"/v1/chat/completions", `{"messages":[`+user+`],"max_tokens":7,"ignore_eos":true}`))
	var r struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(b, &r); err != nil || len(r.Choices) != 1 {
		t.Fatalf("%v: %s", err, b)
	}
	answer := r.Choices[0].Message.Content
	asst, _ := json.Marshal(map[string]string{"role": "assistant", "content": answer})
	n := ApproxTokenCount(answer)
	next := `{"messages":[` + user + `,` + string(asst) + `,{"role":"user","content":"` + strings.Repeat("v", 40) + `"}],"max_tokens":1}`
	prompt, cached := usageOf(t, s.URL(), "/v1/chat/completions", next)
	if prompt != 10+n+10+3 || cached != (10+n)/4*4 {
		t.Errorf("next turn: %d prompt, %d cached; want %d, %d (the whole blocks of the first prompt and its answer %q)", prompt, cached, 10+n+10+3, (10+n)/4*4, answer)
	}
}

// TestPrefixCacheLRU: at capacity the least recently used block goes
// first, and a prompt's tail blocks are older than its head, so a short
// prompt evicts another's tail and leaves its head.
func TestPrefixCacheLRU(t *testing.T) {
	cfg := fastConfig()
	cfg.BlockSize = 4
	cfg.PrefixCacheTokens = 12 // 3 blocks
	s := startServer(t, cfg)
	a, c := seqIDs(1, 13), seqIDs(100, 104)
	for i, tc := range []struct {
		ids    []int
		cached int
		blocks int
	}{
		{a, 0, 3},  // a0 a1 a2, a0 most recently used
		{c, 0, 3},  // c0 evicts a2, the tail
		{a, 8, 3},  // a0 a1 hit; a2 is back, evicting c0 among others
		{c, 0, 3},  // c0 was evicted
		{a, 8, 3},  // c0 evicted a2 again
		{a, 12, 3}, // now all three
	} {
		if _, cached := usageOf(t, s.URL(), "/v1/completions", idsPrompt(tc.ids, "")); cached != tc.cached {
			t.Errorf("request %d: %d cached, want %d", i, cached, tc.cached)
		}
		if n := s.prefix.cachedBlocks(); n != tc.blocks {
			t.Errorf("request %d: %d blocks held, want %d", i, n, tc.blocks)
		}
	}
}

// TestPrefixCacheLRUOrder drives the cache directly: touching order and
// eviction.
func TestPrefixCacheLRUOrder(t *testing.T) {
	c := newPrefixCache(1, 2)
	if got := c.lookup([]uint64{1, 2}, 3); got != 0 {
		t.Fatalf("first lookup %d cached", got)
	}
	if got := c.lookup([]uint64{3}, 2); got != 0 { // evicts 2, the tail
		t.Fatalf("lookup of 3: %d", got)
	}
	if got := c.lookup([]uint64{1, 2}, 3); got != 1 { // 1 hits, 2 was evicted
		t.Errorf("lookup after eviction: %d cached, want 1", got)
	}
	if got := c.lookup([]uint64{1, 2}, 2); got != 1 { // capped at prompt-1
		t.Errorf("capped lookup: %d cached, want 1", got)
	}
	if got := c.lookup([]uint64{1, 2}, 3); got != 2 {
		t.Errorf("full lookup: %d cached, want 2", got)
	}
}

// TestNoPrefixCache: with the cache off nothing is cached, usage has no
// prompt_tokens_details (Responses and Messages report 0) and the
// counters stay 0.
func TestNoPrefixCache(t *testing.T) {
	cfg := fastConfig()
	cfg.PrefixCache = false
	s := startServer(t, cfg)
	for range 2 {
		body := string(readAll(t, post(t, nil, s.URL()+"/v1/completions", idsPrompt(seqIDs(1, 40), ""))))
		if strings.Contains(body, "prompt_tokens_details") {
			t.Errorf("usage with the cache off: %s", body)
		}
		body = string(readAll(t, post(t, nil, s.URL()+"/v1/messages", `{"messages":[{"role":"user","content":"`+strings.Repeat("x", 200)+`"}],"max_tokens":2}`)))
		if !strings.Contains(body, `"input_tokens":50,"cache_creation_input_tokens":0,"cache_read_input_tokens":0`) {
			t.Errorf("Messages usage with the cache off: %s", body)
		}
	}
	fams := scrape(t, s.URL())
	if q, h := value(t, fams, "vllm:prefix_cache_queries_total", nil), value(t, fams, "vllm:prefix_cache_hits_total", nil); q != 0 || h != 0 {
		t.Errorf("counters with the cache off: %v queried, %v hit", q, h)
	}
}

// TestCachedUsageInEachAPI: the second of two equal prompts reports its
// cached tokens in each API's place: Responses'
// input_tokens_details.cached_tokens, Anthropic's cache_read_input_tokens
// (input_tokens then counts the rest, as Anthropic's does).
func TestCachedUsageInEachAPI(t *testing.T) {
	s := startServer(t, fastConfig())
	text := strings.Repeat("y", 400) // 100 tokens: 6 blocks of 16 hit
	for _, tc := range []struct{ path, body, want string }{
		{"/v1/responses", `{"input":"` + text + `","max_output_tokens":2}`, `"input_tokens":100,"input_tokens_details":{"cached_tokens":96}`},
		{"/v1/messages", `{"messages":[{"role":"user","content":"` + text + `"}],"max_tokens":2}`, `"input_tokens":4,"cache_creation_input_tokens":0,"cache_read_input_tokens":96`},
	} {
		readAll(t, post(t, nil, s.URL()+tc.path, tc.body))
		if body := string(readAll(t, post(t, nil, s.URL()+tc.path, tc.body))); !strings.Contains(body, tc.want) {
			t.Errorf("%s: %s, want %s", tc.path, body, tc.want)
		}
	}
}

// firstChunkAfter sends a streaming body and returns the time to its first
// content chunk, and the usage's cached tokens.
func firstChunkAfter(t *testing.T, url, body string) (time.Duration, int, int) {
	t.Helper()
	start := time.Now()
	resp := post(t, nil, url+"/v1/completions", body)
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	var ttft time.Duration
	prompt, cached := -1, -1
	for {
		line, err := br.ReadString('\n')
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		if ttft == 0 {
			ttft = time.Since(start)
		}
		var c struct {
			Usage *struct {
				PromptTokens int `json:"prompt_tokens"`
				Details      struct {
					Cached int `json:"cached_tokens"`
				} `json:"prompt_tokens_details"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatal(err)
		}
		if c.Usage != nil {
			prompt, cached = c.Usage.PromptTokens, c.Usage.Details.Cached
		}
	}
	return ttft, prompt, cached
}

// TestPrefixCacheTTFT: under the capacity model a later turn's cached
// prefix is not prefilled: turn 1's TTFT is below turn 0's by what
// LoneTTFT predicts from the cached tokens usage reports, within 10%.
func TestPrefixCacheTTFT(t *testing.T) {
	if raceEnabled {
		t.Skip("real-time test; the race detector skews the handler's time")
	}
	m := CapacityModel{Name: "prefill-heavy", MaxNumSeqs: 4, MaxNumBatchedTokens: 4096, StepBase: 2 * time.Millisecond,
		PrefillPerToken: 400 * time.Microsecond, GPUs: 1, GPU: DefaultGPU()}
	cfg := DefaultConfig()
	cfg.Capacity = &m
	s := startServer(t, cfg)
	stream := `,"stream":true,"stream_options":{"include_usage":true}`
	// A warm-up request of other tokens: the connection and the
	// handler's buffers are set up before turn 0.
	firstChunkAfter(t, s.URL(), idsPrompt(seqIDs(50000, 50099), stream))
	const turns = 3
	var ttft [turns]time.Duration
	var prompt, cached [turns]int
	history := seqIDs(0, 999) // 1000 tokens, then 100 more per turn
	for k := range turns {
		ttft[k], prompt[k], cached[k] = firstChunkAfter(t, s.URL(), idsPrompt(history, stream))
		history = append(history, seqIDs(10000*(k+1), 10000*(k+1)+99)...)
	}
	if cached[0] != 0 || cached[1] != 992 || cached[2] != 1088 {
		t.Fatalf("cached tokens by turn %v, want 0, 992, 1088 (the earlier turn's whole blocks of 16)", cached)
	}
	for k := 1; k < turns; k++ {
		t0, _ := m.LoneTTFT(prompt[0], cached[0])
		tk, _ := m.LoneTTFT(prompt[k], cached[k])
		want := t0 - tk
		got := ttft[0] - ttft[k]
		t.Logf("turn %d: TTFT %v vs turn 0's %v: %v lower, the model says %v (%v and %v)", k, ttft[k], ttft[0], got, want, tk, t0)
		if d := got - want; d > want/10 || d < -want/10 {
			t.Errorf("turn %d: TTFT %v lower than turn 0's, want %v ± 10%%", k, got, want)
		}
	}
}

// BenchmarkPrefixCacheLookup: hashing a 2000-token chat prompt (default
// counter) and looking it up, per request.
func BenchmarkPrefixCacheLookup(b *testing.B) {
	cfg := DefaultConfig()
	s, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	body := []byte(`{"messages":[{"role":"system","content":"` + strings.Repeat("abcdefgh", 500) + `"},{"role":"user","content":"` + strings.Repeat("q", 4000) + `"}]}`)
	req, apiErr := parseBody(body, apiChat, &cfg, s.promptCounter())
	if apiErr != nil {
		b.Fatal(apiErr)
	}
	st := newStream()
	b.ReportAllocs()
	for b.Loop() {
		st.hashes, st.chain = hashPrompt(&req, s.prefix.size, s.idMode, st.hashes, st.chain)
		s.prefix.lookup(st.hashes, req.promptTokens)
	}
}
