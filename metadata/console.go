package metadata

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/goodput-dev/goodput/internal/texttable"
	"github.com/goodput-dev/goodput/report"
)

// WriteText writes md as an aligned block for the console, in lines of
// at most texttable.Columns (WriteTextWidth): one line per field with its
// value and source, "MISSING" and how to fill it for an empty field, then
// the data, the free labels and the notes.
//
//	Run metadata
//	  engine           vllm          GET /v1/models owned_by "vllm"
//	  engine_version   0.9.1         GET /version
//	  model_revision   MISSING  set --label model_revision=COMMIT (…)
func WriteText(w io.Writer, md *report.RunMetadata, notes []string) error {
	return WriteTextWidth(w, md, notes, texttable.Columns)
}

// valueCol is where a field's value starts, and maxValue the longest
// value that sets the width of the value column: a longer one (a hash)
// takes a line of its own, its source below it in the source column.
const (
	valueCol = 2 + 16 + 1
	maxValue = 40
)

// WriteTextWidth is WriteText in lines of at most cols columns (0: no
// limit, every field on one line). The value column is as wide as the
// longest value up to maxValue; a field whose line is too long puts its
// source on the next line; the data, labels, notes and hints wrap under
// their own text, and a word longer than its line (a path) is cut in the
// middle with "…" (the report file keeps it whole).
func WriteTextWidth(w io.Writer, md *report.RunMetadata, notes []string, cols int) error {
	var b strings.Builder
	b.WriteString("Run metadata\n")
	missing := map[string]bool{}
	for _, f := range md.Missing {
		missing[f] = true
	}
	type field struct{ name, value, source string }
	var fields []field
	vw := 0
	for _, f := range required {
		v := fieldText(md, f)
		if v == "" && !missing[f] { // not required yet (max_concurrency before the run)
			continue
		}
		fields = append(fields, field{f, v, md.Sources[f]})
		if n := utf8.RuneCountInString(v); n <= maxValue {
			vw = max(vw, n)
		}
	}
	if md.ServerSlots > 0 {
		v := strconv.FormatInt(int64(md.ServerSlots), 10)
		fields = append(fields, field{FieldServerSlots, v, md.Sources[FieldServerSlots]})
		vw = max(vw, len(v))
	}
	fit := func(line string, hang int) {
		b.WriteString(texttable.Fit(line, cols, hang) + "\n")
	}
	for _, f := range fields {
		if f.value == "" {
			fit(fmt.Sprintf("  %-16s MISSING  set %s", f.name, Hint(f.name)), valueCol+len("MISSING  set "))
			continue
		}
		line := strings.TrimRight(fmt.Sprintf("  %-16s %-*s %s", f.name, vw, f.value, f.source), " ")
		if cols <= 0 || utf8.RuneCountInString(line) <= cols {
			b.WriteString(line + "\n")
			continue
		}
		fit(fmt.Sprintf("  %-16s %s", f.name, f.value), valueCol)
		if f.source == "" {
			continue
		}
		if col := valueCol + vw + 1; col+utf8.RuneCountInString(f.source) <= cols {
			b.WriteString(strings.Repeat(" ", col) + f.source + "\n")
		} else {
			fit(strings.Repeat(" ", valueCol)+f.source, valueCol)
		}
	}
	if md.Data != "" {
		fit(fmt.Sprintf("  %-16s %s", "data", md.Data), valueCol)
	}
	for _, k := range slices.Sorted(maps.Keys(md.Labels)) {
		fit(fmt.Sprintf("  label %s=%s", k, md.Labels[k]), 4)
	}
	for _, n := range notes {
		fit(fmt.Sprintf("  note: %s", n), 4)
	}
	if len(md.Missing) > 0 {
		fit(fmt.Sprintf("  missing: %s", strings.Join(md.Missing, ", ")), 4)
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
