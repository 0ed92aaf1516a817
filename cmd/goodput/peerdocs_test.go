package main

import (
	"bufio"
	"encoding/json"
	"fmt"
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
)

// The peers' documented command lines (testdata/peerdocs/corpus.jsonl):
// every `guidellm run`, `guidellm benchmark` and `aiperf profile` line
// in the code blocks of GuideLLM's README and docs/ (v0.7.3 and v0.6.1)
// and AIPerf's README and docs/, joined at backslashes, with the file
// and line it comes from and what goodput must do: "run", or
// "refuse:<class>:<text>" where text is part of goodput's one-line
// message, which names what to use instead, and class is why: an
// inherent reason (hub: a Hub or network download; python: an in-process
// Python backend; service: a feature only the peer's own service has),
// peer (the peer itself rejects the line as printed: a doc fragment
// without a value it requires, or a typo), or gap (goodput could do it
// and does not yet: the ledger of what is left; fixing one fails this
// test until its entry says run).
type peerDoc struct {
	Doc   string `json:"doc"`
	Cmd   string `json:"cmd"`
	Want  string `json:"want"`
	Short bool   `json:"short,omitempty"` // in the -short subset
}

// Why a peer's command line may be refused.
var peerRefusalClasses = map[string]bool{"hub": true, "python": true, "service": true, "peer": true, "gap": true}

func readPeerDocs(t *testing.T) []peerDoc {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "peerdocs", "corpus.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var docs []peerDoc
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		var d peerDoc
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatalf("corpus.jsonl:%d: %v", n, err)
		}
		docs = append(docs, d)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return docs
}

// The corpus is well formed: each entry cites its source and says run,
// or refuse with an inherent reason and the text goodput's line carries.
func TestPeerDocsCorpusWellFormed(t *testing.T) {
	docs := readPeerDocs(t)
	if len(docs) < 100 {
		t.Fatalf("%d entries; the harvest has more than 100", len(docs))
	}
	count := map[string]int{}
	defer func() {
		if t.Failed() {
			return
		}
		line := peerDocsCounts(len(docs), count)
		readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(strings.Fields(string(readme)), " "), line) {
			t.Errorf("README.md lacks the corpus's counts; its \"Coming from GuideLLM / AIPerf\" section must say:\n%s", line)
		}
	}()
	cite := regexp.MustCompile(`^[\w.-]+/[\w.-]+@[\w.]+:[\w./-]+\.(md|sh):\d+$`)
	seen := map[string]bool{}
	for _, d := range docs {
		if seen[d.Doc+"\x00"+d.Cmd] {
			t.Errorf("%s: entered twice", d.Doc)
		}
		seen[d.Doc+"\x00"+d.Cmd] = true
		if !cite.MatchString(d.Doc) {
			t.Errorf("%q: doc is not repo@ref:path:line", d.Doc)
		}
		if !strings.HasPrefix(d.Cmd, "guidellm ") && !strings.HasPrefix(d.Cmd, "aiperf profile") {
			t.Errorf("%s: %q is neither a guidellm nor an aiperf profile line", d.Doc, d.Cmd)
		}
		if d.Want == "run" {
			count["run"]++
			continue
		}
		class, text, ok := peerRefusal(d.Want)
		count[class]++
		if !ok || !peerRefusalClasses[class] || text == "" {
			t.Errorf("%s: want %q is neither run nor refuse:hub|python|service|peer|gap:<text>", d.Doc, d.Want)
		}
	}
}

// peerDocsCounts is the README's sentence of what the corpus does.
func peerDocsCounts(n int, count map[string]int) string {
	return fmt.Sprintf("Of the %d command lines in the peers' docs (every `guidellm` and `aiperf profile` line of their README and docs/, in `cmd/goodput/testdata/peerdocs`), %d run with the peer's meaning, %d are refused for a reason inherent to goodput (%d download from the Hugging Face Hub, %d need a Python backend, %d a feature only the peer's service has), %d fail in the peer itself as printed, and %d are not supported yet.",
		n, count["run"], count["hub"]+count["python"]+count["service"], count["hub"], count["python"], count["service"], count["peer"], count["gap"])
}

