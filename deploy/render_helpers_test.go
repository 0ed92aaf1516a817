package deploy

import (
	"slices"
	"strings"
	"testing"
)

// The helpers decide what the other tests see; they are tested first.

func TestExpandFollowsTheKubelet(t *testing.T) {
	env := map[string]string{"A": "1", "RUN": "20260616T1200", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct {
		in, want string
		missing  []string
	}{
		{"plain", "plain", nil},
		{"--run-id=$(RUN)", "--run-id=20260616T1200", nil},
		{"$(A)$(A)", "11", nil},
		{"--rate=$(EMPTY)", "--rate=", nil},
		{"$$(A)", "$(A)", nil},                         // escaped
		{"$$$(A)", "$1", nil},                          // escaped $ then a reference
		{"cost $5", "cost $5", nil},                    // not a reference
		{"trailing $", "trailing $", nil},              // lone $ at the end
		{"$(NOPE)", "$(NOPE)", []string{"NOPE"}},       // left as written
		{"x=$(A),y=$(B)", "x=1,y=$(B)", []string{"B"}}, // partial
		{"$(unclosed", "$(unclosed", nil},              // no closing parenthesis
		{"/r/$(RUN)/s-$(I).json", "/r/20260616T1200/s-$(I).json", []string{"I"}},
	}
	for _, tt := range tests {
		got, missing := expand(tt.in, lookup)
		if got != tt.want || !slices.Equal(missing, tt.missing) {
			t.Errorf("expand(%q) = %q, missing %q; want %q, missing %q", tt.in, got, missing, tt.want, tt.missing)
		}
	}
}

func TestParseCmdline(t *testing.T) {
	cl, err := parseCmdline([]string{"goodput", "merge", "a.json", "--label=k=v", "--label=x=y", "--disable-progress", "-o", "out.json", "b.json"})
	if err != nil {
		t.Fatal(err)
	}
	if cl.program != "goodput" || cl.sub != "merge" {
		t.Errorf("program, sub = %q, %q", cl.program, cl.sub)
	}
	if !slices.Equal(cl.positional, []string{"a.json", "b.json"}) {
		t.Errorf("positional = %q", cl.positional)
	}
	if !slices.Equal(cl.flags["label"], []string{"k=v", "x=y"}) || cl.one(t, "o") != "out.json" || cl.one(t, "disable-progress") != "true" {
		t.Errorf("flags = %q", cl.flags)
	}
	for _, bad := range [][]string{{"goodput"}, {"goodput", "merge", "-o"}} {
		if _, err := parseCmdline(bad); err == nil {
			t.Errorf("parseCmdline(%q): want an error", bad)
		}
	}
}

func TestDecodeStrictRejects(t *testing.T) {
	tests := []struct {
		name, doc, wantErr string
	}{
		{"unknown field", "apiVersion: batch/v1\nkind: Job\nspec:\n  backofflimit: 0\n", "unknown field"},
		{"misplaced field", "apiVersion: batch/v1\nkind: Job\nspec:\n  restartPolicy: Never\n", "unknown field"},
		{"wrong type", "apiVersion: batch/v1\nkind: Job\nspec:\n  backoffLimit: zero\n", "backoffLimit"},
		{"duplicate key", "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: a\n  name: b\n", "already set"},
		{"unexpected kind", "apiVersion: apps/v1\nkind: Deployment\n", "unexpected apiVersion"},
		{"kustomization typo", "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresource:\n  - job.yaml\n", "unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeStrict([]byte(tt.doc))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("decodeStrict: err = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
	if _, err := decodeStrict([]byte("apiVersion: batch/v1\nkind: Job\nspec:\n  backoffLimit: 0\n")); err != nil {
		t.Fatalf("a valid Job: %v", err)
	}
}

func TestSplitDocs(t *testing.T) {
	docs := splitDocs([]byte("# head\n---\na: 1\n---\n# only a comment\n---\nb: 2\n"))
	if len(docs) != 2 || !strings.Contains(string(docs[0]), "a: 1") || !strings.Contains(string(docs[1]), "b: 2") {
		t.Fatalf("splitDocs = %q", docs)
	}
}

// expand never panics; with no variable defined and no $$ escape it changes
// nothing, and every reference it reports is one written in the input.
func FuzzExpand(f *testing.F) {
	for _, s := range []string{"", "$", "$$", "$(A)", "--x=$(A),$(B)", "$(", "$$(A)", "a$(B)c$"} {
		f.Add(s)
	}
	none := func(string) (string, bool) { return "", false }
	f.Fuzz(func(t *testing.T, s string) {
		got, missing := expand(s, none)
		if !strings.Contains(s, "$$") && got != s {
			t.Errorf("expand(%q) with nothing defined = %q", s, got)
		}
		for _, m := range missing {
			if !strings.Contains(s, "$("+m+")") {
				t.Errorf("expand(%q) reports %q, which the input does not reference", s, m)
			}
		}
	})
}
