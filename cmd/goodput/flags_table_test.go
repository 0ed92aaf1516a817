package main

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/goodput-dev/goodput/cli"
)

// Every flag of every command, read from the command's own --help (so a
// new flag cannot be missed), gets invalid values that must end the
// command with exit 2 and one line naming the flag, before any load: the
// benchmark's target is a closed port, so a flag checked only after the
// first request would show as exit 1 instead. A flag that has no invalid
// value is listed in flagExempt with the reason.

// invalidFlagValues lists, per "command --flag", invalid values. A value
// starting with "=" is attached to the flag (--force=maybe), as a bool
// flag needs. want, when set, is the part of the message expected instead
// of the flag's name.
var invalidFlagValues = map[string][]string{
	// benchmark
	"benchmark --target":                   {"localhost:8000", "ftp://example.com"},
	"benchmark --request-type":             {"images"},
	"benchmark --batch-size":               {"x", "0", "-1"},
	"benchmark --model-selection-strategy": {"fastest"},
	"benchmark --target-selection":         {"fastest", "least_in_flight"},
	"benchmark --local-addrs":              {"not-an-ip", "127.0.0.1,x"},
	"benchmark --http-client":              {"curl", ""},
	"benchmark --request-path":             {"v1/chat/completions", "/v1/x?y=1"},
	"benchmark --session-header":           {"x session", "x:y"},
	"benchmark --rate-type":                {"fast", ""},
	"benchmark --rate":                     {"x", "-1", "2,x"},
	"benchmark --data":                     {"promt_tokens=8", "prompt_tokens=abc", "prompt_tokens=0\n00"},
	"benchmark --processor":                {"/nonexistent/tokenizer.json", "no-such-org/no-such-model"},
	"benchmark --processor-args":           {"{bad", "[1]"},
	"benchmark --data-samples":             {"x", "-2"},
	"benchmark --data-shuffle":             {"=maybe"},
	"benchmark --data-column-mapper":       {"{bad", "nope=x"},
	"benchmark --data-args":                {"{bad", `{"nope":1}`},
	"benchmark --detect-saturation":        {"=maybe"},
	"benchmark --default-over-saturation":  {"=maybe"},
	"benchmark --output-extras":            {"{bad", "[1]"},
	"benchmark --request-formatter-kwargs": {"{bad", `{"nope":1}`},
	"benchmark --time-scale":               {"x", "0", "-1"},
	"benchmark --max-seconds":              {"x", "-1", "NaN"},
	"benchmark --max-requests":             {"x", "-1"},
	"benchmark --max-errors":               {"x", "-1"},
	"benchmark --max-error-rate":           {"x", "1.5", "-0.1"},
	"benchmark --max-global-error-rate":    {"x", "1", "-0.1"},
	"benchmark --global-error-minimum":     {"x", "-3"},
	"benchmark --content-extras":           {"[1]", "{bad", "null"},
	"benchmark --confidence":               {"x", "1.5", "0", "NaN"},
	"benchmark --drain":                    {"x", "-1s"},
	"benchmark --warmup":                   {"soon", "-3", "10r"},
	"benchmark --cooldown":                 {"soon", "-3", "5r"},
	"benchmark --random-seed":              {"x"},
	"benchmark --output-path":              {"run.txt"},
	"benchmark --outputs":                  {"json,pdf", ""},
	"benchmark --run-id":                   {"../escape", "a/b", ".."},
	"benchmark --force":                    {"=maybe"},
	"benchmark --sample-requests":          {"x", "-2"},
	"benchmark --max-concurrency":          {"x", "-1"},
	"benchmark --max-prefill-concurrency":  {"x", "-1"},
	"benchmark --users":                    {"x", "-1", "4"},
	"benchmark --rampup":                   {"x", "-1"},
	"benchmark --rampup-shape":             {"sine"},
	"benchmark --rampup-from":              {"x", "-1", "NaN"},
	"benchmark --burstiness":               {"x", "0", "-1", "Inf"},
	"benchmark --rate-series":              {"2", "x:5s", "2:0s"},
	"benchmark --tbt-deadline":             {"x", "0", "-1s"},
	"benchmark --ttft-deadline":            {"x", "-2", "50ms"},
	"benchmark --slice-duration":           {"x", "0", "NaN"},
	"benchmark --percentiles":              {"x", "0", "100", "50,,99"},
	"benchmark --over-saturation":          {"mode=halt", "min_seconds=-1", "speed=3"},
	"benchmark --knee-detection":           {"enabled=maybe", "max_step=0", "speed=1"},
	"benchmark --target-moe":               {"metric=itl", "statistic=p97", "moe=2", "min_samples=0", "x"},
	"benchmark --num-runs":                 {"x", "0", "101"},
	"benchmark --run-variation-threshold":  {"x", "0", "-1", "NaN"},
	"benchmark --header":                   {"NoColon", "{bad"},
	"benchmark --extra-body":               {"[1]", "{bad"},
	"benchmark --backend-type":             {"vllm_python"},
	"benchmark --backend-args":             {`{"nope":1}`, `{"verify":"yes"}`},
	"benchmark --no-stream":                {"=maybe"},
	"benchmark --no-stream-usage":          {"=maybe"},
	"benchmark --no-ignore-eos":            {"=maybe"},
	"benchmark --max-tokens-field":         {"limit"},
	"benchmark --chat-template-overhead":   {"x", "-1"},
	"benchmark --token-mismatch-warn":      {"x", "150%", "-1", "NaN"},
	"benchmark --prompt-salt":              {"", "a\nb"},
	"benchmark --ca-file":                  {"/nonexistent/ca.pem", "@notpem"},
	"benchmark --insecure":                 {"=maybe"},
	"benchmark --connect-timeout":          {"soon", "-1s"},
	"benchmark --stall-timeout":            {"soon", "-1s"},
	"benchmark --request-timeout":          {"soon", "-1s"},
	"benchmark --label":                    {"novalue", "=x"},
	"benchmark --disable-progress":         {"=maybe"},
	"benchmark --disable-console-outputs":  {"=maybe"},
	"benchmark --log-format":               {"xml"},
	"benchmark --rx-timestamps":            {"monotonic", ""},
	"benchmark --progress-interval":        {"soon", "0", "-1s"},
	"benchmark --labels-file":              {"/nonexistent/labels"},
	"benchmark --strict-metadata":          {"=maybe"},
	"benchmark --metadata-timeout":         {"soon", "-1s"},
	"benchmark --slo":                      {"ttft_p99=fast", "nope=1ms"},
	"benchmark --target-load-tok-s":        {"x", "-5"},
	"benchmark --knee-axis":                {"sideways"},
	"benchmark --knee-tolerance":           {"x", "0", "-0.1"},
	"benchmark --knee-max-rounds":          {"x", "0"},
	"benchmark --knee-factor":              {"x", "1", "0.5"},
	"benchmark --knee-max-rate":            {"x", "-1"},
	"benchmark --sweep-strategy":           {"weird"},
	"benchmark --stopping-scope":           {"weird"},
	"benchmark --dcgm-url":                 {"not a url", "ftp://x/metrics"},
	"benchmark --gpu-selector":             {"{bad"},
	"benchmark --nvml":                     {"=maybe"},
	"benchmark --prometheus":               {"not a url"},
	"benchmark --prometheus-selector":      {"{bad"},
	"benchmark --kepler-namespace":         {"ns"},
	"benchmark --kepler-pod":               {"pod"},
	"benchmark --kepler-container":         {"c"},
	"benchmark --server-metrics":           {"sometimes", "http://a:8000/metrics,on", "prometheus=http://p:9090", `selector={a="b"}`},
	"benchmark --metrics-addr":             {"9090", "localhost"},
	"benchmark --opencost":                 {"not a url"},
	"benchmark --opencost-namespace":       {"ns"},
	"benchmark --opencost-label":           {"team"},
	"benchmark --opencost-aggregate":       {"planet"},
	"benchmark --gpu-cost-per-hour":        {"x", "-1"},
	"benchmark --cost-per-hour":            {"x", "-1"},
	"benchmark --gpus":                     {"x", "-1"},
	"benchmark --currency":                 {"euros", "1"},
	"benchmark --pue":                      {"x", "0.5"},
	"benchmark --grid-intensity":           {"x", "-1"},
	"benchmark --telemetry-optional":       {"=maybe"},
	"benchmark --telemetry-interval":       {"soon", "0"},
	"benchmark --telemetry-wait":           {"soon", "-1s"},
	"benchmark --shard-index":              {"x", "-1", "5"},
	"benchmark --shard-count":              {"x", "0"},
	"benchmark --start-at":                 {"tomorrow"},
	"benchmark --round-gap":                {"soon", "-1s"},
	"benchmark --max-drain":                {"soon", "0", "-1s"},
	"benchmark --judge-busy-rounds":        {"=maybe"},
	"benchmark --fail-on-error-rate":       {"x", "-0.1", "1.5", "150%"},
	"benchmark --allow-all-errors":         {"=maybe"},
	"benchmark --wide":                     {"=maybe"},
	"report --wide":                        {"=maybe"},
	"compare --wide":                       {"=maybe"},
	"benchmark --max-connect-failures":     {"x", "-1"},
	// GuideLLM v0.7's options and the configuration file
	"benchmark --backend":           {"fast", "kind=vllm_python", "kind=openai_http,nope=1", "kind=openai_http,request_format=/pooling", `{"kind":"openai_http","extras":{"files":{}}}`},
	"benchmark --profile":           {"kind=fast", "kind=concurrent", "kind=constant,rate=0", "kind=concurrent,streams=2.5", "kind=sweep,sweep_size=1"},
	"benchmark --constraint":        {"nope", "kind=max_duration,seconds=-1", "kind=max_requests", "kind=over_saturation,mode=sometimes", "kind=target_moe,moe=2", "kind=max_global_error_rate,rate=1.5", "kind=max_duration,seconds=[1,2]"},
	"benchmark --output":            {"kind=pdf", "kind=plot", "kind=console,path=x.txt", "kind=json,path=x.txt"},
	"benchmark --tokenizer":         {"kind=tiktoken", "kind=huggingface_auto,load_kwargs.use_fast=false"},
	"benchmark --data-loader":       {"kind=tf", "kind=pytorch,samples=x", "kind=pytorch,shuffle=maybe", "kind=pytorch,num_workers=4"},
	"benchmark --data-preprocessor": {"kind=nope", "{bad"},
	"benchmark --data-finalizer":    {"kind=other"},
	"benchmark --seed":              {"x", "kind=static,value=1.5"},
	"benchmark --metrics":           {"kind=generative,sample_size=0", `{"kind":"generative","slo":{"nope_ms":1}}`, "kind=other"},
	"benchmark --override":          {"profile.rate"},
	"benchmark --error-rate-window": {"x", "-1"},
	"benchmark --config":            {"/nonexistent/goodput.yaml", "chat.yaml"},
	"benchmark --print-config":      {"=maybe"},

	// AIPerf's control hooks, both commands
	"benchmark --reset-kv-cache":                  {"=maybe"},
	"benchmark --reset-kv-cache-path":             {"reset_prefix_cache", "http://host/reset_prefix_cache"},
	"benchmark --reset-kv-cache-timeout-seconds":  {"x", "0", "-1"},
	"benchmark --server-profiler":                 {"=maybe"},
	"benchmark --server-profiler-start-path":      {"start_profile", "/start profile"},
	"benchmark --server-profiler-stop-path":       {"stop_profile", "https://x/stop"},
	"benchmark --server-profiler-timeout-seconds": {"x", "0", "-2"},
	"profile --reset-kv-cache":                    {"=maybe"},
	"profile --reset-kv-cache-path":               {"reset_prefix_cache", "http://host/reset_prefix_cache"},
	"profile --reset-kv-cache-timeout-seconds":    {"x", "0", "-1"},
	"profile --server-profiler":                   {"=maybe"},
	"profile --server-profiler-start-path":        {"start_profile", "/start profile"},
	"profile --server-profiler-stop-path":         {"stop_profile", "https://x/stop"},
	"profile --server-profiler-timeout-seconds":   {"x", "0", "-2"},

	// profile (AIPerf's flags)
	"profile --url":                                   {"ftp://x", "http://"},
	"profile --endpoint-type":                         {"video_generation", "rankings"},
	"profile --url-strategy":                          {"random"},
	"profile --model-selection-strategy":              {"fastest", "weighted"},
	"profile --batch-size":                            {"x", "0", "2"},
	"profile --rankings-passages-mean":                {"x", "0", "3"},
	"profile --rankings-passages-stddev":              {"x", "2"},
	"profile --rankings-passages-prompt-token-mean":   {"x", "100"},
	"profile --rankings-passages-prompt-token-stddev": {"x", "10"},
	"profile --rankings-query-prompt-token-mean":      {"x", "100"},
	"profile --rankings-query-prompt-token-stddev":    {"x", "10"},
	"profile --image-width-mean":                      {"x", "12.5", "64"},
	"profile --image-width-stddev":                    {"x", "5"},
	"profile --image-height-mean":                     {"x", "-1", "64"},
	"profile --image-height-stddev":                   {"x", "5"},
	"profile --image-batch-size":                      {"x", "-1", "2"},
	"profile --image-format":                          {"random", "gif"},
	"profile --audio-batch-size":                      {"x", "-1", "2"},
	"profile --audio-length-mean":                     {"x", "-1", "2.5"},
	"profile --audio-length-stddev":                   {"x", "1"},
	"profile --audio-format":                          {"mp3"},
	"profile --audio-depths":                          {"24"},
	"profile --audio-sample-rates":                    {"x", "0", "16,44.1"},
	"profile --audio-num-channels":                    {"x", "2"},
	"profile --conversation-num":                      {"x", "-1"},
	"profile --conversation-turn-mean":                {"x", "0", "2000"},
	"profile --conversation-turn-stddev":              {"x", "-1"},
	"profile --conversation-turn-delay-mean":          {"x", "-1", "100"},
	"profile --conversation-turn-delay-stddev":        {"x", "-1"},
	"profile --conversation-turn-delay-ratio":         {"x", "-1"},
	"profile --session-header":                        {"x session", "a:b"},
	"profile --user-context-prompt-length":            {"x", "-1", "64"},
	"profile --num-profile-runs":                      {"x", "0", "101"},
	"profile --profile-run-cooldown-seconds":          {"x", "-1", "5"},
	"profile --parameter-sweep-cooldown-seconds":      {"x", "-1", "5"},
	"profile --confidence-level":                      {"x", "0", "1"},
	"profile --parameter-sweep-mode":                  {"independent"},
	"profile --slice-duration":                        {"x", "-1", "0"},
	"profile --streaming":                             {"=maybe"},
	"profile --per-chunk-usage":                       {"=maybe"},
	"profile --export-http-trace":                     {"=maybe"},
	"profile --show-trace-timing":                     {"=maybe"},
	"profile --concurrency":                           {"x", "0", "2,x"},
	"profile --request-rate":                          {"x", "0", "-1"},
	"profile --user-centric-rate":                     {"x", "0", "-1", "NaN"},
	"profile --num-users":                             {"x", "0", "-1"},
	"profile --request-rate-mode":                     {"bursty"},
	"profile --arrival-smoothness":                    {"x", "0", "-1", "0.5"},
	"profile --request-rate-ramp-duration":            {"x", "-1", "5"},
	"profile --concurrency-ramp-duration":             {"x", "-1"},
	"profile --request-rate-series":                   {"/nonexistent/series.json"},
	"profile --isl":                                   {"x", "0", "-5"},
	"profile --isl-stddev":                            {"x", "-1"},
	"profile --osl":                                   {"x", "0", "-5"},
	"profile --prompt-salt":                           {"", "a\nb"},
	"profile --sequence-distribution":                 {"64,32", "64,32:70;256,128:20", "0,32:100", "[(64,32):100", `{"pairs":[]}`},
	"profile --osl-stddev":                            {"x", "-1"},
	"profile --request-count":                         {"x", "-1"},
	"profile --warmup-request-count":                  {"x", "-1"},
	"profile --benchmark-duration":                    {"x", "-1"},
	"profile --benchmark-grace-period":                {"x", "-1", "30"},
	"profile --request-cancellation-rate":             {"x", "-1", "101"},
	"profile --request-cancellation-delay":            {"x", "-1", "2"},
	"profile --fixed-schedule-start-offset":           {"x", "-1", "100"},
	"profile --fixed-schedule-end-offset":             {"x", "-1", "100"},
	"profile --goodput":                               {"time_to_first_token", "nope:5", "time_to_first_token:x"},
	"profile --tokenizer":                             {"/nonexistent/tokenizer.json"},
	"profile --output":                                {"aiperf.txt"},
	"profile --header":                                {"NoColon"},
	"profile --extra-inputs":                          {"novalue", "{bad"},
	"profile --random-seed":                           {"x"},
	"profile --request-timeout-seconds":               {"x", "0", "-1"},
	"profile --use-legacy-max-tokens":                 {"=maybe"},
	"profile --use-server-token-count":                {"=maybe"},
	"profile --ui-type":                               {"fancy"},
	"profile --fail-on-error-rate":                    {"x", "-0.1", "1.5", "150%"},
	"profile --allow-all-errors":                      {"=maybe"},
	"profile --wide":                                  {"=maybe"},
	"profile --max-connect-failures":                  {"x", "-1"},
	"profile --custom-endpoint":                       {"v1/x", "/x?y=1"},
	"profile --transport":                             {"grpc"},
	"profile --prefix-prompt-pool-size":               {"x", "-1", "3"},
	"profile --prefix-prompt-length":                  {"x", "-1"},
	"profile --shared-system-prompt-length":           {"x", "-1"},
	"profile --num-dataset-entries":                   {"x", "-1"},
	"profile --video-width":                           {"x", "-5", "8"},
	"profile --video-height":                          {"x", "-5"},
	"profile --video-fps":                             {"x", "0"},
	"profile --video-duration":                        {"x", "0"},
	"profile --video-batch-size":                      {"x", "0"},
	"profile --input-file":                            {"/nonexistent/prompts.jsonl"},
	"profile --custom-dataset-type":                   {"multi_turn", "nope", "mooncake_trace"},
	"profile --fixed-schedule":                        {"=maybe", "=true"},
	"profile --no-fixed-schedule":                     {"=maybe", "=true"},
	"profile --fixed-schedule-auto-offset":            {"=maybe", "=true"},
	"profile --dataset-sampling-strategy":             {"random", "nope", "shuffle"},
	"profile --warmup-duration":                       {"x", "-1"},
	"profile --num-warmup-sessions":                   {"x", "-1"},
	"profile --warmup-concurrency":                    {"x", "0"},
	"profile --warmup-request-rate":                   {"x", "0", "-1"},
	"profile --warmup-arrival-pattern":                {"burst", "concurrency_burst"},
	"profile --warmup-grace-period":                   {"x", "-1", "5"},
	"profile --warmup-concurrency-ramp-duration":      {"x", "0", "-1"},
	"profile --warmup-request-rate-ramp-duration":     {"x", "0", "-1"},
	"profile --server-metrics":                        {"ftp://x", "http://"},
	"profile --no-server-metrics":                     {"=maybe"},
	"profile --gpu-telemetry":                         {"dashboard", "ftp://x"},
	"profile --no-gpu-telemetry":                      {"=maybe"},
	"profile --config":                                {"/nonexistent/aiperf.yaml"},

	// profile: the prefill caps
	"profile --prefill-concurrency":                      {"x", "0", "-1"},
	"profile --prefill-concurrency-ramp-duration":        {"x", "0", "-1"},
	"profile --warmup-prefill-concurrency":               {"x", "0", "-1"},
	"profile --warmup-prefill-concurrency-ramp-duration": {"x", "0", "-1"},

	// mock
	"mock --host":                 {"not a host!"},
	"mock --port":                 {"x", "-1", "70000"},
	"mock --server-version":       {"bad\nversion"},
	"mock --personality":          {"sglang"},
	"mock --max-model-len":        {"x", "-1"},
	"mock --lora-modules":         {"name=", "a=/p,a=/q"},
	"mock --listen":               {"127.0.0.2", ":8000"},
	"mock --ttft":                 {"soon", "-1ms"},
	"mock --ttft-stdev":           {"soon", "-1ms"},
	"mock --itl":                  {"soon", "-1ms"},
	"mock --server-tool-time":     {"soon", "-1ms"},
	"mock --itl-stdev":            {"soon", "-1ms"},
	"mock --output-tokens":        {"x", "-1"},
	"mock --output-tokens-stdev":  {"x", "-1"},
	"mock --tokens-per-chunk":     {"x", "0"},
	"mock --seed":                 {"x", "-1"},
	"mock --no-stamp":             {"=maybe"},
	"mock --processor":            {"/nonexistent/tokenizer.json"},
	"mock --kv-cache-tokens":      {"x", "-1"},
	"mock --error-rate":           {"x", "1.5", "-0.1"},
	"mock --error-codes":          {"x", "200", "99"},
	"mock --disconnect-rate":      {"x", "1.5"},
	"mock --stall-rate":           {"x", "1.5"},
	"mock --stall-duration":       {"soon", "-1s"},
	"mock --stream-error-rate":    {"x", "1.5"},
	"mock --no-abort":             {"=maybe"},
	"mock --metrics-error-rate":   {"x", "1.5", "-0.1"},
	"mock --lazy-metrics":         {"=maybe"},
	"mock --chat-template-tokens": {"x", "-1", "32768"},
	"mock --block-size":           {"x", "0", "2048"},
	"mock --prefix-cache-tokens":  {"x", "-1", "8"},
	"mock --no-prefix-cache":      {"=maybe"},
	"mock --stored-responses":     {"x", "-1", "2000000"},
	"mock --tool-call-rate":       {"x", "1.5", "-0.1", "NaN"},
	"mock --preset":               {"405b-on-a-laptop"},
	"mock --gpus":                 {"x", "-1"},
	"mock --dcgm-addr":            {"not an address"},
	"mock --dcgm-interval":        {"soon", "0"},

	// mock: capacity model, simulated GPU and analytic knee (without
	// --preset the capacity flags start from tiny's values)
	"mock --max-num-seqs":           {"x", "0", "-1", "70000"},
	"mock --max-num-batched-tokens": {"x", "0", "-1", "99999999"},
	"mock --step-base":              {"soon", "0", "-1ms", "11s"},
	"mock --step-per-seq":           {"soon", "-1ms", "2s"},
	"mock --prefill-per-token":      {"soon", "-1us", "2s"},
	"mock --session-data":           {"x", "turns=4", "turns=0,prompt_tokens=8,output_tokens=2", "turns=2,prompt_tokens=8,output_tokens=2,delay=1"},
	"mock --knee-data":              {"x", "prompt_tokens=256", "prompt_tokens=256,output_tokens=0", "prompt_tokens=256,output_tokens=128,output_tokens_stdev=8"},
	"mock --gpu-name":               {"", "bad\"name"},
	"mock --gpu-memory-mib":         {"x", "0", "-1"},
	"mock --gpu-idle-watts":         {"x", "-1", "800", "NaN"},
	"mock --gpu-watts-per-seq":      {"x", "-1", "NaN"},
	"mock --gpu-max-watts":          {"x", "0", "-1", "Inf"},

	// report FILE
	"report --console": {"=maybe"},
	"report --records": {"/nonexistent/requests.jsonl"},

	// compare BASELINE CURRENT
	"compare --max-goodput-drop":             {"x", "-5%", "5"},
	"compare --max-throughput-drop":          {"x", "-5%"},
	"compare --max-ttft-p50-increase":        {"x", "-5%"},
	"compare --max-ttft-p90-increase":        {"x", "-5%"},
	"compare --max-client-cpu-increase":      {"x", "-5%"},
	"compare --max-ttft-p99-increase":        {"x", "-5%"},
	"compare --max-itl-p50-increase":         {"x", "-5%"},
	"compare --max-itl-p95-increase":         {"x", "-5%"},
	"compare --max-latency-p99-increase":     {"x", "-5%"},
	"compare --max-error-rate-increase":      {"x", "-5%"},
	"compare --max-knee-drop":                {"x", "-5%"},
	"compare --max-session-goodput-drop":     {"x", "-5pp", "5%"},
	"compare --max-later-turn-ttft-increase": {"x", "-5%"},
	"compare --max-cache-hit-rate-drop":      {"x", "-5pp", "5%"},
	"compare --strict":                       {"=maybe"},
	"compare --allow-undecided":              {"=maybe"},
	"compare --bootstrap-resamples":          {"x", "-1", "5"},
	"compare --seed":                         {"x", "-1"},
	"aggregate --slo":                        {"ttft_p99=fast"},
	"aggregate --no-table":                   {"=maybe"},
	"merge --output":                         {"run.txt", ""},
	"merge --records":                        {"/nonexistent/requests.jsonl"},
	"merge --no-records":                     {"=maybe"},
	"merge --tolerance":                      {"soon", "-1s"},
	"merge --force":                          {"=maybe"},
	"merge --disable-console":                {"=maybe"},
	"tokenize --processor":                   {"/nonexistent/tokenizer.json", "no-such-org/no-such-model"},
	"tokenize --ids":                         {"=maybe"},
	"tokenize --format":                      {"xml"},
}

