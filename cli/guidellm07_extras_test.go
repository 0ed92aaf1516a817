package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/mock"
)

// recordingMock serves the mock and keeps the body of every generation
// request it is sent.
func recordingMock(t *testing.T) (url string, bodies func() []map[string]any) {
	t.Helper()
	cfg := mock.DefaultConfig()
	cfg.TTFT, cfg.TTFTStdev, cfg.ITL, cfg.ITLStdev = time.Millisecond, 0, 100*time.Microsecond, 0
	m, err := mock.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []map[string]any
	h := m.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && (strings.HasSuffix(r.URL.Path, "/chat/completions") || strings.HasSuffix(r.URL.Path, "/responses")) {
			b, _ := io.ReadAll(r.Body)
			var v map[string]any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Errorf("request body is not a JSON object: %v", err)
			}
			mu.Lock()
			seen = append(seen, v)
			mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []map[string]any {
		mu.Lock()
		defer mu.Unlock()
		return append([]map[string]any(nil), seen...)
	}
}

// backends.md's translategemma example: extras.content's members ride on
// every user text content object, on chat completions and Responses, and
// the report keeps them, so that it runs again the same with --config;
// text completions have none, which the one-line refusal says.
func TestV07ExtrasContent(t *testing.T) {
	for _, format := range []string{"/v1/chat/completions", "/v1/responses"} {
		url, bodies := recordingMock(t)
		out := filepath.Join(t.TempDir(), "first.json")
		code, _, stderr := runGoodput(t, "run", "--backend", `{"kind":"openai_http","target":"`+url+`","request_format":"`+format+`","extras":{"content":{"source_lang_code":"en","target_lang_code":"es"}}}`,
			"--data", "kind=synthetic_text,prompt_tokens=16,output_tokens=4", "--profile", "kind=synchronous", "--constraint", "kind=max_requests,count=2",
			"--output", "kind=json,path="+out, "--server-metrics", "off", "--disable-progress")
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", format, code, stderr)
		}
		if format == "/v1/chat/completions" {
			rep, err := os.ReadFile(out)
			if err != nil || !bytes.Contains(rep, []byte(`"content": {"source_lang_code": "en", "target_lang_code": "es"}`)) {
				t.Fatalf("the report does not keep extras.content (%v)", err)
			}
			code, _, stderr = runGoodput(t, "run", "-c", out, "--output", "kind=json,path="+filepath.Join(t.TempDir(), "second.json"), "--server-metrics", "off", "--disable-progress")
			if code != ExitOK {
				t.Fatalf("run again with --config: exit %d: %s", code, stderr)
			}
		}
		got := bodies()
		if want := map[string]int{"/v1/chat/completions": 4, "/v1/responses": 2}[format]; len(got) != want {
			t.Fatalf("%s: %d requests, want %d", format, len(got), want)
		}
		if format == "/v1/chat/completions" {
			got = got[2:] // the run again from the report
		}
		key, textType := "messages", "text"
		if format == "/v1/responses" {
			key, textType = "input", "input_text"
		}
		msgs, _ := got[0][key].([]any)
		last, _ := msgs[len(msgs)-1].(map[string]any)
		parts, _ := last["content"].([]any)
		part, _ := parts[0].(map[string]any)
		if len(parts) != 1 || part["type"] != textType || part["source_lang_code"] != "en" || part["target_lang_code"] != "es" || part["text"] == "" {
			t.Errorf("%s: user message %v; want one %s part carrying source_lang_code en and target_lang_code es", format, last, textType)
		}
	}
	code, _, stderr := runGoodput(t, "run", "--backend", `{"kind":"openai_http","target":"http://127.0.0.1:1","request_format":"/v1/completions","extras":{"content":{"source_lang_code":"en"}}}`,
		"--data", "kind=synthetic_text,prompt_tokens=16,output_tokens=4", "--constraint", "kind=max_requests,count=2")
	if code != ExitUsage || !strings.Contains(stderr, "only chat_completions and responses send text content objects") {
		t.Errorf("text completions: exit %d, %q; want a usage error naming chat_completions and responses", code, stderr)
	}
}

