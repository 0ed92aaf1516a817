package deploy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// The pods of every rendered Job, run for real: each container's command
// line, resolved with its environment as the kubelet resolves it (the
// ConfigMap, the downward API, JOB_COMPLETION_INDEX in every container of
// an Indexed Job's pod, init containers included), is run by a goodput
// binary built from this checkout, with the container's environment and
// its volumes as directories. The checks on paper (render_test.go,
// build_test.go) cannot see what goodput does with a command line and an
// environment; this test does: a container that goodput refuses (exit 2),
// a warmup that waits for the shards' start, or a merge that looks for
// files under other names than the shards write, fails here.
//
// What a test cannot have is replaced, and only that:
//   - the cluster's services: --target is a local `goodput mock` serving
//     the --model asked for, --dcgm-url the mock's DCGM exposition, and
//     --prometheus is emptied (no local Prometheus; the energy comes from
//     the DCGM stand-in), --metrics-addr listens on a free loopback port.
//     Every URL left must be on 127.0.0.1: the test sends nothing
//     elsewhere;
//   - time: every time-bound round lasts testRound instead of minutes, and
//     a --warmup or --cooldown given as a duration keeps its share of the
//     round (compressTime); a sharded run gets --round-gap testRoundGap;
//   - the shared start: GOODPUT_START_AT, which the user sets a few minutes
//     after the apply, is set startLead ahead;
//   - the tokenizer, which deploy/README.md uploads to the volume: a small
//     tokenizer.json from tokenize/testdata is put where --processor points.
func TestRenderedPodsRunTheBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds goodput and runs every rendered container (a few seconds)")
	}
	bin := testBinary(t)
	tokenizer, err := os.ReadFile(filepath.Join("..", "tokenize", "testdata", "fixtures", "bytelevel.json"))
	if err != nil {
		t.Fatal(err)
	}
	// One mock per model the containers ask for.
	renders := map[string]*rendered{}
	models := map[string]bool{}
	for _, dir := range kustomizations {
		r := mustRender(t, dir)
		renders[dir] = r
		for _, j := range r.jobs {
			for _, c := range allContainers(&j.Spec.Template.Spec) {
				cl := mustCmdline(t, r, &j.Spec.Template, c, map[string]string{"JOB_COMPLETION_INDEX": "0"})
				for _, m := range cl.flags["model"] {
					models[m] = true
				}
			}
		}
	}
	mocks := map[string]string{}
	for _, m := range slices.Sorted(maps.Keys(models)) {
		mocks[m] = startMock(t, bin, m)
	}
	// The kustomizations at once, as separate clusters: the processes run
	// in parallel whatever GOMAXPROCS (and so -parallel) is.
	var wg sync.WaitGroup
	for _, dir := range kustomizations {
		r := renders[dir]
		bench := r.benchJob(t)
		cl := &cluster{bin: bin, mocks: mocks, tokenizer: tokenizer, root: t.TempDir(), uploaded: map[string]bool{}}
		wg.Go(func() { runKustomization(t, r, bench, cl) })
	}
	wg.Wait()
}

// Time in the test cluster.
const (
	testRound    = 0.3 // seconds: every time-bound round, the warmup included
	testRoundGap = "100ms"
	// startLead is how far ahead the shared start is set when the pods are
	// created: the warmup (a testRound of load after the process starts,
	// the server checks and the metadata probes) must end before it on a
	// loaded 2-core machine, as a real warmup must end before the real
	// start a few minutes after the apply. Four pods' warmups run at once
	// here and took up to 2.3 s each (their final telemetry scrape waits up
	// to the 1 s interval), so 5 s was too close under the race build's
	// load.
	startLead = 10 * time.Second
	// containerTimeout bounds one container: a container that waits for
	// something is reported, not left hanging.
	containerTimeout = 60 * time.Second
)

// cluster is what the pods of one kustomization run against.
type cluster struct {
	bin       string            // goodput
	mocks     map[string]string // model → base URL of a goodput mock
	tokenizer []byte
	root      string // claims/<claim>/ are the volumes, pods/<pod>/ the pods' own files

	mu       sync.Mutex
	uploaded map[string]bool // the tokenizer files put on the volumes
}