// flagExempt lists the flags that accept every value, with the reason.
var flagExempt = map[string]string{
	"benchmark --model":      "any model name; the server decides whether it serves it",
	"benchmark --api-key":    "any string is a key; the server decides",
	"benchmark --output-dir": "any path; one that cannot be written fails before the load (TestOutputDirFailures, TestOutputDirNotWritable, TestOutputDirFull)",
	"profile --model":        "any model name; the server decides whether it serves it",
	"profile --api-key":      "any string is a key; the server decides",
	"profile --artifact-dir": "any path; created before the load",
	"mock --model":           "any model name",
	"mock --url-file":        "any path; written once the server listens",
	// Output files: any path is a valid name (missing directories are
	// created); one that cannot be written is an I/O failure (exit 1,
	// naming the path), not a usage error.
	"report --csv":            "an output path",
	"report --json":           "an output path",
	"report --aiperf":         "an output path",
	"report --html":           "an output path",
	"compare --markdown":      "an output path",
	"compare --json":          "an output path",
	"aggregate --output":      "an output path",
	"benchmark --cpu-profile": "an output path, created before the load",
}

var helpFlagRE = regexp.MustCompile(`^\s+(?:-\w, )?--([a-z0-9][a-z0-9-]*)`)

// commandFlags reads a command's flags from its --help.
func commandFlags(t *testing.T, cmd string) []string {
	t.Helper()
	code, stdout, stderr := runGoodput(t, cmd, "--help")
	if code != cli.ExitOK {
		t.Fatalf("%s --help: exit %d: %s", cmd, code, stderr)
	}
	var out []string
	for _, line := range strings.Split(stdout, "\n") {
		if m := helpFlagRE.FindStringSubmatch(line); m != nil && m[1] != "help" {
			out = append(out, m[1])
		}
	}
	return out
}

