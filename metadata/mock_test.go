package metadata

import (
	"context"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/telemetry"
)

// TestCollectMockLlamaCpp: the mock playing llama-server (4 slots, build
// b6123-abc) is llama.cpp by GET /props, with its build and slots, and the
// other engines' identity endpoints it does not serve are not in the notes.
func TestCollectMockLlamaCpp(t *testing.T) {
	cfg := mock.DefaultConfig()
	cfg.Personality, cfg.Version = mock.PersonalityLlamaCpp, "b6123-abc"
	m, err := mock.Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	m.MaxNumSeqs = 4
	cfg.Capacity = &m
	srv, err := mock.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	res, err := Collect(context.Background(), Probe{BaseURL: srv.URL()}, fullInputs())
	if err != nil {
		t.Fatal(err)
	}
	md := res.Metadata
	if md.Engine != telemetry.EngineLlamaCpp || md.EngineVersion != "b6123-abc" || md.ServerSlots != 4 {
		t.Errorf("engine %q version %q slots %d, want llama.cpp b6123-abc 4", md.Engine, md.EngineVersion, md.ServerSlots)
	}
	if notes := strings.Join(res.Notes, "\n"); strings.Contains(notes, "HTTP 404") {
		t.Errorf("notes name endpoints llama-server does not serve:\n%s", notes)
	}
}
