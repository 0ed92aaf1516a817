package sse

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// view is a comparable copy of a Chunk's exported fields.
type view struct {
	Done                              bool
	ID, Object                        string
	NumChoices                        int
	Role, Content, Reasoning, Refusal string
	ToolCalls                         int
	ToolArgs, FinishReason            string
	Usage                             Usage
	ErrMessage, ErrType, ErrCode      string
	HasErr                            bool
	EmitNS                            int64
	HasToken                          bool
	// Timings is the chunk's timings when present, else the zero value
	// (so that the cases without timings need not spell the -1s).
	Timings Timings
}

func viewOf(c *Chunk) view {
	v := view{
		Done: c.Done, ID: string(c.ID), Object: string(c.Object), NumChoices: c.NumChoices,
		Role: string(c.Role), Content: string(c.Content), Reasoning: string(c.Reasoning),
		Refusal: string(c.Refusal), ToolCalls: c.ToolCalls, ToolArgs: string(c.ToolArgs),
		FinishReason: string(c.FinishReason), Usage: c.Usage, EmitNS: c.EmitNS, HasToken: c.HasToken(),
	}
	if c.Timings.Present {
		v.Timings = c.Timings
	}
	if c.Err != nil {
		v.HasErr, v.ErrMessage, v.ErrType, v.ErrCode = true, c.Err.Message, c.Err.Type, c.Err.Code
	}
	return v
}

// Usage helpers for expected values.
func noUsage() Usage { return Usage{CachedTokens: -1, ReasoningTokens: -1} }
func usage(prompt, completion, total int) Usage {
	return Usage{Present: true, PromptTokens: prompt, CompletionTokens: completion, TotalTokens: total, CachedTokens: -1, ReasoningTokens: -1}
}

// shapeCase is a real payload and the Chunk expected from it, worked out by
// hand from the payload.
type shapeCase struct {
	name string
	json string
	want view
	// slow marks shapes the fast path is allowed to hand to the reference
	// decoder (none of the streaming shapes).
	slow bool
}