// flagTestReport is a small goodput report, written once.
var flagTestReport struct {
	once sync.Once
	path string
	err  string
}

func flagReport(t *testing.T) string {
	t.Helper()
	r := &flagTestReport
	r.once.Do(func() {
		url := clitest.Mock(t, nil)
		dir, err := os.MkdirTemp("", "goodput-flags-")
		if err != nil {
			r.err = err.Error()
			return
		}
		code, _, stderr := runGoodput(t, "benchmark", "--target", url, "--rate-type", "synchronous", "--data", "prompt_tokens=8,output_tokens=4",
			"--max-requests", "3", "--output-dir", dir, "--run-id", "r", "--outputs", "json,jsonl", "--server-metrics", "off")
		if code != cli.ExitOK {
			r.err = stderr
			return
		}
		r.path = filepath.Join(dir, "r", "benchmarks.json")
	})
	if r.err != "" {
		t.Fatalf("writing a report for the flag tests: %s", r.err)
	}
	return r.path
}

// flagBase is a command line that is valid apart from the flag under
// test, and sends no load anywhere (a closed port) if it gets that far.
func flagBase(t *testing.T, cmd string) []string {
	dir := t.TempDir()
	switch cmd {
	case "benchmark":
		return []string{"benchmark", "--target", "http://127.0.0.1:1", "--rate-type", "concurrent", "--rate", "2",
			"--data", "prompt_tokens=8,output_tokens=4", "--max-seconds", "1", "--output-dir", dir, "--disable-progress"}
	case "profile":
		return []string{"profile", "--url", "127.0.0.1:1", "--model", "m", "--concurrency", "2", "--request-count", "4",
			"--artifact-dir", dir, "--ui-type", "none"}
	case "mock":
		return []string{"mock", "--port", "0"}
	case "report":
		return []string{"report", flagReport(t)}
	case "compare":
		return []string{"compare", flagReport(t), flagReport(t)}
	case "aggregate":
		return []string{"aggregate", filepath.Dir(flagReport(t))}
	case "merge":
		return []string{"merge", flagReport(t), "--output", filepath.Join(dir, "merged.json")}
	case "tokenize":
		return []string{"tokenize", "--processor", "o200k_base"}
	}
	t.Fatalf("no base command line for %s", cmd)
	return nil
}

