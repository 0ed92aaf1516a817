package tokenize

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// ResolveOptions carries what Resolve reads from the environment, so that
// callers (and tests) decide where it comes from.
type ResolveOptions struct {
	// Getenv looks up HF_HUB_CACHE, HF_HOME, XDG_CACHE_HOME and HOME.
	// Nil means os.Getenv.
	Getenv func(key string) string
	// Flag is the flag errors start with; "" means --processor
	// (goodput profile's is --tokenizer).
	Flag string
	// Server is where "server" sends its requests: the target of the run.
	// Nil refuses "server".
	Server *ServerOptions
}

// ServerSpec is the --processor value that asks the server's own tokenize
// endpoint (see NewServer).
const ServerSpec = "server"

// hubIDPattern is the shape of a Hugging Face repository id: "name" or "org/name".
var hubIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?$`)

// Resolve finds the tokenizer named by a --processor (alias --tokenizer) value,
// trying in order:
//
//  1. "server": the target's own /tokenize endpoint (opts.Server, NewServer);
//     a file or directory of that name is not looked for;
//  2. a path to a tokenizer.json file, to a GGUF model file (its tokenizer.ggml.*
//     metadata, see ParseGGUF), or to a directory holding tokenizer.json;
//  3. a built-in encoding name or alias (see BuiltinNames);
//  4. a Hugging Face hub id ("org/name"), looked up only in the local hub cache:
//     $HF_HUB_CACHE, $HF_HOME/hub, $XDG_CACHE_HOME/huggingface/hub and
//     ~/.cache/huggingface/hub, in models--org--name/snapshots/<rev>/tokenizer.json,
//     using the revision refs/main names when present.
//
// Nothing is ever downloaded. When nothing matches, the error lists every place
// that was looked at and how to provide the file.
func Resolve(spec string, opts ResolveOptions) (*Tokenizer, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	flag := opts.Flag
	if flag == "" {
		flag = "--processor"
	}
	if spec == "" {
		return nil, errors.New(flag + ": empty value (expected a tokenizer.json path, a directory holding one, a .gguf model file, a built-in encoding, a Hugging Face model id or server)")
	}

	if spec == ServerSpec {
		if opts.Server == nil {
			return nil, errors.New(flag + " server: asks the target's /tokenize endpoint, so it needs a target (goodput benchmark or profile); give a tokenizer.json, a .gguf or a built-in encoding here")
		}
		tok, err := NewServer(context.Background(), *opts.Server)
		if err != nil {
			return nil, fmt.Errorf("%s server: %w", flag, err)
		}
		return tok, nil
	}

	// 2. A file or directory.
	if fi, err := os.Stat(spec); err == nil {
		if !fi.IsDir() {
			if isGGUF(spec) {
				return LoadGGUF(spec)
			}
			return Load(spec)
		}
		p := filepath.Join(spec, "tokenizer.json")
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("%s %s: directory has no tokenizer.json (%v)", flag, spec, err)
		}
		return Load(p)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s %s: %w", flag, spec, err)
	}

	if strings.HasSuffix(strings.ToLower(spec), ".gguf") {
		return nil, fmt.Errorf("%s %s: no such GGUF file here (llama-server's model id is the path on its own machine): copy the file here and pass its path, or pass %s server to use the server's /tokenize", flag, spec, flag)
	}

	// 3. A built-in encoding.
	if _, ok := encodingAliases[spec]; ok {
		return Builtin(spec)
	}

	// 4. A hub id, from the local cache only.
	if !hubIDPattern.MatchString(spec) || strings.Contains(spec, "..") {
		return nil, fmt.Errorf("%s %s: no such file or directory, and not a built-in encoding (%s) or a Hugging Face model id",
			flag, spec, strings.Join(BuiltinNames(), ", "))
	}
	roots := hubCacheRoots(getenv)
	repoDir := "models--" + strings.ReplaceAll(spec, "/", "--")
	var looked []string
	for _, root := range roots {
		dir := filepath.Join(root, repoDir)
		path, where, err := snapshotTokenizer(dir)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", flag, spec, err)
		}
		if path == "" {
			looked = append(looked, where)
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("%s %s: reading %s: %w", flag, spec, path, err)
		}
		return Parse(data, spec)
	}
	if len(looked) == 0 {
		looked = append(looked, "no cache directory: HF_HUB_CACHE, HF_HOME, XDG_CACHE_HOME and HOME are all unset")
	}
	return nil, fmt.Errorf("%s %s: not a file, not a built-in encoding, and not in the local Hugging Face cache (looked in %s; nothing is downloaded). "+
		"On a machine with network access run `huggingface-cli download %s tokenizer.json` (gated models need `huggingface-cli login` first), "+
		"then copy the file here and pass --processor /path/to/tokenizer.json, or copy the cache and set HF_HUB_CACHE",
		flag, spec, strings.Join(looked, ", "), spec)
}

// hubCacheRoots returns the hub cache directories to search, in order, without
// duplicates.
func hubCacheRoots(getenv func(string) string) []string {
	var roots []string
	add := func(p string) {
		if p == "" {
			return
		}
		p = filepath.Clean(p)
		if !slices.Contains(roots, p) {
			roots = append(roots, p)
		}
	}
	add(getenv("HF_HUB_CACHE"))
	if h := getenv("HF_HOME"); h != "" {
		add(filepath.Join(h, "hub"))
	}
	if x := getenv("XDG_CACHE_HOME"); x != "" {
		add(filepath.Join(x, "huggingface", "hub"))
	}
	if home := getenv("HOME"); home != "" {
		add(filepath.Join(home, ".cache", "huggingface", "hub"))
	}
	return roots
}

// snapshotTokenizer returns the tokenizer.json of the snapshot to use in a cached
// repository directory, or "" when there is none, with a description of where it
// looked. When refs/main exists only the snapshot it names is used, as
// huggingface_hub does for the default revision; without refs/main a single
// snapshot holding tokenizer.json is used, and several are an error rather than
// a guess.
func snapshotTokenizer(dir string) (string, string, error) {
	snaps := filepath.Join(dir, "snapshots")
	if ref, err := os.ReadFile(filepath.Join(dir, "refs", "main")); err == nil {
		rev := strings.TrimSpace(string(ref))
		if rev == "" || strings.ContainsAny(rev, `/\`) || rev == "." || rev == ".." {
			return "", "", fmt.Errorf("%s holds %q, not a revision", filepath.Join(dir, "refs", "main"), rev)
		}
		p := filepath.Join(snaps, rev, "tokenizer.json")
		if _, err := os.Stat(p); err != nil {
			return "", p + " (the revision refs/main names)", nil
		}
		return p, "", nil
	}
	looked := filepath.Join(snaps, "*", "tokenizer.json")
	entries, err := os.ReadDir(snaps)
	if err != nil {
		return "", looked, nil
	}
	var found []string
	for _, e := range entries {
		p := filepath.Join(snaps, e.Name(), "tokenizer.json")
		if _, err := os.Stat(p); err == nil {
			found = append(found, p)
		}
	}
	switch len(found) {
	case 0:
		return "", looked, nil
	case 1:
		return found[0], "", nil
	default:
		return "", "", fmt.Errorf("%d snapshots in %s hold a tokenizer.json and there is no refs/main to pick one (%s); pass --processor with the path of the one to use",
			len(found), snaps, strings.Join(found, ", "))
	}
}