// runKustomization runs the rendered Jobs as `kubectl apply -k` and
// deploy/README.md run them: the benchmark Job (its pods at once, each its
// init containers in order, then its container), then, once it is
// complete, the Jobs created suspended (the merge). It reports failures
// with t.Errorf only: kustomizations run in goroutines.
func runKustomization(t *testing.T, r *rendered, bench *batchv1.Job, cl *cluster) {
	start := time.Now().Add(startLead).UTC()
	for _, cm := range r.configMaps {
		if _, ok := cm.Data["GOODPUT_START_AT"]; ok {
			cm.Data["GOODPUT_START_AT"] = start.Format(time.RFC3339Nano)
		}
	}
	pods := 1
	if bench.Spec.Completions != nil {
		pods = int(*bench.Spec.Completions)
	}
	indexed := bench.Spec.CompletionMode != nil && *bench.Spec.CompletionMode == batchv1.IndexedCompletion
	var wg sync.WaitGroup
	ok := make([]bool, pods)
	for i := range pods {
		rt := map[string]string{}
		if indexed {
			rt["JOB_COMPLETION_INDEX"] = strconv.Itoa(i)
		}
		wg.Go(func() { _, ok[i] = cl.runPod(t, r, bench, fmt.Sprintf("%s-%d", bench.Name, i), rt) })
	}
	wg.Wait()
	if slices.Contains(ok, false) {
		return // the Job failed: nothing runs after it
	}
	written, err := cl.reportFiles()
	if err != nil {
		t.Errorf("%s: %v", r.dir, err)
		return
	}
	for _, j := range r.jobs {
		if j == bench {
			continue
		}
		if j.Spec.Suspend == nil || !*j.Spec.Suspend {
			t.Errorf("Job %s runs next to the benchmark Job: only a suspended Job (resumed once the benchmark is complete) is expected", j.Name)
			continue
		}
		inputs, _ := cl.runPod(t, r, j, j.Name+"-0", nil)
		c := container(&j.Spec.Template.Spec, "merge")
		if c == nil {
			continue
		}
		if in, ran := inputs[c.Name]; ran {
			// The merge reads exactly the reports the shards wrote.
			got := slices.Sorted(slices.Values(in))
			if !slices.Equal(got, written) {
				t.Errorf("Job %s merges %q; the benchmark Job's pods wrote the reports %q (paths on the volumes)", j.Name, cl.onVolumes(got), cl.onVolumes(written))
			}
		}
	}
}

// runPod runs one pod of Job j: its init containers in order, each to a
// successful end, then its container. rt is what the control plane adds
// to every container's environment. It returns, for each container, the
// positional arguments it was given (as paths of the test's volumes), and
// whether the pod succeeded. It reports failures with t.Errorf only: pods
// run in goroutines.
func (cl *cluster) runPod(t *testing.T, r *rendered, j *batchv1.Job, pod string, rt map[string]string) (map[string][]string, bool) {
	t.Helper()
	spec := &j.Spec.Template.Spec
	positional := map[string][]string{}
	if len(spec.Containers) != 1 {
		t.Errorf("Job %s: %d containers; the test runs pods of one container (after the init containers)", j.Name, len(spec.Containers))
		return positional, false
	}
	podDir := filepath.Join(cl.root, "pods", pod)
	vols, err := cl.volumes(spec, podDir, j.Spec.Template.Labels)
	if err != nil {
		t.Errorf("pod %s: %v", pod, err)
		return positional, false
	}
	var initEnd time.Time
	failed := false
	for _, c := range allContainers(spec) {
		args, env, err := cl.commandLine(r, j, c, rt, vols)
		if err != nil {
			t.Errorf("pod %s: %v", pod, err)
			return positional, false
		}
		parsed, err := parseCmdline(args)
		if err != nil {
			t.Errorf("pod %s container %s: %v", pod, c.Name, err)
			return positional, false
		}
		positional[c.Name] = parsed.positional
		if c.Name == spec.Containers[0].Name {
			// The shards' shared start: the init containers are over by then,
			// or the shard starts late and is refused.
			if at, ok := flagValue(args, "start-at"); ok && at != "" {
				start, err := time.Parse(time.RFC3339Nano, at)
				if err == nil && !initEnd.Before(start) {
					failed = true
					t.Errorf("pod %s: the init containers ended at %s, after the shared start %s (--start-at): a warmup that waits for it makes the shard late",
						pod, initEnd.Format(time.RFC3339Nano), at)
				}
			}
		}
		cwd := filepath.Join(podDir, "cwd-"+c.Name)
		if err := os.MkdirAll(cwd, 0o755); err != nil {
			t.Errorf("pod %s: %v", pod, err)
			return positional, false
		}
		code, stderr := cl.run(args, env, cwd)
		initEnd = time.Now()
		if code != 0 {
			what := "failed"
			if code == 2 {
				what = "refused its command line (exit 2: a usage error)"
			}
			t.Errorf("pod %s container %s: goodput %s, exit %d\ncommand: %q\nstderr (end):\n%s", pod, c.Name, what, code, args, tail(stderr, 2000))
			return positional, false
		}
		// The root filesystem is read-only: nothing may be written outside
		// the volumes.
		if left, _ := os.ReadDir(cwd); len(left) > 0 {
			failed = true
			t.Errorf("pod %s container %s wrote %s outside its volumes (the root filesystem is read-only)", pod, c.Name, left[0].Name())
		}
	}
	return positional, !failed
}

