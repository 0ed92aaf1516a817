package tokenize

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hubRepo lays out a Hugging Face cache entry under root as huggingface_hub does:
// blobs/<hash> holds the file, snapshots/<rev>/tokenizer.json links to it, and
// refs/main names a revision when main is not empty.
func hubRepo(t *testing.T, root, repo, main string, revs ...string) {
	t.Helper()
	dir := filepath.Join(root, "models--"+strings.ReplaceAll(repo, "/", "--"))
	data, err := os.ReadFile(filepath.Join("testdata", "fixtures", "spm.json"))
	if err != nil {
		t.Fatal(err)
	}
	blob := filepath.Join(dir, "blobs", sha256Hex(data))
	if err := os.MkdirAll(filepath.Dir(blob), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(blob, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, rev := range revs {
		snap := filepath.Join(dir, "snapshots", rev)
		if err := os.MkdirAll(snap, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join("..", "..", "blobs", sha256Hex(data)), filepath.Join(snap, "tokenizer.json")); err != nil {
			t.Fatal(err)
		}
	}
	if main != "" {
		if err := os.MkdirAll(filepath.Join(dir, "refs"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "refs", "main"), []byte(main), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func envFunc(env map[string]string) func(string) string {
	return func(k string) string { return env[k] }
}

func TestResolve(t *testing.T) {
	fixturePath := filepath.Join("testdata", "fixtures", "bytelevel.json")
	dirWith := t.TempDir()
	data, err := os.ReadFile(fixturePath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dirWith, "tokenizer.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}

	hubCache := t.TempDir()
	hubRepo(t, hubCache, "org/model", "rev2", "rev1", "rev2")
	hfHome := t.TempDir()
	hubRepo(t, filepath.Join(hfHome, "hub"), "org/only-home", "", "abc")
	home := t.TempDir()
	hubRepo(t, filepath.Join(home, ".cache", "huggingface", "hub"), "single", "", "r")
	hubRepo(t, filepath.Join(home, ".cache", "huggingface", "hub"), "org/two-snapshots", "", "a", "b")
	hubRepo(t, filepath.Join(home, ".cache", "huggingface", "hub"), "org/main-lacks-file", "missing", "old")
	env := envFunc(map[string]string{"HF_HUB_CACHE": hubCache, "HF_HOME": hfHome, "HOME": home})

	cases := []struct {
		spec     string
		env      func(string) string
		wantName string
		wantErr  []string
	}{
		{spec: fixturePath, env: env, wantName: fixturePath},
		{spec: dirWith, env: env, wantName: filepath.Join(dirWith, "tokenizer.json")},
		{spec: t.TempDir(), env: env, wantErr: []string{"directory has no tokenizer.json"}},
		{spec: "o200k_base", env: env, wantName: "o200k_base"},
		{spec: "gpt-4o", env: env, wantName: "o200k_base"},
		{spec: "gpt-4", env: env, wantName: "cl100k_base"},
		{spec: "gpt-3.5-turbo", env: env, wantName: "cl100k_base"},
		{spec: "org/model", env: env, wantName: "org/model"},
		{spec: "org/only-home", env: env, wantName: "org/only-home"},
		{spec: "single", env: env, wantName: "single"},
		{spec: "org/two-snapshots", env: env, wantErr: []string{"2 snapshots", "no refs/main", "pass --processor with the path"}},
		{spec: "org/main-lacks-file", env: env, wantErr: []string{
			filepath.Join(home, ".cache", "huggingface", "hub", "models--org--main-lacks-file", "snapshots", "missing", "tokenizer.json") + " (the revision refs/main names)"}},
		{spec: "meta-llama/Meta-Llama-3-8B", env: env, wantErr: []string{
			"not in the local Hugging Face cache",
			filepath.Join(hubCache, "models--meta-llama--Meta-Llama-3-8B", "snapshots", "*", "tokenizer.json"),
			filepath.Join(hfHome, "hub", "models--meta-llama--Meta-Llama-3-8B", "snapshots", "*", "tokenizer.json"),
			filepath.Join(home, ".cache", "huggingface", "hub", "models--meta-llama--Meta-Llama-3-8B", "snapshots", "*", "tokenizer.json"),
			"nothing is downloaded",
			"huggingface-cli download meta-llama/Meta-Llama-3-8B tokenizer.json",
			"--processor /path/to/tokenizer.json"}},
		{spec: "org/model", env: envFunc(map[string]string{"XDG_CACHE_HOME": filepath.Join(hubCache, "xdg")}), wantErr: []string{
			filepath.Join(hubCache, "xdg", "huggingface", "hub", "models--org--model")}},
		{spec: "org/model", env: envFunc(nil), wantErr: []string{"HF_HUB_CACHE, HF_HOME, XDG_CACHE_HOME and HOME are all unset"}},
		{spec: "a/b/c", env: env, wantErr: []string{"no such file or directory, and not a built-in encoding", "gpt-4o"}},
		{spec: "../org/model", env: env, wantErr: []string{"no such file or directory"}},
		{spec: "", env: env, wantErr: []string{"empty value"}},
	}
	for _, c := range cases {
		t.Run(c.spec, func(t *testing.T) {
			tok, err := Resolve(c.spec, ResolveOptions{Getenv: c.env})
			if len(c.wantErr) > 0 {
				if err == nil {
					t.Fatalf("resolved to %s; want an error", tok.Name())
				}
				for _, w := range c.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q\ndoes not contain %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tok.Name() != c.wantName {
				t.Errorf("Name = %q, want %q", tok.Name(), c.wantName)
			}
		})
	}
}

// TestResolveHubHash checks that a tokenizer found in the hub cache reports the
// hash of the file's bytes, and that HF_HUB_CACHE is searched before HF_HOME.
func TestResolveHubHash(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	hubRepo(t, first, "org/m", "r", "r")
	// A different file under HF_HOME must not be picked.
	dir := filepath.Join(second, "hub", "models--org--m", "snapshots", "r")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	other, err := os.ReadFile(filepath.Join("testdata", "fixtures", "metaspace.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), other, 0o644); err != nil {
		t.Fatal(err)
	}
	tok, err := Resolve("org/m", ResolveOptions{Getenv: envFunc(map[string]string{"HF_HUB_CACHE": first, "HF_HOME": second})})
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("testdata", "fixtures", "spm.json"))
	if err != nil {
		t.Fatal(err)
	}
	if tok.Hash() != "sha256:"+sha256Hex(want) {
		t.Errorf("Hash = %s, want that of spm.json", tok.Hash())
	}
}
