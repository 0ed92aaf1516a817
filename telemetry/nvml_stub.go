//go:build !(nvml && cgo)

package telemetry

import "errors"

// NVMLBuiltIn reports whether this binary was built with NVML support
// (-tags nvml, with cgo).
const NVMLBuiltIn = false

// errNVMLNotBuilt is the honest answer of a build without NVML.
var errNVMLNotBuilt = errors.New("NVML support not built in (build with -tags nvml)")

func openNVMLDevices() ([]nvmlDevice, func() error, error) {
	return nil, nil, errNVMLNotBuilt
}
