package metadata

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestParseLabelFlag(t *testing.T) {
	tests := []struct {
		in      string
		want    Label
		wantErr string
	}{
		{in: "hardware=4xH100", want: Label{Key: "hardware", Value: "4xH100", Source: "--label"}},
		{in: "note=a=b", want: Label{Key: "note", Value: "a=b", Source: "--label"}},
		{in: "empty=", want: Label{Key: "empty", Value: "", Source: "--label"}},
		{in: "novalue", wantErr: `--label "novalue": want key=value`},
		{in: "=x", wantErr: "empty key"},
		{in: "a b=x", wantErr: "contains a space"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseLabelFlag(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestParseLabelsFile(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []Label
		wantErr string
	}{
		{
			name: "kubelet output",
			in:   "app=\"bench\"\nbench/engine=\"vllm-0.9.1\"\nbench/isl=\"1024\"\n",
			want: []Label{
				{Key: "app", Value: "bench", Source: "labels line 1"},
				{Key: "bench/engine", Value: "vllm-0.9.1", Source: "labels line 2"},
				{Key: "bench/isl", Value: "1024", Source: "labels line 3"},
			},
		},
		{
			name: "escapes, CRLF, blank lines, no final newline",
			in:   "a=\"x\\\"y\\n\"\r\n\r\nb=\"\"",
			want: []Label{{Key: "a", Value: "x\"y\n", Source: "labels line 1"}, {Key: "b", Value: "", Source: "labels line 3"}},
		},
		{name: "empty file", in: "", want: nil},
		{name: "unquoted value", in: "a=\"x\"\nb=y\n", wantErr: `labels line 2: want key="value" (a Go-quoted value), got "b=y"`},
		{name: "no equals", in: "justakey\n", wantErr: "labels line 1: want key="},
		{name: "bad quoting", in: "a=\"x\n", wantErr: "labels line 1: value \"x is not a valid Go-quoted string"},
		{name: "trailing garbage", in: "a=\"x\" y\n", wantErr: "labels line 1: value"},
		{name: "empty key", in: "=\"x\"\n", wantErr: "labels line 1: empty key"},
		{name: "duplicate", in: "a=\"x\"\nb=\"y\"\na=\"z\"\n", wantErr: `labels line 3: key "a" repeated (first on line 1)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseLabelsFile(strings.NewReader(tt.in), "labels")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("error is not one line: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestReadLabelsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "labels")
	if err := os.WriteFile(path, []byte("bench/hardware=\"4xH100-SXM-80GB\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadLabelsFile(path)
	if err != nil || len(got) != 1 || got[0].Value != "4xH100-SXM-80GB" || got[0].Source != path+" line 1" {
		t.Fatalf("got %+v, %v", got, err)
	}
	if _, err := ReadLabelsFile(filepath.Join(t.TempDir(), "absent")); err == nil || !strings.HasPrefix(err.Error(), "--labels-file: ") {
		t.Fatalf("missing file: err = %v", err)
	}
}

func TestLabelField(t *testing.T) {
	tests := []struct {
		key, field string
	}{
		{"bench/model", FieldModel}, {"bench/engine", FieldEngine}, {"bench/hardware", FieldHardware},
		{"bench/precision", FieldPrecision}, {"bench/isl", FieldISL}, {"bench/osl", FieldOSL},
		{"bench/run-id", FieldRunID}, {"bench/tokenizer", FieldTokenizer}, {"bench/concurrency", FieldMaxConcurrency},
		{"engine", FieldEngine}, {"engine_version", FieldEngineVersion}, {"Engine-Version", FieldEngineVersion},
		{"model_revision", FieldModelRevision}, {"tokenizer_hash", FieldTokenizerHash}, {"max_concurrency", FieldMaxConcurrency},
		{"team", ""}, {"bench/owner", ""}, {"app.kubernetes.io/name", ""},
	}
	for _, tt := range tests {
		got, ok := LabelField(tt.key)
		if got != tt.field || ok != (tt.field != "") {
			t.Errorf("LabelField(%q) = %q, %v; want %q", tt.key, got, ok, tt.field)
		}
	}
}

func TestValidateLabels(t *testing.T) {
	tests := []struct {
		l       Label
		wantErr string
	}{
		{Label{Key: "bench/isl", Value: "1024", Source: "f line 2"}, ""},
		{Label{Key: "isl", Value: "abc", Source: "--label"}, `--label: label isl="abc": want a number of tokens > 0`},
		{Label{Key: "bench/osl", Value: "-1", Source: "f line 3"}, "f line 3: label bench/osl"},
		{Label{Key: "bench/concurrency", Value: "2.5", Source: "f line 4"}, "want a whole number ≥ 1"},
		{Label{Key: "engine", Value: " ", Source: "--label"}, "label engine is empty"},
		{Label{Key: "team", Value: "", Source: "--label"}, ""},
	}
	for _, tt := range tests {
		err := ValidateLabels([]Label{tt.l})
		if tt.wantErr == "" {
			if err != nil {
				t.Errorf("%+v: %v", tt.l, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%+v: err = %v, want %q", tt.l, err, tt.wantErr)
		}
	}
}

func FuzzParseLabelsFile(f *testing.F) {
	f.Add("a=\"b\"\n")
	f.Add("bench/engine=\"vllm-0.9.1\"\r\nx=\"\\u00e9\\n\"")
	f.Add("a=b\n")
	f.Add("=\"\"\n\n\"=\"")
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ParseLabelsFile(strings.NewReader(in), "f")
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		// Written back the kubelet's way, the labels read the same.
		var b strings.Builder
		for _, l := range got {
			b.WriteString(l.Key + "=" + strconv.Quote(l.Value) + "\n")
		}
		again, err := ParseLabelsFile(strings.NewReader(b.String()), "f")
		if err != nil {
			t.Fatalf("re-reading %q: %v", b.String(), err)
		}
		if len(again) != len(got) {
			t.Fatalf("re-read %d labels, want %d", len(again), len(got))
		}
		for i := range got {
			if again[i].Key != got[i].Key || again[i].Value != got[i].Value {
				t.Fatalf("label %d: %+v then %+v", i, got[i], again[i])
			}
		}
	})
}