func TestEveryFlagRejectsInvalidValues(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range commands() {
		if c.name == "version" {
			continue
		}
		for _, name := range commandFlags(t, c.name) {
			key := c.name + " --" + name
			seen[key] = true
			values, ok := invalidFlagValues[key]
			if _, exempt := flagExempt[key]; exempt {
				if ok {
					t.Errorf("%s is both exempt and tested", key)
				}
				continue
			}
			if !ok || len(values) == 0 {
				t.Errorf("%s: no invalid values in invalidFlagValues and no exemption in flagExempt", key)
				continue
			}
			for _, v := range values {
				t.Run(strings.ReplaceAll(key, " ", "_")+"="+v, func(t *testing.T) {
					args := flagBase(t, c.name)
					if strings.HasPrefix(v, "=") {
						args = append(args, "--"+name+v)
					} else {
						args = append(args, "--"+name, v)
					}
					code, stderr := runBounded(t, args)
					msg := strings.TrimRight(stderr, "\n")
					if code != cli.ExitUsage {
						t.Fatalf("%q: exit %d, want %d; stderr %q", args, code, cli.ExitUsage, stderr)
					}
					last := msg[strings.LastIndex(msg, "\n")+1:]
					if !strings.HasPrefix(last, "goodput "+c.name+": ") || !strings.Contains(last, "--"+name) {
						t.Fatalf("last line %q: want one line naming --%s", last, name)
					}
				})
			}
		}
	}
	var stale []string
	for key := range invalidFlagValues {
		if !seen[key] {
			stale = append(stale, key)
		}
	}
	for key := range flagExempt {
		if !seen[key] {
			stale = append(stale, key)
		}
	}
	sort.Strings(stale)
	if len(stale) > 0 {
		t.Errorf("listed but not a flag of the command any more: %v", stale)
	}
}

// runBounded runs goodput and fails the test if it does not return
// within 10 s (a mock that accepted a bad flag would serve forever).
func runBounded(t *testing.T, args []string) (int, string) {
	t.Helper()
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, _, stderr := runGoodput(t, args...)
		done <- result{code, stderr}
	}()
	select {
	case r := <-done:
		return r.code, r.stderr
	case <-time.After(10 * time.Second):
		t.Fatalf("%q accepted the value: still running after 10 s", args)
		return 0, ""
	}
}
