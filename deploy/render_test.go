package deploy

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// kustomizations are the directories that `kubectl apply -k` is meant for.
var kustomizations = []string{"base", "overlays/ci", "overlays/release", "overlays/indexed"}

// apiScheme knows the Kubernetes kinds deploy/ may hold.
func apiScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{batchv1.AddToScheme, corev1.AddToScheme} {
		if err := add(s); err != nil {
			return nil, fmt.Errorf("building the API scheme: %w", err)
		}
	}
	return s, nil
}

// decodeStrict decodes one YAML document into the API type its apiVersion
// and kind name. Kubernetes kinds go through the API machinery's strict
// serializer, the decoding of the API server's strict field validation:
// unknown fields, fields in the wrong case, duplicate keys and wrong value
// types are errors. A Kustomization is decoded as kustomize itself reads it
// (sigs.k8s.io/yaml, strict). Kinds this package does not expect are errors.
// A typo in a manifest must fail here, not be dropped on the way to the
// cluster.
func decodeStrict(doc []byte) (any, error) {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return nil, fmt.Errorf("reading apiVersion/kind: %w", err)
	}
	switch tm.APIVersion + " " + tm.Kind {
	case "batch/v1 Job", "v1 PersistentVolumeClaim", "v1 ServiceAccount", "v1 ConfigMap", "v1 Pod":
	case "kustomize.config.k8s.io/v1beta1 Kustomization":
		var k types.Kustomization
		if err := yaml.UnmarshalStrict(doc, &k); err != nil {
			return nil, fmt.Errorf("%s %s: %w", tm.APIVersion, tm.Kind, err)
		}
		return &k, nil
	default:
		return nil, fmt.Errorf("unexpected apiVersion %q kind %q", tm.APIVersion, tm.Kind)
	}
	scheme, err := apiScheme()
	if err != nil {
		return nil, err
	}
	ser := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme, kjson.SerializerOptions{Yaml: true, Strict: true})
	obj, _, err := ser.Decode(doc, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", tm.APIVersion, tm.Kind, err)
	}
	return obj, nil
}

var docSeparator = regexp.MustCompile(`(?m)^---[ \t]*$`)

// splitDocs splits a multi-document YAML file, dropping empty documents.
func splitDocs(data []byte) [][]byte {
	var docs [][]byte
	for _, d := range docSeparator.Split(string(data), -1) {
		if strings.TrimSpace(stripComments(d)) != "" {
			docs = append(docs, []byte(d))
		}
	}
	return docs
}

