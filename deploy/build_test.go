package deploy

import (
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// benchLabels are the run metadata every benchmark Job carries on itself
// and on its pod template (the article's nine labels, plus the warmup's
// length, the eleventh of the twelve mandatory metadata).
var benchLabels = []string{
	"bench/model", "bench/engine", "bench/hardware", "bench/precision", "bench/isl", "bench/osl",
	"bench/concurrency", "bench/tokenizer", "bench/run-id", "bench/warmup-seconds",
}

// telemetryFlags make the scorecard: taken by the load's own process, in
// the load's own time window.
var telemetryFlags = []string{"dcgm-url", "prometheus", "gpu-cost-per-hour", "currency"}

// Every kustomization builds with the kustomize library, and what it renders
// holds the invariants of a benchmark run.
func TestKustomizeBuilds(t *testing.T) {
	for _, dir := range kustomizations {
		t.Run(dir, func(t *testing.T) {
			r := mustRender(t, dir)
			if len(r.jobs) == 0 {
				t.Fatal("no Job rendered")
			}
			for _, j := range r.jobs {
				checkJob(t, r, j)
			}
			checkBenchJob(t, r, r.benchJob(t))
		})
	}
}

// checkJob holds for every Job: the benchmark and the merge.
func checkJob(t *testing.T, r *rendered, j *batchv1.Job) {
	t.Helper()
	spec := &j.Spec.Template.Spec
	if j.Namespace != "benchmark" {
		t.Errorf("Job %s: namespace %q, want benchmark", j.Name, j.Namespace)
	}
	if b := j.Spec.BackoffLimit; b == nil || *b != 0 {
		t.Errorf("Job %s: backoffLimit %s, want 0 (a failed run is not retried into another run)", j.Name, yamlOf(b))
	}
	if spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("Job %s: restartPolicy %q, want Never", j.Name, spec.RestartPolicy)
	}
	if j.Spec.TTLSecondsAfterFinished != nil {
		t.Errorf("Job %s: ttlSecondsAfterFinished set: the finished Job is what makes the run idempotent", j.Name)
	}
	if d := j.Spec.ActiveDeadlineSeconds; d == nil || *d <= 0 {
		t.Errorf("Job %s: want an activeDeadlineSeconds bound", j.Name)
	}
	if msgs := validation.IsDNS1123Label(j.Name); len(msgs) > 0 {
		t.Errorf("Job name %q: %v", j.Name, msgs)
	}

	// Metadata: the same bench/* labels on the Job and its pods, all valid.
	for _, k := range benchLabels {
		v, ok := j.Labels[k]
		if !ok || v == "" {
			t.Errorf("Job %s: label %s missing", j.Name, k)
			continue
		}
		if msgs := validation.IsValidLabelValue(v); len(msgs) > 0 {
			t.Errorf("Job %s: label %s=%q: %v", j.Name, k, v, msgs)
		}
		if pv := j.Spec.Template.Labels[k]; pv != v {
			t.Errorf("Job %s: pod template label %s=%q, Job label %q: they must be equal", j.Name, k, pv, v)
		}
	}

	// Identity: the ServiceAccount is in the build, and no API token is mounted.
	sa, ok := r.sas[spec.ServiceAccountName]
	if !ok {
		t.Errorf("Job %s: serviceAccountName %q is not in the build", j.Name, spec.ServiceAccountName)
	} else if sa.AutomountServiceAccountToken == nil || *sa.AutomountServiceAccountToken {
		t.Errorf("ServiceAccount %s: automountServiceAccountToken must be false", sa.Name)
	}
	if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
		t.Errorf("Job %s: automountServiceAccountToken must be false", j.Name)
	}

	// Security: non-root, seccomp, and every container locked down.
	psc := spec.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
		t.Errorf("Job %s: pod securityContext must run as a non-root user: %s", j.Name, yamlOf(psc))
	} else {
		if *psc.RunAsUser != 65532 {
			t.Errorf("Job %s: runAsUser %d, want 65532 (the image's USER)", j.Name, *psc.RunAsUser)
		}
		if psc.FSGroup == nil || *psc.FSGroup != *psc.RunAsUser {
			t.Errorf("Job %s: fsGroup %v, want %d so that the volumes are writable", j.Name, psc.FSGroup, *psc.RunAsUser)
		}
		if psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
			t.Errorf("Job %s: seccompProfile %v, want RuntimeDefault", j.Name, psc.SeccompProfile)
		}
	}
	images := map[string]bool{}
	for _, c := range allContainers(spec) {
		images[c.Image] = true
		checkContainer(t, j, c)
	}
	if len(images) != 1 {
		t.Errorf("Job %s: containers use %d images, want one pinned goodput image: %v", j.Name, len(images), slices.Sorted(maps.Keys(images)))
	}

	// Volumes: every claim is in the build.
	for _, v := range spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			if _, ok := r.pvcs[v.PersistentVolumeClaim.ClaimName]; !ok {
				t.Errorf("Job %s: volume %s claims %q, which is not in the build", j.Name, v.Name, v.PersistentVolumeClaim.ClaimName)
			}
		}
	}
}

