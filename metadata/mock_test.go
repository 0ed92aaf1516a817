package metadata

import (
	"context"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/telemetry"
)

// TestCollectMockLlamaCpp: the mock playing llama-server (4 slots, build
// b6123-abc) is llama.cpp by GET /props, with its build and slots, and the
// other engines' identity endpoints it does not serve are not in the notes.
func TestCollectMockLlamaCpp(t *testing.T) {
	m, err := mock.Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	m.MaxNumSeqs = 4
	url := clitest.Mock(t, func(cfg *mock.Config) {
		cfg.Personality, cfg.Version = mock.PersonalityLlamaCpp, "b6123-abc"
		cfg.Capacity = &m
	})
	res, err := Collect(context.Background(), Probe{BaseURL: url}, fullInputs())
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
