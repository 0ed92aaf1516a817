package deploy

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// No Docker engine runs where the tests run: the Dockerfile is checked by
// reading it, against what the manifests and the sources expect of it.

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	cmd, args string
}

func readDockerfile(t *testing.T) (stages [][]instruction) {
	t.Helper()
	data, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatalf("reading the Dockerfile: %v", err)
	}
	var logical []string
	var cur strings.Builder
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if body, ok := strings.CutSuffix(trimmed, "\\"); ok {
			cur.WriteString(body + " ")
			continue
		}
		cur.WriteString(trimmed)
		logical = append(logical, cur.String())
		cur.Reset()
	}
	if cur.Len() > 0 {
		t.Fatal("Dockerfile ends inside a continued line")
	}
	stages = [][]instruction{nil} // stage 0: the global ARGs before the first FROM
	for _, l := range logical {
		cmd, args, _ := strings.Cut(l, " ")
		in := instruction{strings.ToUpper(cmd), strings.Join(strings.Fields(args), " ")}
		if in.cmd == "FROM" {
			stages = append(stages, nil)
		}
		stages[len(stages)-1] = append(stages[len(stages)-1], in)
	}
	return stages
}

func find(stage []instruction, cmd, contains string) int {
	for i, in := range stage {
		if in.cmd == cmd && strings.Contains(in.args, contains) {
			return i
		}
	}
	return -1
}

func TestDockerfile(t *testing.T) {
	stages := readDockerfile(t)
	if len(stages) != 3 {
		t.Fatalf("want global ARGs and two stages (build, runtime), got %d stages", len(stages)-1)
	}
	global, build, final := stages[0], stages[1], stages[2]

	// The builder is the Go release go.mod asks for.
	gomod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go (\d+)\.(\d+)`).FindStringSubmatch(string(gomod))
	if goLine == nil {
		t.Fatal("go.mod has no go directive")
	}
	goVersion := ""
	for _, in := range global {
		if v, ok := strings.CutPrefix(in.args, "GO_VERSION="); in.cmd == "ARG" && ok {
			goVersion = v
		}
	}
	if !strings.HasPrefix(goVersion, goLine[1]+"."+goLine[2]+".") {
		t.Errorf("ARG GO_VERSION=%q, want a %s.%s.x release (go.mod)", goVersion, goLine[1], goLine[2])
	}
	if find(build, "FROM", "golang:${GO_VERSION} AS build") != 0 {
		t.Errorf("build stage: want FROM … golang:${GO_VERSION} AS build, got %v", build[0])
	}
	if !strings.HasPrefix(final[0].args, "gcr.io/distroless/static-debian12:nonroot") {
		t.Errorf("runtime stage: FROM %s, want gcr.io/distroless/static-debian12:nonroot", final[0].args)
	}

	// Layer caching: modules are downloaded from go.mod and go.sum alone,
	// before the sources are copied.
	mods, download, sources := find(build, "COPY", "go.mod go.sum"), find(build, "RUN", "go mod download"), find(build, "COPY", ". .")
	if mods < 0 || download < 0 || sources < 0 || !(mods < download && download < sources) {
		t.Errorf("build stage: want COPY go.mod go.sum, RUN go mod download, COPY . . in that order (got %d, %d, %d)", mods, download, sources)
	}

	// A static, cgo-free, stamped build of ./cmd/goodput.
	if find(build, "ENV", "CGO_ENABLED=0") < 0 {
		t.Error("build stage: CGO_ENABLED=0 is not set")
	}
	if find(build, "ENV", "GOTOOLCHAIN=local") < 0 {
		t.Error("build stage: GOTOOLCHAIN=local is not set (a toolchain must not be downloaded)")
	}
	b := find(build, "RUN", "go build")
	if b < 0 {
		t.Fatal("build stage: no go build")
	}
	for _, want := range []string{"-X main.version=${VERSION}", "-X main.commit=${COMMIT}", "-trimpath", "-o /out/goodput ./cmd/goodput"} {
		if !strings.Contains(build[b].args, want) {
			t.Errorf("go build: %q is missing from %q", want, build[b].args)
		}
	}
	for _, arg := range []string{"VERSION", "COMMIT"} {
		if i := find(build, "ARG", arg); i < 0 || i > b {
			t.Errorf("build stage: ARG %s must be declared before go build", arg)
		}
		if find(final, "ARG", arg) < 0 {
			t.Errorf("runtime stage: ARG %s must be declared again for its LABEL", arg)
		}
	}

	// The -X targets exist in package main.
	mainVars := regexp.MustCompile(`(?m)^\s*(version|commit)\s*=\s*"`)
	found := map[string]bool{}
	srcs, err := filepath.Glob("../cmd/goodput/*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range srcs {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mainVars.FindAllStringSubmatch(string(data), -1) {
			found[m[1]] = true
		}
	}
	if !found["version"] || !found["commit"] {
		t.Errorf("cmd/goodput: the string variables version and commit that -X stamps are not both there (found %v)", found)
	}

	// Runtime: OCI labels, the binary where the manifests call it, non-root.
	for _, label := range []string{`org.opencontainers.image.version="${VERSION}"`, `org.opencontainers.image.revision="${COMMIT}"`, "org.opencontainers.image.source="} {
		if find(final, "LABEL", label) < 0 {
			t.Errorf("runtime stage: LABEL %s is missing", label)
		}
	}
	if find(final, "COPY", "--from=build /out/goodput /usr/local/bin/goodput") < 0 {
		t.Error("runtime stage: the binary is not copied to /usr/local/bin/goodput")
	}
	last := func(cmd string) string {
		v := ""
		for _, in := range final {
			if in.cmd == cmd {
				v = in.args
			}
		}
		return v
	}
	if u := last("USER"); u != "65532:65532" && u != "65532" {
		t.Errorf("runtime stage: USER %q, want 65532 (the manifests' runAsUser)", u)
	}
	if e := last("ENTRYPOINT"); e != `["/usr/local/bin/goodput"]` {
		t.Errorf("runtime stage: ENTRYPOINT %s, want [\"/usr/local/bin/goodput\"]", e)
	}
}