func checkContainer(t *testing.T, j *batchv1.Job, c *corev1.Container) {
	t.Helper()
	sc := c.SecurityContext
	switch {
	case sc == nil:
		t.Errorf("Job %s container %s: no securityContext", j.Name, c.Name)
	default:
		if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
			t.Errorf("Job %s container %s: readOnlyRootFilesystem must be true", j.Name, c.Name)
		}
		if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
			t.Errorf("Job %s container %s: allowPrivilegeEscalation must be false", j.Name, c.Name)
		}
		if sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
			t.Errorf("Job %s container %s: runAsNonRoot must be true", j.Name, c.Name)
		}
		if sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0 {
			t.Errorf("Job %s container %s: capabilities %s, want drop [ALL] and nothing added", j.Name, c.Name, yamlOf(sc.Capabilities))
		}
	}
	for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, okReq := c.Resources.Requests[res]
		lim, okLim := c.Resources.Limits[res]
		if !okReq || !okLim {
			t.Errorf("Job %s container %s: %s request and limit must both be set", j.Name, c.Name, res)
			continue
		}
		if req.Cmp(lim) != 0 {
			t.Errorf("Job %s container %s: %s request %s != limit %s (a benchmark client wants Guaranteed QoS: no throttling, no eviction)", j.Name, c.Name, res, req.String(), lim.String())
		}
	}
	if !pinned(c.Image) {
		t.Errorf("Job %s container %s: image %q is not pinned to a version (the bench tool's version is run metadata)", j.Name, c.Name, c.Image)
	}
	if !slices.Equal(c.Command, []string{"goodput"}) {
		t.Errorf("Job %s container %s: command %q, want [goodput] (the image's /usr/local/bin/goodput)", j.Name, c.Name, c.Command)
	}
	for _, e := range c.Env {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && e.Name != "OPENAI_API_KEY" {
			t.Errorf("Job %s container %s: unexpected Secret-backed variable %s", j.Name, c.Name, e.Name)
		}
	}
}

// pinned reports whether an image reference names a version: a digest, or a
// tag other than latest.
func pinned(image string) bool {
	if strings.Contains(image, "@sha256:") {
		return true
	}
	slash := strings.LastIndexByte(image, '/')
	colon := strings.LastIndexByte(image, ':')
	return colon > slash && image[colon+1:] != "" && image[colon+1:] != "latest"
}