// commandLine is the container's command line and environment in the test
// cluster.
func (cl *cluster) commandLine(r *rendered, j *batchv1.Job, c *corev1.Container, rt map[string]string, vols mounts) ([]string, []string, error) {
	pe, err := containerEnv(r, &j.Spec.Template, c, rt)
	if err != nil {
		return nil, nil, fmt.Errorf("Job %s: %w", j.Name, err)
	}
	args, err := resolvedArgs(r, &j.Spec.Template, c, rt)
	if err != nil {
		return nil, nil, fmt.Errorf("Job %s: %w", j.Name, err)
	}
	if len(args) < 2 || args[0] != "goodput" {
		return nil, nil, fmt.Errorf("Job %s container %s: command line %q does not run goodput", j.Name, c.Name, args)
	}
	args = slices.Clone(args)
	args[0] = cl.bin
	if args, err = cl.standIns(args); err == nil {
		args, err = compressTime(args, testRound)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("Job %s container %s: %w", j.Name, c.Name, err)
	}
	if _, sharded := flagValue(args, "shard-count"); sharded || pe.env["GOODPUT_SHARD_COUNT"] != "" {
		args = append(args, "--round-gap="+testRoundGap)
	}
	for i := 1; i < len(args); i++ {
		args[i] = vols.rewrite(args[i])
	}
	if p, ok := flagValue(args, "processor"); ok && filepath.IsAbs(p) {
		if err := cl.upload(p); err != nil {
			return nil, nil, err
		}
	}
	env := make([]string, 0, len(pe.env))
	for _, k := range slices.Sorted(maps.Keys(pe.env)) {
		env = append(env, k+"="+pe.env[k])
	}
	return args, env, nil
}

// standIns points the cluster's services at loopback stand-ins.
func (cl *cluster) standIns(args []string) ([]string, error) {
	model, _ := flagValue(args, "model")
	out := slices.Clone(args)
	for i, a := range out {
		name, _, ok := strings.Cut(a, "=")
		if !ok {
			continue
		}
		switch name {
		case "--target", "--dcgm-url":
			u, found := cl.mocks[model]
			if !found {
				return nil, fmt.Errorf("%s: no mock serves --model %q", a, model)
			}
			if name == "--dcgm-url" {
				u += "/dcgm/metrics"
			}
			out[i] = name + "=" + u
		case "--prometheus":
			out[i] = name + "="
		case "--metrics-addr":
			out[i] = name + "=127.0.0.1:0" // pods run side by side here
		}
	}
	for _, a := range out {
		for _, m := range urlHost.FindAllStringSubmatch(a, -1) {
			if !strings.HasPrefix(m[1], "127.0.0.1:") {
				return nil, fmt.Errorf("argument %q: the test has no loopback stand-in for %s", a, m[1])
			}
		}
	}
	return out, nil
}

var urlHost = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://([^/\s,;"']+)`)

// upload puts the test tokenizer at p unless a file is there (what
// deploy/README.md does with kubectl cp before the first run). Pods call
// it at once; a file is whole before any pod's process starts.
func (cl *cluster) upload(p string) error {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if _, err := os.Stat(p); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("uploading the tokenizer: %w", err)
	}
	if err := os.WriteFile(p, cl.tokenizer, 0o644); err != nil {
		return fmt.Errorf("uploading the tokenizer: %w", err)
	}
	cl.uploaded[p] = true
	return nil
}

