package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/report"
)

// Every `guidellm run` example of GuideLLM v0.7.3's README and docs in
// the sections first run, load patterns, request formats, scenarios,
// benchmark controls, outputs and over-saturation, as written there (the
// docs' fragments `guidellm run --profile …` completed with the first
// run's backend, data and constraint; a fragment with a backend but no
// data gets the first run's data), run with the binary name changed:
// the target becomes the in-process mock, durations and counts are
// shortened, placeholders (path/to/…) become local files, and a command
// that gives no end gets --constraint kind=max_duration. The peer-doc
// corpus runs every one of them (each is an entry of
// testdata/peerdocs/corpus.jsonl); TestGuideLLMDocExamples runs those that
// name output files and reads the files back.
var guidellmExamples = []struct {
	doc, cmd string
	model    string // the model the example names (the mock serves it)
	addEnd   bool   // the example gives no end: add a short max_duration
	seconds  string // the shortened durations (default 0.25)
	refused  string // exit 2 with this in its one line
}{
	// README.md: first run, load patterns, request formats, scenarios, benchmark controls
	{doc: "README first run", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000 --profile kind=sweep --constraint kind=max_duration,seconds=30 --data kind=synthetic_text,prompt_tokens=256,output_tokens=128`},
	{doc: "README load pattern", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000 --profile kind=constant,rate=10 --constraint kind=max_duration,seconds=20 --data kind=synthetic_text,prompt_tokens=128,output_tokens=256`},
	{doc: "README dataset", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000 --data kind=huggingface,source=abisee/cnn_dailymail,load_kwargs.name=3.0.0 --data-column-mapper kind=generative_column_mapper,column_mappings.text_column=article`, refused: "never downloads"},
	{doc: "README request format", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000,request_format=/v1/chat/completions --data kind=json_file,path=path/to/data.json`},
	{doc: "README scenario", cmd: `guidellm run --config chat --backend kind=openai_http,target=http://localhost:8000`, addEnd: true, seconds: "0.5"}, // 256-token answers
	{doc: "README benchmark controls", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000 --profile kind=concurrent,streams=16,warmup=0.1,cooldown=0.1 --constraint kind=max_errors,count=5 --constraint kind=over_saturation --data kind=synthetic_text,prompt_tokens=256,output_tokens=128`, addEnd: true},

	// docs/getting-started/benchmark.md
	{doc: "benchmark.md first benchmark", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000 --data kind=synthetic_text,prompt_tokens=256,output_tokens=128 --constraint kind=max_duration,seconds=60`},
	{doc: "benchmark.md synchronous", cmd: `guidellm run --profile kind=synchronous`},
	{doc: "benchmark.md throughput", cmd: `guidellm run --profile kind=throughput,max_concurrency=10`},
	{doc: "benchmark.md concurrent", cmd: `guidellm run --profile kind=concurrent,streams=10`},
	{doc: "benchmark.md constant list", cmd: `guidellm run --profile '{"kind":"constant","rate":[16,32]}'`},
	{doc: "benchmark.md poisson", cmd: `guidellm run --profile kind=poisson,rate=16 --seed kind=static,value=42`},
	{doc: "benchmark.md sweep", cmd: `guidellm run --profile kind=sweep,sweep_size=10,rampup_duration=10,strategy_type=poisson`},
	{doc: "benchmark.md replay", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000 --data kind=trace_synthetic,path=path/to/trace.jsonl --profile kind=replay,time_scale=1.0`},
	{doc: "benchmark.md constant", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000 --data kind=synthetic_text,prompt_tokens=100,output_tokens=50 --profile kind=constant,rate=5`, addEnd: true},
	{doc: "benchmark.md replay columns", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000 --data kind=trace_synthetic,path=replay.jsonl,timestamp_column=timestamp,prompt_tokens_column=input_length,output_tokens_column=output_length --profile kind=replay,time_scale=1.0`},
	{doc: "benchmark.md json file", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000 --data kind=json_file,path=/path/to/your/dataset.json --profile kind=constant,rate=5`},
	{doc: "benchmark.md hub dataset", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000 --data kind=huggingface,source=garage-bAInd/Open-Platypus --profile kind=constant,rate=5`, refused: "never downloads"},
	{doc: "benchmark.md outputs", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000 --data kind=synthetic_text,prompt_tokens=256,output_tokens=128 --output kind=json,path=results/benchmark.json --output kind=csv,path=results/benchmark.csv --output kind=html,path=results/benchmark.html`, addEnd: true},

	// docs/getting-started/analyze.md
	{doc: "analyze.md outputs", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000 --data kind=synthetic_text,prompt_tokens=256,output_tokens=128 --output kind=json,path=results/benchmarks.json --output kind=csv,path=results/summary.csv`, addEnd: true},
	{doc: "analyze.md server1", cmd: `guidellm run --backend kind=openai_http,target=http://server1:8000 --data kind=synthetic_text,prompt_tokens=256,output_tokens=128 --output kind=json,path=model1/benchmarks.json`, addEnd: true},

	// docs/guides/backends.md: request formats and backend options
	{doc: "backends.md api key", cmd: `guidellm run --backend kind=openai_http,target=https://api.openai.com/v1,api_key=sk-...,model=gpt-3.5-turbo --data kind=synthetic_text,prompt_tokens=256,output_tokens=128`, model: "gpt-3.5-turbo", addEnd: true},
	{doc: "backends.md extras", cmd: `guidellm run --backend '{"kind":"openai_http","target":"http://localhost:8000/v1","model":"meta-llama/Meta-Llama-3.1-8B-Instruct","extras":{"body":{"temperature":0.6,"top_p":0.95,"top_k":20}}}' --data kind=synthetic_text,prompt_tokens=256,output_tokens=128`, model: "meta-llama/Meta-Llama-3.1-8B-Instruct", addEnd: true},
	{doc: "backends.md api key and extras", cmd: `guidellm run --backend '{"kind":"openai_http","target":"http://localhost:8000/v1","model":"meta-llama/Meta-Llama-3.1-8B-Instruct","api_key":"sk-...","extras":{"body":{"temperature":0.8,"top_p":0.9}}}' --data kind=synthetic_text,prompt_tokens=256,output_tokens=128`, model: "meta-llama/Meta-Llama-3.1-8B-Instruct", addEnd: true},
	{doc: "embeddings.md", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000/v1,model=BAAI/bge-small-en-v1.5,request_format=/v1/embeddings --data kind=synthetic_text,prompt_tokens=128 --constraint kind=max_requests,count=100`, model: "BAAI/bge-small-en-v1.5"},

	// docs/guides/datasets.md
	{doc: "datasets.md hub with tokenizer and loader", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000 --profile kind=throughput --constraint kind=max_requests,count=1000 --data '{"kind":"huggingface","source":"my/dataset","load_kwargs":{"split":"test"}}' --data-column-mapper '{"kind":"generative_column_mapper","column_mappings":{"text_column":"prompt"}}' --tokenizer '{"kind":"huggingface_auto","model":"path/to/processor","load_kwargs":{"use_fast":false}}' --data-loader kind=pytorch,shuffle=true`, refused: "--tokenizer load_kwargs={\"use_fast\":false}: not supported"},
	{doc: "datasets.md synthetic", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000 --profile kind=throughput --constraint kind=max_requests,count=1000 --data kind=synthetic_text,prompt_tokens=256,output_tokens=128`},
	{doc: "datasets.md synthetic JSON", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000 --profile kind=throughput --constraint kind=max_requests,count=1000 --data '{"kind":"synthetic_text","prompt_tokens":256,"output_tokens":128}'`},
	{doc: "datasets.md local hub directory", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000 --profile kind=throughput --constraint kind=max_requests,count=1000 --data kind=huggingface,source=path/to/dataset`, refused: "--data"},
	{doc: "datasets.md replay", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000 --profile kind=replay,time_scale=1.0 --data kind=trace_synthetic,path=path/to/trace.jsonl`},
	{doc: "datasets.md column mapper", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000 --profile kind=throughput --constraint kind=max_requests,count=1000 --data kind=json_file,path=path/to/dataset.json --data-column-mapper '{"kind":"generative_column_mapper","column_mappings":{"text_column":"prompt"}}'`},

	// docs/guides/outputs.md
	{doc: "outputs.md no progress", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000 --profile kind=sweep --constraint kind=max_duration,seconds=30 --data kind=synthetic_text,prompt_tokens=256,output_tokens=128 --disable-console-interactive`},
	{doc: "outputs.md no console", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000 --profile kind=sweep --constraint kind=max_duration,seconds=30 --data kind=synthetic_text,prompt_tokens=256,output_tokens=128 --disable-console`},
	{doc: "outputs.md three outputs", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000 --profile kind=sweep --constraint kind=max_duration,seconds=30 --data kind=synthetic_text,prompt_tokens=256,output_tokens=128 --output kind=json,path=results/benchmark.json --output kind=csv,path=results/benchmark.csv --output kind=html,path=results/benchmark.html`},
	{doc: "outputs.md sample size", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000 --profile kind=sweep --constraint kind=max_requests,count=10000 --data kind=synthetic_text,prompt_tokens=256,output_tokens=128 --metrics kind=generative,sample_size=100 --output kind=json,path=results/benchmark.json`},

	// docs/guides/over_saturation_stopping.md
	{doc: "over_saturation_stopping.md throughput", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000 --profile kind=throughput,max_concurrency=10 --constraint kind=over_saturation`, addEnd: true},
	{doc: "over_saturation_stopping.md tuned", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000 --profile kind=concurrent,streams=16 --constraint kind=over_saturation,mode=enforce,min_seconds=60,max_window_seconds=300,moe_threshold=1.5`, addEnd: true},
	{doc: "over_saturation_stopping.md sweep", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000 --profile kind=sweep,sweep_size=5 --constraint kind=over_saturation`, addEnd: true},
	{doc: "over_saturation_stopping.md full", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000 --profile kind=concurrent,streams=16 --data kind=synthetic_text,prompt_tokens=256,output_tokens=128 --constraint kind=max_duration,seconds=300 --constraint kind=over_saturation,mode=enforce,min_seconds=30,max_window_seconds=120 --output kind=json,path=benchmark.json --output kind=html,path=benchmark.html`},

	// docs/examples
	{doc: "practice_on_vllm_simulator.md", cmd: `guidellm run --backend kind=openai_http,target=http://localhost:8000/,model=tweet-summary-0 --tokenizer kind=huggingface_auto,model=${local_path}/Qwen2.5-1.5B-Instruct --profile kind=sweep --constraint kind=max_duration,seconds=10 --constraint kind=max_requests,count=10 --data kind=synthetic_text,prompt_tokens=128,output_tokens=56`, model: "tweet-summary-0"},
	{doc: "custom-jsonl-dataset.md", cmd: `guidellm run --backend kind=openai_http,target=http://<PREDICTOR_URL> --data '{"kind":"json_file","path":"/home/<USERNAME>/mistral/long_translation_prompts.jsonl","load_kwargs":{"split":"train"}}' --tokenizer '{"kind":"huggingface_auto","model":"/home/<USERNAME>/mistral"}' --profile kind=concurrent,streams=100 --output kind=json,path=/home/<USERNAME>/mistral/benchmarks.json`},
}

// The first run's backend, data and constraint, for the docs' fragments.
const exampleBase = `--backend kind=openai_http,target=http://localhost:8000 --data kind=synthetic_text,prompt_tokens=256,output_tokens=128 --constraint kind=max_duration,seconds=60`

var (
	exampleTarget  = regexp.MustCompile(`target=[^,'"}\s]+|"target":"[^"]+"`)
	exampleSeconds = regexp.MustCompile(`\bseconds=\d+`)
	exampleCount   = regexp.MustCompile(`\bcount=(\d+)`)
	exampleRampup  = regexp.MustCompile(`rampup_duration=\d+`)
)

// exampleArgs turns an example into goodput's arguments.
func exampleArgs(t *testing.T, cmd, url string, addEnd bool, seconds string) []string {
	t.Helper()
	cmd = strings.TrimPrefix(cmd, "guidellm run ")
	switch {
	case !strings.Contains(cmd, "--backend"):
		cmd += " " + exampleBase
	case !strings.Contains(cmd, "--data ") && !strings.Contains(cmd, "--config"):
		cmd += " --data kind=synthetic_text,prompt_tokens=256,output_tokens=128" // the first run's data
	}
	cmd = exampleTarget.ReplaceAllStringFunc(cmd, func(m string) string {
		if strings.HasPrefix(m, `"`) {
			return `"target":"` + url + `"`
		}
		return "target=" + url
	})
	if seconds == "" {
		seconds = "0.25"
	}
	cmd = exampleSeconds.ReplaceAllString(cmd, "seconds="+seconds)
	if addEnd {
		cmd += " --constraint kind=max_duration,seconds=" + seconds
	}
	cmd = exampleRampup.ReplaceAllString(cmd, "rampup_duration=0.1")
	cmd = exampleCount.ReplaceAllStringFunc(cmd, func(m string) string {
		n, _ := strconv.Atoi(strings.TrimPrefix(m, "count="))
		return "count=" + strconv.Itoa(min(n, 20))
	})
	cmd = strings.NewReplacer(
		"path/to/data.json", "data.json", "/path/to/your/dataset.json", "data.json", "path/to/dataset.json", "data.json",
		"path/to/trace.jsonl", "replay.jsonl",
		"/home/<USERNAME>/mistral/long_translation_prompts.jsonl", "data.jsonl", "/home/<USERNAME>/mistral/benchmarks.json", "mistral/benchmarks.json",
		"/home/<USERNAME>/mistral", "o200k_base", "${local_path}/Qwen2.5-1.5B-Instruct", "o200k_base", "path/to/processor", "o200k_base",
	).Replace(cmd)
	args, err := shellWords(cmd)
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"run"}, args...)
}