// checkBenchJob holds for the Job that runs the load.
func checkBenchJob(t *testing.T, r *rendered, j *batchv1.Job) {
	t.Helper()
	spec := &j.Spec.Template.Spec
	main := container(spec, "goodput")
	indexed := j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batchv1.IndexedCompletion
	runtime := map[string]string{}
	if indexed {
		runtime["JOB_COMPLETION_INDEX"] = "0"
	}

	// The labels come back through the downward API: a volume with the
	// whole label set, and BENCH_RUN_ID from the bench/run-id label.
	podinfo := ""
	for _, v := range spec.Volumes {
		if v.DownwardAPI == nil {
			continue
		}
		for _, it := range v.DownwardAPI.Items {
			if it.Path == "labels" && it.FieldRef != nil && it.FieldRef.FieldPath == "metadata.labels" {
				podinfo = v.Name
			}
		}
	}
	if podinfo == "" {
		t.Fatalf("Job %s: no downwardAPI volume with metadata.labels at path labels", j.Name)
	}
	if m := mount(main, podinfo); m == nil || m.MountPath != "/etc/podinfo" || !m.ReadOnly {
		t.Errorf("Job %s: the downward API volume must be mounted read-only at /etc/podinfo, got %s", j.Name, yamlOf(m))
	}
	if !envFromLabel(main, "BENCH_RUN_ID", "bench/run-id") {
		t.Errorf("Job %s: env BENCH_RUN_ID must come from fieldRef metadata.labels['bench/run-id']", j.Name)
	}

	// The results volume: a PVC from the build, mounted read-write at /results.
	res := mountAt(main, "/results")
	if res == nil || res.ReadOnly || res.SubPath != "" {
		t.Fatalf("Job %s: want the results volume mounted read-write at /results, got %s", j.Name, yamlOf(res))
	}
	claim := claimOf(spec, res.Name)
	if _, ok := r.pvcs[claim]; !ok {
		t.Errorf("Job %s: /results is not a PersistentVolumeClaim of the build (claim %q)", j.Name, claim)
	}
	// The tokenizer: tokenizers/ of the same volume, read-only at /models
	// (deploy/README.md uploads it there), in the warmup and the run.
	for _, c := range allContainers(spec) {
		if m := mountAt(c, "/models"); m == nil || m.Name != res.Name || m.SubPath != "tokenizers" || !m.ReadOnly {
			t.Errorf("Job %s container %s: want the results volume's tokenizers/ read-only at /models, got %s", j.Name, c.Name, yamlOf(m))
		}
	}
	// `kubectl apply -k DIR -l app.kubernetes.io/component=results` creates
	// that volume and nothing else.
	var selected []string
	for _, objs := range [][]metav1.Object{metaOf(r.jobs), metaOf(slices.Collect(maps.Values(r.pvcs))),
		metaOf(slices.Collect(maps.Values(r.sas))), metaOf(slices.Collect(maps.Values(r.configMaps)))} {
		for _, o := range objs {
			if o.GetLabels()["app.kubernetes.io/component"] == "results" {
				selected = append(selected, o.GetName())
			}
		}
	}
	if !slices.Equal(selected, []string{claim}) {
		t.Errorf("the selector app.kubernetes.io/component=results picks %q, want only the results volume %q", selected, claim)
	}

	// The command line as the kubelet hands it to goodput.
	if !slices.Contains(main.Args, "--run-id=$(BENCH_RUN_ID)") || !slices.Contains(main.Args, "--labels-file=/etc/podinfo/labels") {
		t.Errorf("Job %s: goodput args must hold --run-id=$(BENCH_RUN_ID) and --labels-file=/etc/podinfo/labels: %q", j.Name, main.Args)
	}
	cl := mustCmdline(t, r, &j.Spec.Template, main, runtime)
	if cl.sub != "benchmark" {
		t.Errorf("Job %s: goodput %s, want goodput benchmark", j.Name, cl.sub)
	}
	if got := cl.one(t, "run-id"); got != j.Spec.Template.Labels["bench/run-id"] {
		t.Errorf("Job %s: --run-id %q, want the bench/run-id label %q", j.Name, got, j.Spec.Template.Labels["bench/run-id"])
	}
	wantData := "prompt_tokens=" + j.Labels["bench/isl"] + ",output_tokens=" + j.Labels["bench/osl"]
	if got := cl.one(t, "data"); got != wantData {
		t.Errorf("Job %s: --data %q, want %q (from the bench/isl and bench/osl labels)", j.Name, got, wantData)
	}
	if got := cl.one(t, "max-concurrency"); got != j.Labels["bench/concurrency"] {
		t.Errorf("Job %s: --max-concurrency %q, want the bench/concurrency label %q", j.Name, got, j.Labels["bench/concurrency"])
	}
	for _, f := range []string{"target", "model", "rate-type", "max-seconds", "slo", "processor"} {
		if cl.one(t, f) == "" {
			t.Errorf("Job %s: --%s is empty", j.Name, f)
		}
	}
	if _, err := strconv.ParseFloat(cl.one(t, "max-seconds"), 64); err != nil {
		t.Errorf("Job %s: --max-seconds: %v", j.Name, err)
	}
	checkPathMounted(t, j, main, "processor", cl.one(t, "processor"))
	checkPathMounted(t, j, main, "labels-file", cl.one(t, "labels-file"))
	if indexed {
		if got := cl.one(t, "output-path"); !strings.HasPrefix(got, "/results/") {
			t.Errorf("Job %s: --output-path %q is not on the results volume", j.Name, got)
		}
	} else {
		if got := cl.one(t, "output-dir"); got != "/results" {
			t.Errorf("Job %s: --output-dir %q, want /results", j.Name, got)
		}
		// One process measures load, energy and cost in one window.
		for _, f := range telemetryFlags {
			if cl.one(t, f) == "" {
				t.Errorf("Job %s: --%s is empty: the scorecard needs it", j.Name, f)
			}
		}
		if !slices.Contains(strings.Split(cl.one(t, "outputs"), ","), "scorecard") {
			t.Errorf("Job %s: --outputs %q has no scorecard", j.Name, cl.one(t, "outputs"))
		}
		if j.Spec.Parallelism != nil && *j.Spec.Parallelism != 1 || j.Spec.Completions != nil && *j.Spec.Completions != 1 {
			t.Errorf("Job %s: one pod per run (two pods would write the same run directory)", j.Name)
		}
		if cl.has("shard-count") || cl.has("shard-index") {
			t.Errorf("Job %s: shard flags outside an Indexed Job", j.Name)
		}
	}

	// The warmup: an init container of concurrent load, its length the
	// bench/warmup-seconds label, keeping nothing.
	if len(spec.InitContainers) != 1 || spec.InitContainers[0].Name != "warmup" {
		t.Fatalf("Job %s: want one init container named warmup, got %d", j.Name, len(spec.InitContainers))
	}
	warm := mustCmdline(t, r, &j.Spec.Template, &spec.InitContainers[0], runtime)
	if warm.sub != "benchmark" || warm.one(t, "rate-type") != "concurrent" || warm.one(t, "outputs") != "console" {
		t.Errorf("Job %s: warmup is not a concurrent benchmark with console output only: %v", j.Name, warm.flags)
	}
	if got, want := warm.one(t, "max-seconds"), j.Labels["bench/warmup-seconds"]; got != want {
		t.Errorf("Job %s: warmup --max-seconds %q, want the bench/warmup-seconds label %q", j.Name, got, want)
	}
	for _, f := range []string{"target", "model", "data", "processor"} {
		if warm.one(t, f) != cl.one(t, f) {
			t.Errorf("Job %s: warmup --%s %q differs from the run's %q", j.Name, f, warm.one(t, f), cl.one(t, f))
		}
	}
	checkPathMounted(t, j, &spec.InitContainers[0], "processor", warm.one(t, "processor"))
	// The warmup is no shard, even in an Indexed Job's pod: no shard flags,
	// and no shard count or shared start in its environment (with them it
	// would wait for the shards' start and make every shard late).
	for _, f := range []string{"shard-index", "shard-count", "start-at"} {
		if warm.has(f) {
			t.Errorf("Job %s: the warmup passes --%s: it is not a shard", j.Name, f)
		}
	}
	if we, err := containerEnv(r, &j.Spec.Template, &spec.InitContainers[0], runtime); err != nil {
		t.Errorf("Job %s: %v", j.Name, err)
	} else {
		for _, k := range []string{"GOODPUT_SHARD_COUNT", "GOODPUT_START_AT"} {
			if v := we.env[k]; v != "" {
				t.Errorf("Job %s: the warmup's environment has %s=%q: it is not a shard (blank it in its env)", j.Name, k, v)
			}
		}
	}
	if got := cl.flags["label"]; !slices.Contains(got, "warmup_seconds="+j.Labels["bench/warmup-seconds"]) {
		t.Errorf("Job %s: the run does not record the warmup's length: --label %q", j.Name, got)
	}
}

