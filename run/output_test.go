package run

import (
	"context"
	"errors"
	"reflect"
	"testing"
)

// --outputs reads the table's spellings, spaces and empty items
// ignored; an unknown kind or an empty list is a usage error naming every
// kind in the table's order.
func TestParseOutputs(t *testing.T) {
	got, err := ParseOutputs(" json, jsonl,,aiperf ")
	if err != nil || !reflect.DeepEqual(got, map[string]bool{"json": true, "jsonl": true, "aiperf": true}) {
		t.Fatalf("%v %v", got, err)
	}
	var ue UsageError
	if _, err := ParseOutputs("json,pdf"); !errors.As(err, &ue) ||
		ue.Msg != `--outputs: unknown output "pdf" (want a comma list of json, yaml, csv, jsonl, html, scorecard, aiperf, console)` {
		t.Errorf("pdf: %v", err)
	}
	if _, err := ParseOutputs(" , "); !errors.As(err, &ue) || ue.Msg != `--outputs " , ": want a comma list of json, yaml, csv, jsonl, html, scorecard, aiperf, console` {
		t.Errorf("empty: %v", err)
	}
}

// A typed configuration's unknown kind is refused before the run
// connects; a console-only run needs no directory, any file kind does.
func TestOutputKinds(t *testing.T) {
	s := &state{cfg: &Config{Outputs: Outputs{Kinds: map[string]bool{"json": true, "xml": true}}}}
	var ue UsageError
	if err := s.checkOutputs(context.Background()); !errors.As(err, &ue) || ue.Msg != `outputs: unknown output "xml" (want json, yaml, csv, jsonl, html, scorecard, aiperf, console)` {
		t.Errorf("xml: %v", err)
	}
	for kinds, want := range map[string]bool{"console": false, "console,scorecard": true, "aiperf": true, "jsonl": true} {
		k, err := ParseOutputs(kinds)
		if err != nil {
			t.Fatal(err)
		}
		if got := (&Outputs{Kinds: k}).needDir(); got != want {
			t.Errorf("%s: needs a directory %v, want %v", kinds, got, want)
		}
	}
}
