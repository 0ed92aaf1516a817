package mock

import (
	"strings"
	"testing"
	"time"
)

func TestCapacityConfigValidation(t *testing.T) {
	tiny, _ := Preset(PresetTiny)
	tests := []struct {
		name   string
		mutate func(*Config)
		want   string // substring of the error; "" means valid
	}{
		{"preset", func(c *Config) { c.Capacity = &tiny }, ""},
		{"bad capacity", func(c *Config) { m := tiny; m.MaxNumSeqs = 0; c.Capacity = &m }, "Capacity.MaxNumSeqs must be in 1..65536"},
		{"budget below slots", func(c *Config) { m := tiny; m.MaxNumBatchedTokens = 7; c.Capacity = &m }, "Capacity.MaxNumBatchedTokens must be in MaxNumSeqs..16777216 (8..16777216), got 7"},
		{"step too long", func(c *Config) { m := tiny; m.StepBase = time.Minute; c.Capacity = &m }, "Capacity.StepBase must be a duration in 1µs..10s"},
		{"negative prefill", func(c *Config) { m := tiny; m.PrefillPerToken = -time.Nanosecond; c.Capacity = &m }, "Capacity.PrefillPerToken"},
		{"gpus auto", func(c *Config) { c.GPUs = 0 }, ""},
		{"too many gpus", func(c *Config) { c.GPUs = 257 }, "GPUs must be in 0..256"},
		{"negative gpus", func(c *Config) { c.GPUs = -1 }, "GPUs must be in 0..256"},
		{"gpu spec", func(c *Config) { g := DefaultGPU(); c.GPU = &g }, ""},
		{"gpu name", func(c *Config) { g := DefaultGPU(); g.Name = "bad\nname"; c.GPU = &g }, "GPU.Name must be a non-empty printable name"},
		{"gpu memory", func(c *Config) { g := DefaultGPU(); g.MemoryMiB = 0; c.GPU = &g }, "GPU.MemoryMiB"},
		{"gpu idle", func(c *Config) { g := DefaultGPU(); g.IdleWatts = -1; c.GPU = &g }, "GPU.IdleWatts must be in 0..MaxWatts"},
		{"gpu max", func(c *Config) { g := DefaultGPU(); g.MaxWatts = 0; c.GPU = &g }, "GPU.MaxWatts"},
		{"update interval", func(c *Config) { c.DCGMUpdateInterval = 0 }, "DCGMUpdateInterval must be a duration in 1ms..1h"},
		{"update interval long", func(c *Config) { c.DCGMUpdateInterval = 2 * time.Hour }, "DCGMUpdateInterval"},
		{"dcgm addr", func(c *Config) { c.DCGMAddr = "9400" }, "DCGMAddr"},
		{"dcgm addr ok", func(c *Config) { c.DCGMAddr = ":0" }, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.mutate(&c)
			s, err := New(c)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("New: %v, want success", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("New: %v, want an error containing %q", err, tc.want)
			}
			if s != nil {
				s.Close()
			}
		})
	}
}

// TestCapacityConfigCopied: the server keeps its own copies of the capacity
// model and GPU spec, and Config returns copies.
func TestCapacityConfigCopied(t *testing.T) {
	tiny, _ := Preset(PresetTiny)
	gpu := DefaultGPU()
	cfg := DefaultConfig()
	cfg.Capacity, cfg.GPU = &tiny, &gpu
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tiny.MaxNumSeqs, gpu.Name = 1, "changed"
	got := s.Config()
	if got.Capacity.MaxNumSeqs != 8 || got.GPU.Name != DefaultGPU().Name {
		t.Fatalf("server config follows the caller's structs: %+v %+v", got.Capacity, got.GPU)
	}
	got.Capacity.MaxNumSeqs, got.GPU.Name = 2, "x"
	if again := s.Config(); again.Capacity.MaxNumSeqs != 8 || again.GPU.Name == "x" {
		t.Error("Config returns the server's own structs")
	}
	// GPUs: 0 takes the capacity model's; a GPU spec overrides its GPU.
	if n, spec := cfg.gpuSetup(); n != 1 || spec.Name != "changed" {
		t.Errorf("gpuSetup() = %d, %q", n, spec.Name)
	}
	p70, _ := Preset(Preset70B8xH100)
	c2 := DefaultConfig()
	c2.Capacity = &p70
	if n, spec := c2.gpuSetup(); n != 8 || spec.IdleWatts != 115 {
		t.Errorf("70b preset: %d GPUs at %v W idle, want 8 at 115", n, spec.IdleWatts)
	}
	c2.GPUs = 2
	if n, _ := c2.gpuSetup(); n != 2 {
		t.Errorf("GPUs override: %d", n)
	}
	def := DefaultConfig()
	if n, spec := def.gpuSetup(); n != 1 || spec != DefaultGPU() {
		t.Errorf("default: %d %+v", n, spec)
	}
}