func metaOf[T metav1.Object](objs []T) []metav1.Object {
	out := make([]metav1.Object, len(objs))
	for i, o := range objs {
		out[i] = o
	}
	return out
}

func mount(c *corev1.Container, volume string) *corev1.VolumeMount {
	for i := range c.VolumeMounts {
		if c.VolumeMounts[i].Name == volume {
			return &c.VolumeMounts[i]
		}
	}
	return nil
}

func mountAt(c *corev1.Container, dir string) *corev1.VolumeMount {
	for i := range c.VolumeMounts {
		if c.VolumeMounts[i].MountPath == dir {
			return &c.VolumeMounts[i]
		}
	}
	return nil
}

func claimOf(spec *corev1.PodSpec, volume string) string {
	for _, v := range spec.Volumes {
		if v.Name == volume && v.PersistentVolumeClaim != nil {
			return v.PersistentVolumeClaim.ClaimName
		}
	}
	return ""
}

func envFromLabel(c *corev1.Container, name, label string) bool {
	for _, e := range c.Env {
		if e.Name == name {
			return e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.labels['"+label+"']"
		}
	}
	return false
}

// checkPathMounted fails when a file path given to goodput is absolute and
// lies on no volume of the container (the root filesystem is read-only and
// holds no data).
func checkPathMounted(t *testing.T, j *batchv1.Job, c *corev1.Container, flag, p string) {
	t.Helper()
	if !path.IsAbs(p) {
		return // a built-in tokenizer name, for instance
	}
	for _, m := range c.VolumeMounts {
		if strings.HasPrefix(p, strings.TrimSuffix(m.MountPath, "/")+"/") {
			return
		}
	}
	t.Errorf("Job %s container %s: --%s %s is on no volume", j.Name, c.Name, flag, p)
}