func peerRefusal(want string) (class, text string, ok bool) {
	rest, ok := strings.CutPrefix(want, "refuse:")
	if !ok {
		return "", "", false
	}
	class, text, ok = strings.Cut(rest, ":")
	return class, text, ok
}

// Every corpus entry, pointed at the mock with its duration and counts
// shortened, runs (exit 0) or is refused with exit 2 and one line that
// carries the entry's text. -short and -race run the entries marked
// short and every refusal (they end before any traffic); make check runs
// them all without the race detector (make peerdocs).
func TestPeerDocsCorpus(t *testing.T) {
	docs := readPeerDocs(t)
	for _, d := range docs {
		if (testing.Short() || raceEnabled()) && !d.Short && d.Want == "run" {
			continue
		}
		t.Run(d.Doc, func(t *testing.T) {
			if raceEnabled() && d.Want == "run" && slowRequests(d.Cmd) {
				t.Skip("under the race detector one request takes longer than a round to build and serve; make peerdocs runs it")
			}
			url := clitest.Mock(t, func(c *mock.Config) {
				c.TTFT, c.ITL = time.Millisecond, 100*time.Microsecond
				// The docs' 32,000-token prompts fit their model's 32K
				// context; the mock, counting about 4 bytes a token,
				// would see some 48,700.
				c.MaxModelLen = 1 << 20
				if m := peerDocModel(d.Cmd); m != "" {
					c.Model = m
				}
			})
			dir := t.TempDir()
			t.Chdir(dir)
			peerDocFiles(t, dir)
			args := peerDocArgs(t, d.Cmd, url)
			code, _, stderr := runGoodput(t, args...)
			if d.Want == "run" {
				if code != cli.ExitOK {
					t.Fatalf("%s\n%q: exit %d: %s", d.Cmd, args, code, lastLines(stderr, 3))
				}
				return
			}
			_, text, _ := peerRefusal(d.Want)
			last := strings.TrimSpace(stderr)
			if code != cli.ExitUsage || strings.Contains(last, "\n") || !strings.Contains(last, text) {
				t.Fatalf("%q: exit %d, stderr %q; want exit 2 and one line with %q", args, code, stderr, text)
			}
		})
	}
}

var (
	peerModel    = regexp.MustCompile(`(?:--model[ =]|-m |model=|"model":\s*)"?([\w./:-]+)`)
	peerTarget   = regexp.MustCompile(`target=[^,'"}\s]+|"target":\s*"[^"]+"|--target[ =]"?[^\s"]+"?`)
	peerURL      = regexp.MustCompile(`--url[ =]"?(?:https?://)?[^/\s"]+(/[^\s"]*)?"?`)
	peerSeconds  = regexp.MustCompile(`\bseconds=\d+(\.\d+)?|--max-seconds[ =]\d+(\.\d+)?|--benchmark-duration[ =]\d+(\.\d+)?|--warmup-duration[ =]\d+(\.\d+)?`)
	peerCount    = regexp.MustCompile(`(\bcount=|--max-requests[ =]|--request-count[ =]|--conversation-num[ =]|--warmup-request-count[ =]|--num-warmup-sessions[ =])(\d+)`)
	peerRampup   = regexp.MustCompile(`rampup_duration=\d+`)
	peerMinSecs  = regexp.MustCompile(`"?min_seconds"?[=:]\s*\d+`)
	peerGrace    = regexp.MustCompile(`--benchmark-grace-period[ =]\d+(\.\d+)?`)
	peerMedia    = regexp.MustCompile(`synthetic_(image|video|vision)`)
	peerCancelAt = regexp.MustCompile(`--request-cancellation-delay[ =]\d+(\.\d+)?`)
)

// peerDocModel is the model a command names, which the mock then serves.
func peerDocModel(cmd string) string {
	if m := peerModel.FindStringSubmatch(cmd); m != nil && !(strings.HasPrefix(cmd, "guidellm") && strings.Contains(m[1], "/Qwen2.5")) {
		return m[1]
	}
	return ""
}