// shellWords splits a command line as a POSIX shell does for the quoting
// the docs use ('…', "…" and a backslash before a character outside '…').
func shellWords(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	in, quote, escaped := false, rune(0), false
	for _, r := range s {
		switch {
		case escaped:
			if quote == '"' && r != '"' && r != '\\' && r != '$' && r != '`' {
				cur.WriteRune('\\')
			}
			cur.WriteRune(r)
			escaped, in = false, true
		case r == '\\' && quote != '\'':
			escaped = true
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out, nil
}

// exampleFiles writes the local files the examples name.
func exampleFiles(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{
		"data.json":    `[{"prompt":"Summarize the plot of a novel in one line.","output_tokens_count":8},{"prompt":"Name three prime numbers.","output_tokens_count":8},{"prompt":"What is a load generator?","output_tokens_count":8}]`,
		"data.jsonl":   "{\"prompt\":\"Translate: good morning\",\"output_tokens_count\":8}\n{\"prompt\":\"Translate: thank you\",\"output_tokens_count\":8}\n",
		"replay.jsonl": "{\"timestamp\":0,\"input_length\":32,\"output_length\":8}\n{\"timestamp\":0.05,\"input_length\":48,\"output_length\":8}\n{\"timestamp\":0.2,\"input_length\":16,\"output_length\":4}\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

var exampleOutputPath = regexp.MustCompile(`kind=(json|csv|html|yaml),path=(\S+)`)

func TestGuideLLMDocExamples(t *testing.T) {
	if testing.Short() || raceEnabled() {
		t.Skip("runs every GuideLLM example against the mock (about a minute; make peerdocs runs it, the -race run has the peer-doc corpus's short subset)")
	}
	for _, ex := range guidellmExamples {
		if !exampleOutputPath.MatchString(ex.cmd) {
			continue // the peer-doc corpus runs it (TestPeerDocsCorpus); this test reads outputs back
		}
		t.Run(ex.doc, func(t *testing.T) {
			url := clitest.Mock(t, func(c *mock.Config) {
				c.ITL = 250 * time.Microsecond // a synchronous round of 0.25 s completes several requests
				if ex.model != "" {
					c.Model = ex.model
				}
			})
			dir := t.TempDir()
			t.Chdir(dir)
			exampleFiles(t, dir)
			args := exampleArgs(t, ex.cmd, url, ex.addEnd, ex.seconds)
			code, _, stderr := runGoodput(t, append(args, "--server-metrics", "off")...)
			if ex.refused != "" {
				last := strings.TrimSpace(stderr)
				if code != cli.ExitUsage || strings.Contains(last, "\n") || !strings.Contains(last, ex.refused) {
					t.Fatalf("%q: exit %d, stderr %q; want exit 2 and one line with %q", args, code, stderr, ex.refused)
				}
				return
			}
			if code != cli.ExitOK {
				t.Fatalf("%q: exit %d: %s", args, code, lastLines(stderr, 3))
			}
			var reports []string
			for _, m := range exampleOutputPath.FindAllStringSubmatch(strings.Join(args, " "), -1) {
				if _, err := os.Stat(m[2]); err != nil {
					t.Errorf("--output kind=%s: %v", m[1], err)
				}
				if m[1] == "json" {
					reports = append(reports, m[2])
				}
			}
			if len(reports) == 0 {
				reports, _ = filepath.Glob("results/*/benchmarks.json")
			}
			if len(reports) != 1 {
				t.Fatalf("want one JSON report, found %v", reports)
			}
			rep, err := report.Read(reports[0])
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Benchmarks) == 0 {
				t.Fatalf("%s: no benchmarks", reports[0])
			}
		})
	}
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(l[max(0, len(l)-n):], "\n")
}
