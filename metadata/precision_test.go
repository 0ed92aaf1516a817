package metadata

import (
	"testing"

	"github.com/goodput-dev/goodput/telemetry"
)

func TestInferPrecision(t *testing.T) {
	tests := []struct {
		name, want string
	}{
		{"meta-llama/Llama-3.3-70B-Instruct-FP8", "fp8"},
		{"RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8-dynamic", "fp8"},
		{"Qwen/Qwen3-30B-A3B-Instruct-2507-FP8", "fp8"},
		{"nvidia/Llama-3.3-70B-Instruct-FP4", "fp4"},
		{"nvidia/DeepSeek-R1-0528-NVFP4", "nvfp4"},
		{"some-org/model-MXFP4", "mxfp4"},
		{"Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4", "gptq-int4"},
		{"Qwen/Qwen2.5-72B-Instruct-GPTQ-Int8", "gptq-int8"},
		{"TheBloke/Llama-2-7B-GPTQ", "gptq"},
		{"TheBloke/Mixtral-8x7B-Instruct-v0.1-AWQ", "awq"},
		{"Qwen/Qwen3-8B-AWQ", "awq"},
		{"unsloth/Llama-3.2-1B-Instruct-bnb-4bit", "bnb-int4"},
		{"neuralmagic/Meta-Llama-3.1-8B-Instruct-quantized.w4a16", "w4a16"},
		{"RedHatAI/Llama-3.1-8B-Instruct-quantized.w8a8", "w8a8"},
		{"model-int8", "int8"},
		{"my-model-int4", "int4"},
		{"mistral-7b-instruct-v0.2.Q4_K_M.gguf", "gguf-q4_k_m"},
		{"llama-3-8b.Q8_0.gguf", "gguf-q8_0"},
		{"model-IQ3_XXS.gguf", "gguf-iq3_xxs"},
		{"Qwen3-8B-bf16", "bf16"},
		{"stabilityai/model-fp16", "fp16"},
		{"model-f16.gguf", "fp16"},
		{"/models/llama-70b-fp8", "fp8"},
		// Names that say nothing.
		{"meta-llama/Llama-3.1-8B-Instruct", ""},
		{"openai/gpt-oss-120b", ""},
		{"mistralai/Mixtral-8x7B-Instruct-v0.1", ""},
		{"deepseek-ai/DeepSeek-V3", ""},
		{"Qwen/Qwen3-30B-A3B", ""},
		{"fp80-model", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got, ok := InferPrecision(tt.name)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("InferPrecision(%q) = %q, %v; want %q", tt.name, got, ok, tt.want)
		}
	}
}

func TestNormalizeDtype(t *testing.T) {
	for in, want := range map[string]string{
		"torch.float16": "fp16", "float16": "fp16", "half": "fp16", "torch.bfloat16": "bf16", "bfloat16": "bf16",
		"float32": "fp32", "auto": "", "": "", "torch.float8_e4m3fn": "fp8", "weird": "",
	} {
		if got := normalizeDtype(in); got != want {
			t.Errorf("normalizeDtype(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSplitEngine(t *testing.T) {
	tests := []struct{ in, name, version string }{
		{"vllm-0.9.1", "vllm", "0.9.1"},
		{"vllm", "vllm", ""},
		{"sglang==0.4.6.post1", "sglang", "0.4.6.post1"},
		{"tgi/2.4.0", "tgi", "2.4.0"},
		{"text-generation-inference-3.3.2", "text-generation-inference", "3.3.2"},
		{"vllm-v0.10.1rc1", "vllm", "0.10.1rc1"},
		{"tensorrt-llm", "tensorrt-llm", ""},
		{"llama.cpp", "llama.cpp", ""},
	}
	for _, tt := range tests {
		n, v := splitEngine(tt.in)
		if n != tt.name || v != tt.version {
			t.Errorf("splitEngine(%q) = %q, %q; want %q, %q", tt.in, n, v, tt.name, tt.version)
		}
	}
}

func TestHeaderEngine(t *testing.T) {
	tests := []struct{ in, engine, version string }{
		{"text-generation-inference/2.4.0", telemetry.EngineTGI, "2.4.0"},
		{"uvicorn", "", ""},
		{"nginx/1.25.3", "", ""},
		{"envoy", "", ""},
		{"istio-envoy, sglang/0.4.6", telemetry.EngineSGLang, "0.4.6"},
		{"vllm", telemetry.EngineVLLM, ""},
		{"Ollama", telemetry.EngineOllama, ""},
	}
	for _, tt := range tests {
		e, v := headerEngine(tt.in)
		if e != tt.engine || v != tt.version {
			t.Errorf("headerEngine(%q) = %q, %q; want %q, %q", tt.in, e, v, tt.engine, tt.version)
		}
	}
}
