// Package telemetry measures the energy, cost and server-side behaviour of
// an LLM deployment over exactly the time windows in which goodput measures
// its load, so that J/token, cost per million tokens and latency share one
// denominator.
//
// GPU energy comes, best first, from NVML (OpenNVML, only with -tags nvml
// and cgo), dcgm-exporter scraped directly (NewDCGMExporter), the integral
// of the power gauge, or a Prometheus server holding dcgm-exporter and
// Kepler series (NewPrometheus). A GPUSampler samples the direct sources
// from Start until Stop and answers Window queries afterwards; a
// ServerSampler (NewServerSampler, NewReplicaSampler for several replicas)
// does the same for the inference server's /metrics (every engine of the
// engine table, engines.go); Prometheus.ServerSeries and ServerWindow read the
// same figures of every replica under a label selector from Prometheus. GPU gauges (utilization, memory, temperature,
// clocks) come with the energy readings, also from AMD's ROCm exporter. NewOpenCost prices a window; Cost and DeriveEnergy are the pure
// arithmetic behind the scorecard figures; DescribeHardware names the local
// GPUs. QueueReader reads a server's running and waiting requests now (the
// engine table's gauges) for a runner that waits for an idle server between
// rounds.
// Every scrape and probe retries transient errors (retry.go).
//
//	src, err := telemetry.NewDCGMExporter("http://gpu-node-07:9400/metrics", nil)
//	gs, err := telemetry.NewGPUSampler([]telemetry.GPUSource{src}, telemetry.SamplerOptions{})
//	if err := gs.Start(ctx); err != nil { … } // first scrape fails fast
//	defer gs.Stop()
//	t0 := time.Now(); /* load */ t1 := time.Now()
//	err = gs.WaitCovered(waitCtx, t1) // a reading after t1 (up to one update interval)
//	w, err := gs.Window(t0, t1, telemetry.GPUSelector{})
//	fig, err := telemetry.DeriveEnergy(telemetry.EnergyInput{EnergyJ: w.EnergyJ, OutputTokens: …})
//
// NaN in a float result means "not available"; JSON encoders must write
// null. README.md beside this file gives the window semantics (direct and
// Prometheus), the bounded memory and every unit conversion.
package telemetry
