package tokenize

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestRunCount(t *testing.T) {
	tok := loadFixture(t, "bytelevel.json", nil)
	cases := []struct {
		name    string
		in      string
		ids     bool
		jsonl   bool
		want    string
		wantErr string
	}{
		{name: "plain text is one text", in: "hello there", want: "4\n"},
		{name: "plain text keeps newlines", in: "hello\n\n", want: "2\n"},
		{name: "plain text with ids", in: "hello there", ids: true, want: "4\t[265,258,114,101]\n"},
		{name: "empty plain text", in: "", ids: true, want: "0\t[]\n"},
		{name: "jsonl", jsonl: true, in: "{\"text\":\"hello there\"}\n\n{\"text\":\"\",\"other\":1}\n{\"text\":\"<|bos|>\"}", want: "4\n0\n1\n"},
		{name: "jsonl with ids", jsonl: true, ids: true, in: "{\"text\":\"hello\"}\r\n{\"text\":\"the\"}\n", want: "1\t[265]\n2\t[116,257]\n"},
		{name: "jsonl without text", jsonl: true, in: "{\"text\":\"a\"}\n\n{\"prompt\":\"a\"}\n", wantErr: `line 3: no "text" field`},
		{name: "jsonl text not a string", jsonl: true, in: "{\"text\":5}\n", wantErr: `line 1: "text" is 5, expected a string`},
		{name: "jsonl null text", jsonl: true, in: "{\"text\":null}\n", wantErr: `line 1: "text" is null, expected a string`},
		{name: "jsonl not an object", jsonl: true, in: "{\"text\":\"a\"}\n[1,2]\n", wantErr: "line 2: expected a JSON object"},
		{name: "jsonl malformed", jsonl: true, in: "{\"text\":\"a\"\n", wantErr: "line 1: expected a JSON object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			err := RunCount(tok, strings.NewReader(c.in), &out, c.ids, c.jsonl)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := out.String(); got != c.want {
				t.Errorf("output %q, want %q", got, c.want)
			}
		})
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestRunCountIOErrors(t *testing.T) {
	tok := loadFixture(t, "bytelevel.json", nil)
	if err := RunCount(tok, strings.NewReader("hello"), failingWriter{}, false, false); err == nil || !strings.Contains(err.Error(), "writing output: disk full") {
		t.Errorf("write error: %v", err)
	}
	if err := RunCount(tok, failingReader{}, &bytes.Buffer{}, false, false); err == nil || !strings.Contains(err.Error(), "reading input: broken pipe") {
		t.Errorf("read error: %v", err)
	}
	if err := RunCount(tok, failingReader{}, &bytes.Buffer{}, false, true); err == nil || !strings.Contains(err.Error(), "reading line 1: broken pipe") {
		t.Errorf("read error (jsonl): %v", err)
	}
}
