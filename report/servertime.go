package report

// ServerTime is the server's own account of its requests' time, read from
// the per-request timings its responses carried (llama-server's
// "timings"; some Ollama builds send the same object), over the
// successful requests in the measurement window that had them. vLLM,
// SGLang and TGI's OpenAI routes report no per-request times, so the key
// is absent for them.
//
// What the timings say, and what they do not: prompt_ms (PrefillMs) runs
// from the slot starting on the prompt to the first token sampled; the
// time a request waited for a free slot is not reported anywhere, nor the
// HTTP, template and tokenization work before it. TTFTOutsidePrefillMs is
// therefore the client's TTFT minus prompt_ms: the queue wait, that
// server work, and the network and client time, together.
type ServerTime struct {
	// Source names where the figures came from ("timings").
	Source string `json:"source"`
	// Requests counts the successful in-window requests with timings.
	Requests Int `json:"requests"`
	// PrefillMs is prompt_ms: the server's prefill of the prompt tokens
	// not found in its cache.
	PrefillMs *Quantiles `json:"prefill_ms"`
	// DecodePerTokenMs is predicted_ms / (predicted_n − 1): the server's
	// time per output token after the first (predicted_ms runs from the
	// first token sampled to the last); requests with fewer than two
	// output tokens are left out.
	DecodePerTokenMs *Quantiles `json:"decode_per_token_ms,omitempty"`
	// TTFTOutsidePrefillMs is the client's TTFT minus prompt_ms, per
	// streamed request: queue, HTTP and tokenization, network and client
	// time; nil without streamed requests.
	TTFTOutsidePrefillMs *Quantiles `json:"ttft_outside_prefill_ms,omitempty"`
	// PrefillShareOfTTFT is Σ prompt_ms / Σ TTFT over the streamed
	// requests: the part of the time to first token the server spent
	// prefilling.
	PrefillShareOfTTFT *Float `json:"prefill_share_of_ttft,omitempty"`
	// TTFTBelowPrefill counts streamed requests whose client TTFT was
	// shorter than prompt_ms, which no server on the same clock can
	// cause: they are in the distributions, negative.
	TTFTBelowPrefill Int `json:"ttft_below_prefill,omitempty"`
}
