package telemetry

import (
	"context"
	"fmt"
	"strings"
)

// GPUID identifies one GPU (or one MIG instance) as an exporter labels it.
type GPUID struct {
	Index    string // dcgm-exporter label gpu, NVML index: "0", "1", ...
	UUID     string // "GPU-…" (label UUID, or uuid with --use-old-namespace)
	Hostname string // label Hostname (≤ 4.5.3-4.8.2) or hostname (later); os.Hostname for NVML
	Model    string // label modelName, e.g. "NVIDIA H200"
	MIG      string // MIG GPU instance id (label GPU_I_ID); empty for a whole GPU
}

// String names the GPU for messages: "gpu 0 (GPU-3b1f…) on gpu-node-07".
func (g GPUID) String() string {
	var b strings.Builder
	b.WriteString("gpu ")
	if g.Index != "" {
		b.WriteString(g.Index)
	} else {
		b.WriteString("?")
	}
	if g.MIG != "" {
		b.WriteString(" MIG " + g.MIG)
	}
	if g.UUID != "" {
		b.WriteString(" (" + g.UUID + ")")
	}
	if g.Hostname != "" {
		b.WriteString(" on " + g.Hostname)
	}
	return b.String()
}

// GPUReading is one reading of one GPU. Units are converted at ingestion by
// the source: energy in mJ (the unit of both DCGM and NVML counters), power in
// W (NVML's mW are divided by 1000). NaN means the source does not provide it.
type GPUReading struct {
	GPU      GPUID
	EnergyMJ float64 // total energy counter since driver load, mJ
	PowerW   float64 // power draw, W
	// Gauges are the other gauges the source exports (utilization,
	// memory, temperature, clocks, power limit, throttle reasons).
	Gauges GPUGauges
}

// GPUSource reads every GPU it knows about, once per call.
//
// ReadGPUs may return readings together with an error when only some GPUs
// could be read; the sampler keeps the readings and records the error.
type GPUSource interface {
	// Name identifies the source in results and errors, e.g.
	// "dcgm-exporter http://node:9400/metrics" or "nvml".
	Name() string
	ReadGPUs(ctx context.Context) ([]GPUReading, error)
}

// GPUSelector picks GPUs. Within a field, values are alternatives; fields
// combine with AND; an empty field matches everything. Values are compared
// case-insensitively.
type GPUSelector struct {
	Indexes   []string // label gpu
	UUIDs     []string // label UUID / uuid
	Hostnames []string // label Hostname / hostname
}

// Matches reports whether g is selected.
func (s GPUSelector) Matches(g GPUID) bool {
	return matchAny(s.Indexes, g.Index) && matchAny(s.UUIDs, g.UUID) && matchAny(s.Hostnames, g.Hostname)
}

func matchAny(want []string, v string) bool {
	if len(want) == 0 {
		return true
	}
	for _, w := range want {
		if strings.EqualFold(w, v) {
			return true
		}
	}
	return false
}

// IsZero reports whether the selector selects every GPU.
func (s GPUSelector) IsZero() bool {
	return len(s.Indexes) == 0 && len(s.UUIDs) == 0 && len(s.Hostnames) == 0
}

// String renders the selector in the form ParseGPUSelector reads; "all GPUs"
// for the zero selector.
func (s GPUSelector) String() string {
	if s.IsZero() {
		return "all GPUs"
	}
	var terms []string
	for _, v := range s.Hostnames {
		terms = append(terms, "hostname="+v)
	}
	for _, v := range s.Indexes {
		terms = append(terms, "gpu="+v)
	}
	for _, v := range s.UUIDs {
		terms = append(terms, "uuid="+v)
	}
	return strings.Join(terms, ",")
}

// ParseGPUSelector reads a selector written as comma-separated key=value
// terms, keys gpu (or index), uuid and hostname (or host), case-insensitive.
// Repeating a key gives alternatives: "hostname=gpu-node-07,gpu=0,gpu=1"
// selects GPUs 0 and 1 of gpu-node-07. The empty string selects all GPUs.
func ParseGPUSelector(s string) (GPUSelector, error) {
	var sel GPUSelector
	if strings.TrimSpace(s) == "" {
		return sel, nil
	}
	for _, term := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(term, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || v == "" || strings.ContainsAny(v, "=\"'") {
			return GPUSelector{}, fmt.Errorf("gpu selector %q: term %q: want key=value with key gpu, uuid or hostname, e.g. hostname=gpu-node-07,gpu=0", s, strings.TrimSpace(term))
		}
		switch strings.ToLower(k) {
		case "gpu", "index":
			sel.Indexes = append(sel.Indexes, v)
		case "uuid":
			sel.UUIDs = append(sel.UUIDs, v)
		case "hostname", "host":
			sel.Hostnames = append(sel.Hostnames, v)
		default:
			return GPUSelector{}, fmt.Errorf("gpu selector %q: unknown key %q: want gpu, uuid or hostname", s, k)
		}
	}
	return sel, nil
}
