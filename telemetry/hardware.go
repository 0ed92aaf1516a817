package telemetry

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// GPUDevice describes one local GPU for run metadata.
type GPUDevice struct {
	Name      string // e.g. "NVIDIA H200"
	MemoryMiB int64  // total memory, MiB
}

// Hardware describes the local GPUs for run metadata.
type Hardware struct {
	GPUs []GPUDevice
	// Source is "nvml", "nvidia-smi" or "unknown".
	Source string
	// Notes say why better sources were not used.
	Notes []string
}

// String summarises the GPUs, grouping identical ones:
// "4xNVIDIA H200 (143771 MiB)"; "unknown" when none was found.
func (h Hardware) String() string {
	if len(h.GPUs) == 0 {
		return "unknown"
	}
	var parts []string
	for i := 0; i < len(h.GPUs); {
		j := i
		for j < len(h.GPUs) && h.GPUs[j] == h.GPUs[i] {
			j++
		}
		parts = append(parts, fmt.Sprintf("%dx%s (%d MiB)", j-i, h.GPUs[i].Name, h.GPUs[i].MemoryMiB))
		i = j
	}
	return strings.Join(parts, " + ")
}

// DescribeHardware lists the local GPUs: from NVML when built in (-tags
// nvml), else from `nvidia-smi --query-gpu=name,memory.total
// --format=csv,noheader` when that binary exists, else Source "unknown". It
// never fails; Notes record why each better source was skipped.
func DescribeHardware(ctx context.Context) Hardware {
	var h Hardware
	gpus, err := nvmlHardware()
	if err == nil {
		return Hardware{GPUs: gpus, Source: "nvml"}
	}
	h.Notes = append(h.Notes, err.Error())
	gpus, err = nvidiaSMIHardware(ctx)
	if err == nil {
		h.GPUs, h.Source = gpus, "nvidia-smi"
		return h
	}
	h.Notes = append(h.Notes, err.Error())
	h.Source = "unknown"
	return h
}

func nvidiaSMIHardware(ctx context.Context) ([]GPUDevice, error) {
	bin, err := exec.LookPath("nvidia-smi")
	if err != nil {
		return nil, errors.New("nvidia-smi not found in PATH")
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--query-gpu=name,memory.total", "--format=csv,noheader").Output()
	if err != nil {
		return nil, fmt.Errorf("nvidia-smi: %w", err)
	}
	return parseNvidiaSMI(string(out))
}

// parseNvidiaSMI reads lines "NVIDIA H200, 143771 MiB".
func parseNvidiaSMI(out string) ([]GPUDevice, error) {
	var gpus []GPUDevice
	for n, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		i := strings.LastIndex(line, ",")
		if i < 0 {
			return nil, fmt.Errorf("nvidia-smi output line %d %q: want \"name, memory MiB\"", n+1, clip(line))
		}
		name := strings.TrimSpace(line[:i])
		mem := strings.TrimSpace(line[i+1:])
		num, unit, _ := strings.Cut(mem, " ")
		mib, err := strconv.ParseInt(num, 10, 64)
		if err != nil || name == "" || mib < 0 || (unit != "MiB" && unit != "") {
			return nil, fmt.Errorf("nvidia-smi output line %d %q: want \"name, memory MiB\"", n+1, clip(line))
		}
		gpus = append(gpus, GPUDevice{Name: name, MemoryMiB: mib})
	}
	if len(gpus) == 0 {
		return nil, errors.New("nvidia-smi listed no GPU")
	}
	return gpus, nil
}
