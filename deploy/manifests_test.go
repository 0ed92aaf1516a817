// Package deploy holds goodput's Kubernetes manifests (a Kustomize base and
// the ci, release and indexed overlays) and, in these test files only, the
// checks that keep them right: every manifest decodes strictly into the
// Kubernetes API types, every kustomization builds with the kustomize
// library, and what they render holds the invariants of a benchmark run. The
// Dockerfile and .dockerignore at the repository root are checked here too.
// See README.md in this directory.
package deploy

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/types"
)

// yamlFiles lists every YAML file under deploy/.
func yamlFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			files = append(files, filepath.ToSlash(path))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("listing manifests: %v", err)
	}
	return files
}

// Every YAML file under deploy/ — resources, patches, kustomizations, the
// results-reader Pod — decodes strictly into its API type.
func TestEveryManifestDecodesStrictly(t *testing.T) {
	files := yamlFiles(t)
	for _, want := range []string{"base/kustomization.yaml", "base/job.yaml", "base/pvc.yaml", "base/serviceaccount.yaml",
		"overlays/ci/kustomization.yaml", "overlays/release/kustomization.yaml", "overlays/indexed/kustomization.yaml",
		"overlays/indexed/merge-job.yaml", "tools/results-reader.yaml"} {
		if !slices.Contains(files, want) {
			t.Errorf("%s is missing (found %q)", want, files)
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("reading %s: %v", f, err)
		}
		docs := splitDocs(data)
		if len(docs) == 0 {
			t.Errorf("%s: no YAML document", f)
		}
		for i, doc := range docs {
			if _, err := decodeStrict(doc); err != nil {
				t.Errorf("%s document %d: %v", f, i+1, err)
			}
		}
	}
}

// Every file a kustomization names exists, and every YAML file under a
// kustomization directory is named by it: a manifest nobody applies is a
// manifest that silently stopped mattering.
func TestKustomizationsNameTheirFiles(t *testing.T) {
	for _, dir := range kustomizations {
		data, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		obj, err := decodeStrict(data)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		k := obj.(*types.Kustomization)
		named := map[string]bool{"kustomization.yaml": true}
		for _, r := range k.Resources {
			named[r] = true
		}
		for _, p := range k.Patches {
			if p.Path != "" {
				named[p.Path] = true
			}
		}
		for n := range named {
			if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
				t.Errorf("%s names %s: %v", dir, n, err)
			}
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".yaml") && !named[e.Name()] {
				t.Errorf("%s/%s is not named by %s/kustomization.yaml", dir, e.Name(), dir)
			}
		}
	}
}
