package deploy

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func readme(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Every Job the README's commands name is one that the kustomizations
// render, and the reader pod's claim is the one its sed command rewrites.
func TestReadmeNamesExist(t *testing.T) {
	text := readme(t)
	rendered := map[string]bool{}
	pvcs := map[string]bool{}
	for _, dir := range kustomizations {
		r := mustRender(t, dir)
		for _, j := range r.jobs {
			rendered[j.Name] = true
		}
		for name := range r.pvcs {
			pvcs[name] = true
		}
	}
	jobs := regexp.MustCompile(`job/([a-z0-9-]+)`).FindAllStringSubmatch(text, -1)
	if len(jobs) < 4 {
		t.Fatalf("the README names %d Jobs; its commands should name the base's and the indexed overlay's", len(jobs))
	}
	for _, m := range jobs {
		if m[1] != "NAME" && !rendered[m[1]] {
			t.Errorf("the README names job/%s, which no kustomization renders", m[1])
		}
	}
	for _, m := range regexp.MustCompile("`(bench-results-pvc[a-z-]*)`").FindAllStringSubmatch(text, -1) {
		if !pvcs[m[1]] {
			t.Errorf("the README names volume %s, which no kustomization renders", m[1])
		}
	}
	for _, m := range regexp.MustCompile(`claimName: (bench-results-pvc[a-z-]*)`).FindAllStringSubmatch(text, -1) {
		if !pvcs[m[1]] {
			t.Errorf("the README's sed command names volume %s, which no kustomization renders", m[1])
		}
	}
	reader, err := os.ReadFile("tools/results-reader.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)claimName: bench-results-pvc$`).Match(reader) {
		t.Error("tools/results-reader.yaml: no line ending in `claimName: bench-results-pvc` for the README's sed command to rewrite")
	}
	if !strings.Contains(string(reader), "name: results-reader") || !strings.Contains(text, "pod/results-reader") {
		t.Error("the README's pod/results-reader and tools/results-reader.yaml disagree")
	}
}

// The README's variant overlay builds, holds every invariant of a run, and
// registers a run distinct from the base's.
func TestReadmeVariantExample(t *testing.T) {
	text := readme(t)
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(text, -1)
	i := slices.IndexFunc(blocks, func(b []string) bool { return strings.Contains(b[1], "kind: Kustomization") })
	if i < 0 {
		t.Fatal("the README has no kustomization example")
	}
	example := blocks[i][1]
	base, err := filepath.Abs("base")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(example, "  - ../../base\n") {
		t.Fatal("the README's example does not build on ../../base")
	}
	dir := filepath.Join(t.TempDir(), "variant")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// kustomize takes a base by relative path only.
	rel, err := filepath.Rel(dir, base)
	if err != nil {
		t.Fatal(err)
	}
	k := strings.Replace(example, "  - ../../base\n", "  - "+filepath.ToSlash(rel)+"\n", 1)
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(k), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := decodeStrict([]byte(k)); err != nil {
		t.Fatalf("the README's example: %v", err)
	}
	r := mustRender(t, dir)
	for _, j := range r.jobs {
		checkJob(t, r, j)
	}
	j := r.benchJob(t)
	checkBenchJob(t, r, j)
	b := mustRender(t, "base").benchJob(t)
	if j.Name == b.Name || j.Labels["bench/run-id"] == b.Labels["bench/run-id"] {
		t.Errorf("the variant (%s, run %s) is not a new run next to the base (%s, run %s)", j.Name, j.Labels["bench/run-id"], b.Name, b.Labels["bench/run-id"])
	}
	if want := regexp.MustCompile(`# Job (\S+)`).FindStringSubmatch(example); want == nil || want[1] != j.Name {
		t.Errorf("the README's example says its Job is %v; it renders %s", want, j.Name)
	}
}
