package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/parquet-go/parquet-go"

	"github.com/goodput-dev/goodput/mock"
)

// The README's examples run as written. Every command line of README.md's
// shell code blocks (```sh and untagged ``` blocks; ```text blocks are
// output) is extracted, joined at backslashes, its comment removed, and
// run through realMain against loopback mocks, with durations and request
// counts shortened (as the peers' docs are, TestPeerDocsCorpus):
//
//   - each server a command names (http://vllm:8000, $URL, a hosted API)
//     is a mock of its own serving the command's models (--model a,b: a
//     and a LoRA adapter b); a target with a path prefix (…/v1beta/openai)
//     is a proxy that serves the mock's /v1 routes under it;
//   - --max-seconds, seconds=, --benchmark-duration are 0.5 s (3 s at a
//     rate below 8/s, so that a few requests end), request counts at most
//     12, --warmup 5 %, a concurrency above 64 streams 64;
//   - /results/, /models/, /tmp/ are directories of the block's own
//     working directory, which holds the files the examples read
//     (readmeFiles); $URL, $…_API_KEY and "$(cat FILE)" are expanded;
//   - `goodput mock` listens on free ports; with & it serves the rest of
//     its block, else it must answer GET /v1/models; either way it is
//     stopped with SIGINT, as Ctrl-C stops it.
//
// Each command must exit 0, or the code its comment states ("# exits 5").
// Not run, with the reason kept beside each (readmeSkip): make lines
// (.ci/run runs make demo and make test itself), kubectl lines (need a
// cluster; deploy/'s tests run the rendered pods) and fragments (a
// command elided with "...", a list of --data flags). Any other shell
// construct (a pipe, a non-goodput program) fails the test until a rule
// here says what to do with it. -short and -race run a few representative
// commands (readmeShort); make readme (in make check) runs them all.
func TestREADMECommands(t *testing.T) {
	cmds := readmeCommands(t)
	pkg, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	subset := testing.Short() || raceEnabled()
	blocks := map[int][]readmeCmd{}
	var order []int
	for _, c := range cmds {
		if _, ok := blocks[c.Block]; !ok {
			order = append(order, c.Block)
		}
		blocks[c.Block] = append(blocks[c.Block], c)
	}
	for _, b := range order {
		run := blocks[b]
		if subset {
			run = readmeShortOf(run)
		}
		if len(run) == 0 {
			continue
		}
		t.Run(fmt.Sprintf("README.md:%d", run[0].Line), func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			readmeFiles(t, pkg, dir)
			var bg []*readmeMock
			defer func() {
				for _, m := range bg {
					m.stop(t)
				}
			}()
			for _, c := range run {
				if c.Skip != "" {
					continue
				}
				ok := t.Run(fmt.Sprintf("line%d", c.Line), func(t *testing.T) {
					if m := runReadmeCommand(t, dir, c); m != nil {
						bg = append(bg, m)
					}
				})
				if !ok {
					return // the block's later commands depend on this one
				}
			}
		})
	}
}

// The extraction finds the README's commands and says why it skips the
// others; the -short subset's markers still name commands.
func TestREADMECommandsExtracted(t *testing.T) {
	cmds := readmeCommands(t)
	ran, skipped := 0, map[string]int{}
	for _, c := range cmds {
		if c.Skip != "" {
			skipped[c.Skip]++
			continue
		}
		ran++
		if !strings.HasPrefix(c.Text, "goodput ") {
			t.Errorf("README.md:%d: %q runs but is not a goodput command", c.Line, c.Text)
		}
	}
	if ran < 30 {
		t.Errorf("%d goodput commands in README.md's code blocks; it has more than 30", ran)
	}
	for _, m := range readmeShort {
		if !strings.Contains(strings.Join(commandTexts(cmds), "\n"), m) {
			t.Errorf("readmeShort marker %q names no command of README.md: update it", m)
		}
	}
	t.Logf("%d commands run, skipped: %v", ran, skipped)
}

func commandTexts(cmds []readmeCmd) []string {
	out := make([]string, len(cmds))
	for i, c := range cmds {
		out[i] = c.Text
	}
	return out
}

// readmeCmd is one command line of a README code block.
type readmeCmd struct {
	Line       int    // README.md line where it starts
	Block      int    // line of its code block's fence: a block's commands share a directory and its background mocks
	Text       string // joined at backslashes, the comment removed
	Skip       string // why it is not run; "" runs it
	Background bool   // ends with &
	Stdout     string // > FILE
	Exit       int    // the exit status its comment states, else 0
}