// realChunks are stream chunks as servers send them. Sources are noted per
// case: payloads quoted in public issues and pull requests, test fixtures and
// snapshots of the servers' own test suites, and the serializers' code.
// Where a source gives the shape but not the bytes (a serializer, a cut
// excerpt), the comment says the payload was written here.
var realChunks = []shapeCase{
	// --- vLLM chat ---
	{
		// vLLM issue #6083 (vllm-project/vllm): first chunk of a chat stream.
		name: "vllm chat role chunk",
		json: `{"id":"cmpl-840312ff78664572bb504e606140b952","object":"chat.completion.chunk","created":1719969577,"model":"Qwen-v","choices":[{"index":0,"delta":{"role":"assistant"},"logprobs":null,"finish_reason":null}]}`,
		want: view{ID: "cmpl-840312ff78664572bb504e606140b952", Object: "chat.completion.chunk", NumChoices: 1, Role: "assistant", Usage: noUsage()},
	},
	{
		// vLLM issue #6083: a content chunk, non-ASCII text unescaped.
		name: "vllm chat content CJK",
		json: `{"id":"cmpl-840312ff78664572bb504e606140b952","object":"chat.completion.chunk","created":1719969577,"model":"Qwen-v","choices":[{"index":0,"delta":{"content":"我是"},"logprobs":null,"finish_reason":null}]}`,
		want: view{ID: "cmpl-840312ff78664572bb504e606140b952", Object: "chat.completion.chunk", NumChoices: 1, Content: "我是", Usage: noUsage(), HasToken: true},
	},
	{
		// vLLM PR #45678: continuous_usage_stats usage on every chunk, and
		// an unknown "token_ids" array in the choice.
		name: "vllm chat continuous usage",
		json: `{"id":"chatcmpl-95f70ae00614b063","object":"chat.completion.chunk","created":1782114956,"model":"/model/DeepSeek-V4-Flash","choices":[{"index":0,"delta":{"content":" **"},"logprobs":null,"finish_reason":null,"token_ids":[2619]}],"usage":{"prompt_tokens":16,"total_tokens":18,"completion_tokens":2}}`,
		want: view{ID: "chatcmpl-95f70ae00614b063", Object: "chat.completion.chunk", NumChoices: 1, Content: " **", Usage: usage(16, 2, 18), HasToken: true},
	},
	{
		// vLLM serving_chat: the final usage-only chunk has "choices":[]
		// (written here for the stream above).
		name: "vllm chat final usage chunk",
		json: `{"id":"chatcmpl-95f70ae00614b063","object":"chat.completion.chunk","created":1782114956,"model":"/model/DeepSeek-V4-Flash","choices":[],"usage":{"prompt_tokens":16,"total_tokens":66,"completion_tokens":50}}`,
		want: view{ID: "chatcmpl-95f70ae00614b063", Object: "chat.completion.chunk", Usage: usage(16, 50, 66)},
	},
	{
		// vLLM issue #27572 gives this stream's id; its excerpt stops after
		// the first chunk, so the finish chunk is written here in vLLM's
		// shape (empty content, extra stop_reason).
		name: "vllm chat finish chunk",
		json: `{"id":"chatcmpl-6ca98c2f19c13c19f39013dfb78bcece","object":"chat.completion.chunk","created":1761566772,"model":"ibm/granite-3-8b-instruct","choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"stop","stop_reason":null}]}`,
		want: view{ID: "chatcmpl-6ca98c2f19c13c19f39013dfb78bcece", Object: "chat.completion.chunk", NumChoices: 1, FinishReason: "stop", Usage: noUsage()},
	},
	{
		// vLLM >= 0.11 (RFC #27755) streams reasoning as delta.reasoning
		// (written here in that shape).
		name: "vllm reasoning field",
		json: `{"id":"chatcmpl-b1f3","object":"chat.completion.chunk","created":1762000000,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"reasoning":"Okay, the user"},"logprobs":null,"finish_reason":null}]}`,
		want: view{ID: "chatcmpl-b1f3", Object: "chat.completion.chunk", NumChoices: 1, Reasoning: "Okay, the user", Usage: noUsage(), HasToken: true},
	},
	{
		// vLLM PR #34030 and vllm-mlx issue #310: both spellings with the
		// same text in one delta; it must count once.
		name: "reasoning and reasoning_content together",
		json: `{"id":"chatcmpl-b1f3","object":"chat.completion.chunk","created":1762000000,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"reasoning":" the","reasoning_content":" the"},"logprobs":null,"finish_reason":null}]}`,
		want: view{ID: "chatcmpl-b1f3", Object: "chat.completion.chunk", NumChoices: 1, Reasoning: " the", Usage: noUsage(), HasToken: true},
	},
	{
		// vLLM tool-call streaming, written in the shape lmdeploy issue
		// #3412 prints for vLLM (id "chatcmpl-tool-..."): the first delta
		// carries id, type and name.
		name: "vllm tool call name",
		json: `{"id":"chatcmpl-a7d2","object":"chat.completion.chunk","created":1745000000,"model":"Qwen/Qwen2.5-7B-Instruct","choices":[{"index":0,"delta":{"tool_calls":[{"id":"chatcmpl-tool-c9ZCzB9b9NikK5kjPBXpFG","type":"function","index":0,"function":{"name":"get_weather","arguments":""}}]},"logprobs":null,"finish_reason":null}]}`,
		want: view{ID: "chatcmpl-a7d2", Object: "chat.completion.chunk", NumChoices: 1, ToolCalls: 1, ToolArgs: "get_weather", Usage: noUsage(), HasToken: true},
	},
	{
		// vLLM tool-call streaming: an argument fragment with escapes.
		name: "vllm tool call arguments",
		json: `{"id":"chatcmpl-a7d2","object":"chat.completion.chunk","created":1745000000,"model":"Qwen/Qwen2.5-7B-Instruct","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\": \""}}]},"logprobs":null,"finish_reason":null}]}`,
		want: view{ID: "chatcmpl-a7d2", Object: "chat.completion.chunk", NumChoices: 1, ToolCalls: 1, ToolArgs: `{"city": "`, Usage: noUsage(), HasToken: true},
	},

	// --- vLLM completions ---
	{
		// vLLM serving_completion (model_dump_json(exclude_unset=False)):
		// every field present, usage null; ids from vLLM issue #2266.
		name: "vllm completions chunk",
		json: `{"id":"cmpl-3a688b392f324adcb369c11d97d304c7","object":"text_completion","created":2421200,"model":"qwen-14b-chat-int4","choices":[{"index":0,"text":"0","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}`,
		want: view{ID: "cmpl-3a688b392f324adcb369c11d97d304c7", Object: "text_completion", NumChoices: 1, Content: "0", Usage: noUsage(), HasToken: true},
	},
	{
		// vLLM serving_completion with continuous usage stats (written
		// here): prompt_tokens_details is serialized as null.
		name: "vllm completions continuous usage",
		json: `{"id":"cmpl-3a688b392f324adcb369c11d97d304c7","object":"text_completion","created":2421200,"model":"qwen-14b-chat-int4","choices":[{"index":0,"text":" Paris","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":{"prompt_tokens":27,"total_tokens":28,"completion_tokens":1,"prompt_tokens_details":null}}`,
		want: view{ID: "cmpl-3a688b392f324adcb369c11d97d304c7", Object: "text_completion", NumChoices: 1, Content: " Paris", Usage: usage(27, 1, 28), HasToken: true},
	},
	{
		// vLLM issue #2266, verbatim (pretty-printed, no "object"): the
		// finish chunk with the final usage.
		name: "vllm completions pretty printed",
		json: "{\n  \"id\": \"cmpl-3a688b392f324adcb369c11d97d304c7\",\n  \"created\": 2421200,\n  \"model\": \"qwen-14b-chat-int4\",\n  \"choices\": [\n    {\n      \"index\": 0,\n      \"text\": \"\",\n      \"logprobs\": null,\n      \"finish_reason\": \"stop\"\n    }\n  ],\n  \"usage\": {\n    \"prompt_tokens\": 27,\n    \"total_tokens\": 319,\n    \"completion_tokens\": 292\n  }\n}",
		want: view{ID: "cmpl-3a688b392f324adcb369c11d97d304c7", NumChoices: 1, FinishReason: "stop", Usage: usage(27, 292, 319)},
	},

	// --- SGLang ---
	{
		// SGLang PR #9657: every delta field present, nulls included, and
		// SGLang's matched_stop.
		name: "sglang reasoning_content",
		json: `{"id":"fea45bfa7bbd4209b1e71bdcdcc6c667","object":"chat.completion.chunk","created":1756216933,"model":"acbc","choices":[{"index":0,"delta":{"role":null,"content":null,"reasoning_content":"2","tool_calls":null},"logprobs":null,"finish_reason":null,"matched_stop":null}],"usage":null}`,
		want: view{ID: "fea45bfa7bbd4209b1e71bdcdcc6c667", Object: "chat.completion.chunk", NumChoices: 1, Reasoning: "2", Usage: noUsage(), HasToken: true},
	},
	{
		// SGLang PR #19895 (gRPC router): system_fingerprint before choices.
		name: "sglang content",
		json: `{"id":"chatcmpl-019cb7c3-f422-7430-a1c7-f8dd85d909c2","object":"chat.completion.chunk","created":1772609598,"model":"/models/meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8","system_fingerprint":"default","choices":[{"index":0,"delta":{"role":"assistant","content":"3","reasoning_content":null},"logprobs":null,"finish_reason":null}]}`,
		want: view{ID: "chatcmpl-019cb7c3-f422-7430-a1c7-f8dd85d909c2", Object: "chat.completion.chunk", NumChoices: 1, Role: "assistant", Content: "3", Usage: noUsage(), HasToken: true},
	},
	{
		// ai-dynamo/dynamo PR #12562 (SGLang backend): key order differs,
		// usage on the finish chunk. The excerpt ends inside "usage";
		// total_tokens is completed here.
		name: "dynamo sglang finish with usage",
		json: `{"id":"befc21f33e205cc9","choices":[{"index":0,"delta":{"content":"<|user|>","role":"assistant"},"finish_reason":"stop","logprobs":null}],"created":1785745305,"model":"zai-org/GLM-5.2-FP8","service_tier":null,"system_fingerprint":null,"object":"chat.completion.chunk","usage":{"prompt_tokens":15,"completion_tokens":287,"total_tokens":302}}`,
		want: view{ID: "befc21f33e205cc9", Object: "chat.completion.chunk", NumChoices: 1, Role: "assistant", Content: "<|user|>", FinishReason: "stop", Usage: usage(15, 287, 302), HasToken: true},
	},

	// --- llama.cpp (ggml-org/llama.cpp tools/server) ---
	{
		// The final chunk of a chat stream: finish_reason with an empty
		// delta, usage, and timings (server-context.cpp's result_timings
		// to_json, cache_n included since 2025). Written here after the
		// serializer; the figures are a CPU run's.
		name: "llama.cpp final chunk with timings",
		json: `{"choices":[{"finish_reason":"stop","index":0,"delta":{}}],"created":1765000000,"id":"chatcmpl-q3XbWn0","model":"/models/tiny.gguf","system_fingerprint":"b6640-ded67b94","object":"chat.completion.chunk","usage":{"completion_tokens":32,"prompt_tokens":41,"total_tokens":73},"timings":{"cache_n":8,"prompt_n":33,"prompt_ms":31.824,"prompt_per_token_ms":0.9643636363636364,"prompt_per_second":1036.953242835596,"predicted_n":32,"predicted_ms":96.217,"predicted_per_token_ms":3.00678125,"predicted_per_second":332.58158537472586}}`,
		want: view{ID: "chatcmpl-q3XbWn0", Object: "chat.completion.chunk", NumChoices: 1, FinishReason: "stop", Usage: usage(41, 32, 73),
			Timings: Timings{Present: true, PromptN: 33, PredictedN: 32, CacheN: 8, PromptMs: 31.824, PredictedMs: 96.217}},
	},
	{
		// An older llama-server: no cache_n, timings null on other chunks
		// of some builds.
		name: "llama.cpp timings without cache_n",
		json: `{"choices":[{"finish_reason":"length","index":0,"delta":{}}],"created":1736282296,"id":"chatcmpl-7","model":"gpt-3.5-turbo","object":"chat.completion.chunk","timings":{"prompt_n":5,"prompt_ms":2.5e1,"predicted_n":0,"predicted_ms":0}}`,
		want: view{ID: "chatcmpl-7", Object: "chat.completion.chunk", NumChoices: 1, FinishReason: "length", Usage: noUsage(),
			Timings: Timings{Present: true, PromptN: 5, PredictedN: 0, CacheN: -1, PromptMs: 25, PredictedMs: 0}},
	},
	{
		name: "timings null",
		json: `{"choices":[{"index":0,"delta":{"content":"a"}}],"timings":null}`,
		want: view{NumChoices: 1, Content: "a", Usage: noUsage(), HasToken: true},
	},

	// --- TGI (huggingface/text-generation-inference) ---
	{
		// TGI snapshot test_chat_stream_options_include_usage.json (keys
		// sorted, as the snapshot stores them): "id" is "" and usage null
		// until the last chunk.
		name: "tgi content",
		json: `{"choices":[{"delta":{"content":"OK","role":"assistant"},"finish_reason":null,"index":0,"logprobs":null}],"created":1740099232,"id":"","model":"meta-llama/Llama-3.1-8B-Instruct","object":"chat.completion.chunk","system_fingerprint":"3.1.1-dev0-native","usage":null}`,
		want: view{Object: "chat.completion.chunk", NumChoices: 1, Role: "assistant", Content: "OK", Usage: noUsage(), HasToken: true},
	},
	{
		// Same snapshot: the final usage chunk.
		name: "tgi final usage",
		json: `{"choices":[],"created":1740099232,"id":"","model":"meta-llama/Llama-3.1-8B-Instruct","object":"chat.completion.chunk","system_fingerprint":"3.1.1-dev0-native","usage":{"completion_tokens":3,"prompt_tokens":39,"total_tokens":42}}`,
		want: view{Object: "chat.completion.chunk", Usage: usage(39, 3, 42)},
	},
	{
		// TGI snapshot test_flash_llama_completion_stream_usage.json:
		// tool_calls null, an escaped newline in content.
		name: "tgi escaped newline",
		json: `{"choices":[{"delta":{"content":"**\n","role":"assistant","tool_calls":null},"finish_reason":null,"index":0,"logprobs":null}],"created":1741274364,"id":"","model":"meta-llama/Llama-3.1-8B-Instruct","object":"chat.completion.chunk","system_fingerprint":"3.1.2-dev0-native","usage":null}`,
		want: view{Object: "chat.completion.chunk", NumChoices: 1, Role: "assistant", Content: "**\n", Usage: noUsage(), HasToken: true},
	},
	{
		// TGI snapshot test_flash_llama_grammar_tools_choice_stream.json:
		// "arguments" comes before "name"; ToolArgs is still name first.
		name: "tgi tool call first delta",
		json: `{"choices":[{"delta":{"content":null,"role":"assistant","tool_calls":[{"function":{"arguments":"{","name":"get_current_weather"},"id":"0","index":0,"type":"function"}]},"finish_reason":null,"index":0,"logprobs":null}],"created":1741688515,"id":"","model":"meta-llama/Llama-3.1-8B-Instruct","object":"chat.completion.chunk","system_fingerprint":"3.1.2-dev0-native","usage":null}`,
		want: view{Object: "chat.completion.chunk", NumChoices: 1, Role: "assistant", ToolCalls: 1, ToolArgs: "get_current_weather{", Usage: noUsage(), HasToken: true},
	},
	{
		// Same snapshot: a later fragment with name null.
		name: "tgi tool call fragment",
		json: `{"choices":[{"delta":{"content":null,"role":"assistant","tool_calls":[{"function":{"arguments":" \"","name":null},"id":"0","index":0,"type":"function"}]},"finish_reason":null,"index":0,"logprobs":null}],"created":1741688515,"id":"","model":"meta-llama/Llama-3.1-8B-Instruct","object":"chat.completion.chunk","system_fingerprint":"3.1.2-dev0-native","usage":null}`,
		want: view{Object: "chat.completion.chunk", NumChoices: 1, Role: "assistant", ToolCalls: 1, ToolArgs: ` "`, Usage: noUsage(), HasToken: true},
	},
	{
		// TGI router: an error inside a 200 stream is
		// Event::json_data(ErrorResponse{error, error_type}); the message
		// follows InferError::GenerationError's format (text written here).
		name: "tgi stream error",
		json: `{"error":"Request failed during generation: Server error: CUDA out of memory. Tried to allocate 2.00 GiB","error_type":"generation"}`,
		want: view{Usage: noUsage(), HasErr: true, ErrMessage: "Request failed during generation: Server error: CUDA out of memory. Tried to allocate 2.00 GiB", ErrType: "generation"},
	},

	// --- OpenAI ---
	{
		// ENTERPILOT/GoModel PR #46 testdata (recorded from api.openai.com):
		// service_tier, system_fingerprint and the "obfuscation" padding.
		name: "openai content with obfuscation",
		json: `{"id":"chatcmpl-D0q8CZXN1uEzngZGkU7FuV92lnXWq","object":"chat.completion.chunk","created":1769092764,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_29330a9688","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}],"obfuscation":"ZGF"}`,
		want: view{ID: "chatcmpl-D0q8CZXN1uEzngZGkU7FuV92lnXWq", Object: "chat.completion.chunk", NumChoices: 1, Content: "Hello", Usage: noUsage(), HasToken: true},
	},
	{
		// OpenAI's first chunk (role, empty content, refusal null), written
		// in the shape of the recorded stream above.
		name: "openai role chunk",
		json: `{"id":"chatcmpl-D0q8CZXN1uEzngZGkU7FuV92lnXWq","object":"chat.completion.chunk","created":1769092764,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_29330a9688","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"obfuscation":"kP2cl"}`,
		want: view{ID: "chatcmpl-D0q8CZXN1uEzngZGkU7FuV92lnXWq", Object: "chat.completion.chunk", NumChoices: 1, Role: "assistant", Usage: noUsage()},
	},
	{
		// OpenAI API reference, chat completion chunk object (spaces after
		// some colons, empty delta on the finish chunk).
		name: "openai finish chunk",
		json: `{"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini", "system_fingerprint": "fp_44709d6fcb", "choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}`,
		want: view{ID: "chatcmpl-123", Object: "chat.completion.chunk", NumChoices: 1, FinishReason: "stop", Usage: noUsage()},
	},
	{
		// alexbrowng/aiomodels tests/openai/chat_completion_chunks
		// (recorded OpenAI chunks as the SDK dumps them, every field
		// present), turned from Python literals into JSON: tool call start.
		name: "openai tool call start",
		json: `{"id":"chatcmpl-BQb0iSFzE1zz1OVhaqg3u2Yqn1Ezf","choices":[{"delta":{"content":null,"function_call":null,"refusal":null,"role":null,"tool_calls":[{"index":0,"id":"call_PieqNSej6kM9hgYbcQdbZSaC","function":{"arguments":"","name":"get_weather"},"type":"function"}]},"finish_reason":null,"index":0,"logprobs":null}],"created":1745678496,"model":"gpt-4.1-nano-2025-04-14","object":"chat.completion.chunk","service_tier":"default","system_fingerprint":"fp_eede8f0d45","usage":null}`,
		want: view{ID: "chatcmpl-BQb0iSFzE1zz1OVhaqg3u2Yqn1Ezf", Object: "chat.completion.chunk", NumChoices: 1, ToolCalls: 1, ToolArgs: "get_weather", Usage: noUsage(), HasToken: true},
	},
	{
		// Same fixture: an argument fragment, id/type/name null.
		name: "openai tool call fragment",
		json: `{"id":"chatcmpl-BQb0iSFzE1zz1OVhaqg3u2Yqn1Ezf","choices":[{"delta":{"content":null,"function_call":null,"refusal":null,"role":null,"tool_calls":[{"index":0,"id":null,"function":{"arguments":"{\"lo","name":null},"type":null}]},"finish_reason":null,"index":0,"logprobs":null}],"created":1745678496,"model":"gpt-4.1-nano-2025-04-14","object":"chat.completion.chunk","service_tier":"default","system_fingerprint":"fp_eede8f0d45","usage":null}`,
		want: view{ID: "chatcmpl-BQb0iSFzE1zz1OVhaqg3u2Yqn1Ezf", Object: "chat.completion.chunk", NumChoices: 1, ToolCalls: 1, ToolArgs: `{"lo`, Usage: noUsage(), HasToken: true},
	},
	{
		// Same fixture: finish_reason tool_calls.
		name: "openai tool call finish",
		json: `{"id":"chatcmpl-BQb0iSFzE1zz1OVhaqg3u2Yqn1Ezf","choices":[{"delta":{"content":null,"function_call":null,"refusal":null,"role":null,"tool_calls":null},"finish_reason":"tool_calls","index":0,"logprobs":null}],"created":1745678496,"model":"gpt-4.1-nano-2025-04-14","object":"chat.completion.chunk","service_tier":"default","system_fingerprint":"fp_eede8f0d45","usage":null}`,
		want: view{ID: "chatcmpl-BQb0iSFzE1zz1OVhaqg3u2Yqn1Ezf", Object: "chat.completion.chunk", NumChoices: 1, FinishReason: "tool_calls", Usage: noUsage()},
	},
	{
		// Same fixture: the usage chunk with token details.
		name: "openai usage details",
		json: `{"id":"chatcmpl-BQb0iSFzE1zz1OVhaqg3u2Yqn1Ezf","choices":[],"created":1745678496,"model":"gpt-4.1-nano-2025-04-14","object":"chat.completion.chunk","service_tier":"default","system_fingerprint":"fp_eede8f0d45","usage":{"completion_tokens":31,"prompt_tokens":67,"total_tokens":98,"completion_tokens_details":{"accepted_prediction_tokens":0,"audio_tokens":0,"reasoning_tokens":0,"rejected_prediction_tokens":0},"prompt_tokens_details":{"audio_tokens":0,"cached_tokens":0}}}`,
		want: view{ID: "chatcmpl-BQb0iSFzE1zz1OVhaqg3u2Yqn1Ezf", Object: "chat.completion.chunk", Usage: Usage{Present: true, PromptTokens: 67, CompletionTokens: 31, TotalTokens: 98, CachedTokens: 0, ReasoningTokens: 0}},
	},
	{
		// M-Lai-ai/LLM-Provider-reference Grok/streaming.md (xAI, OpenAI
		// compatible): usage with cached tokens on every chunk.
		name: "xai continuous usage with details",
		json: `{"id":"e409f4cc-6be8-4920-8de4-9849e7c66cd9","object":"chat.completion.chunk","created":1732551988,"model":"grok-beta","choices":[{"index":0,"delta":{"content":"Coca","role":"assistant"}}],"usage":{"prompt_tokens":38,"completion_tokens":1,"total_tokens":39,"prompt_tokens_details":{"text_tokens":38,"audio_tokens":0,"image_tokens":0,"cached_tokens":0}},"system_fingerprint":"fp_6ca29cf396"}`,
		want: view{ID: "e409f4cc-6be8-4920-8de4-9849e7c66cd9", Object: "chat.completion.chunk", NumChoices: 1, Role: "assistant", Content: "Coca", Usage: Usage{Present: true, PromptTokens: 38, CompletionTokens: 1, TotalTokens: 39, CachedTokens: 0, ReasoningTokens: -1}, HasToken: true},
	},
	{
		// Ollama 0.17.4's /v1/completions (a local build): every chunk has a
		// usage of zeros, a placeholder, not a count.
		name: "ollama completion chunk zero usage",
		json: `{"id":"cmpl-12","object":"text_completion","created":1796547237,"choices":[{"text":" fruit","index":0,"finish_reason":null}],"model":"tiny","system_fingerprint":"fp_ollama","usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}}`,
		want: view{ID: "cmpl-12", Object: "text_completion", NumChoices: 1, Content: " fruit", Usage: noUsage(), HasToken: true},
	},
	{
		// The same stream's last chunk: no choices, the real usage.
		name: "ollama completion usage",
		json: `{"id":"cmpl-12","object":"text_completion","created":1796547238,"choices":[],"model":"tiny","system_fingerprint":"fp_ollama","usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}`,
		want: view{ID: "cmpl-12", Object: "text_completion", Usage: usage(12, 3, 15)},
	},
	{
		// OpenAI error envelope in a stream; message as reported in
		// openai/openai-realtime-console issue #51.
		name: "openai stream error",
		json: `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`,
		want: view{Usage: noUsage(), HasErr: true, ErrMessage: "The server had an error while processing your request. Sorry about that!", ErrType: "server_error"},
	},
	{
		// OpenAI error with a string code (written here).
		name: "openai error string code",
		json: `{"error":{"message":"Rate limit reached for gpt-4o-mini","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
		want: view{Usage: noUsage(), HasErr: true, ErrMessage: "Rate limit reached for gpt-4o-mini", ErrType: "requests", ErrCode: "rate_limit_exceeded"},
	},

	// --- DeepSeek and other reasoning servers ---
	{
		// opensolon/solon DeepSeek.md (api.deepseek.com), compacted: first
		// reasoning chunk, content null and reasoning_content "".
		name: "deepseek first chunk",
		json: `{"id":"43a31dda-92f6-4cdf-a333-bb399599a824","object":"chat.completion.chunk","created":1739097227,"model":"deepseek-reasoner","system_fingerprint":"fp_7e73fd9a08","choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":""},"logprobs":null,"finish_reason":null}]}`,
		want: view{ID: "43a31dda-92f6-4cdf-a333-bb399599a824", Object: "chat.completion.chunk", NumChoices: 1, Role: "assistant", Usage: noUsage()},
	},
	{
		// vLLM issue #38499 (Kimi behind an OpenAI-compatible server):
		// Python json.dumps spacing, a float in an unknown field.
		name: "kimi reasoning with spaces and float field",
		json: `{"id": "1dfa1784e6b64e09ade35bedf15798ed", "object": "chat.completion.chunk", "created": 1774598361, "model": "Kimi", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "", "reasoning_content": " 用户"}}], "service_tier": "default", "first_token_return_time": 1774598361.9976811, "usage": null}`,
		want: view{ID: "1dfa1784e6b64e09ade35bedf15798ed", Object: "chat.completion.chunk", NumChoices: 1, Role: "assistant", Reasoning: " 用户", Usage: noUsage(), HasToken: true},
	},
	{
		// karthink/gptel PR #592 (DeepSeek-R1 on a hosted API): an emoji as
		// a \u surrogate pair.
		name: "surrogate pair emoji",
		json: `{"model":"deepseek-r1","id":"chatcmpl-75945b6f-a28b-939e-a650-63762ab131f5","choices":[{"index":0,"delta":{"content":" \uD83D\uDE80","role":"assistant"}}],"created":1740552606,"object":"chat.completion.chunk"}`,
		want: view{ID: "chatcmpl-75945b6f-a28b-939e-a650-63762ab131f5", Object: "chat.completion.chunk", NumChoices: 1, Role: "assistant", Content: " 🚀", Usage: noUsage(), HasToken: true},
	},

	// --- vLLM / SGLang errors inside a 200 stream ---
	{
		// vLLM <= 0.9 serving_engine.create_streaming_error_response:
		// json.dumps({"error": ErrorResponse(...).model_dump()}) (message
		// written here).
		name: "vllm old stream error",
		json: `{"error": {"object": "error", "message": "This model's maximum context length is 4096 tokens. However, you requested 4117 tokens in the messages.", "type": "BadRequestError", "param": null, "code": 400}}`,
		want: view{Usage: noUsage(), HasErr: true, ErrMessage: "This model's maximum context length is 4096 tokens. However, you requested 4117 tokens in the messages.", ErrType: "BadRequestError", ErrCode: "400"},
	},
	{
		// vLLM >= 0.10 engine/serving.py: ErrorResponse(error=ErrorInfo(...))
		// dumped by json.dumps (written here).
		name: "vllm new stream error",
		json: `{"error": {"message": "Internal server error", "type": "InternalServerError", "param": null, "code": 500}}`,
		want: view{Usage: noUsage(), HasErr: true, ErrMessage: "Internal server error", ErrType: "InternalServerError", ErrCode: "500"},
	},
	{
		// vLLM / SGLang ErrorResponse sent bare (modelscope/ms-agent issue
		// #489 quotes it from vLLM).
		name: "object error payload",
		json: `{"object":"error","message":"[{'type': 'extra_forbidden', 'loc': ('body', 'stream_options'), 'msg': 'Extra inputs are not permitted', 'input': {}}]","type":"BadRequestError","param":null,"code":400}`,
		want: view{Object: "error", Usage: noUsage(), HasErr: true, ErrMessage: "[{'type': 'extra_forbidden', 'loc': ('body', 'stream_options'), 'msg': 'Extra inputs are not permitted', 'input': {}}]", ErrType: "BadRequestError", ErrCode: "400"},
	},

	// --- goodput mock and multi-choice ---
	{
		name: "goodput mock emission stamp",
		json: `{"id":"chatcmpl-mock-1","object":"chat.completion.chunk","created":1733130000,"model":"mock","choices":[{"index":0,"delta":{"content":"tok"},"finish_reason":null}],"goodput_emit_ns":1733130000123456789}`,
		want: view{ID: "chatcmpl-mock-1", Object: "chat.completion.chunk", NumChoices: 1, Content: "tok", Usage: noUsage(), EmitNS: 1733130000123456789, HasToken: true},
	},
	{
		// n=2: choices out of index order are joined in index order.
		name: "two choices out of order",
		json: `{"id":"x","object":"chat.completion.chunk","choices":[{"index":1,"delta":{"content":"B","role":"assistant"},"finish_reason":"stop"},{"index":0,"delta":{"content":"A\u00e9"},"finish_reason":"length"}]}`,
		want: view{ID: "x", Object: "chat.completion.chunk", NumChoices: 2, Role: "assistant", Content: "Aé" + "B", FinishReason: "length", Usage: noUsage(), HasToken: true},
	},
}

// realResponses are non-streaming bodies for DecodeResponse.
var realResponses = []shapeCase{
	{
		// llama-server's non-streamed chat.completion: timings after usage
		// (written here after the serializer, as the stream case above).
		name: "llama.cpp chat.completion with timings",
		json: `{"choices":[{"finish_reason":"length","index":0,"message":{"role":"assistant","content":"Hi there"}}],"created":1765000000,"model":"/models/tiny.gguf","system_fingerprint":"b6640-ded67b94","object":"chat.completion","usage":{"completion_tokens":2,"prompt_tokens":12,"total_tokens":14},"id":"chatcmpl-Zk","timings":{"cache_n":0,"prompt_n":12,"prompt_ms":4.1,"prompt_per_token_ms":0.3416666666666666,"prompt_per_second":2926.829268292683,"predicted_n":2,"predicted_ms":1.936,"predicted_per_token_ms":0.968,"predicted_per_second":1033.0578512396694}}`,
		want: view{ID: "chatcmpl-Zk", Object: "chat.completion", NumChoices: 1, Role: "assistant", Content: "Hi there", FinishReason: "length", Usage: usage(12, 2, 14),
			Timings: Timings{Present: true, PromptN: 12, PredictedN: 2, CacheN: 0, PromptMs: 4.1, PredictedMs: 1.936}, HasToken: true},
	},
	{
		// CtwoC/agent_kit client/output_style/openai_output.md (gpt-4o).
		name: "openai chat.completion",
		json: `{
  "id": "chatcmpl-BcO1gPfCFAf86O5CyQ9CTeEyoc8KG",
  "choices": [
    {
      "finish_reason": "stop",
      "index": 0,
      "logprobs": null,
      "message": {
        "content": "Why don't skeletons fight each other? They don't have the guts.",
        "refusal": null,
        "role": "assistant",
        "annotations": [],
        "audio": null,
        "function_call": null,
        "tool_calls": null
      }
    }
  ],
  "created": 1748488520,
  "model": "gpt-4o-2024-08-06",
  "object": "chat.completion",
  "service_tier": "default",
  "system_fingerprint": "fp_a288987b44",
  "usage": {
    "completion_tokens": 14,
    "prompt_tokens": 23,
    "total_tokens": 37,
    "completion_tokens_details": {
      "accepted_prediction_tokens": 0,
      "audio_tokens": 0,
      "reasoning_tokens": 0,
      "rejected_prediction_tokens": 0
    },
    "prompt_tokens_details": {
      "audio_tokens": 0,
      "cached_tokens": 0
    }
  }
}`,
		want: view{ID: "chatcmpl-BcO1gPfCFAf86O5CyQ9CTeEyoc8KG", Object: "chat.completion", NumChoices: 1, Role: "assistant", Content: "Why don't skeletons fight each other? They don't have the guts.", FinishReason: "stop", Usage: Usage{Present: true, PromptTokens: 23, CompletionTokens: 14, TotalTokens: 37, CachedTokens: 0, ReasoningTokens: 0}, HasToken: true},
	},
	{
		// Same source: a tool call response, content null.
		name: "openai tool call response",
		json: `{"id":"chatcmpl-BcQ8ko2nz9B7CRvV0uVbcowidHpQU","choices":[{"finish_reason":"tool_calls","index":0,"logprobs":null,"message":{"content":null,"refusal":null,"role":"assistant","annotations":[],"audio":null,"function_call":null,"tool_calls":[{"id":"call_qOfTGgDrItLORNfC6VwUbyLL","function":{"arguments":"{\"location\":\"Shanghai\"}","name":"get_weather"},"type":"function"}]}}],"created":1748496646,"model":"gpt-4o-2024-08-06","object":"chat.completion","service_tier":"default","system_fingerprint":"fp_76544d79cb","usage":{"completion_tokens":14,"prompt_tokens":91,"total_tokens":105}}`,
		want: view{ID: "chatcmpl-BcQ8ko2nz9B7CRvV0uVbcowidHpQU", Object: "chat.completion", NumChoices: 1, Role: "assistant", ToolCalls: 1, ToolArgs: `get_weather{"location":"Shanghai"}`, FinishReason: "tool_calls", Usage: usage(91, 14, 105), HasToken: true},
	},
	{
		// opensolon/solon DeepSeek.md: deepseek-reasoner with
		// reasoning_content (shortened here) and DeepSeek's extra cache
		// counters.
		name: "deepseek reasoner response",
		json: `{"id":"931809f8-3d1c-44d9-b124-367d05e0f123","object":"chat.completion","created":1739092483,"model":"deepseek-reasoner","choices":[{"index":0,"message":{"role":"assistant","content":"Hello! How can I assist you today?","reasoning_content":"Okay, the user wrote \"hello\"."},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":6,"completion_tokens":92,"total_tokens":98,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":81},"prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":6},"system_fingerprint":"fp_7e73fd9a08"}`,
		want: view{ID: "931809f8-3d1c-44d9-b124-367d05e0f123", Object: "chat.completion", NumChoices: 1, Role: "assistant", Content: "Hello! How can I assist you today?", Reasoning: `Okay, the user wrote "hello".`, FinishReason: "stop", Usage: Usage{Present: true, PromptTokens: 6, CompletionTokens: 92, TotalTokens: 98, CachedTokens: 0, ReasoningTokens: 81}, HasToken: true},
	},
	{
		// smg-project/smg PR #1524 (vLLM): a text_completion body with
		// vLLM's matched_stop; its "text" was "" and is filled in here.
		name: "vllm text_completion response",
		json: `{"id":"cmpl_019e50c5-da31-7052-8dc8-34799b86f78f","object":"text_completion","created":1779471604,"choices":[{"text":"1 2 3 4 5","index":0,"finish_reason":"stop","matched_stop":"6"}],"model":"Qwen/Qwen2.5-1.5B-Instruct","system_fingerprint":"default"}`,
		want: view{ID: "cmpl_019e50c5-da31-7052-8dc8-34799b86f78f", Object: "text_completion", NumChoices: 1, Content: "1 2 3 4 5", FinishReason: "stop", Usage: noUsage(), HasToken: true},
	},
	{
		// vLLM / SGLang 400 body, in the shape ms-agent issue #489 quotes
		// (message written here).
		name: "vllm error body",
		json: `{"object":"error","message":"max_tokens must be at least 1, got 0.","type":"BadRequestError","param":null,"code":400}`,
		want: view{Object: "error", Usage: noUsage(), HasErr: true, ErrMessage: "max_tokens must be at least 1, got 0.", ErrType: "BadRequestError", ErrCode: "400"},
	},
	{
		// FastAPI (vLLM, SGLang) 404 body.
		name: "fastapi detail string",
		json: `{"detail":"Not Found"}`,
		want: view{Usage: noUsage(), HasErr: true, ErrMessage: "Not Found"},
		slow: true,
	},
	{
		// FastAPI validation error body: the detail is kept as JSON text.
		name: "fastapi detail list",
		json: `{"detail":[{"type":"missing","loc":["body","model"],"msg":"Field required"}]}`,
		want: view{Usage: noUsage(), HasErr: true, ErrMessage: `[{"type":"missing","loc":["body","model"],"msg":"Field required"}]`},
		slow: true,
	},
	{
		// TGI non-streaming error body (ErrorResponse{error, error_type});
		// message written after TGI's validation errors.
		name: "tgi error body",
		json: `{"error":"Input validation error: ` + "`inputs`" + ` must have less than 4096 tokens. Given: 5000","error_type":"validation"}`,
		want: view{Usage: noUsage(), HasErr: true, ErrMessage: "Input validation error: `inputs` must have less than 4096 tokens. Given: 5000", ErrType: "validation"},
	},
}

func TestDecodeRealChunks(t *testing.T) {
	for _, tc := range realChunks {
		t.Run(tc.name, func(t *testing.T) {
			checkShape(t, tc, false)
		})
	}
}

func TestDecodeRealResponses(t *testing.T) {
	for _, tc := range realResponses {
		t.Run(tc.name, func(t *testing.T) {
			checkShape(t, tc, true)
		})
	}
}

func checkShape(t *testing.T, tc shapeCase, resp bool) {
	t.Helper()
	data := []byte(tc.json)
	if !json.Valid(data) {
		t.Fatalf("test payload is not valid JSON")
	}
	var fast, full Chunk
	decode, reference := DecodeChunk, DecodeChunkFull
	if resp {
		decode = DecodeResponse
		reference = func(b []byte, c *Chunk) error { return decodeFull(b, c, true) }
	}
	if err := decode(data, &fast); err != nil {
		t.Fatalf("fast decoder: %v", err)
	}
	if err := reference(data, &full); err != nil {
		t.Fatalf("reference decoder: %v", err)
	}
	if got := viewOf(&fast); got != tc.want {
		t.Errorf("fast decoder\n got %+v\nwant %+v", got, tc.want)
	}
	if got := viewOf(&full); got != tc.want {
		t.Errorf("reference decoder\n got %+v\nwant %+v", got, tc.want)
	}
	var c Chunk
	c.Reset()
	if handled := decodeFast(data, &c, resp); handled == tc.slow {
		t.Errorf("fast path handled = %v, want %v", handled, !tc.slow)
	}
}

func TestDecodeDone(t *testing.T) {
	for _, in := range []string{"[DONE]", " [DONE]\n", "\r\n\t[DONE] "} {
		var c Chunk
		c.Content = []byte("stale")
		if err := DecodeChunk([]byte(in), &c); err != nil || !c.Done || c.Content != nil {
			t.Errorf("%q: done=%v content=%q err=%v", in, c.Done, c.Content, err)
		}
		if err := DecodeChunkFull([]byte(in), &c); err != nil || !c.Done {
			t.Errorf("full %q: done=%v err=%v", in, c.Done, err)
		}
	}
	for _, in := range []string{"[DONE] x", "[done]", `"[DONE]"`} {
		var c Chunk
		if err := DecodeChunk([]byte(in), &c); err == nil || c.Done {
			t.Errorf("%q: done=%v err=%v, want an error", in, c.Done, err)
		}
	}
	var c Chunk
	if err := DecodeResponse([]byte("[DONE]"), &c); err == nil || c.Done {
		t.Errorf("DecodeResponse([DONE]): done=%v err=%v, want an error", c.Done, err)
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		name, in string
		want     string // substring of the error
	}{
		{"empty", "", "empty payload"},
		{"whitespace", " \n\t", "empty payload"},
		{"truncated", `{"id":"x","choices":[{"delta":{"content":"hel`, "malformed JSON at byte 45"},
		{"trailing garbage", `{"id":"x"} {"id":"y"}`, "malformed JSON at byte 11"},
		{"bad escape", `{"choices":[{"delta":{"content":"a\x"}}]}`, "malformed JSON"},
		{"control character in string", "{\"id\":\"a\tb\"}", "malformed JSON"},
		{"single quotes", `{'id':'x'}`, "malformed JSON at byte 1"},
		{"top-level array", `[{"id":"x"}]`, "want a JSON object, got array"},
		{"top-level string", `"data"`, "want a JSON object, got string"},
		{"top-level null", `null`, "want a JSON object, got null"},
		{"content not a string", `{"choices":[{"delta":{"content":5}}]}`, "choices[0].delta.content: want string or null, got number"},
		{"choices not an array", `{"choices":{"index":0}}`, "field choices: want array or null, got object"},
		{"null choice", `{"choices":[null]}`, "field choices[0]: want object, got null"},
		{"usage not an object", `{"usage":"none"}`, "field usage: want object or null, got string"},
		{"fractional token count", `{"usage":{"prompt_tokens":1.5}}`, "usage.prompt_tokens: want an integer"},
		{"token count overflow", `{"usage":{"completion_tokens":99999999999999999999}}`, "usage.completion_tokens: want an integer"},
		{"timings not an object", `{"timings":[1]}`, "field timings: want object or null, got array"},
		{"timings count fractional", `{"timings":{"prompt_n":1.5}}`, "timings.prompt_n: want an integer"},
		{"timings time a string", `{"timings":{"prompt_ms":"3"}}`, "timings.prompt_ms: want number or null, got string"},
		{"timings time overflow", `{"timings":{"predicted_ms":1e400}}`, "timings.predicted_ms: want a number in float64 range"},
		{"emit stamp not an integer", `{"goodput_emit_ns":"1733"}`, "goodput_emit_ns: want integer or null, got string"},
		{"error of wrong type", `{"error":42}`, "field error: want object, string or null, got number"},
		{"error code of wrong type", `{"error":{"message":"m","code":true}}`, "error.code: want string, number or null, got boolean"},
		{"tool_calls of wrong type", `{"choices":[{"delta":{"tool_calls":"x"}}]}`, "tool_calls: want array, object or null, got string"},
		{"arguments not a string", `{"choices":[{"message":{"tool_calls":[{"function":{"arguments":{"a":1}}}]}}]}`, "function.arguments: want string or null, got object"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var fast, full Chunk
			errFast := DecodeChunk([]byte(tc.in), &fast)
			errFull := DecodeChunkFull([]byte(tc.in), &full)
			if errFast == nil || errFull == nil {
				t.Fatalf("want errors, got fast=%v full=%v", errFast, errFull)
			}
			if errFast.Error() != errFull.Error() {
				t.Errorf("decoders disagree:\nfast %v\nfull %v", errFast, errFull)
			}
			if !strings.Contains(errFast.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", errFast, tc.want)
			}
			if len(errFast.Error()) > 160 {
				t.Errorf("error is %d bytes long: %q", len(errFast.Error()), errFast)
			}
			if empty := (view{Usage: noUsage()}); viewOf(&fast) != empty || viewOf(&full) != empty {
				t.Errorf("chunk not left Reset after an error:\nfast %+v\nfull %+v", viewOf(&fast), viewOf(&full))
			}
		})
	}
	// A long malformed payload is not dumped into the message.
	long := `{"choices":[{"delta":{"content":"` + strings.Repeat("x", 10000) + `"}}],}`
	var c Chunk
	err := DecodeChunk([]byte(long), &c)
	if err == nil || len(err.Error()) > 160 {
		t.Fatalf("error on a long payload: %v", err)
	}
	if !errors.Is(DecodeChunk(nil, &c), ErrEmptyPayload) {
		t.Fatal("nil payload: want ErrEmptyPayload")
	}
}

// TestUnescapeLikeEncodingJSON checks string decoding against encoding/json
// on escapes, surrogates and invalid UTF-8, through both decoders.
func TestUnescapeLikeEncodingJSON(t *testing.T) {
	literals := []string{
		`plain`, `a\nb\tc\rd\\e\/f\"g\bh\fi`, `\u0041\u00e9\u4e16\u754c`, `\u0000`,
		`\uD83D\uDE80`, `\ud83d\ude80`, // valid pair
		`\uD83D`, `\uD83Dx`, `\uD83D\u0041`, `\uDE80`, `\uDE80\uD83D`, `\uD83D\uD83D\uDE80`, // unpaired
		"\xff", "a\xffb", "\xc3", "\xe4\xb8", "\xc0\x80", "\xed\xa0\x80", "\xef\xbf\xbd", "\xf4\x90\x80\x80",
		`\u00e9` + "\xff", "é\\n\xfe",
	}
	for _, lit := range literals {
		payload := []byte(`{"choices":[{"delta":{"content":"` + lit + `"}}]}`)
		var want struct {
			Choices []struct {
				Delta struct{ Content string }
			}
		}
		if err := json.Unmarshal(payload, &want); err != nil {
			t.Fatalf("%q: encoding/json: %v", lit, err)
		}
		var fast, full Chunk
		if err := DecodeChunk(payload, &fast); err != nil {
			t.Fatalf("%q: %v", lit, err)
		}
		if err := DecodeChunkFull(payload, &full); err != nil {
			t.Fatalf("%q: %v", lit, err)
		}
		w := want.Choices[0].Delta.Content
		if string(fast.Content) != w || string(full.Content) != w {
			t.Errorf("%q: fast %q full %q, encoding/json %q", lit, fast.Content, full.Content, w)
		}
	}
}

func TestDecodeRules(t *testing.T) {
	cases := []struct {
		name, in string
		want     view
	}{
		{"nulls are absent", `{"id":null,"object":null,"choices":null,"usage":null,"error":null,"goodput_emit_ns":null}`, view{Usage: noUsage()}},
		{"usage object empty", `{"usage":{}}`, view{Usage: Usage{Present: true, CachedTokens: -1, ReasoningTokens: -1}}},
		{"usage nulls", `{"usage":{"prompt_tokens":null,"completion_tokens":4,"total_tokens":null,"prompt_tokens_details":{"cached_tokens":null},"completion_tokens_details":null}}`, view{Usage: Usage{Present: true, CompletionTokens: 4, CachedTokens: -1, ReasoningTokens: -1}}},
		{"cached tokens", `{"usage":{"prompt_tokens":100,"prompt_tokens_details":{"cached_tokens":64}}}`, view{Usage: Usage{Present: true, PromptTokens: 100, CachedTokens: 64, ReasoningTokens: -1}}},
		{"reasoning_content wins when both differ", `{"choices":[{"delta":{"reasoning":"b","reasoning_content":"a"}}]}`, view{NumChoices: 1, Reasoning: "a", Usage: noUsage(), HasToken: true}},
		{"reasoning when reasoning_content empty", `{"choices":[{"delta":{"reasoning_content":"","reasoning":"r"}}]}`, view{NumChoices: 1, Reasoning: "r", Usage: noUsage(), HasToken: true}},
		{"refusal", `{"choices":[{"delta":{"refusal":"I can't"}}]}`, view{NumChoices: 1, Refusal: "I can't", Usage: noUsage(), HasToken: true}},
		{"tool_calls empty array", `{"choices":[{"delta":{"tool_calls":[]}}]}`, view{NumChoices: 1, Usage: noUsage()}},
		{"tool entry without function counts", `{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function"}]}}]}`, view{NumChoices: 1, ToolCalls: 1, Usage: noUsage()}},
		{"two tool calls in one delta", `{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"a","arguments":"{}"}},{"index":1,"function":{"name":"b","arguments":"[]"}}]}}]}`, view{NumChoices: 1, ToolCalls: 2, ToolArgs: "a{}b[]", Usage: noUsage(), HasToken: true}},
		{"tool_calls as a single object", `{"choices":[{"delta":{"tool_calls":{"index":0,"function":{"name":"f","arguments":"1"}}}}]}`, view{NumChoices: 1, ToolCalls: 1, ToolArgs: "f1", Usage: noUsage(), HasToken: true}},
		{"legacy function_call", `{"choices":[{"delta":{"function_call":{"arguments":"{}","name":"f"}}}]}`, view{NumChoices: 1, ToolCalls: 1, ToolArgs: "f{}", Usage: noUsage(), HasToken: true}},
		{"text then delta content", `{"choices":[{"delta":{"content":"d"},"text":"t"}]}`, view{NumChoices: 1, Content: "td", Usage: noUsage(), HasToken: true}},
		{"first role and finish reason in index order", `{"choices":[{"index":2,"delta":{"role":"tool"},"finish_reason":"stop"},{"index":1,"delta":{"role":"assistant"},"finish_reason":""}]}`, view{NumChoices: 2, Role: "assistant", FinishReason: "stop", Usage: noUsage()}},
		{"missing index sorts as 0, stable", `{"choices":[{"delta":{"content":"a"}},{"index":0,"delta":{"content":"b"}},{"index":-1,"delta":{"content":"c"}}]}`, view{NumChoices: 3, Content: "cab", Usage: noUsage(), HasToken: true}},
		{"error string without type", `{"error":"boom"}`, view{Usage: noUsage(), HasErr: true, ErrMessage: "boom"}},
		{"empty error object is no error", `{"error":{}}`, view{Usage: noUsage()}},
		{"empty error string is no error", `{"error":"","error_type":5}`, view{Usage: noUsage()}},
		{"error object with any member is an error", `{"error":{"param":null}}`, view{Usage: noUsage(), HasErr: true}},
		{"empty error falls back to object error", `{"error":{},"object":"error","message":"m"}`, view{Object: "error", Usage: noUsage(), HasErr: true, ErrMessage: "m"}},
		{"error wins over object error", `{"object":"error","message":"outer","error":{"message":"inner"}}`, view{Object: "error", Usage: noUsage(), HasErr: true, ErrMessage: "inner"}},
		{"top-level message ignored unless object is error", `{"object":"x","message":5,"type":[],"code":{}}`, view{Object: "x", Usage: noUsage()}},
		{"float code kept as text", `{"object":"error","code":400.0}`, view{Object: "error", Usage: noUsage(), HasErr: true, ErrCode: "400.0"}},
		{"escaped code", `{"error":{"code":"a\u0062c"}}`, view{Usage: noUsage(), HasErr: true, ErrCode: "abc"}},
		{"detail ignored in streams", `{"detail":"Not Found"}`, view{Usage: noUsage()}},
		{"negative emit stamp", `{"goodput_emit_ns":-5}`, view{Usage: noUsage(), EmitNS: -5}},
		{"escaped key is still the key", `{"choices":[{"delta":{"cont\u0065nt":"x"}}]}`, view{NumChoices: 1, Content: "x", Usage: noUsage(), HasToken: true}},
		{"duplicate key: last wins", `{"choices":[{"delta":{"content":"a","content":"b"}}]}`, view{NumChoices: 1, Content: "b", Usage: noUsage(), HasToken: true}},
		{"key case matters", `{"Choices":[{"delta":{"content":"a"}}],"choices":[{"Delta":{"content":"b"}}]}`, view{NumChoices: 1, Usage: noUsage()}},
		{"deep unknown value", `{"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `,"choices":[{"delta":{"content":"a"}}]}`, view{NumChoices: 1, Content: "a", Usage: noUsage(), HasToken: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var fast, full Chunk
			if err := DecodeChunk([]byte(tc.in), &fast); err != nil {
				t.Fatalf("fast: %v", err)
			}
			if err := DecodeChunkFull([]byte(tc.in), &full); err != nil {
				t.Fatalf("full: %v", err)
			}
			if got := viewOf(&fast); got != tc.want {
				t.Errorf("fast\n got %+v\nwant %+v", got, tc.want)
			}
			if got := viewOf(&full); got != tc.want {
				t.Errorf("full\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestChunkAliasing(t *testing.T) {
	// An unescaped single piece aliases the input; an escaped or joined one
	// lives in the chunk and survives changes to the input.
	data := []byte(`{"choices":[{"delta":{"content":"plain","reasoning_content":"a\nb"}},{"index":1,"delta":{"content":"+more"}}]}`)
	var c Chunk
	if err := DecodeChunk(data, &c); err != nil {
		t.Fatal(err)
	}
	if string(c.Content) != "plain+more" || string(c.Reasoning) != "a\nb" {
		t.Fatalf("content %q reasoning %q", c.Content, c.Reasoning)
	}
	for i := range data {
		data[i] = 'Z'
	}
	if string(c.Content) != "plain+more" || string(c.Reasoning) != "a\nb" {
		t.Fatalf("owned values changed with the input: %q %q", c.Content, c.Reasoning)
	}
	// Appending to a returned slice never writes into the input.
	data = []byte(`{"id":"ab","choices":[{"text":"cd"}]}`)
	if err := DecodeChunk(data, &c); err != nil {
		t.Fatal(err)
	}
	_ = append(c.ID, 'X')
	_ = append(c.Content, 'Y')
	if string(data) != `{"id":"ab","choices":[{"text":"cd"}]}` {
		t.Fatalf("input modified: %s", data)
	}
}

func TestChunkResetAndReuse(t *testing.T) {
	var c Chunk
	if err := DecodeChunk([]byte(`{"choices":[{"delta":{"content":"a\"","tool_calls":[{"function":{"name":"n"}}]}}],"usage":{"prompt_tokens_details":{"cached_tokens":3}},"error":"e"}`), &c); err != nil {
		t.Fatal(err)
	}
	if err := DecodeChunk([]byte(`{"choices":[]}`), &c); err != nil {
		t.Fatal(err)
	}
	if got, want := viewOf(&c), (view{Usage: noUsage()}); got != want {
		t.Fatalf("after reuse\n got %+v\nwant %+v", got, want)
	}
}

func TestDecodeNoAllocs(t *testing.T) {
	var c Chunk
	for _, tc := range realChunks {
		data := []byte(tc.json)
		if tc.want.HasErr {
			continue // errors build strings
		}
		_ = DecodeChunk(data, &c) // warm the buffers
		if a := testing.AllocsPerRun(50, func() { _ = DecodeChunk(data, &c) }); a != 0 {
			t.Errorf("%s: %v allocations per decode, want 0", tc.name, a)
		}
	}
}

func TestStreamErrorMessage(t *testing.T) {
	cases := []struct {
		err  StreamError
		want string
	}{
		{StreamError{}, "server error"},
		{StreamError{Message: "boom"}, "server error: boom"},
		{StreamError{Message: "a\nb\r\nc", Type: "t", Code: "400"}, "server error: a b c (type t, code 400)"},
		{StreamError{Code: "x"}, "server error (code x)"},
		{StreamError{Message: strings.Repeat("é", 200)}, "server error: " + strings.Repeat("é", 128) + "..."},
	}
	for _, tc := range cases {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.err, got, tc.want)
		}
	}
	var err error = &StreamError{Message: "x"}
	if fmt.Sprint(err) != "server error: x" {
		t.Fatal("StreamError does not implement error as expected")
	}
}
