package metadata

import (
	"context"
	"fmt"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/telemetry"
)

// Default time limits of Collect.
const (
	DefaultProbeTimeout    = 3 * time.Second
	DefaultHardwareTimeout = 5 * time.Second
)

// Probe says how to ask the server about itself.
type Probe struct {
	// BaseURL is the server's base URL as loadgen.NormalizeTarget returns
	// it (no trailing "/v1"). Empty skips every server probe.
	BaseURL string
	// Client sends the probes; nil uses a client that does not follow
	// redirects. Use one with the run's TLS settings (--ca-file,
	// --insecure) for https targets.
	Client *http.Client
	// Header is sent with every probe: the Authorization header and the
	// run's extra headers. It is never recorded.
	Header http.Header
	// Secrets are removed from anything Collect records or notes (the API
	// key, URL credentials); so are the values of Header's credential
	// headers (Authorization, Cookie, X-Api-Key …).
	Secrets []string
	// Models is what GET /v1/models listed at the readiness check
	// (loadgen.Client.Ready), used when the probe's own GET /v1/models
	// fails; nil: the probe's answer only.
	Models []loadgen.ModelInfo
	// Model is the model name the run sends.
	Model string
	// Timeout bounds all probes together (they run concurrently); 0 means
	// DefaultProbeTimeout.
	Timeout time.Duration
}

// Inputs are the facts the run itself determines, and the user's labels.
type Inputs struct {
	// Labels are the --labels-file lines followed by the --label flags (a
	// later label for the same field wins). Labels naming a field (see
	// LabelField) declare it; the others are kept as free labels.
	Labels []Label
	// Tokenizer and TokenizerHash identify the tokenizer goodput loaded
	// (tokenize.Tokenizer Name and Hash); empty when none was used.
	Tokenizer, TokenizerHash string
	// TokenizerSource names where the tokenizer came from (default
	// "--processor").
	TokenizerSource string
	// ISL and OSL are the configured mean input and output lengths in
	// tokens, from the data description (0: unknown, e.g. a dataset file;
	// Finish then fills them from the measured means). Data is that
	// description.
	ISL, OSL float64
	Data     string
	// SLO is the canonical SLO text; SLODefault says it is the default
	// one (no --slo given).
	SLO        string
	SLODefault bool
	// Warmup is the warmup as given ("30s", "10%", …), "none" when the
	// run has none; "" means unknown.
	Warmup string
	// RunID is the run's id; RunIDGenerated says goodput chose it.
	RunID          string
	RunIDGenerated bool
	// Version and Commit are goodput's build version and commit
	// (main.version, main.commit). A commit of "" or "unknown" is looked
	// up in the binary's Go build information (vcs.revision).
	Version, Commit string
	// DetectHardware describes the local GPUs; nil uses
	// telemetry.DescribeHardware. It is not called when a hardware label
	// is given.
	DetectHardware func(context.Context) telemetry.Hardware
	// HardwareTimeout bounds DetectHardware; 0 means
	// DefaultHardwareTimeout.
	HardwareTimeout time.Duration
}

// Result is what Collect found.
type Result struct {
	// Metadata goes into report.RunExtras.Metadata. Its Missing list
	// leaves out max_concurrency until Finish has seen the benchmarks.
	Metadata *report.RunMetadata
	// Notes explain, for the console, why fields are missing (which
	// probe failed and how) and where labels contradict the server or the
	// run. They never contain credentials.
	Notes []string
}

