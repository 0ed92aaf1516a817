package mock

import (
	"container/list"
	"net/http"
	"sync"
)

// storedResponse is a Responses API response kept for
// previous_response_id: its request's input and its output, after its
// parent's conversation. Instructions and tools are not carried over, as
// OpenAI documents.
type storedResponse struct {
	id     string
	parent *storedResponse
	pieces []piece // this turn's input, then the output
	tokens int     // the whole conversation's: the parent's plus pieces'
	elem   *list.Element
}

// chain appends the conversation's responses, oldest first.
func (r *storedResponse) chain(out []*storedResponse) []*storedResponse {
	start := len(out)
	for ; r != nil; r = r.parent {
		out = append(out, r)
	}
	for i, j := start, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// responseStore keeps up to max responses, LRU. A response evicted while a
// later one still refers to it stays reachable from that one, but can no
// longer be named.
type responseStore struct {
	mu    sync.Mutex
	byID  map[string]*storedResponse
	order list.List // front: most recently used
	max   int
}

func newResponseStore(n int) *responseStore {
	return &responseStore{byID: make(map[string]*storedResponse), max: n}
}

// get returns the stored response id, marking it used.
func (s *responseStore) get(id string) *storedResponse {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.byID[id]
	if r != nil {
		s.order.MoveToFront(r.elem)
	}
	return r
}

// put stores r, evicting the least recently used response at capacity.
func (s *responseStore) put(r *storedResponse) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.byID[r.id]; old != nil {
		s.order.Remove(old.elem)
	}
	for len(s.byID) >= s.max && s.order.Len() > 0 {
		last := s.order.Back()
		delete(s.byID, last.Value.(*storedResponse).id)
		s.order.Remove(last)
	}
	r.elem = s.order.PushFront(r)
	s.byID[r.id] = r
}

func (s *responseStore) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.byID)
}

// previousNotFound is OpenAI's error for an unknown previous_response_id.
func previousNotFound(id string) *apiError {
	return &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: "previous_response_id",
		code: "previous_response_not_found", message: "Previous response with id '" + id + "' not found."}
}

// resolveHistory prepends the stored conversation named by the request's
// previous_response_id to its prompt.
func (s *Server) resolveHistory(req *request) *apiError {
	if req.prevID == "" {
		return nil
	}
	var r *storedResponse
	if s.responses != nil {
		r = s.responses.get(req.prevID)
	}
	if r == nil {
		return previousNotFound(req.prevID)
	}
	req.hist = r
	req.promptTokens += r.tokens
	return nil
}

// finishAnswer runs once a response's last step is next (while it is
// awaited when it can be), before it is written, so that a client that has
// read it can go on at once: it caches the blocks of the
// conversation so far, the prompt (without the chat template's closing
// tokens) then the answer as the next turn sends it back, as vLLM caches
// a request's generated blocks too; and it stores a Responses response
// for previous_response_id. Text completions are neither.
func (s *Server) finishAnswer(st *stream, req *request) {
	store := s.responses != nil && req.api == apiResponses && req.store
	if req.api == apiCompletions || (s.prefix == nil && !store) {
		return
	}
	b := promptBuilder{pc: s.promptCounter()}
	r := &st.r
	text := make([]byte, 0, r.tokens*maxTokenText+len(r.argsOpenRaw)+len(argsCloseRaw))
	if r.tool {
		b.add(tagToolCall, r.toolNameRaw)
		b.add(tagToolCall, string(r.appendFullArgs(text, false)))
	} else {
		b.add(tagAssistant, string(r.appendFullText(text)))
	}
	answer := b.pieces
	if s.prefix != nil {
		st.hashes, st.chain = hashConversation(req, answer, s.prefix.size, s.idMode, st.hashes, st.chain)
		s.prefix.insert(st.hashes)
	}
	if !store {
		return
	}
	pieces := make([]piece, 0, len(req.pieces)-req.inputAt+len(answer))
	pieces = append(append(pieces, req.pieces[req.inputAt:]...), answer...)
	tokens := 0
	for i := range pieces {
		tokens += pieces[i].n
	}
	sr := &storedResponse{id: string(r.appendResponseID(nil)), parent: req.hist, pieces: pieces, tokens: tokens}
	if req.hist != nil {
		sr.tokens += req.hist.tokens
	}
	s.responses.put(sr)
}