// run runs one container's process and returns its exit status and stderr.
func (cl *cluster) run(args, env []string, dir string) (int, string) {
	ctx, cancel := context.WithTimeout(context.Background(), containerTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env, cmd.Dir = env, dir
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return -1, stderr.String() + fmt.Sprintf("\n(killed after %v)", containerTimeout)
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, stderr.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), stderr.String()
	default:
		return -1, err.Error()
	}
}

// mounts maps the paths a container sees to the test's directories,
// longest mount path first.
type mounts []struct{ path, host string }

// hostPath is where p, a path in the container, lies in the test.
func (m mounts) hostPath(p string) (string, bool) {
	for _, mt := range m {
		if p == mt.path || strings.HasPrefix(p, strings.TrimSuffix(mt.path, "/")+"/") {
			return mt.host + p[len(strings.TrimSuffix(mt.path, "/")):], true
		}
	}
	return "", false
}

// rewrite maps an argument that is a path on a volume, or a --flag=path,
// to the test's directories.
func (m mounts) rewrite(arg string) string {
	if strings.HasPrefix(arg, "-") {
		name, v, ok := strings.Cut(arg, "=")
		if h, found := m.hostPath(v); ok && found {
			return name + "=" + h
		}
		return arg
	}
	if h, ok := m.hostPath(arg); ok {
		return h
	}
	return arg
}

// volumes makes the pod's volumes: a directory per claim (shared by every
// pod of the kustomization), the downward API's files in the pod's own
// directory; and maps the container's mounts to them. Only the volume
// kinds deploy/ uses are known.
func (cl *cluster) volumes(spec *corev1.PodSpec, podDir string, labels map[string]string) (mounts, error) {
	dirs := map[string]string{}
	for _, v := range spec.Volumes {
		switch {
		case v.PersistentVolumeClaim != nil:
			dirs[v.Name] = filepath.Join(cl.root, "claims", v.PersistentVolumeClaim.ClaimName)
		case v.DownwardAPI != nil:
			dirs[v.Name] = filepath.Join(podDir, "volumes", v.Name)
			if err := os.MkdirAll(dirs[v.Name], 0o755); err != nil {
				return nil, err
			}
			for _, it := range v.DownwardAPI.Items {
				if it.FieldRef == nil || it.FieldRef.FieldPath != "metadata.labels" {
					return nil, fmt.Errorf("volume %s: the test knows the downward API's metadata.labels only, not %s", v.Name, yamlOf(it))
				}
				if err := os.WriteFile(filepath.Join(dirs[v.Name], it.Path), []byte(kubeletLabels(labels)), 0o644); err != nil {
					return nil, err
				}
			}
		default:
			return nil, fmt.Errorf("volume %s: a kind the test does not know: %s", v.Name, yamlOf(v))
		}
	}
	var m mounts
	for _, c := range allContainers(spec) {
		for _, vm := range c.VolumeMounts {
			host, ok := dirs[vm.Name]
			if !ok {
				return nil, fmt.Errorf("container %s mounts %s, which is no volume of the pod", c.Name, vm.Name)
			}
			if vm.SubPath != "" {
				host = filepath.Join(host, vm.SubPath)
			}
			// The kubelet creates a missing subPath directory.
			if err := os.MkdirAll(host, 0o755); err != nil {
				return nil, err
			}
			m = append(m, struct{ path, host string }{vm.MountPath, host})
		}
	}
	slices.SortStableFunc(m, func(a, b struct{ path, host string }) int { return len(b.path) - len(a.path) })
	return m, nil
}

// kubeletLabels is the downward API's metadata.labels file: key="value"
// lines (Go-quoted values), sorted by key.
func kubeletLabels(labels map[string]string) string {
	var b strings.Builder
	for i, k := range slices.Sorted(maps.Keys(labels)) {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(k + "=" + strconv.Quote(labels[k]))
	}
	return b.String()
}