// glaiveJSONL is a local file shaped like tool_calling.md's Hub data set
// (madroid/glaive-function-calling-openai): messages and tools columns;
// the last record has no tools.
const glaiveJSONL = `{"messages":[{"role":"system","content":"You help."},{"role":"user","content":"Weather in Paris?"},{"role":"tool","content":"{\"temp\":21}"}],"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]}
{"messages":[{"role":"user","content":"Convert 5 USD"}],"tools":"[{\"type\":\"function\",\"function\":{\"name\":\"convert\",\"parameters\":{\"type\":\"object\"}}}]"}
{"messages":[{"role":"user","content":"Hello"}],"tools":""}
`

// tool_calling.md's tools_column commands on a local copy of their data
// set: the client mode (GuideLLM's default finalizer) sends each record's
// tools with tool_choice "required" and the extracted prompt; the server
// mode sends none of the record's tools and no tool_choice, only the
// backend's extras.body.tools. The data source forms: a path, a
// json_file and a huggingface kind with a local source.
func TestV07ToolsColumn(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "glaive.jsonl")
	if err := os.WriteFile(path, []byte(glaiveJSONL), 0o644); err != nil {
		t.Fatal(err)
	}
	const extras = `{"body":{"tools":[{"type":"function","function":{"name":"lookup","parameters":{"type":"object"}}}]}}`
	// tool_calling.md:52's OpenAI form: a built-in shell tool the server runs
	const shell = `{"body":{"tools":[{"type":"shell","environment":{"type":"container_auto"}}]}}`
	for _, c := range []struct {
		data, finalizer, extras string
		server, responses       bool
	}{
		{"kind=huggingface,source=" + path, "", "", false, false},
		{path, "kind=generative,tool_call_mode=client", "", false, false},
		{"kind=json_file,path=" + path, "kind=generative,tool_call_mode=server", extras, true, false},
		{"kind=huggingface,source=" + path, "kind=generative,tool_call_mode=server", shell, true, true},
	} {
		url, bodies := recordingMock(t)
		backend := `{"kind":"openai_http","target":"` + url + `"`
		if c.responses {
			backend += `,"request_format":"/v1/responses"`
		}
		if c.extras != "" {
			backend += `,"extras":` + c.extras
		}
		args := []string{"run", "--backend", backend + "}", "--data", c.data,
			"--data-column-mapper", "kind=generative_column_mapper,column_mappings.text_column=messages,column_mappings.tools_column=tools",
			"--data-preprocessor", "kind=tool_calling_message_extractor", "--data-preprocessor", "kind=encode_media",
			"--profile", "kind=synchronous", "--output-dir", t.TempDir(), "--outputs", "json", "--server-metrics", "off", "--disable-progress"}
		if c.finalizer != "" {
			args = append(args, "--data-finalizer", c.finalizer)
		}
		code, _, stderr := runGoodput(t, args...)
		if code != ExitOK {
			t.Fatalf("%s %s: exit %d: %s", c.data, c.finalizer, code, stderr)
		}
		got := bodies()
		if len(got) != 3 {
			t.Fatalf("%s: %d requests; want one per record", c.data, len(got))
		}
		for i, want := range []struct {
			prompt, tool string
		}{{"Weather in Paris?", "get_weather"}, {"Convert 5 USD", "convert"}, {"Hello", ""}} {
			b := got[i]
			msgs, _ := b["messages"].([]any)
			if c.responses {
				msgs, _ = b["input"].([]any)
			}
			last, _ := msgs[len(msgs)-1].(map[string]any)
			tools, _ := b["tools"].([]any)
			var name string
			if len(tools) == 1 {
				fn, _ := tools[0].(map[string]any)["function"].(map[string]any)
				name, _ = fn["name"].(string)
				if c.responses {
					name, _ = tools[0].(map[string]any)["type"].(string)
				}
			}
			choice, hasChoice := b["tool_choice"]
			ok := last["content"] == want.prompt
			switch {
			case c.server && c.responses:
				ok = ok && name == "shell" && !hasChoice
			case c.server:
				ok = ok && name == "lookup" && !hasChoice // the backend's tools only, the server's choice
			case want.tool != "":
				ok = ok && name == want.tool && choice == "required"
			default:
				ok = ok && tools == nil && !hasChoice
			}
			if !ok {
				t.Errorf("%s %s: record %d sent %v", c.data, c.finalizer, i+1, b)
			}
		}
	}
}
