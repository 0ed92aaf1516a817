package tokenize

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// RunCount implements `goodput tokenize`: it reads texts from in and writes one
// line per text to out.
//
// Input: with jsonl false the whole input is one text (read as is, newlines
// included). With jsonl true every line is a JSON object whose "text" field, a
// string, is one text; blank lines are skipped, and a line that is not an object
// with a string "text" is an error naming its line number.
//
// Output, one line per text, in input order:
//
//	<count>              with ids false
//	<count>\t<ids>       with ids true, where <ids> is a JSON array such as [791,4062]
//
// Counts and ids are those of Encode (no BOS/EOS added; special-token text in the
// input is recognised).
func RunCount(t *Tokenizer, in io.Reader, out io.Writer, ids bool, jsonl bool) error {
	w := bufio.NewWriter(out)
	if !jsonl {
		data, err := io.ReadAll(in)
		if err != nil {
			return fmt.Errorf("reading input: %w", err)
		}
		if err := writeCount(w, t, string(data), ids); err != nil {
			return err
		}
		return flush(w)
	}
	r := bufio.NewReaderSize(in, 1<<16)
	for lineNo := 1; ; lineNo++ {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			if text, ok, perr := jsonlText(line); perr != nil {
				return fmt.Errorf("line %d: %w", lineNo, perr)
			} else if ok {
				if err := writeCount(w, t, text, ids); err != nil {
					return err
				}
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("reading line %d: %w", lineNo, err)
		}
	}
	return flush(w)
}

// jsonlText extracts the "text" field of one JSON Lines record; ok is false for a
// blank line.
func jsonlText(line []byte) (string, bool, error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return "", false, nil
	}
	var rec map[string]json.RawMessage
	if err := json.Unmarshal(line, &rec); err != nil {
		return "", false, fmt.Errorf("expected a JSON object with a string \"text\" field: %v", err)
	}
	raw, ok := rec["text"]
	if !ok {
		return "", false, errors.New("no \"text\" field (expected a JSON object with a string \"text\" field)")
	}
	var text string
	if err := json.Unmarshal(raw, &text); err != nil || len(bytes.TrimSpace(raw)) == 0 || bytes.TrimSpace(raw)[0] != '"' {
		return "", false, fmt.Errorf("\"text\" is %s, expected a string", abbreviate(rawJSON(raw)))
	}
	return text, true, nil
}

func writeCount(w *bufio.Writer, t *Tokenizer, text string, ids bool) error {
	var buf []byte
	if !ids {
		buf = strconv.AppendInt(buf, int64(t.Count(text)), 10)
		buf = append(buf, '\n')
		if _, err := w.Write(buf); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
		return nil
	}
	toks := t.Encode(text)
	buf = strconv.AppendInt(buf, int64(len(toks)), 10)
	buf = append(buf, '\t', '[')
	for i, id := range toks {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = strconv.AppendInt(buf, int64(id), 10)
	}
	buf = append(buf, ']', '\n')
	if _, err := w.Write(buf); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

func flush(w *bufio.Writer) error {
	if err := w.Flush(); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}
