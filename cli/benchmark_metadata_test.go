package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func TestMetadataLabels(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "labels")
	if err := os.WriteFile(good, []byte("bench/engine=\"vllm\"\nbench/run-id=\"job-7\"\nteam=\"perf\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad")
	if err := os.WriteFile(bad, []byte("a=\"x\"\nb=y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		o       metadataOptions
		flags   []string
		keys    []string
		runID   string
		wantErr string
	}{
		{name: "file then flags", o: metadataOptions{labelsFile: good, probeTimeout: time.Second}, flags: []string{"engine=sglang", "hardware=8xH200"},
			keys: []string{"bench/engine", "bench/run-id", "team", "engine", "hardware"}, runID: "job-7"},
		{name: "flags only", o: metadataOptions{probeTimeout: time.Second}, flags: []string{"run_id=r2"}, keys: []string{"run_id"}, runID: "r2"},
		{name: "malformed file line", o: metadataOptions{labelsFile: bad, probeTimeout: time.Second}, wantErr: "line 2: want key=\"value\""},
		{name: "malformed flag", o: metadataOptions{probeTimeout: time.Second}, flags: []string{"novalue"}, wantErr: `--label "novalue": want key=value`},
		{name: "bad isl", o: metadataOptions{probeTimeout: time.Second}, flags: []string{"isl=many"}, wantErr: `label isl="many": want a number of tokens`},
		{name: "missing file", o: metadataOptions{labelsFile: filepath.Join(dir, "absent"), probeTimeout: time.Second}, wantErr: "--labels-file: open"},
		{name: "bad timeout", o: metadataOptions{}, wantErr: "--metadata-timeout 0s: want a positive duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.o.metadataLabels(tt.flags)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if _, ok := err.(UsageError); !ok {
					t.Fatalf("err %v is not a usage error (exit 2)", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, l := range got {
				keys = append(keys, l.Key)
			}
			if strings.Join(keys, ",") != strings.Join(tt.keys, ",") {
				t.Errorf("keys %v, want %v", keys, tt.keys)
			}
		})
	}
}

func TestMetadataFlagsRegister(t *testing.T) {
	var o metadataOptions
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	metadataFlags(&o, fs)
	if err := fs.Parse([]string{"--labels-file", "/etc/podinfo/labels", "--strict-metadata", "--metadata-timeout", "5s"}); err != nil {
		t.Fatal(err)
	}
	if o.labelsFile != "/etc/podinfo/labels" || !o.strict || o.probeTimeout != 5*time.Second {
		t.Fatalf("options %+v", o)
	}
}
