package mock

// vocab holds the token texts the mock emits: common English words with a
// leading space, which common BPE tokenizers (cl100k, o200k, Llama 3) encode as
// a single token each. They contain nothing that needs JSON escaping (checked
// by a test), so chunks can append them verbatim. The length is a power of two
// so that picking a word is a mask.
var vocab = [64]string{
	" the", " of", " and", " to", " in", " is", " that", " for",
	" it", " as", " with", " was", " on", " be", " at", " by",
	" this", " have", " from", " or", " one", " had", " not", " but",
	" what", " all", " were", " when", " we", " there", " can", " an",
	" your", " which", " their", " said", " if", " do", " will", " each",
	" about", " how", " up", " out", " them", " then", " she", " many",
	" some", " so", " these", " would", " other", " into", " has", " more",
	" her", " two", " like", " him", " see", " time", " could", " no",
}

// tokenText returns the text of output token i of request k.
func tokenText(k uint64, i int) string {
	return vocab[(k*7+uint64(i))&(uint64(len(vocab))-1)]
}

// maxTokenText is the longest token text, in bytes.
var maxTokenText = func() int {
	n := 0
	for _, w := range vocab {
		n = max(n, len(w))
	}
	return n
}()