// compressTime shortens the run: --max-seconds becomes round, and a
// --warmup or --cooldown given as a duration ("30s") or as seconds (a
// number ≥ 1) becomes the same share of the round (a fraction < 1 when it
// is shorter than the round, as goodput requires; a value that was too
// long stays too long). Fractions, percentages and request counts are
// relative already and are kept. Flags are in the --name=value form the
// manifests use.
func compressTime(args []string, round float64) ([]string, error) {
	length := 0.0
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--max-seconds="); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, fmt.Errorf("--max-seconds %q: %v", v, err)
			}
			length = f
		}
	}
	if length <= 0 {
		return args, nil
	}
	out := slices.Clone(args)
	for i, a := range out {
		name, v, ok := strings.Cut(a, "=")
		if !ok {
			continue
		}
		switch name {
		case "--max-seconds":
			out[i] = name + "=" + strconv.FormatFloat(round, 'g', -1, 64)
		case "--warmup", "--cooldown":
			secs := -1.0
			if d, err := time.ParseDuration(v); err == nil {
				secs = d.Seconds()
			} else if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 1 {
				secs = f
			}
			if secs >= 0 {
				out[i] = name + "=" + strconv.FormatFloat(secs/length, 'g', 6, 64)
			}
		}
	}
	return out, nil
}

// flagValue is the last value of --name=value in args.
func flagValue(args []string, name string) (string, bool) {
	v, found := "", false
	for _, a := range args {
		if s, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			v, found = s, true
		}
	}
	return v, found
}

// reportFiles lists the report files (*.json) on the volumes, but for the
// tokenizers the test put there.
func (cl *cluster) reportFiles() ([]string, error) {
	var out []string
	err := filepath.WalkDir(filepath.Join(cl.root, "claims"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".json") && !cl.uploaded[p] {
			out = append(out, p)
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("listing the reports: %w", err)
	}
	slices.Sort(out)
	return out, nil
}

// onVolumes shortens the test's paths to <claim>/<path> for messages.
func (cl *cluster) onVolumes(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = strings.TrimPrefix(p, filepath.Join(cl.root, "claims")+string(filepath.Separator))
	}
	return out
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// testBinary is $GOODPUT_BIN, else goodput built from this checkout.
func testBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("GOODPUT_BIN"); bin != "" {
		return bin
	}
	// go test puts $GOROOT/bin first on the test's PATH (Go 1.19 and later),
	// so this finds the go command that runs the test.
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("find the go command to build goodput (or set GOODPUT_BIN): %v", err)
	}
	bin := filepath.Join(t.TempDir(), "goodput")
	out, err := exec.Command(goTool, "build", "-o", bin, "../cmd/goodput").CombinedOutput()
	if err != nil {
		t.Fatalf("go build ../cmd/goodput: %v\n%s", err, out)
	}
	return bin
}

// startMock runs `goodput mock` on a free loopback port, serving model,
// fast enough that a round of testRound seconds completes requests, and
// returns its base URL.
func startMock(t *testing.T, bin, model string) string {
	t.Helper()
	dir := t.TempDir()
	urlFile := filepath.Join(dir, "url")
	cmd := exec.Command(bin, "mock", "--host=127.0.0.1", "--port=0", "--url-file="+urlFile, "--model="+model,
		"--ttft=20ms", "--itl=100us", "--tokens-per-chunk=32", "--dcgm-interval=50ms")
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	// The mock writes --url-file once it listens; poll for it.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if b, err := os.ReadFile(urlFile); err == nil && strings.HasSuffix(string(b), "\n") {
			return strings.TrimSpace(string(b))
		}
		select {
		case err := <-exited:
			t.Fatalf("goodput mock exited: %v\n%s", err, logs.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("goodput mock did not write %s within 30 s", urlFile)
		}
	}
}

// The helpers decide what the pods run; they are tested on their own.