// dockerignoreMatch reports whether a .dockerignore pattern excludes a path
// (slash-separated, relative to the context): patterns are anchored at the
// root, * and ? stay within a path element, ** spans elements, and a pattern
// that names a directory excludes what is under it.
func dockerignoreMatch(pattern, path string) bool {
	var re strings.Builder
	re.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case c == '*' && i+1 < len(pattern) && pattern[i+1] == '*':
			i++
			if i+1 < len(pattern) && pattern[i+1] == '/' {
				i++
				re.WriteString("(.*/)?")
			} else {
				re.WriteString(".*")
			}
		case c == '*':
			re.WriteString("[^/]*")
		case c == '?':
			re.WriteString("[^/]")
		default:
			re.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	re.WriteString("(/.*)?$")
	return regexp.MustCompile(re.String()).MatchString(path)
}

func TestDockerignoreMatch(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"bin", "bin", true},
		{"bin", "bin/goodput", true},
		{"bin", "cmd/bin", false},
		{"bin", "binary", false},
		{"**/*.test", "tokenize.test", true},
		{"**/*.test", "report/report.test", true},
		{"**/*.test", "report/test.go", false},
		{"**/.cache", "tokenize/.cache/x.json", true},
		{"*.go", "main.go", true},
		{"*.go", "cmd/main.go", false},
	}
	for _, tt := range tests {
		if got := dockerignoreMatch(tt.pattern, tt.path); got != tt.want {
			t.Errorf("dockerignoreMatch(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

// The build context keeps every Go source the binary may need, go.mod and
// go.sum, and leaves out build outputs, results, VCS data and caches.
func TestDockerignore(t *testing.T) {
	data, err := os.ReadFile("../.dockerignore")
	if err != nil {
		t.Fatalf("reading .dockerignore: %v", err)
	}
	var patterns []string
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "!") {
			t.Fatalf(".dockerignore: exceptions (%s) are not expected; keep the list of exclusions plain", line)
		}
		patterns = append(patterns, strings.TrimPrefix(strings.TrimSuffix(line, "/"), "/"))
	}
	excluded := func(p string) bool {
		return slices.ContainsFunc(patterns, func(pat string) bool { return dockerignoreMatch(pat, p) })
	}
	for _, p := range []string{".git/HEAD", "bin/goodput", "results/20260616T1200/benchmarks.json", "tokenize/.cache/a", "report/report.test"} {
		if !excluded(p) {
			t.Errorf(".dockerignore lets %s into the build context", p)
		}
	}
	needed := []string{"go.mod", "go.sum"}
	err = filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("..", p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() && (rel == ".git" || rel == "deploy") {
			return fs.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go") && !strings.Contains("/"+rel, "/testdata/") {
			needed = append(needed, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(needed, "cmd/goodput/main.go") {
		t.Fatalf("cmd/goodput/main.go not found among %d sources", len(needed))
	}
	for _, p := range needed {
		if excluded(p) {
			t.Errorf(".dockerignore excludes %s, which the build may need", p)
		}
	}
}