// The base is the classic GuideLLM benchmark Job of the article, run by
// goodput: the same labels and values, the same target, load and data, the
// warmup, the output under /results named by the run id; plus what goodput
// adds in the same process (the SLO, telemetry and cost). The expected
// command lines are written out by hand.
func TestBaseIsTheClassicJob(t *testing.T) {
	r := mustRender(t, "base")
	j := r.benchJob(t)
	if j.Name != "bench-llama3-70b-fp8-h100x4-20260616" {
		t.Errorf("Job name %q", j.Name)
	}
	wantLabels := map[string]string{
		"bench/model": "llama3-70b", "bench/precision": "fp8", "bench/engine": "vllm-0.9.1",
		"bench/hardware": "h100x4-sxm", "bench/isl": "1024", "bench/osl": "256", "bench/concurrency": "32",
		"bench/tokenizer": "meta-llama-3-tokenizer-v3", "bench/run-id": "20260616T1200", "bench/warmup-seconds": "60",
	}
	if !maps.Equal(j.Labels, wantLabels) {
		t.Errorf("Job labels:\n got %v\nwant %v", j.Labels, wantLabels)
	}
	if !maps.Equal(j.Spec.Template.Labels, wantLabels) {
		t.Errorf("pod template labels:\n got %v\nwant %v", j.Spec.Template.Labels, wantLabels)
	}
	if got := j.Spec.Template.Spec.ServiceAccountName; got != "bench-runner" {
		t.Errorf("serviceAccountName %q", got)
	}
	if got := claimOf(&j.Spec.Template.Spec, "results"); got != "bench-results-pvc" {
		t.Errorf("results claim %q", got)
	}
	run := mustResolve(t, r, &j.Spec.Template, container(&j.Spec.Template.Spec, "goodput"), nil)
	wantRun := []string{
		"goodput", "benchmark",
		"--target=http://vllm-svc.inference.svc.cluster.local:8000",
		"--model=meta-llama/Meta-Llama-3-70B-Instruct",
		"--rate-type=sweep",
		"--rate=10",
		"--max-seconds=120",
		"--warmup=10%",
		"--max-concurrency=32",
		"--data=prompt_tokens=1024,output_tokens=256",
		"--processor=/models/tokenizer.json",
		"--slo=ttft_p99=500ms,itl_p95=50ms,error_rate=0.5%",
		"--dcgm-url=http://dcgm-exporter.monitoring:9400/metrics",
		"--prometheus=http://prometheus.monitoring.svc:9090",
		"--gpu-cost-per-hour=10.8",
		"--currency=EUR",
		"--output-dir=/results",
		"--run-id=20260616T1200",
		"--labels-file=/etc/podinfo/labels",
		"--label=warmup_seconds=60",
		"--outputs=json,csv,jsonl,html,scorecard",
		"--metrics-addr=:9090",
		"--log-format=json",
		"--disable-progress",
	}
	if !slices.Equal(run, wantRun) {
		t.Errorf("run command line:\n got %q\nwant %q", run, wantRun)
	}
	warm := mustResolve(t, r, &j.Spec.Template, container(&j.Spec.Template.Spec, "warmup"), nil)
	wantWarm := []string{
		"goodput", "benchmark",
		"--target=http://vllm-svc.inference.svc.cluster.local:8000",
		"--model=meta-llama/Meta-Llama-3-70B-Instruct",
		"--rate-type=concurrent",
		"--rate=4",
		"--max-seconds=60",
		"--data=prompt_tokens=1024,output_tokens=256",
		"--processor=/models/tokenizer.json",
		"--outputs=console",
		"--log-format=json",
		"--disable-progress",
	}
	if !slices.Equal(warm, wantWarm) {
		t.Errorf("warmup command line:\n got %q\nwant %q", warm, wantWarm)
	}
	if got := *j.Spec.ActiveDeadlineSeconds; got != 3600 {
		t.Errorf("activeDeadlineSeconds %d, want 3600 (the article's kubectl wait --timeout)", got)
	}
}