// Why a line of a shell block is not run, by its first word.
var readmeSkip = map[string]string{
	"make":    "make target: .ci/run runs make demo and make test itself",
	"kubectl": "needs a Kubernetes cluster: deploy/'s tests run the rendered pods",
	"--":      "a fragment: flags of a list, not a command",
	"elided":  "a fragment: a command elided with ...",
}

// readmeShort marks the commands of the -short subset (a part of their
// text): a plain run, a hosted API, a pooling type, --print-config
// redirected to a file, an agent session, AIPerf's flags, and a mock
// serving its block.
var readmeShort = []string{
	"--request-type responses --rate-type concurrent --rate 8",
	"--request-type messages --model claude-sonnet-4-5",
	"--request-type embeddings --batch-size 16",
	"--print-config",
	"tools=4,tool_call_turns=3",
	"goodput profile --url $URL",
	"--url-file /tmp/mock-urls",
	"$(cat /tmp/mock-urls)",
}

func readmeShortOf(cmds []readmeCmd) []readmeCmd {
	var out []readmeCmd
	for _, c := range cmds {
		for _, m := range readmeShort {
			if strings.Contains(c.Text, m) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

var (
	readmeFence = regexp.MustCompile("^(\\s*)```\\s*(\\w*)\\s*$")
	readmeExit  = regexp.MustCompile(`\bexits? (?:with )?(\d+)\b`)
)

// readmeCommands extracts the command lines of README.md's shell blocks.
func readmeCommands(t *testing.T) []readmeCmd {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	var out []readmeCmd
	for i := 0; i < len(lines); i++ {
		m := readmeFence.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		indent, lang, fence := m[1], m[2], i+1
		var body []string
		for i++; i < len(lines) && !readmeFence.MatchString(lines[i]); i++ {
			body = append(body, strings.TrimPrefix(lines[i], indent))
		}
		switch lang {
		case "", "sh", "bash", "shell":
		default:
			continue // text, yaml, json: not commands
		}
		out = append(out, shellLines(t, body, fence)...)
	}
	return out
}

// shellLines splits a block's lines into commands: joined at trailing
// backslashes, comment lines dropped, a trailing comment cut (its "exits
// N" kept), a trailing & and a > FILE redirection taken apart.
func shellLines(t *testing.T, body []string, fence int) []readmeCmd {
	t.Helper()
	var out []readmeCmd
	for j := 0; j < len(body); j++ {
		start := j
		line := strings.TrimSpace(body[j])
		for strings.HasSuffix(line, `\`) && j+1 < len(body) {
			j++
			line = strings.TrimSpace(strings.TrimSuffix(line, `\`)) + " " + strings.TrimSpace(body[j])
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c := readmeCmd{Line: fence + 1 + start, Block: fence}
		if k := unquotedIndex(line, " #"); k >= 0 {
			if m := readmeExit.FindStringSubmatch(line[k:]); m != nil {
				c.Exit, _ = strconv.Atoi(m[1])
			}
			line = strings.TrimSpace(line[:k])
		}
		if s, ok := strings.CutSuffix(line, "&"); ok && !strings.HasSuffix(s, "&") {
			line, c.Background = strings.TrimSpace(s), true
		}
		if k := unquotedIndex(line, " > "); k >= 0 {
			line, c.Stdout = strings.TrimSpace(line[:k]), strings.TrimSpace(line[k+3:])
		}
		c.Text = line
		first, _, _ := strings.Cut(line, " ")
		switch {
		case strings.HasPrefix(first, "--"):
			c.Skip = readmeSkip["--"]
		case first == "goodput" && (strings.Contains(line, " ... ") || strings.Contains(line, "…")):
			c.Skip = readmeSkip["elided"]
		case first == "goodput":
			if k := unquotedIndex(line, " | "); k >= 0 {
				t.Fatalf("README.md:%d: %q: a pipe; say in readme_blocks_test.go how to run it", c.Line, line)
			}
		case readmeSkip[first] != "":
			c.Skip = readmeSkip[first]
		default:
			t.Fatalf("README.md:%d: %q is not a goodput command; run it or give the reason to skip it in readmeSkip", c.Line, line)
		}
		out = append(out, c)
	}
	return out
}

// unquotedIndex is the index of sep in s outside single and double
// quotes, or -1.
func unquotedIndex(s, sep string) int {
	var quote byte
	for i := 0; i < len(s); i++ {
		switch {
		case quote != 0:
			if s[i] == quote {
				quote = 0
			}
		case s[i] == '\'' || s[i] == '"':
			quote = s[i]
		case strings.HasPrefix(s[i:], sep):
			return i
		}
	}
	return -1
}

var (
	readmeEnvVar    = regexp.MustCompile(`\$\{?([A-Z_][A-Z0-9_]*)\}?`)
	readmeCatFile   = regexp.MustCompile(`\$\(cat ([^)\s]+)\)`)
	readmeAbsDir    = regexp.MustCompile(`([\s=,'"])/(results|models|tmp|config)/`)
	readmeRate      = regexp.MustCompile(`(--rate|--user-centric-rate|--request-rate)[ =]([\d.]+)\b`)
	readmeWarmup    = regexp.MustCompile(`--warmup[ =]\S+`)
	readmeNumReqs   = regexp.MustCompile(`--num-requests[ =](\d+)`) // AIPerf's alias of --request-count
	readmeMockPort  = regexp.MustCompile(`--port[ =]\d+`)
	readmeListen    = regexp.MustCompile(`(--listen[ =][\d.]+):\d+`)
	readmeServerURL = "http://readme-url:8000" // $URL before it is a mock
)

// readmeArgs turns a README command into realMain's arguments: the
// environment expanded, paths made local, targets the mocks (started per
// server the command names), durations and counts shortened.
func readmeArgs(t *testing.T, dir string, c readmeCmd) []string {
	t.Helper()
	cmd := readmeAbsDir.ReplaceAllString(c.Text, "$1$2/")
	cmd = readmeCatFile.ReplaceAllStringFunc(cmd, func(m string) string {
		b, err := os.ReadFile(filepath.Join(dir, readmeCatFile.FindStringSubmatch(m)[1]))
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		return strings.TrimSpace(string(b))
	})
	cmd = readmeEnvVar.ReplaceAllStringFunc(cmd, func(m string) string {
		name := readmeEnvVar.FindStringSubmatch(m)[1]
		switch {
		case name == "URL":
			return readmeServerURL
		case strings.HasSuffix(name, "_API_KEY"):
			return "sk-readme-test"
		}
		t.Fatalf("README.md:%d: $%s: say in readmeArgs what it stands for", c.Line, name)
		return ""
	})
	args, err := shellWords(cmd)
	if err != nil {
		t.Fatalf("README.md:%d: %v", c.Line, err)
	}
	if args[1] == "mock" {
		cmd = readmeMockPort.ReplaceAllString(cmd, "--port 0")
		cmd = readmeListen.ReplaceAllString(cmd, "$1:0")
		if args, err = shellWords(cmd); err != nil {
			t.Fatal(err)
		}
		return args[1:]
	}
	models := readmeModels(args)
	servers := map[string]string{}
	server := func(u string) string {
		p, err := url.Parse(u)
		if err != nil || p.Host == "" {
			t.Fatalf("README.md:%d: target %q is not a URL", c.Line, u)
		}
		if strings.HasPrefix(p.Hostname(), "127.") {
			return u // a mock of the block
		}
		if servers[p.Host] == "" {
			servers[p.Host] = clitest.Mock(t, func(cfg *mock.Config) {
				cfg.TTFT, cfg.ITL = time.Millisecond, 100*time.Microsecond
				if len(models) > 0 {
					cfg.Model = models[0]
					for _, m := range models[1:] {
						cfg.LoRAModules = append(cfg.LoRAModules, mock.LoRAModule{Name: m, Path: "/adapters/" + m})
					}
				}
			})
		}
		if p.Path == "" || p.Path == "/" || p.Path == "/v1" {
			return servers[p.Host] + p.Path
		}
		return startPrefixProxy(t, p.Path, servers[p.Host])
	}
	cmd = peerTarget.ReplaceAllStringFunc(cmd, func(m string) string {
		var prefix, value, suffix string
		switch {
		case strings.HasPrefix(m, `"`):
			prefix, value, suffix = `"target":"`, strings.TrimSuffix(strings.SplitN(m, `"`, 5)[3], `"`), `"`
		case strings.HasPrefix(m, "--"):
			prefix, value = m[:len("--target ")], strings.Trim(m[len("--target "):], `"`)
		default:
			prefix, value = "target=", strings.TrimPrefix(m, "target=")
		}
		var urls []string
		for _, u := range strings.Split(value, ",") {
			urls = append(urls, server(u))
		}
		return prefix + strings.Join(urls, ",") + suffix
	})
	cmd = peerURL.ReplaceAllStringFunc(cmd, func(m string) string {
		u := strings.Trim(strings.TrimPrefix(strings.TrimPrefix(m, "--url"), "="), ` "`)
		return "--url " + server(u)
	})
	short := "0.5"
	for _, m := range readmeRate.FindAllStringSubmatch(cmd, -1) {
		if r, _ := strconv.ParseFloat(m[2], 64); r < 8 && !strings.Contains(cmd, "concurrent") {
			short = "3"
		}
	}
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
	cmd = readmeNumReqs.ReplaceAllStringFunc(cmd, func(m string) string {
		n, _ := strconv.Atoi(readmeNumReqs.FindStringSubmatch(m)[1])
		return "--num-requests " + strconv.Itoa(min(n, 12))
	})
	cmd = readmeWarmup.ReplaceAllString(cmd, "--warmup 5%")
	if strings.Contains(cmd, "--rate-type concurrent") {
		cmd = readmeRate.ReplaceAllStringFunc(cmd, func(m string) string {
			s := readmeRate.FindStringSubmatch(m)
			if r, _ := strconv.ParseFloat(s[2], 64); r > 64 {
				return s[1] + " 64"
			}
			return m
		})
	}
	if args, err = shellWords(cmd); err != nil {
		t.Fatal(err)
	}
	return args[1:]
}

// startPrefixProxy serves the mock at backend under prefix, as a hosted
// API serves OpenAI's routes under its own path (Gemini's /v1beta/openai):
// prefix/chat/completions is the mock's /v1/chat/completions. It returns
// the proxy's URL with the prefix.
func startPrefixProxy(t *testing.T, prefix, backend string) string {
	t.Helper()
	to, err := url.Parse(backend)
	if err != nil {
		t.Fatal(err)
	}
	prefix = strings.TrimRight(prefix, "/")
	srv := httptest.NewServer(&httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(to)
			r.Out.URL.Path, r.Out.URL.RawPath = "/v1"+strings.TrimPrefix(r.In.URL.Path, prefix), ""
		},
		FlushInterval: -1, // stream each event as it comes
	})
	t.Cleanup(srv.Close)
	return srv.URL + prefix
}

// readmeModels are the models a command names (--model a:0.6,b:0.4 is a
// and b; llama3:8b stays whole), which its mock serves.
func readmeModels(args []string) []string {
	var list string
	for i, a := range args {
		switch {
		case (a == "--model" || a == "-m") && i+1 < len(args):
			list = args[i+1]
		case strings.HasPrefix(a, "--model="):
			list = strings.TrimPrefix(a, "--model=")
		}
	}
	var out []string
	for _, m := range strings.Split(list, ",") {
		if name, w, ok := strings.Cut(m, ":"); ok {
			if _, err := strconv.ParseFloat(w, 64); err == nil {
				m = name
			}
		}
		if m != "" {
			out = append(out, m)
		}
	}
	return out
}

// runReadmeCommand runs one command and checks its exit status; a mock
// with & is returned still serving, for the rest of its block.
func runReadmeCommand(t *testing.T, dir string, c readmeCmd) *readmeMock {
	args := readmeArgs(t, dir, c)
	if args[0] == "mock" {
		m := startReadmeMock(t, dir, c, args)
		if c.Background {
			return m
		}
		resp, err := http.Get(m.url + "/v1/models")
		if err == nil {
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("%q: GET /v1/models: %v %v", args, resp, err)
		}
		m.stop(t)
		return nil
	}
	if c.Background {
		t.Fatalf("README.md:%d: only goodput mock runs in the background", c.Line)
	}
	code, stdout, stderr := runGoodput(t, args...)
	if code != c.Exit {
		t.Fatalf("README.md:%d: %s\n%q: exit %d, want %d: %s", c.Line, c.Text, args, code, c.Exit, lastLines(stderr, 4))
	}
	if c.Stdout != "" {
		if err := os.WriteFile(filepath.Join(dir, c.Stdout), []byte(stdout), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return nil
}

// readmeMock is a `goodput mock` command running in this process.
type readmeMock struct {
	args []string
	url  string // its first URL
	done chan int
	out  *syncBuffer
}

// startReadmeMock runs a mock command through realMain and waits for its
// --url-file (one is added when the command has none).
func startReadmeMock(t *testing.T, dir string, c readmeCmd, args []string) *readmeMock {
	t.Helper()
	file := ""
	for i, a := range args {
		if a == "--url-file" && i+1 < len(args) {
			file = args[i+1]
		}
	}
	if file == "" {
		file = fmt.Sprintf(".mock-url-%d", c.Line)
		args = append(args, "--url-file", file)
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join(dir, file)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	m := &readmeMock{args: args, done: make(chan int, 1), out: &syncBuffer{}}
	go func() {
		m.done <- realMain(args, &cli.Env{Stdout: m.out, Stderr: m.out, Stdin: strings.NewReader(""), Getenv: func(string) string { return "" }})
	}()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case code := <-m.done:
			t.Fatalf("README.md:%d: %q exited %d before serving: %s", c.Line, args, code, lastLines(m.out.String(), 3))
		case <-deadline:
			t.Fatalf("README.md:%d: %q: no %s after 20 s", c.Line, args, file)
		case <-tick.C:
			if b, err := os.ReadFile(file); err == nil && strings.HasSuffix(string(b), "\n") {
				m.url, _, _ = strings.Cut(strings.TrimSpace(string(b)), ",")
				return m
			}
		}
	}
}

// stop sends SIGINT, as Ctrl-C does, and wants exit 0. The mock's
// realMain is waiting for it (signal.NotifyContext), and no other test
// runs beside this one (none of them is parallel with it).
func (m *readmeMock) stop(t *testing.T) {
	t.Helper()
	p, err := os.FindProcess(os.Getpid())
	if err == nil {
		err = p.Signal(os.Interrupt)
	}
	if err != nil {
		t.Fatalf("interrupting %q: %v", m.args, err)
	}
	select {
	case code := <-m.done:
		if code != cli.ExitOK {
			t.Errorf("%q: exit %d after SIGINT, want 0: %s", m.args, code, lastLines(m.out.String(), 3))
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("%q: still serving 20 s after SIGINT", m.args)
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader in two
// goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// readmeFiles writes into dir the files the README's commands read, each
// in the form its text describes (fixtures read from the package
// directory pkg).
func readmeFiles(t *testing.T, pkg, dir string) {
	t.Helper()
	tokenizer, err := os.ReadFile(filepath.Join(pkg, "..", "..", "tokenize", "testdata", "fixtures", "bytelevel.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sessions strings.Builder
	for i := range 6 {
		fmt.Fprintf(&sessions, `{"session_id": "s%d", "timestamp": %d, "input_length": 64, "output_length": 8, "hash_ids": [%d]}`+"\n", i%2, i*40, i)
	}
	files := map[string][]byte{
		"models/tokenizer.json": tokenizer,
		"tokenizer.json":        tokenizer,
		"clip.mp4":              []byte("\x00\x00\x00\x18ftypmp42 a test clip, not decoded"),
		"clips.jsonl":           []byte(`{"prompt": "What happens in this clip?", "video": "clip.mp4"}` + "\n"),
		"conversations.jsonl": []byte(`{"prefix": "You are terse.", "prompt_0": "Name a prime.", "output_tokens_count_0": 8, "prompt_1": "And another?", "delay_1": 0.1}` + "\n" +
			`{"prompt_0": "Say hi.", "output_tokens_count_0": 4}` + "\n"),
		"multi_turn.jsonl": []byte(`{"session_id": "a", "turns": [{"text": "Hello", "max_tokens": 8}, {"text": "More", "delay": 100, "max_tokens": 8}]}` + "\n"),
		"sharegpt.json": []byte(`[{"id": "c1", "conversations": [{"from": "human", "value": "Hi"}, {"from": "gpt", "value": "Hello"}, {"from": "human", "value": "Bye"}]},` +
			`{"id": "c2", "conversations": [{"from": "human", "value": "One question"}, {"from": "gpt", "value": "One answer"}]}]`),
		"sessions.jsonl": []byte(sessions.String()),
	}
	if files["BurstGPT_1.csv"], err = os.ReadFile(filepath.Join(pkg, "..", "..", "dataset", "testdata", "burstgpt.csv")); err != nil {
		t.Fatal(err)
	}
	type prompt struct {
		Prompt string `parquet:"prompt"`
		Output int64  `parquet:"output_tokens_count"`
	}
	if err := parquet.WriteFile(filepath.Join(dir, "prompts.parquet"), []prompt{{"Name three colours.", 8}, {"Count to five.", 8}}); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
