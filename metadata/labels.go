package metadata

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Label is one declared key=value pair: a --label flag or a line of a
// labels file. Source says where it was declared ("--label" or
// "FILE line N"), for the report's sources and for error messages.
type Label struct {
	Key, Value string
	Source     string
}

// maxLabelsFileBytes bounds a labels file (Kubernetes caps all labels of an
// object at 256 KiB; annotations files are as large).
const maxLabelsFileBytes = 1 << 20

// ParseLabelFlag parses one --label value, "key=value". The key must be
// non-empty and free of spaces; the value may be empty and may contain '='.
func ParseLabelFlag(s string) (Label, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		return Label{}, fmt.Errorf("--label %q: want key=value, e.g. --label hardware=4xH100-SXM-80GB", clip(s))
	}
	if err := checkKey(k); err != nil {
		return Label{}, fmt.Errorf("--label %q: %v", clip(s), err)
	}
	return Label{Key: k, Value: v, Source: "--label"}, nil
}

// ReadLabelsFile reads a Kubernetes downward-API labels (or annotations)
// file; see ParseLabelsFile.
func ReadLabelsFile(path string) ([]Label, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--labels-file: %w", err)
	}
	defer f.Close()
	return ParseLabelsFile(f, path)
}

// ParseLabelsFile parses the downward-API format: one `key="value"` per
// line, the value Go-quoted (what the kubelet writes with strconv.Quote),
// keys unique. Empty lines are skipped. name is used in errors, which
// name the line: `labels.txt line 3: want key="value" (a Go-quoted value), got …`.
func ParseLabelsFile(r io.Reader, name string) ([]Label, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxLabelsFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("--labels-file %s: %w", name, err)
	}
	if len(data) > maxLabelsFileBytes {
		return nil, fmt.Errorf("--labels-file %s: larger than %d bytes", name, maxLabelsFileBytes)
	}
	var out []Label
	seen := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), maxLabelsFileBytes+1)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		where := fmt.Sprintf("%s line %d", name, n)
		k, q, ok := strings.Cut(line, "=")
		if !ok || !strings.HasPrefix(q, `"`) {
			return nil, fmt.Errorf("--labels-file %s: want key=\"value\" (a Go-quoted value), got %q", where, clip(line))
		}
		if err := checkKey(k); err != nil {
			return nil, fmt.Errorf("--labels-file %s: %v", where, err)
		}
		v, err := strconv.Unquote(q)
		if err != nil {
			return nil, fmt.Errorf("--labels-file %s: value %s is not a valid Go-quoted string (want key=\"value\")", where, clip(q))
		}
		if first, dup := seen[k]; dup {
			return nil, fmt.Errorf("--labels-file %s: key %q repeated (first on line %d)", where, k, first)
		}
		seen[k] = n
		out = append(out, Label{Key: k, Value: v, Source: where})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--labels-file %s: %w", name, err)
	}
	return out, nil
}

func checkKey(k string) error {
	switch {
	case k == "":
		return errors.New("empty key")
	case !utf8.ValidString(k):
		return errors.New("key is not valid UTF-8")
	case strings.IndexFunc(k, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		return fmt.Errorf("key %q contains a space or control character", k)
	}
	return nil
}

// clip shortens s for an error message.
func clip(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max], "") + "…"
}