// slowRequests reports whether a command's requests take longer than
// 0.1 s to build or serve: 1,000 output tokens, a synthetic image or video.
func slowRequests(cmd string) bool {
	return strings.Contains(cmd, "output_tokens=1000") || peerMedia.MatchString(cmd)
}

// peerDocArgs turns a documented command into goodput's arguments: the
// binary name dropped, the target the mock, durations and counts
// shortened, placeholders made local files, and an end added where the
// command gives none.
func peerDocArgs(t *testing.T, cmd, url string) []string {
	t.Helper()
	// A round of 0.1 s: a sweep's ten rounds then take about 1.5 s.
	// Slow requests get 0.25 s, or the sweep's synchronous round
	// completes none.
	short := "0.1"
	if slowRequests(cmd) {
		short = "0.25"
	}
	guidellm := strings.HasPrefix(cmd, "guidellm ")
	v07 := strings.HasPrefix(cmd, "guidellm run")
	cmd = strings.TrimPrefix(strings.TrimPrefix(cmd, "guidellm "), "aiperf ")
	cmd = peerTarget.ReplaceAllStringFunc(cmd, func(m string) string {
		switch {
		case strings.HasPrefix(m, `"`):
			return `"target":"` + url + `"`
		case strings.HasPrefix(m, "--"):
			return "--target " + url
		}
		return "target=" + url
	})
	cmd = peerURL.ReplaceAllStringFunc(cmd, func(m string) string {
		return "--url " + url + peerURL.FindStringSubmatch(m)[1]
	})
	cmd = peerSeconds.ReplaceAllStringFunc(cmd, func(m string) string {
		if strings.HasPrefix(m, "seconds=") {
			return "seconds=" + short
		}
		return strings.Fields(strings.ReplaceAll(m, "=", " "))[0] + " " + short
	})
	cmd = peerCount.ReplaceAllStringFunc(cmd, func(m string) string {
		s := peerCount.FindStringSubmatch(m)
		n, _ := strconv.Atoi(s[2])
		return s[1] + strconv.Itoa(min(n, 12))
	})
	cmd = peerRampup.ReplaceAllString(cmd, "rampup_duration=0.1")
	cmd = peerMinSecs.ReplaceAllStringFunc(cmd, func(m string) string {
		return strings.TrimRight(m, "0123456789 ") + "0"
	})
	cmd = peerGrace.ReplaceAllString(cmd, "--benchmark-grace-period 0.5")
	cmd = peerCancelAt.ReplaceAllStringFunc(cmd, func(m string) string {
		return strings.TrimRight(m, "0123456789.") + "0.01"
	})
	cmd = strings.NewReplacer(
		"${local_path}/Qwen2.5-1.5B-Instruct", "o200k_base", "path/to/processor", "o200k_base", "/home/<USERNAME>/mistral\"", "o200k_base\"",
		"/home/<USERNAME>/mistral/", "", "/path/to/your/dataset.json", "data.json", "path/to/dataset.json", "data.json",
		"path/to/dataset.ext", "data.json", "path/to/dataset|dataset_id", "data.json", "path/to/data.json", "data.json", "path/to/trace.jsonl", "replay.jsonl",
	).Replace(cmd)
	switch {
	case v07:
		if !strings.Contains(cmd, "--backend") {
			cmd += " --backend kind=openai_http,target=" + url
		}
		if !strings.Contains(cmd, "--data ") && strings.Contains(cmd, "kind=replay") {
			cmd += " --data kind=trace_synthetic,path=replay.jsonl" // the docs' trace
		}
		if !strings.Contains(cmd, "--data ") && !strings.Contains(cmd, "--config") {
			cmd += " --data kind=synthetic_text,prompt_tokens=256,output_tokens=128"
		}
		if !strings.Contains(cmd, "max_duration") {
			cmd += " --constraint kind=max_duration,seconds=" + short
		}
	case guidellm:
		if !strings.Contains(cmd, "--target") && !strings.Contains(cmd, "vllm_python") {
			cmd += " --target " + url
		}
		if !strings.Contains(cmd, "--data") && !strings.Contains(cmd, "--scenario") {
			cmd += " --data prompt_tokens=256,output_tokens=128"
		}
		if !strings.Contains(cmd, "--max-seconds") {
			cmd += " --max-seconds " + short
		}
	default:
		if !strings.Contains(cmd, "--url") {
			cmd += " --url " + url
		}
	}
	args, err := shellWords(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if guidellm {
		return append(args, "--server-metrics", "off")
	}
	return append(args, "--no-server-metrics")
}

// peerDocFiles writes the local files the documented commands name,
// each in the form its doc describes.
func peerDocFiles(t *testing.T, dir string) {
	t.Helper()
	var mooncake, schedule strings.Builder
	for i := range 6 {
		fmt.Fprintf(&mooncake, `{"timestamp": %d, "input_length": %d, "output_length": 8, "hash_ids": [%d]}`+"\n", i*20, 32+i*16, i%2)
		fmt.Fprintf(&schedule, `{"timestamp": %d, "input_length": 32, "output_length": 8}`+"\n", []int{0, 1000, 2000, 2050, 2100, 4000}[i])
	}
	var trace strings.Builder
	for i := range 4 {
		ts := 1234500.0 + float64(i)*0.05
		fmt.Fprintf(&trace, `{"timestamp": %g, "ts": %g, "prompt_tokens": 32, "output_tokens": 8, "input_length": 32, "output_length": 8, "input_tokens": 32, "generated_tokens": 8}`+"\n", ts, ts)
	}
	files := map[string]string{
		"data.json":                      `[{"prompt":"Summarize the plot of a novel in one line.","output_tokens_count":8},{"prompt":"Name three prime numbers.","output_tokens_count":8}]`,
		"long_translation_prompts.jsonl": "{\"prompt\":\"Translate: good morning\",\"output_tokens_count\":8}\n{\"prompt\":\"Translate: thank you\",\"output_tokens_count\":8}\n",
		"multiturn_conversations.jsonl":  "{\"prompt\":\"Hello\",\"output_tokens_count\":8}\n",
		"replay.jsonl":                   trace.String(),
		"example_trace.jsonl":            mooncake.String(),
		"mooncake_trace_short.jsonl":     mooncake.String(),
		"production_queries.jsonl":       mooncake.String(),
		"precise_schedule.jsonl":         schedule.String(),
		"flood_detection_dataset.jsonl":  strings.Repeat(`{"prompt":{"data": {"data": "https://huggingface.co/ibm-nasa-geospatial/Prithvi-EO-2.0-300M-TL-Sen1Floods11/resolve/main/examples/India_900498_S2Hand.tif","data_format": "url","out_data_format": "b64_json","indices": [1, 2, 3, 8, 11, 12]},"priority": 0}}`+"\n", 100),
	}
	if err := os.MkdirAll(filepath.Join(dir, "path", "to", "dataset"), 0o755); err != nil {
		t.Fatal(err)
	}
	files["path/to/dataset/train.jsonl"] = files["long_translation_prompts.jsonl"] // a local dataset directory
	// AIPerf's docs/tutorials/embeddings.md and rankings.md, their own lines.
	files["inputs.jsonl"] = `{"texts": ["What is artificial intelligence?"]}
{"texts": ["Explain machine learning."]}
{"texts": ["How do neural networks work?"]}
{"texts": ["Define deep learning."]}
{"texts": ["What are transformers in AI?"]}
`
	files["rankings.jsonl"] = `{"texts":[{"name":"query","contents":["What is AI topic 0?"]},{"name":"passages","contents":["AI passage 0"]}]}
{"texts":[{"name":"query","contents":["What is AI topic 1?"]},{"name":"passages","contents":["AI passage 1"]}]}
{"texts":[{"name":"query","contents":["What is AI topic 2?"]},{"name":"passages","contents":["AI passage 2"]}]}
{"texts":[{"name":"query","contents":["What is AI topic 3?"]},{"name":"passages","contents":["AI passage 3"]}]}
{"texts":[{"name":"query","contents":["What is AI topic 4?"]},{"name":"passages","contents":["AI passage 4"]}]}
`
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
