package deploy

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"testing"
	"time"
)

// With GOODPUT_BIN naming a built goodput (make build; GOODPUT_BIN=$PWD/bin/goodput),
// every subcommand and flag the rendered manifests pass is one that the
// binary's --help lists: the manifests and the CLI cannot drift apart.
func TestManifestFlagsKnownToTheBinary(t *testing.T) {
	bin := os.Getenv("GOODPUT_BIN")
	if bin == "" {
		t.Skip("set GOODPUT_BIN to a goodput binary to check the manifests' flags against its --help")
	}
	help := map[string]string{}
	for _, dir := range kustomizations {
		r := mustRender(t, dir)
		for _, j := range r.jobs {
			for _, c := range allContainers(&j.Spec.Template.Spec) {
				cl := mustCmdline(t, r, &j.Spec.Template, c, map[string]string{"JOB_COMPLETION_INDEX": "0"})
				text, ok := help[cl.sub]
				if !ok {
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					out, err := exec.CommandContext(ctx, bin, cl.sub, "--help").CombinedOutput()
					cancel()
					if err != nil {
						t.Errorf("%s %s --help: %v\n%s", bin, cl.sub, err, out)
						continue
					}
					text = string(out)
					help[cl.sub] = text
				}
				names := make([]string, 0, len(cl.flags))
				for name := range cl.flags {
					names = append(names, name)
				}
				slices.Sort(names)
				for _, name := range names {
					dash := "--"
					if len(name) == 1 {
						dash = "-"
					}
					if !regexp.MustCompile(`(^|[\s,])` + regexp.QuoteMeta(dash+name) + `([\s,=[]|$)`).MatchString(text) {
						t.Errorf("%s: Job %s container %s passes %s%s, which `goodput %s --help` does not list", dir, j.Name, c.Name, dash, name, cl.sub)
					}
				}
			}
		}
	}
}
