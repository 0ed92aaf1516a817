package main

import (
	"encoding/base64"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/internal/ssetest"
)

// API keys never appear in logs, reports, JSON Lines, HTML, scorecard,
// CSV or error messages, whichever way the key is given, even when the
// server echoes the Authorization header back in error bodies, in error
// payloads inside the stream, in stream chunks and in the bodies the
// metadata probes read.

// echoAuthServer answers completion requests in turn with a 401 whose
// body quotes the Authorization header, a 200 stream whose content and
// an error payload quote it, and a 200 stream that quotes it and
// succeeds; every other path but GET /v1/models gets a 404 quoting it.
func echoAuthServer(t *testing.T) *connServer {
	t.Helper()
	var n atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"m","object":"model","owned_by":"test"}]}`)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		auth := r.Header.Get("Authorization")
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusNotFound)
			_, _ = fmt.Fprintf(w, `{"detail":"no such path for %s"}`, auth)
			return
		}
		switch n.Add(1) % 3 {
		case 0:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = fmt.Fprintf(w, `{"error":{"message":"invalid credentials: %s","type":"AuthenticationError","code":401}}`, auth)
		case 1:
			ssetest.Write(w, ssetest.Token("you sent "+auth), `data: {"error":{"message":"cannot serve `+auth+`","code":500}}`+"\n\n", ssetest.Done)
		default:
			ssetest.Write(w, ssetest.Token("you sent "+auth), ssetest.Token("ok"), ssetest.Finish, ssetest.Done)
		}
	})
	return startConnServer(t, "127.0.0.1:0", mux)
}

func TestSecretsNeverWritten(t *testing.T) {
	const key = "sk-SENTINEL-9c41e7d2"
	basic := base64.StdEncoding.EncodeToString([]byte("goodput:" + key))
	servers := []struct {
		name  string
		start func(*testing.T) *connServer
	}{
		{"mock", func(t *testing.T) *connServer { return startMockServer(t, nil) }},
		{"echo server", echoAuthServer},
	}
	ways := []struct {
		name   string
		env    map[string]string
		args   []string
		target func(url string) string
	}{
		{name: "--api-key", args: []string{"--api-key", key}},
		{name: "OPENAI_API_KEY", env: map[string]string{"OPENAI_API_KEY": key}},
		{name: "--backend-args api_key", args: []string{"--backend-args", `{"api_key":"` + key + `"}`}},
		{name: "URL credentials", target: func(u string) string { return strings.Replace(u, "http://", "http://goodput:"+key+"@", 1) }},
	}
	for _, s := range servers {
		for _, w := range ways {
			t.Run(s.name+"/"+w.name, func(t *testing.T) {
				srv := s.start(t)
				target := srv.url()
				if w.target != nil {
					target = w.target(target)
				}
				dir := t.TempDir()
				args := append([]string{"benchmark", "--target", target, "--data", "prompt_tokens=8,output_tokens=8",
					"--rate-type", "concurrent", "--rate", "2", "--max-requests", "6", "--output-dir", dir, "--run-id", "r",
					"--outputs", "json,csv,jsonl,html,scorecard,console", "--server-metrics", "off", "--progress-interval", "50ms"}, w.args...)
				code, stdout, stderr := runEnv(t, w.env, args...)
				if code != cli.ExitOK {
					t.Fatalf("exit %d: %s", code, redactForLog(stderr, key))
				}
				files := map[string][]byte{"stdout": []byte(stdout), "stderr": []byte(stderr)}
				err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
					if err != nil || d.IsDir() {
						return err
					}
					b, err := os.ReadFile(path)
					files[path] = b
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				for _, want := range []string{"benchmarks.json", "benchmarks.csv", "requests.jsonl", "report.html", "scorecard-r.json"} {
					if _, ok := files[filepath.Join(dir, "r", want)]; !ok {
						t.Fatalf("%s was not written", want)
					}
				}
				for name, b := range files {
					for _, secret := range []string{key, basic} {
						if i := strings.Index(string(b), secret); i >= 0 {
							lo, hi := max(0, i-80), min(len(b), i+len(secret)+40)
							t.Errorf("%s contains the credential (%q): …%s…", name, secret[:12], redactForLog(string(b[lo:hi]), secret))
						}
					}
				}
				out := checkRunOutputs(t, filepath.Join(dir, "r"))
				if s.name == "echo server" && out.classes["http_status"] == 0 {
					t.Fatalf("error classes %v: the echo server's 401s are missing", out.classes)
				}
			})
		}
	}
}

// redactForLog keeps a leaked secret out of the test's own log.
func redactForLog(s, secret string) string { return strings.ReplaceAll(s, secret, "<SECRET>") }
