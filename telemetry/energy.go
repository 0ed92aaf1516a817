package telemetry

import (
	"time"
)

// Energy methods, as reported in EnergyWindow.Method and GPUEnergy.Method.
const (
	// MethodCounter: change of the total energy counter over the window.
	MethodCounter = "counter"
	// MethodPowerIntegral: integral of the power gauge over the window
	// (trapezoid rule when sampled directly; mean × duration from Prometheus).
	MethodPowerIntegral = "power-integral"
	// MethodMixed: some GPUs by counter, others by power integral.
	MethodMixed = "mixed"
	// MethodNone: no usable sample for any selected GPU.
	MethodNone = "none"
)

// EnergyWindow is the GPU energy and power over one window, summed over the
// selected GPUs. It is produced by GPUSampler.Window (direct scraping or
// NVML) and by Prometheus.GPUWindow; both fill the same fields.
//
// Float fields are NaN when not available (JSON encoders must map NaN to
// null or omit the field).
type EnergyWindow struct {
	Start, End time.Time
	// Source says where the figures come from: the GPUSource names, or
	// "prometheus <URL>".
	Source string
	// Method is MethodCounter, MethodPowerIntegral, MethodMixed or MethodNone.
	Method string
	// EnergyJ is the energy over the window, J (DCGM/NVML mJ ÷ 1000).
	EnergyJ float64
	// MeanPowerW is the time-weighted mean of the summed power, W. With no
	// power gauge it is EnergyJ divided by the covered duration.
	MeanPowerW float64
	// PeakPowerW is the highest summed power seen at one sample time, W.
	PeakPowerW float64
	// UpdateInterval is the coarsest interval at which the selected sources
	// actually refreshed their values (detected from value changes, not from
	// our sampling interval); 0 when unknown.
	UpdateInterval time.Duration
	// Coverage is the fraction of the window spanned by samples, the minimum
	// over the selected GPUs (direct path); from Prometheus it is the lowest
	// per-GPU sample count relative to the best-sampled GPU. Below 1 the
	// energy covers only part of the window and Warnings say which GPU.
	Coverage float64
	// GPUs is the per-GPU breakdown, ordered by host and index.
	GPUs []GPUEnergy
	// Power is the summed power over the window at up to MaxPowerPoints
	// evenly spaced instants (interpolated between readings; direct
	// sampling only, nil from Prometheus), for a power-over-time chart.
	Power []PowerSample
	// Gauges are the other GPU gauges the sources report (utilization,
	// memory, temperature, clocks, power limit), combined over the GPUs,
	// in GPUGauge order; ThrottleReasons is the union of the clock
	// throttle reasons seen in the window (GaugeThrottle's bits).
	Gauges          []GaugeWindow
	ThrottleReasons uint64
	// Warnings explain anything that makes the figures less trustworthy:
	// coarse update interval, missing samples, GPUs appearing or
	// disappearing, counter resets, fallbacks.
	Warnings []string
}

// GPUEnergy is one GPU's share of an EnergyWindow.
type GPUEnergy struct {
	GPU            GPUID
	Source         string
	Method         string
	EnergyJ        float64
	MeanPowerW     float64
	PeakPowerW     float64
	UpdateInterval time.Duration
	Coverage       float64
	// Samples counts the distinct readings inside the window (direct path:
	// retained value changes; Prometheus: samples of the power series).
	Samples int
	// Gauges are this GPU's gauges over the window, indexed by GPUGauge
	// (NaN when not reported over the whole window); ThrottleReasons the
	// union of its throttle reasons.
	Gauges          [NumGPUGauges]GaugeStats
	ThrottleReasons uint64
}

// coarseFactor: a window shorter than coarseFactor × the update interval
// gets a warning (telemetry.md §0.4: at least 10 × the collect interval).
const coarseFactor = 10

// PowerSample is the summed power of the selected GPUs at one instant.
type PowerSample struct {
	T time.Time
	W float64
}

// MaxPowerPoints bounds EnergyWindow.Power.
const MaxPowerPoints = 120