func TestCompressTime(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"no time bound", []string{"goodput", "merge", "a.json", "--warmup=5s"}, []string{"goodput", "merge", "a.json", "--warmup=5s"}},
		{"round only", []string{"--max-seconds=120", "--rate=10"}, []string{"--max-seconds=0.3", "--rate=10"}},
		// 5 s of a 30 s round is a sixth of it; 30 s of 300 s a tenth.
		{"duration warmup", []string{"--max-seconds=30", "--warmup=5s"}, []string{"--max-seconds=0.3", "--warmup=0.166667"}},
		{"seconds warmup and cooldown", []string{"--warmup=30", "--cooldown=1m", "--max-seconds=300"}, []string{"--warmup=0.1", "--cooldown=0.2", "--max-seconds=0.3"}},
		// Relative forms are kept.
		{"relative", []string{"--max-seconds=120", "--warmup=10%", "--cooldown=0.5"}, []string{"--max-seconds=0.3", "--warmup=10%", "--cooldown=0.5"}},
		{"requests", []string{"--max-seconds=120", "--warmup=100r"}, []string{"--max-seconds=0.3", "--warmup=100r"}},
		// A warmup as long as the round stays too long (seconds ≥ the round).
		{"too long", []string{"--max-seconds=30", "--warmup=45s"}, []string{"--max-seconds=0.3", "--warmup=1.5"}},
		{"last max-seconds wins", []string{"--max-seconds=10", "--max-seconds=20", "--warmup=2s"}, []string{"--max-seconds=0.3", "--max-seconds=0.3", "--warmup=0.1"}},
	}
	for _, tt := range tests {
		got, err := compressTime(tt.in, 0.3)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%s: compressTime(%q) = %q, %v; want %q", tt.name, tt.in, got, err, tt.want)
		}
	}
	if _, err := compressTime([]string{"--max-seconds=two"}, 0.3); err == nil {
		t.Error("compressTime accepted --max-seconds=two")
	}
}

func TestMountsRewrite(t *testing.T) {
	m := mounts{{"/etc/podinfo", "/tmp/p/podinfo"}, {"/results", "/tmp/c/results"}, {"/models", "/tmp/c/results/tokenizers"}}
	slices.SortStableFunc(m, func(a, b struct{ path, host string }) int { return len(b.path) - len(a.path) })
	tests := []struct{ in, want string }{
		{"--output-dir=/results", "--output-dir=/tmp/c/results"},
		{"--output-path=/results/run/shard-0.json", "--output-path=/tmp/c/results/run/shard-0.json"},
		{"/results/run/shard-1.json", "/tmp/c/results/run/shard-1.json"},
		{"--processor=/models/tokenizer.json", "--processor=/tmp/c/results/tokenizers/tokenizer.json"},
		{"--labels-file=/etc/podinfo/labels", "--labels-file=/tmp/p/podinfo/labels"},
		{"--processor=o200k_base", "--processor=o200k_base"},
		{"/resultsx/a.json", "/resultsx/a.json"}, // not under the mount
		{"--label=dir=/results", "--label=dir=/results"},
		{"-o", "-o"},
	}
	for _, tt := range tests {
		if got := m.rewrite(tt.in); got != tt.want {
			t.Errorf("rewrite(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStandIns(t *testing.T) {
	cl := &cluster{mocks: map[string]string{"m": "http://127.0.0.1:9"}}
	got, err := cl.standIns([]string{"goodput", "benchmark", "--model=m", "--target=http://vllm.inference.svc:8000",
		"--dcgm-url=http://dcgm.monitoring:9400/metrics", "--prometheus=http://prometheus:9090", "--slo=ttft_p99=1s"})
	want := []string{"goodput", "benchmark", "--model=m", "--target=http://127.0.0.1:9",
		"--dcgm-url=http://127.0.0.1:9/dcgm/metrics", "--prometheus=", "--slo=ttft_p99=1s"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("standIns = %q, %v; want %q", got, err, want)
	}
	for _, bad := range [][]string{
		{"goodput", "benchmark", "--model=other", "--target=http://vllm:8000"},                // no mock for the model
		{"goodput", "benchmark", "--model=m", "--opencost=http://opencost.opencost:9003"},     // no stand-in
		{"goodput", "benchmark", "--model=m", "--server-metrics=https://vllm:8000/metrics"},   // no stand-in
		{"goodput", "benchmark", "--model=m", "--target=http://127.0.0.1:9", "--x=ftp://a/b"}, // any scheme
	} {
		if got, err := cl.standIns(bad); err == nil {
			t.Errorf("standIns(%q) = %q: want an error (only loopback traffic)", bad, got)
		}
	}
}

func TestKubeletLabels(t *testing.T) {
	got := kubeletLabels(map[string]string{"bench/osl": "256", "app": "bench", "q": `a"b`})
	if want := "app=\"bench\"\nbench/osl=\"256\"\nq=\"a\\\"b\""; got != want {
		t.Errorf("kubeletLabels = %q, want %q", got, want)
	}
}
