package metadata

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/report"
)

// WriteText writes md as an aligned block for the console: one line per
// field with its value and source, "MISSING" and how to fill it for an
// empty field, then the free labels and the notes.
//
//	Run metadata
//	  engine           vllm                               GET /v1/models owned_by "vllm"
//	  engine_version   0.9.1                              GET /version
//	  model_revision   MISSING  set --label model_revision=COMMIT (…)
func WriteText(w io.Writer, md *report.RunMetadata, notes []string) error {
	var b strings.Builder
	b.WriteString("Run metadata\n")
	missing := map[string]bool{}
	for _, f := range md.Missing {
		missing[f] = true
	}
	for _, f := range required {
		v := fieldText(md, f)
		if v == "" {
			if !missing[f] { // not required yet (max_concurrency before the run)
				continue
			}
			fmt.Fprintf(&b, "  %-16s MISSING  set %s\n", f, Hint(f))
			continue
		}
		fmt.Fprintf(&b, "  %-16s %-40s %s\n", f, v, md.Sources[f])
	}
	if md.ServerSlots > 0 {
		fmt.Fprintf(&b, "  %-16s %-40d %s\n", FieldServerSlots, md.ServerSlots, md.Sources[FieldServerSlots])
	}
	if md.Data != "" {
		fmt.Fprintf(&b, "  %-16s %s\n", "data", md.Data)
	}
	for _, k := range slices.Sorted(maps.Keys(md.Labels)) {
		fmt.Fprintf(&b, "  label %s=%s\n", k, md.Labels[k])
	}
	for _, n := range notes {
		fmt.Fprintf(&b, "  note: %s\n", n)
	}
	if len(md.Missing) > 0 {
		fmt.Fprintf(&b, "  missing: %s\n", strings.Join(md.Missing, ", "))
	}
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("writing run metadata: %w", err)
	}
	return nil
}

// fieldText renders one field ("" when empty).
func fieldText(md *report.RunMetadata, f string) string {
	num := func(v report.Float) string {
		if !(v > 0) {
			return ""
		}
		return strconv.FormatFloat(float64(v), 'f', -1, 64)
	}
	switch f {
	case FieldEngine:
		return md.Engine
	case FieldEngineVersion:
		return md.EngineVersion
	case FieldModel:
		return md.Model
	case FieldModelRevision:
		return md.ModelRevision
	case FieldPrecision:
		if md.Precision != "" && md.PrecisionInferred {
			return md.Precision + " (inferred)"
		}
		return md.Precision
	case FieldTokenizer:
		return md.Tokenizer
	case FieldTokenizerHash:
		return md.TokenizerHash
	case FieldISL:
		return num(md.ISLTokens)
	case FieldOSL:
		return num(md.OSLTokens)
	case FieldHardware:
		return md.Hardware
	case FieldMaxConcurrency:
		if md.MaxConcurrency <= 0 {
			return ""
		}
		return strconv.FormatInt(int64(md.MaxConcurrency), 10)
	case FieldGoodputVersion:
		return md.GoodputVersion
	case FieldGoodputCommit:
		return md.GoodputCommit
	case FieldSLO:
		return md.SLO
	case FieldWarmup:
		return md.Warmup
	case FieldRunID:
		return md.RunID
	}
	return ""
}

// MissingError is the error of --strict-metadata: the fields that could
// not be filled, and how to fill them.
type MissingError struct{ Fields []string }

func (e *MissingError) Error() string {
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		parts[i] = f + " (" + Hint(f) + ")"
	}
	return "--strict-metadata: missing run metadata: " + strings.Join(parts, "; ")
}

// Strict returns a *MissingError when md misses any required field
// (max_concurrency only once Finish listed it), nil otherwise.
func Strict(md *report.RunMetadata) error {
	if len(md.Missing) == 0 {
		return nil
	}
	return &MissingError{Fields: append([]string(nil), md.Missing...)}
}
