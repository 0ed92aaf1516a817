package metadata

import (
	"regexp"
	"strings"
)

// Precision inference from a model name. A name says its precision only
// by convention (…-FP8, …-GPTQ-Int4, …quantized.w4a16, …Q4_K_M.gguf), so
// the result is marked as inferred in the report.

// precisionTokens maps a name token (lower case, the name split at
// '-', '_', '.', '/', ':', '@' and spaces) to a precision, best first:
// a token earlier in this list wins over a later one.
var precisionTokens = []struct{ token, precision string }{
	{"nvfp4", "nvfp4"},
	{"mxfp4", "mxfp4"},
	{"mxfp8", "mxfp8"},
	{"fp4", "fp4"},
	{"w4a4", "w4a4"},
	{"w4a8", "w4a8"},
	{"w4a16", "w4a16"},
	{"w8a8", "w8a8"},
	{"w8a16", "w8a16"},
	{"fp8", "fp8"},
	{"e4m3", "fp8"},
	{"e4m3fn", "fp8"},
	{"float8", "fp8"},
	{"f8", "fp8"},
	{"int4", "int4"},
	{"4bit", "int4"},
	{"int8", "int8"},
	{"8bit", "int8"},
	{"bf16", "bf16"},
	{"bfloat16", "bf16"},
	{"fp16", "fp16"},
	{"f16", "fp16"},
	{"float16", "fp16"},
	{"fp32", "fp32"},
	{"f32", "fp32"},
}

// quantMethods are weight-quantisation methods written in names; with a
// bit width they give e.g. "gptq-int4", alone just the method.
var quantMethods = []string{"awq", "gptq", "bnb", "hqq", "exl2", "aqlm", "squeezellm", "marlin"}

// ggufQuant matches llama.cpp's GGUF quantisation types (Q4_K_M, Q8_0,
// IQ3_XXS …) in a lower-cased name.
var ggufQuant = regexp.MustCompile(`(?:^|[^a-z0-9])(i?q[1-8]_(?:k_[sml]|k|[01]|xxs|xs|s|m|nl))(?:$|[^a-z0-9])`)

// InferPrecision guesses the precision of a model from its name, e.g.
// "fp8" for "meta-llama/Llama-3.3-70B-Instruct-FP8", "gptq-int4" for
// "Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4", "w4a16" for
// "neuralmagic/Meta-Llama-3.1-8B-Instruct-quantized.w4a16",
// "gguf-q4_k_m" for "mistral-7b-instruct-v0.2.Q4_K_M.gguf". ok is false
// when the name says nothing (most names of bf16 releases do not).
func InferPrecision(name string) (precision string, ok bool) {
	low := strings.ToLower(name)
	if m := ggufQuant.FindStringSubmatch(low); m != nil {
		return "gguf-" + m[1], true
	}
	toks := map[string]bool{}
	for _, t := range strings.FieldsFunc(low, func(r rune) bool {
		return r == '-' || r == '_' || r == '.' || r == '/' || r == ':' || r == '@' || r == ' '
	}) {
		toks[t] = true
	}
	method := ""
	for _, m := range quantMethods {
		if toks[m] {
			method = m
			break
		}
	}
	for _, pt := range precisionTokens {
		if toks[pt.token] {
			if method != "" {
				return method + "-" + pt.precision, true
			}
			return pt.precision, true
		}
	}
	if method != "" {
		return method, true
	}
	return "", false
}

// normalizeDtype maps an engine's dtype string ("torch.float16",
// "bfloat16", "half") to goodput's precision names; "" for "auto" and
// unknown values.
func normalizeDtype(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimPrefix(s, "torch.")
	switch s {
	case "float16", "half", "fp16", "f16":
		return "fp16"
	case "bfloat16", "bf16":
		return "bf16"
	case "float32", "float", "fp32", "f32":
		return "fp32"
	case "", "auto", "none", "null":
		return ""
	}
	if p, ok := InferPrecision(s); ok {
		return p
	}
	return ""
}

// genericQuantization are quantisation settings that name a file format or
// toolkit rather than a precision: the model name is then a better guide.
var genericQuantization = map[string]bool{
	"compressed-tensors": true, "compressed_tensors": true, "modelopt": true, "quark": true,
}