func stripComments(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// rendered is one kustomize build, every resource decoded strictly.
type rendered struct {
	dir        string
	jobs       []*batchv1.Job
	pvcs       map[string]*corev1.PersistentVolumeClaim
	sas        map[string]*corev1.ServiceAccount
	configMaps map[string]*corev1.ConfigMap
}

// render builds a kustomization with the kustomize library (what
// `kubectl apply -k` runs) and decodes its output strictly.
func render(dir string) (*rendered, error) {
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	m, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	r := &rendered{
		dir:        dir,
		pvcs:       map[string]*corev1.PersistentVolumeClaim{},
		sas:        map[string]*corev1.ServiceAccount{},
		configMaps: map[string]*corev1.ConfigMap{},
	}
	for _, res := range m.Resources() {
		doc, err := res.AsYAML()
		if err != nil {
			return nil, fmt.Errorf("kustomize build %s: %s: %w", dir, res.CurId(), err)
		}
		obj, err := decodeStrict(doc)
		if err != nil {
			return nil, fmt.Errorf("kustomize build %s: %s: %w", dir, res.CurId(), err)
		}
		switch o := obj.(type) {
		case *batchv1.Job:
			r.jobs = append(r.jobs, o)
		case *corev1.PersistentVolumeClaim:
			r.pvcs[o.Name] = o
		case *corev1.ServiceAccount:
			r.sas[o.Name] = o
		case *corev1.ConfigMap:
			r.configMaps[o.Name] = o
		default:
			return nil, fmt.Errorf("kustomize build %s: unexpected %T %s in the output", dir, obj, res.CurId())
		}
	}
	return r, nil
}

func mustRender(t testing.TB, dir string) *rendered {
	t.Helper()
	r, err := render(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// benchJob is the Job that runs the load (it has the goodput container);
// mergeJob is the one that merges shard reports, if any.
func (r *rendered) benchJob(t testing.TB) *batchv1.Job {
	t.Helper()
	var found []*batchv1.Job
	for _, j := range r.jobs {
		if container(&j.Spec.Template.Spec, "goodput") != nil {
			found = append(found, j)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s: want exactly one Job with a goodput container, found %d", r.dir, len(found))
	}
	return found[0]
}

func (r *rendered) mergeJob() *batchv1.Job {
	for _, j := range r.jobs {
		if container(&j.Spec.Template.Spec, "merge") != nil {
			return j
		}
	}
	return nil
}

func container(spec *corev1.PodSpec, name string) *corev1.Container {
	for i := range spec.Containers {
		if spec.Containers[i].Name == name {
			return &spec.Containers[i]
		}
	}
	for i := range spec.InitContainers {
		if spec.InitContainers[i].Name == name {
			return &spec.InitContainers[i]
		}
	}
	return nil
}

func allContainers(spec *corev1.PodSpec) []*corev1.Container {
	var cs []*corev1.Container
	for i := range spec.InitContainers {
		cs = append(cs, &spec.InitContainers[i])
	}
	for i := range spec.Containers {
		cs = append(cs, &spec.Containers[i])
	}
	return cs
}

// expand replaces $(VAR) references the way the kubelet does in a
// container's command and args: $$ is a literal $, a reference to an
// undefined variable is left as written. The names it could not resolve are
// returned, so that a test can fail where the kubelet would silently pass
// "$(VAR)" through to the program.
func expand(s string, lookup func(string) (string, bool)) (string, []string) {
	var b strings.Builder
	var missing []string
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '(':
			end := strings.IndexByte(s[i+2:], ')')
			if end < 0 {
				b.WriteString(s[i:])
				return b.String(), missing
			}
			name := s[i+2 : i+2+end]
			if v, ok := lookup(name); ok {
				b.WriteString(v)
			} else {
				b.WriteString(s[i : i+3+end])
				missing = append(missing, name)
			}
			i += 2 + end
		default:
			b.WriteByte('$')
		}
	}
	return b.String(), missing
}

var labelFieldPath = regexp.MustCompile(`^metadata\.labels\['([^']+)'\]$`)

// podEnv is a container's environment as the kubelet builds it from the
// rendered objects: envFrom ConfigMaps, then env in order (values expanded
// against what precedes them, fieldRefs to the pod's labels resolved).
// runtime holds what the control plane adds (JOB_COMPLETION_INDEX for an
// Indexed Job, in every container of the pod). Variables backed by a
// Secret are reported in secret and left out of env: their values must
// never reach a command line.
type podEnv struct {
	env    map[string]string
	secret map[string]bool
}

func containerEnv(r *rendered, tmpl *corev1.PodTemplateSpec, c *corev1.Container, runtime map[string]string) (*podEnv, error) {
	pe := &podEnv{env: map[string]string{}, secret: map[string]bool{}}
	for _, from := range c.EnvFrom {
		switch {
		case from.ConfigMapRef != nil:
			cm, ok := r.configMaps[from.ConfigMapRef.Name]
			if !ok {
				return nil, fmt.Errorf("container %s: envFrom ConfigMap %q is not in the build", c.Name, from.ConfigMapRef.Name)
			}
			for k, v := range cm.Data {
				pe.env[from.Prefix+k] = v
			}
		case from.SecretRef != nil:
			return nil, fmt.Errorf("container %s: envFrom a Secret hides which variables are secret", c.Name)
		}
	}
	lookup := func(name string) (string, bool) { v, ok := pe.env[name]; return v, ok }
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			v, missing := expand(e.Value, lookup)
			if len(missing) > 0 {
				return nil, fmt.Errorf("container %s: env %s refers to undefined %v", c.Name, e.Name, missing)
			}
			pe.env[e.Name] = v
		case e.ValueFrom.FieldRef != nil:
			m := labelFieldPath.FindStringSubmatch(e.ValueFrom.FieldRef.FieldPath)
			if m == nil {
				return nil, fmt.Errorf("container %s: env %s: fieldRef %q is not a pod label", c.Name, e.Name, e.ValueFrom.FieldRef.FieldPath)
			}
			v, ok := tmpl.Labels[m[1]]
			if !ok {
				return nil, fmt.Errorf("container %s: env %s reads label %q, which the pod template does not have", c.Name, e.Name, m[1])
			}
			pe.env[e.Name] = v
		case e.ValueFrom.SecretKeyRef != nil:
			pe.secret[e.Name] = true
			delete(pe.env, e.Name)
		default:
			return nil, fmt.Errorf("container %s: env %s: unexpected valueFrom", c.Name, e.Name)
		}
	}
	// The Job controller appends JOB_COMPLETION_INDEX to the env of every
	// container, init containers included, unless the container defines it:
	// it overrides envFrom, and env entries cannot refer to it.
	for k, v := range runtime {
		if !slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == k }) {
			pe.env[k] = v
		}
	}
	return pe, nil
}