// runShape is what the length of a run depends on.
type runShape struct {
	rateType   string
	rate       string
	maxSeconds float64
	warmup     float64
	deadline   time.Duration
}

func shapeOf(t *testing.T, dir string) runShape {
	t.Helper()
	r := mustRender(t, dir)
	j := r.benchJob(t)
	cl := mustCmdline(t, r, &j.Spec.Template, container(&j.Spec.Template.Spec, "goodput"), map[string]string{"JOB_COMPLETION_INDEX": "0"})
	maxSec, err := strconv.ParseFloat(cl.one(t, "max-seconds"), 64)
	if err != nil {
		t.Fatalf("%s: --max-seconds: %v", dir, err)
	}
	warm, err := strconv.ParseFloat(j.Labels["bench/warmup-seconds"], 64)
	if err != nil {
		t.Fatalf("%s: bench/warmup-seconds: %v", dir, err)
	}
	return runShape{
		rateType: cl.one(t, "rate-type"), rate: cl.one(t, "rate"), maxSeconds: maxSec, warmup: warm,
		deadline: time.Duration(*j.Spec.ActiveDeadlineSeconds) * time.Second,
	}
}

// The ci overlay is a quick knee search, the release overlay a full sweep
// with long rounds; each Job's deadline leaves room for what it runs.
func TestCIShorterThanRelease(t *testing.T) {
	base, ci, rel := shapeOf(t, "base"), shapeOf(t, "overlays/ci"), shapeOf(t, "overlays/release")
	if ci.rateType != "knee" {
		t.Errorf("ci: --rate-type %q, want knee", ci.rateType)
	}
	if rel.rateType != "sweep" {
		t.Errorf("release: --rate-type %q, want sweep", rel.rateType)
	}
	if !(ci.maxSeconds < base.maxSeconds && base.maxSeconds < rel.maxSeconds) {
		t.Errorf("round length: ci %vs, base %vs, release %vs; want ci < base < release", ci.maxSeconds, base.maxSeconds, rel.maxSeconds)
	}
	if !(ci.deadline < base.deadline && base.deadline < rel.deadline) {
		t.Errorf("deadline: ci %v, base %v, release %v; want ci < base < release", ci.deadline, base.deadline, rel.deadline)
	}
	if ci.deadline > 15*time.Minute {
		t.Errorf("ci: deadline %v; a CI run takes a few minutes", ci.deadline)
	}
	if ci.warmup < 60 || rel.warmup < 60 {
		t.Errorf("warmup: ci %vs, release %vs; want at least 60 s (a cold server biases the first rounds)", ci.warmup, rel.warmup)
	}
	// A sweep of N rounds runs N rounds of --max-seconds after the warmup.
	for name, s := range map[string]runShape{"base": base, "release": rel} {
		rounds, err := strconv.Atoi(s.rate)
		if err != nil || rounds < 2 {
			t.Errorf("%s: --rate %q, want the number of sweep rounds (≥ 2)", name, s.rate)
			continue
		}
		need := time.Duration((float64(rounds)*s.maxSeconds + s.warmup) * float64(time.Second))
		if need >= s.deadline {
			t.Errorf("%s: %d rounds of %vs and %vs of warmup take %v, beyond the %v deadline", name, rounds, s.maxSeconds, s.warmup, need, s.deadline)
		}
	}
	if ci.deadline <= time.Duration(ci.warmup+4*ci.maxSeconds)*time.Second {
		t.Errorf("ci: deadline %v leaves no room for a few %vs knee rounds after %vs of warmup", ci.deadline, ci.maxSeconds, ci.warmup)
	}
}

