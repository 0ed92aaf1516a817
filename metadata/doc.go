// Package metadata collects what makes a benchmark run auditable: the
// twelve mandatory metadata of a reproducible LLM benchmark (serving
// engine and version, model and revision, precision, tokenizer and the
// hash of its file, ISL, OSL, hardware, maximum concurrency tested,
// goodput's version and commit, the declared SLO, the warmup and the run
// id), plus free labels, into report.RunMetadata.
//
// # Use
//
// Before any load is sent:
//
//	res, err := metadata.Collect(ctx, metadata.Probe{BaseURL: base, Client: hc, Header: h, Secrets: []string{apiKey},
//		Models: models, Model: model}, metadata.Inputs{Labels: labels, ISL: 256, OSL: 128, …})
//	if strict { if err := metadata.Strict(res.Metadata); err != nil { … exit 2 … } }
//
// and once the benchmarks ran:
//
//	notes := metadata.Finish(res.Metadata, rep.Benchmarks) // max concurrency; measured ISL/OSL fallback
//	rep.Goodput.Metadata = res.Metadata
//
// # Sources
//
// Collect asks the server, all probes at once and within Probe.Timeout
// (3 s by default): GET /version (vLLM: {"version":"0.9.1"}), GET
// /v1/models (id, root, owned_by, any revision key), GET /metrics (engine
// from the family prefix vllm:, sglang:, tgi_, llamacpp:; version from a
// PREFIX…build_info or …version_info family's version label), TGI's GET
// /info (model_id, model_sha, model_dtype, version), SGLang's GET
// /get_server_info (version, model_path, revision, quantization, dtype,
// tokenizer_path), and the Server and X-Powered-By headers of every
// answer (a known engine product such as text-generation-inference/2.4.0;
// web servers such as uvicorn name no engine). A probe that fails,
// times out or answers something else leaves its fields empty: the run
// goes on and Result.Notes says what happened (status codes and
// transport errors only; no body, URL credential or header value is ever
// recorded, and the API key, URL credentials and credential headers'
// values are scrubbed from everything recorded).
//
// The model is the weights behind the served name where the server says
// (a Hugging Face id in /v1/models root, TGI's model_id or SGLang's
// model_path; a Hugging Face cache path …/models--ORG--NAME/snapshots/SHA
// gives ORG/NAME and the revision SHA), else the served name. GET
// /version is trusted only for engines known to serve their own version
// there (vLLM, SGLang, goodput's mock): behind a gateway the answer may be
// the gateway's.
//
// Precision comes from a label, else from the server (SGLang's
// quantization or dtype, TGI's model_dtype), else from the model name
// (InferPrecision: fp8, fp16, bf16, int8, int4, awq, gptq-int4, w4a16,
// w8a8, nvfp4, mxfp4, gguf-q4_k_m …) with RunMetadata.PrecisionInferred
// set. Hardware is a label, else the local GPUs from NVML or nvidia-smi
// (telemetry.DescribeHardware) — the host running goodput, which the
// source says.
//
// # Labels
//
// --label k=v and a Kubernetes downward-API labels file (ParseLabelsFile:
// lines key="value", Go-quoted) are one list, file first. Keys naming a
// field (LabelField: engine, engine_version, model, model_revision,
// precision, tokenizer, tokenizer_hash, isl, osl, hardware,
// max_concurrency, run_id, and bench/engine, bench/model, bench/hardware,
// bench/precision, bench/isl, bench/osl, bench/run-id, bench/tokenizer,
// bench/concurrency) declare it; the others are free labels. An engine
// label may carry the version ("vllm-0.9.1"). A label wins for what
// identifies the server; the run's own facts (tokenizer, ISL, OSL, max
// concurrency, run id) win over labels, and a contradicting label is kept
// as a free label and noted.
//
// # Missing fields
//
// RunMetadata.Missing lists the required fields left empty (see
// RequiredFields; Collect leaves max_concurrency out until Finish has the
// rounds). Strict turns a non-empty list into an error for
// --strict-metadata, and Hint says how to fill each field.
package metadata
