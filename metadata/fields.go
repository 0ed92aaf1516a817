package metadata

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/report"
)

// Field names: the JSON keys of report.RunMetadata, as used in its Missing
// list and Sources map.
const (
	FieldEngine         = "engine"
	FieldEngineVersion  = "engine_version"
	FieldModel          = "model"
	FieldModelRevision  = "model_revision"
	FieldPrecision      = "precision"
	FieldTokenizer      = "tokenizer"
	FieldTokenizerHash  = "tokenizer_hash"
	FieldISL            = "isl_tokens"
	FieldOSL            = "osl_tokens"
	FieldHardware       = "hardware"
	FieldMaxConcurrency = "max_concurrency"
	FieldGoodputVersion = "goodput_version"
	FieldGoodputCommit  = "goodput_commit"
	FieldSLO            = "slo"
	FieldWarmup         = "warmup"
	FieldRunID          = "run_id"
	// FieldServerSlots is optional: filled where the server says.
	FieldServerSlots = "server_slots"
)

// required lists the fields every auditable run fills, in report order.
var required = [...]string{
	FieldEngine, FieldEngineVersion, FieldModel, FieldModelRevision, FieldPrecision,
	FieldTokenizer, FieldTokenizerHash, FieldISL, FieldOSL, FieldHardware, FieldMaxConcurrency,
	FieldGoodputVersion, FieldGoodputCommit, FieldSLO, FieldWarmup, FieldRunID,
}

// RequiredFields lists the fields every auditable run fills (the twelve
// mandatory metadata, some split in two: engine and its version, model
// and its revision, tokenizer and its hash, goodput's version and
// commit), in report order.
func RequiredFields() []string { return append([]string(nil), required[:]...) }

// labelFields maps a normalised label key (lower case, "bench/" prefix
// removed, '-' read as '_') to the field it declares.
var labelFields = map[string]string{
	"engine":          FieldEngine,
	"engine_version":  FieldEngineVersion,
	"model":           FieldModel,
	"model_revision":  FieldModelRevision,
	"precision":       FieldPrecision,
	"tokenizer":       FieldTokenizer,
	"tokenizer_hash":  FieldTokenizerHash,
	"isl":             FieldISL,
	"isl_tokens":      FieldISL,
	"osl":             FieldOSL,
	"osl_tokens":      FieldOSL,
	"hardware":        FieldHardware,
	"concurrency":     FieldMaxConcurrency,
	"max_concurrency": FieldMaxConcurrency,
	"run_id":          FieldRunID,
}

// LabelField returns the metadata field a label key declares, if any:
// the field names themselves (engine, engine_version, model,
// model_revision, precision, tokenizer, tokenizer_hash, isl, osl,
// hardware, max_concurrency, run_id) and the Kubernetes forms bench/model,
// bench/engine, bench/hardware, bench/precision, bench/isl, bench/osl,
// bench/run-id, bench/tokenizer and bench/concurrency. Case and '-'
// versus '_' do not matter.
func LabelField(key string) (string, bool) {
	k := strings.ToLower(key)
	k = strings.TrimPrefix(k, "bench/")
	k = strings.ReplaceAll(k, "-", "_")
	f, ok := labelFields[k]
	return f, ok
}

// declaration is the label that declares a field (the last one given).
type declaration struct {
	Label
	num float64 // the parsed value of a numeric field
}

// declarations sorts labels into field declarations and free labels. A
// later label for the same field replaces an earlier one (pass the labels
// file first, then the --label flags). Numeric fields are validated.
func declarations(labels []Label) (map[string]declaration, map[string]string, error) {
	decl := map[string]declaration{}
	free := map[string]string{}
	for _, l := range labels {
		f, ok := LabelField(l.Key)
		if !ok {
			free[l.Key] = l.Value
			continue
		}
		d := declaration{Label: l}
		v := strings.TrimSpace(l.Value)
		switch f {
		case FieldISL, FieldOSL:
			x, err := strconv.ParseFloat(strings.TrimSuffix(v, "tok"), 64)
			if err != nil || !(x > 0) || math.IsInf(x, 0) {
				return nil, nil, fmt.Errorf("%s: label %s=%q: want a number of tokens > 0, e.g. %s=1024", l.Source, l.Key, clip(l.Value), l.Key)
			}
			d.num = x
		case FieldMaxConcurrency:
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return nil, nil, fmt.Errorf("%s: label %s=%q: want a whole number ≥ 1, e.g. %s=32", l.Source, l.Key, clip(l.Value), l.Key)
			}
			d.num = float64(n)
		default:
			if v == "" {
				return nil, nil, fmt.Errorf("%s: label %s is empty: a metadata label needs a value", l.Source, l.Key)
			}
		}
		d.Value = v
		decl[f] = d
	}
	return decl, free, nil
}

// ValidateLabels checks labels the way Collect reads them, so that a bad
// label fails at flag validation, before anything is sent.
func ValidateLabels(labels []Label) error {
	_, _, err := declarations(labels)
	return err
}

// hints say how a user fills each field.
var hints = map[string]string{
	FieldEngine:         "--label engine=NAME (e.g. vllm)",
	FieldEngineVersion:  "--label engine_version=VERSION (e.g. 0.9.1)",
	FieldModel:          "--model or --label model=ORG/NAME",
	FieldModelRevision:  "--label model_revision=COMMIT (the Hugging Face revision of the weights)",
	FieldPrecision:      "--label precision=fp8 (fp16, bf16, int4, awq, …)",
	FieldTokenizer:      "--processor or --label tokenizer=NAME",
	FieldTokenizerHash:  "--processor with a tokenizer.json (hashed) or --label tokenizer_hash=sha256:…",
	FieldISL:            "--label isl=TOKENS",
	FieldOSL:            "--label osl=TOKENS",
	FieldHardware:       "--label hardware=4xH100-SXM-80GB",
	FieldMaxConcurrency: "--label max_concurrency=N",
	FieldGoodputVersion: "a release build (make build sets main.version)",
	FieldGoodputCommit:  "a release build (make build sets main.commit)",
	FieldSLO:            "--slo",
	FieldWarmup:         "--warmup",
	FieldRunID:          "--run-id",
}

// Hint says how to fill a missing field, e.g. "--label hardware=4xH100-SXM-80GB".
func Hint(field string) string { return hints[field] }

// MissingFields lists the required fields md leaves empty, in
// RequiredFields order.
func MissingFields(md *report.RunMetadata) []string {
	return missing(md, false)
}

func missing(md *report.RunMetadata, skipMaxConcurrency bool) []string {
	out := []string{}
	empty := map[string]bool{
		FieldEngine:         md.Engine == "",
		FieldEngineVersion:  md.EngineVersion == "",
		FieldModel:          md.Model == "",
		FieldModelRevision:  md.ModelRevision == "",
		FieldPrecision:      md.Precision == "",
		FieldTokenizer:      md.Tokenizer == "",
		FieldTokenizerHash:  md.TokenizerHash == "",
		FieldISL:            !(md.ISLTokens > 0),
		FieldOSL:            !(md.OSLTokens > 0),
		FieldHardware:       md.Hardware == "",
		FieldMaxConcurrency: md.MaxConcurrency <= 0 && !skipMaxConcurrency,
		FieldGoodputVersion: md.GoodputVersion == "",
		FieldGoodputCommit:  md.GoodputCommit == "",
		FieldSLO:            md.SLO == "",
		FieldWarmup:         md.Warmup == "",
		FieldRunID:          md.RunID == "",
	}
	for _, f := range required {
		if empty[f] {
			out = append(out, f)
		}
	}
	return out
}