// resolvedArgs is the command line a container's process receives: command
// and args with every $(VAR) expanded. An undefined or Secret-backed
// reference is an error.
func resolvedArgs(r *rendered, tmpl *corev1.PodTemplateSpec, c *corev1.Container, runtime map[string]string) ([]string, error) {
	pe, err := containerEnv(r, tmpl, c, runtime)
	if err != nil {
		return nil, err
	}
	lookup := func(name string) (string, bool) { v, ok := pe.env[name]; return v, ok }
	var out []string
	for _, a := range slices.Concat(c.Command, c.Args) {
		v, missing := expand(a, lookup)
		for _, m := range missing {
			if pe.secret[m] {
				return nil, fmt.Errorf("container %s: argument %q puts the Secret-backed %s on the command line", c.Name, a, m)
			}
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("container %s: argument %q refers to undefined %v (the kubelet would pass it through as written)", c.Name, a, missing)
		}
		out = append(out, v)
	}
	return out, nil
}

func mustResolve(t testing.TB, r *rendered, tmpl *corev1.PodTemplateSpec, c *corev1.Container, runtime map[string]string) []string {
	t.Helper()
	args, err := resolvedArgs(r, tmpl, c, runtime)
	if err != nil {
		t.Fatalf("%s: %v", r.dir, err)
	}
	return args
}

// cmdline is a parsed goodput command line: the program, the subcommand,
// --name=value flags (a bare --name is "true"; -x takes the next argument)
// and the positional arguments.
type cmdline struct {
	program, sub string
	flags        map[string][]string
	positional   []string
}

func parseCmdline(args []string) (cmdline, error) {
	cl := cmdline{flags: map[string][]string{}}
	if len(args) < 2 {
		return cl, fmt.Errorf("command line %q: want a program and a subcommand", args)
	}
	cl.program, cl.sub = args[0], args[1]
	for i := 2; i < len(args); i++ {
		a := args[i]
		switch {
		case strings.HasPrefix(a, "--"):
			name, value, ok := strings.Cut(a[2:], "=")
			if !ok {
				value = "true"
			}
			cl.flags[name] = append(cl.flags[name], value)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			if i+1 == len(args) {
				return cl, fmt.Errorf("command line %q: %s has no value", args, a)
			}
			cl.flags[a[1:]] = append(cl.flags[a[1:]], args[i+1])
			i++
		default:
			cl.positional = append(cl.positional, a)
		}
	}
	return cl, nil
}

// one returns the single value of a flag, or fails the test.
func (cl cmdline) one(t testing.TB, name string) string {
	t.Helper()
	v := cl.flags[name]
	if len(v) != 1 {
		t.Fatalf("--%s: want exactly one value, got %q", name, v)
	}
	return v[0]
}

func (cl cmdline) has(name string) bool { return len(cl.flags[name]) > 0 }

func mustCmdline(t testing.TB, r *rendered, tmpl *corev1.PodTemplateSpec, c *corev1.Container, runtime map[string]string) cmdline {
	t.Helper()
	cl, err := parseCmdline(mustResolve(t, r, tmpl, c, runtime))
	if err != nil {
		t.Fatalf("%s: container %s: %v", r.dir, c.Name, err)
	}
	return cl
}

// yamlOf renders an object for failure messages.
func yamlOf(v any) string {
	b, err := yaml.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(bytes.TrimSpace(b))
}