// The indexed overlay spreads one run over N pods: an Indexed Job with
// completions = parallelism = --shard-count, the index from
// JOB_COMPLETION_INDEX, one shared --start-at, one shard report per pod on a
// ReadWriteMany volume; the merge Job reads exactly those reports.
func TestIndexedOverlay(t *testing.T) {
	r := mustRender(t, "overlays/indexed")
	j := r.benchJob(t)
	if j.Spec.CompletionMode == nil || *j.Spec.CompletionMode != batchv1.IndexedCompletion {
		t.Fatalf("completionMode %v, want Indexed", j.Spec.CompletionMode)
	}
	if j.Spec.Completions == nil || j.Spec.Parallelism == nil || *j.Spec.Completions != *j.Spec.Parallelism {
		t.Fatalf("completions %v, parallelism %v: want equal (every shard runs at once)", j.Spec.Completions, j.Spec.Parallelism)
	}
	n := int(*j.Spec.Completions)
	if n < 2 {
		t.Fatalf("completions %d: an indexed run needs at least 2 pods", n)
	}
	// Pod hostnames are <job>-<index>: they must stay DNS labels.
	if msgs := validation.IsDNS1123Label(j.Name + "-" + strconv.Itoa(n-1)); len(msgs) > 0 {
		t.Errorf("pod hostname of the last shard: %v", msgs)
	}
	main := container(&j.Spec.Template.Spec, "goodput")
	if !slices.Contains(main.Args, "--shard-index=$(JOB_COMPLETION_INDEX)") {
		t.Errorf("goodput args must take --shard-index from JOB_COMPLETION_INDEX: %q", main.Args)
	}
	runID := j.Labels["bench/run-id"]
	var shardReports []string
	var startAt string
	for i := range n {
		cl := mustCmdline(t, r, &j.Spec.Template, main, map[string]string{"JOB_COMPLETION_INDEX": strconv.Itoa(i)})
		if got := cl.one(t, "shard-count"); got != strconv.Itoa(n) {
			t.Errorf("shard %d: --shard-count %s, want %d (= completions)", i, got, n)
		}
		if got := cl.one(t, "shard-index"); got != strconv.Itoa(i) {
			t.Errorf("shard %d: --shard-index %s", i, got)
		}
		if i == 0 {
			startAt = cl.one(t, "start-at")
		} else if got := cl.one(t, "start-at"); got != startAt {
			t.Errorf("shard %d: --start-at %s, shard 0 has %s: all shards start together", i, got, startAt)
		}
		out := cl.one(t, "output-path")
		if want := "/results/" + runID + "/shard-" + strconv.Itoa(i) + ".json"; out != want {
			t.Errorf("shard %d: --output-path %q, want %q", i, out, want)
		}
		shardReports = append(shardReports, out)
		for _, f := range telemetryFlags {
			if cl.has(f) {
				t.Errorf("shard %d: --%s: a shard sees a fraction of the tokens, its scorecard would be wrong", i, f)
			}
		}
		if slices.Contains(strings.Split(cl.one(t, "outputs"), ","), "scorecard") {
			t.Errorf("shard %d: --outputs has a scorecard", i)
		}
	}
	// The run id names the start instant, so the two are changed together.
	at, err := time.Parse(time.RFC3339, startAt)
	if err != nil {
		t.Fatalf("--start-at %q: %v", startAt, err)
	}
	if at.Location() != time.UTC || !strings.HasPrefix(runID, at.Format("20060102T1504")) {
		t.Errorf("--start-at %s and bench/run-id %s: the run id must begin with the UTC start instant %s", startAt, runID, at.UTC().Format("20060102T1504"))
	}

	// Shards on several nodes share the volume.
	claim := claimOf(&j.Spec.Template.Spec, mountAt(main, "/results").Name)
	if pvc := r.pvcs[claim]; pvc == nil || !slices.Equal(pvc.Spec.AccessModes, []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}) {
		t.Errorf("PVC %s: want accessModes [ReadWriteMany] for pods on several nodes", claim)
	}

	// The merge Job: suspended until the shards are done, same run metadata,
	// same volume, merging exactly the shard reports.
	m := r.mergeJob()
	if m == nil {
		t.Fatal("no merge Job")
	}
	if m.Spec.Suspend == nil || !*m.Spec.Suspend {
		t.Errorf("merge Job %s: want suspend: true (resumed after the shard Job completes)", m.Name)
	}
	if j.Spec.Suspend != nil && *j.Spec.Suspend {
		t.Errorf("shard Job %s is suspended", j.Name)
	}
	for _, k := range benchLabels {
		if m.Labels[k] != j.Labels[k] {
			t.Errorf("merge Job label %s=%q, shard Job has %q", k, m.Labels[k], j.Labels[k])
		}
	}
	mc := container(&m.Spec.Template.Spec, "merge")
	if got := claimOf(&m.Spec.Template.Spec, mountAt(mc, "/results").Name); got != claim {
		t.Errorf("merge Job reads claim %q, the shards write %q", got, claim)
	}
	cl := mustCmdline(t, r, &m.Spec.Template, mc, nil)
	if cl.sub != "merge" {
		t.Errorf("merge Job runs goodput %s", cl.sub)
	}
	if !slices.Equal(cl.positional, shardReports) {
		t.Errorf("merge inputs:\n got %q\nwant %q (the shard reports)", cl.positional, shardReports)
	}
	if got, want := cl.one(t, "o"), "/results/"+runID+"/benchmarks.json"; got != want {
		t.Errorf("merge -o %q, want %q", got, want)
	}
}

// The same Job name is the same run: no two kustomizations may render the
// same Job name or, for different runs, the same run id.
func TestRunsAreDistinct(t *testing.T) {
	names := map[string]string{}
	runIDs := map[string]string{}
	for _, dir := range kustomizations {
		r := mustRender(t, dir)
		for _, j := range r.jobs {
			if other, ok := names[j.Name]; ok {
				t.Errorf("Job %s is rendered by %s and %s", j.Name, other, dir)
			}
			names[j.Name] = dir
		}
		id := r.benchJob(t).Labels["bench/run-id"]
		if other, ok := runIDs[id]; ok {
			t.Errorf("run id %s is used by %s and %s", id, other, dir)
		}
		runIDs[id] = dir
	}
}