// Collect gathers the run metadata before any load is sent: it probes the
// server (GET /version, /v1/models, /metrics and every engine's info
// endpoint: /info, /get_server_info, /props, /api/version, all at once,
// within Probe.Timeout), detects local GPUs when no hardware
// label is given, and merges that with the inputs and labels. A failed
// probe never fails Collect: the field it would have filled is left
// empty and listed in Missing, and Notes says why. Collect fails only on
// an invalid label or when ctx is cancelled.
//
// Precedence: a label wins for what identifies the server (engine,
// engine_version, model, model_revision, precision, hardware; a
// disagreement with the server is noted); the run wins for its own facts
// (tokenizer, ISL, OSL, max concurrency, run id, SLO, warmup, goodput
// version): a label contradicting them is kept among the free labels and
// noted. Fields the run cannot know fall back to labels.
func Collect(ctx context.Context, p Probe, in Inputs) (*Result, error) {
	decl, free, err := declarations(in.Labels)
	if err != nil {
		return nil, err
	}
	c := &collector{decl: decl, md: &report.RunMetadata{Labels: free, Sources: map[string]string{}}}
	c.redact = redactor(p)

	var facts serverFacts
	var hw telemetry.Hardware
	var wg sync.WaitGroup
	if p.BaseURL != "" {
		wg.Add(1)
		go func() {
			defer wg.Done()
			timeout := p.Timeout
			if timeout <= 0 {
				timeout = DefaultProbeTimeout
			}
			pctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			client := p.Client
			if client == nil {
				client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			}
			pr := &prober{client: client, base: strings.TrimRight(p.BaseURL, "/"), header: p.Header, redact: c.redact}
			facts = pr.probeServer(pctx, true)
		}()
	}
	_, hwDeclared := decl[FieldHardware]
	if !hwDeclared {
		wg.Add(1)
		go func() {
			defer wg.Done()
			detect := in.DetectHardware
			if detect == nil {
				detect = telemetry.DescribeHardware
			}
			timeout := in.HardwareTimeout
			if timeout <= 0 {
				timeout = DefaultHardwareTimeout
			}
			hctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			hw = detect(hctx)
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !facts.modelsOK && p.Models != nil {
		for _, m := range p.Models {
			facts.models = append(facts.models, modelEntry{ID: m.ID, Root: m.Root, OwnedBy: m.OwnedBy})
		}
		facts.modelsOK = true
	}
	if p.BaseURL == "" {
		c.note("no server probed (no target URL)")
	}
	c.notes = append(c.notes, facts.notes...)

	c.server(facts, p.Model)
	c.run(in)
	c.hardware(hw, hwDeclared)

	c.md.Missing = missing(c.md, true)
	c.scrub()
	return &Result{Metadata: c.md, Notes: c.notes}, nil
}

// collector fills one RunMetadata.
type collector struct {
	decl   map[string]declaration
	md     *report.RunMetadata
	notes  []string
	redact func(string) string
}

func (c *collector) note(format string, args ...any) {
	c.notes = append(c.notes, fmt.Sprintf(format, args...))
}

// label returns the declaration of a field, if any.
func (c *collector) label(field string) (declaration, bool) {
	d, ok := c.decl[field]
	return d, ok
}

// set records a field's source.
func (c *collector) set(field, source string) { c.md.Sources[field] = source }

// cand is a candidate value and where it came from.
type cand struct{ value, source string }

// first returns the first candidate with a value.
func first(cs ...cand) (cand, bool) {
	for _, x := range cs {
		if x.value != "" {
			return x, true
		}
	}
	return cand{}, false
}

// server fills the fields that describe the server: engine and version,
// model and revision, precision.
func (c *collector) server(f serverFacts, model string) {
	md := c.md
	// The /v1/models entry of the run's model (the first one when the run
	// named none).
	var entry *modelEntry
	for i := range f.models {
		if f.models[i].ID == model || (model == "" && i == 0) {
			entry = &f.models[i]
			break
		}
	}

	// Engine.
	var probed []cand
	for _, in := range f.infos {
		probed = append(probed, cand{in.engine, "GET " + in.path})
	}
	if entry != nil {
		if e := canonicalEngine(entry.OwnedBy); e != "" {
			probed = append(probed, cand{e, fmt.Sprintf("GET /v1/models owned_by %q", entry.OwnedBy)})
		}
	}
	for _, h := range f.headers {
		probed = append(probed, cand{h.engine, fmt.Sprintf("%s header of GET %s", h.header, h.path)})
	}
	if f.metricEngine != "" {
		probed = append(probed, cand{f.metricEngine, fmt.Sprintf("GET /metrics (%s* families)", f.metricPrefix)})
	}
	serverEngine, _ := first(probed...)
	labelVersion := ""
	if d, ok := c.label(FieldEngine); ok {
		name, ver := splitEngine(d.Value)
		md.Engine = name
		c.set(FieldEngine, d.Source)
		if ver != "" {
			labelVersion = ver
		}
		if serverEngine.value != "" && canonicalEngine(name) != serverEngine.value && !strings.EqualFold(name, serverEngine.value) {
			c.note("engine: label says %q, the server says %q (%s); kept the label", name, serverEngine.value, serverEngine.source)
		}
	} else if serverEngine.value != "" {
		md.Engine = serverEngine.value
		c.set(FieldEngine, serverEngine.source)
	}
	engine := canonicalEngine(md.Engine)

	// Engine version: the declared one, else the engine's own answer.
	var declared cand
	if d, ok := c.label(FieldEngineVersion); ok {
		declared = cand{d.Value, d.Source}
	} else if labelVersion != "" {
		declared = cand{labelVersion, c.decl[FieldEngine].Source}
	}
	var vc []cand
	for _, in := range f.infos {
		if in.engine == engine {
			vc = append(vc, cand{in.Version.Value, in.source(in.Version)})
		}
	}
	for _, h := range f.headers {
		if h.engine == engine {
			vc = append(vc, cand{h.version, fmt.Sprintf("%s header of GET %s", h.header, h.path)})
		}
	}
	if f.buildVersion != "" && f.metricEngine == engine {
		vc = append(vc, cand{f.buildVersion, fmt.Sprintf("GET /metrics %s{version}", f.buildFamily)})
	}
	if f.version != "" {
		if versionEndpointEngine(engine) {
			vc = append(vc, cand{f.version, "GET /version"})
		} else {
			who := "unknown"
			if md.Engine != "" {
				who = md.Engine
			}
			c.note("GET /version answered %q but the engine is %s, whose version it need not be; not recorded", f.version, who)
		}
	}
	probedVersion, _ := first(vc...)
	if engine != "" {
		probedVersion.value = trimEnginePrefix(probedVersion.value, engine)
	}
	if v, ok := first(declared, probedVersion); ok {
		md.EngineVersion = v.value
		c.set(FieldEngineVersion, v.source)
		if declared.value != "" && probedVersion.value != "" && declared.value != probedVersion.value {
			c.note("engine_version: label says %q, the server says %q (%s); kept the label", declared.value, probedVersion.value, probedVersion.source)
		}
	}

	// Slots: where the engine's info endpoint says.
	for _, in := range f.infos {
		if n, err := strconv.Atoi(in.Slots.Value); err == nil && n > 0 && in.engine == engine {
			md.ServerSlots = report.Int(n)
			c.set(FieldServerSlots, in.source(in.Slots))
			break
		}
	}

	// Model: the weights behind the served name where the server says
	// (a Hugging Face id or cache snapshot in root / model_id /
	// model_path), else the served name.
	var mc []cand
	if entry != nil && entry.Root != "" && entry.Root != entry.ID {
		mc = append(mc, cand{entry.Root, fmt.Sprintf("GET /v1/models root (served as %q)", entry.ID)})
	}
	for _, in := range f.infos {
		mc = append(mc, cand{in.Model.Value, in.source(in.Model)})
	}
	var serverModel, snapshotRev cand
	for _, x := range mc {
		if m := hfSnapshotRe.FindStringSubmatch(x.value); m != nil {
			serverModel = cand{m[1] + "/" + m[2], x.source + ", a Hugging Face cache snapshot"}
			snapshotRev = cand{m[3], x.source + " (Hugging Face cache snapshot)"}
			break
		}
		if hfRepoRe.MatchString(x.value) {
			serverModel = x
			break
		}
	}
	if serverModel.value == "" {
		switch {
		case entry != nil:
			serverModel = cand{entry.ID, "GET /v1/models id"}
		case model != "":
			serverModel = cand{model, "--model"}
		}
	}
	if d, ok := c.label(FieldModel); ok {
		md.Model = d.Value
		c.set(FieldModel, d.Source)
		if serverModel.value != "" && d.Value != serverModel.value && d.Value != model {
			c.note("model: label says %q, the server says %q (%s); kept the label", d.Value, serverModel.value, serverModel.source)
		}
	} else if serverModel.value != "" {
		md.Model = serverModel.value
		c.set(FieldModel, serverModel.source)
	}

	// Model revision.
	var rc []cand
	if d, ok := c.label(FieldModelRevision); ok {
		rc = append(rc, cand{d.Value, d.Source})
	}
	for _, in := range f.infos {
		rc = append(rc, cand{in.ModelRevision.Value, in.source(in.ModelRevision)})
	}
	if entry != nil {
		if v, key := entry.revision(); v != "" {
			rc = append(rc, cand{cleanValue(v), "GET /v1/models " + key})
		}
	}
	rc = append(rc, snapshotRev)
	if v, ok := first(rc...); ok {
		md.ModelRevision = v.value
		c.set(FieldModelRevision, v.source)
	}

	// Precision: declared, else what the server says, else inferred from
	// the model's names.
	var pc []cand
	if d, ok := c.label(FieldPrecision); ok {
		pc = append(pc, cand{strings.ToLower(d.Value), d.Source})
	}
	quantGeneric := ""
	for _, in := range f.infos {
		q, generic := strings.ToLower(in.Quantization.Value), false
		switch {
		case q == "" || q == "none" || q == "null":
		case genericQuantization[q]:
			quantGeneric, generic = q, true
		case q == "modelopt_fp4":
			pc = append(pc, cand{"nvfp4", in.source(in.Quantization) + " " + strconv.Quote(in.Quantization.Value)})
		default:
			pc = append(pc, cand{q, in.source(in.Quantization)})
		}
		if !generic {
			pc = append(pc, cand{normalizeDtype(in.Dtype.Value), in.source(in.Dtype)})
		}
	}
	if v, ok := first(pc...); ok {
		md.Precision = v.value
		c.set(FieldPrecision, v.source)
		return
	}
	names := []string{md.Model}
	if entry != nil {
		names = append(names, entry.ID, entry.Root)
	}
	for _, n := range names {
		if p, ok := InferPrecision(n); ok {
			md.Precision, md.PrecisionInferred = p, true
			src := fmt.Sprintf("inferred from the model name %q", n)
			if quantGeneric != "" {
				src += fmt.Sprintf(" (the server says quantization %q)", quantGeneric)
			}
			c.set(FieldPrecision, src)
			return
		}
	}
}

// run fills the fields the run determines, with labels as fallbacks.
func (c *collector) run(in Inputs) {
	md := c.md
	runText := func(field, value, source string) {
		d, declared := c.label(field)
		switch {
		case value != "":
			c.set(field, source)
			if declared && d.Value != value {
				c.keepConflict(d, value)
			}
		case declared:
			c.set(field, d.Source)
		}
	}
	// Tokenizer.
	tokSrc := in.TokenizerSource
	if tokSrc == "" {
		tokSrc = "--processor"
	}
	md.Tokenizer = in.Tokenizer
	if d, ok := c.label(FieldTokenizer); ok && md.Tokenizer == "" {
		md.Tokenizer = d.Value
	}
	runText(FieldTokenizer, in.Tokenizer, tokSrc)
	md.TokenizerHash = in.TokenizerHash
	if d, ok := c.label(FieldTokenizerHash); ok && md.TokenizerHash == "" {
		md.TokenizerHash = d.Value
	}
	runText(FieldTokenizerHash, in.TokenizerHash, tokSrc)

	// ISL, OSL.
	runNum := func(field string, value float64, dst *report.Float) {
		d, declared := c.label(field)
		switch {
		case value > 0:
			*dst = report.Float(value)
			c.set(field, "--data")
			if declared && d.num != value {
				c.keepConflict(d, strconv.FormatFloat(value, 'g', -1, 64))
			}
		case declared:
			*dst = report.Float(d.num)
			c.set(field, d.Source)
		}
	}
	runNum(FieldISL, in.ISL, &md.ISLTokens)
	runNum(FieldOSL, in.OSL, &md.OSLTokens)
	md.Data = in.Data

	// Max concurrency: declared now, replaced by the rounds in Finish.
	if d, ok := c.label(FieldMaxConcurrency); ok {
		md.MaxConcurrency = report.Int(d.num)
		c.set(FieldMaxConcurrency, d.Source)
	}

	// goodput's version and commit.
	md.GoodputVersion = in.Version
	if in.Version != "" {
		c.set(FieldGoodputVersion, "build (main.version)")
	}
	switch commit := strings.TrimSpace(in.Commit); {
	case commit != "" && commit != "unknown":
		md.GoodputCommit = commit
		c.set(FieldGoodputCommit, "build (main.commit)")
	default:
		if rev := BuildRevision(); rev != "" {
			md.GoodputCommit = rev
			c.set(FieldGoodputCommit, "Go build information (vcs.revision)")
		}
	}

	// SLO, warmup.
	md.SLO = in.SLO
	if in.SLO != "" {
		if in.SLODefault {
			c.set(FieldSLO, "default SLO (no --slo given)")
		} else {
			c.set(FieldSLO, "--slo")
		}
	}
	md.Warmup = in.Warmup
	if in.Warmup != "" {
		c.set(FieldWarmup, "--warmup")
	}

	// Run id.
	md.RunID = in.RunID
	if d, ok := c.label(FieldRunID); ok && md.RunID == "" {
		md.RunID = d.Value
	}
	src := "--run-id"
	if in.RunIDGenerated {
		src = "generated (UTC time and configuration hash)"
	}
	runText(FieldRunID, in.RunID, src)
}

// keepConflict keeps a label that contradicts the run among the free
// labels, under its own key, and notes it.
func (c *collector) keepConflict(d declaration, runValue string) {
	c.md.Labels[d.Key] = d.Value
	c.note("%s: label %s=%q disagrees with the run's %q; the run's value is recorded, the label kept as a free label", d.Source, d.Key, d.Value, runValue)
}

// hardware fills the hardware field from a label or the local GPUs.
func (c *collector) hardware(hw telemetry.Hardware, declared bool) {
	if declared {
		d := c.decl[FieldHardware]
		c.md.Hardware = d.Value
		c.set(FieldHardware, d.Source)
		return
	}
	if len(hw.GPUs) == 0 {
		why := "no GPU found on this host"
		if len(hw.Notes) > 0 {
			why += " (" + strings.Join(hw.Notes, "; ") + ")"
		}
		c.note("hardware: %s", why)
		return
	}
	c.md.Hardware = hw.String()
	c.set(FieldHardware, hw.Source+" on the host running goodput (set --label hardware=… if the server runs elsewhere)")
}

// scrub removes secrets from everything recorded and noted.
func (c *collector) scrub() {
	md := c.md
	for _, s := range []*string{&md.Engine, &md.EngineVersion, &md.Model, &md.ModelRevision, &md.Precision,
		&md.Tokenizer, &md.TokenizerHash, &md.Data, &md.Hardware, &md.SLO, &md.Warmup, &md.RunID} {
		*s = c.redact(*s)
	}
	for k, v := range md.Sources {
		md.Sources[k] = c.redact(v)
	}
	for i, n := range c.notes {
		c.notes[i] = c.redact(n)
	}
}

// redactor replaces the probe's secrets with "***": Probe.Secrets and the
// values of credential headers (Authorization, Proxy-Authorization,
// Cookie, and any header whose name contains key, token, secret, auth,
// password or session).
func redactor(p Probe) func(string) string {
	var olds []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		if len(s) >= 4 {
			olds = append(olds, s)
		}
	}
	for _, s := range p.Secrets {
		add(s)
	}
	for k, vs := range p.Header {
		if !credentialHeader(k) {
			continue
		}
		for _, v := range vs {
			add(v)
			if _, tok, ok := strings.Cut(v, " "); ok { // "Bearer KEY"
				add(tok)
			}
		}
	}
	return func(s string) string {
		for _, o := range olds {
			s = strings.ReplaceAll(s, o, "***")
		}
		return s
	}
}

// credentialHeader says a header may carry a credential.
func credentialHeader(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "authorization", "proxy-authorization", "cookie":
		return true
	}
	for _, w := range []string{"key", "token", "secret", "auth", "password", "session"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// BuildRevision is the commit the binary was built from, per Go's build
// information ("" when the build has none), with "-dirty" for a modified
// tree.
func BuildRevision() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "-dirty"
	}
	return rev
}
