// Package telemetry measures the energy, cost and server-side behaviour of
// an LLM deployment over exactly the time windows in which goodput measures
// its load, so that J/token, cost per million tokens and latency share one
// denominator.
//
// # Sources
//
// GPU energy, best first (telemetry.md §0):
//
//  1. NVML on the local machine (NVMLSource, built only with -tags nvml and
//     cgo): GetTotalEnergyConsumption (mJ counter) and GetPowerUsage (mW).
//     The default build is cgo-free; OpenNVML then reports "NVML support not
//     built in (build with -tags nvml)". With the tag, a missing
//     libnvidia-ml.so.1 or no GPU is an error saying so.
//  2. dcgm-exporter scraped directly (DCGMExporter, one per node, port 9400):
//     DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION (mJ counter) and
//     DCGM_FI_DEV_POWER_USAGE (W gauge), parsed with prometheus/common/expfmt.
//  3. The integral of the power gauge, per GPU, when its counter is absent.
//  4. A Prometheus server that already scrapes dcgm-exporter
//     (Prometheus.GPUWindow), and Kepler pod/container/node energy
//     (Prometheus.KeplerWindow).
//
// Sources 1–3 feed a GPUSampler, which samples every Interval (1 s by
// default) from Start until Stop and answers Window queries afterwards. A
// ServerSampler does the same for the inference server's /metrics (vLLM,
// SGLang): KV cache usage, running and waiting requests, preemptions, token
// counters and the TTFT / inter-token / end-to-end latency histograms.
// OpenCost.Allocation prices a window; Cost and DeriveEnergy are the pure
// arithmetic that turns the measurements into scorecard figures, and
// DescribeHardware names the local GPUs for run metadata.
//
// # Use
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
// # Window semantics (direct sampling)
//
// A window [start, end] is evaluated on the stored samples. Sample times are
// the midpoint of each scrape, in Unix nanoseconds on the sampler's clock (a
// wall-clock anchor plus monotonic elapsed time), so windows given as
// time.Time values from time.Now line up with them exactly; times without a
// monotonic reading (time.Unix of a record timestamp) are placed by their
// wall-clock distance from the sampler's anchor.
//
//   - Counters (GPU energy, server token and preemption counters, every
//     histogram bucket, _sum and _count) are made reset-free at ingestion: a
//     drop of the raw value is a counter reset, and the post-reset value is
//     added (the counter restarted from zero). The counter is then
//     interpolated linearly at start and at end from the samples around
//     each edge, and the window's value is the difference.
//   - Gauges (power, KV cache usage, queue depths) give a time-weighted mean,
//     the trapezoid integral divided by the covered duration, and a peak, the
//     largest sample inside the window or the interpolated edge values.
//   - Energy falls back per GPU to the trapezoid integral of power when the
//     counter is absent anywhere across the window; Method says which.
//   - Samples must bracket both edges. If the first sample is after start or
//     the last before end, the figures cover only the sampled part: Coverage
//     drops below 1 and a warning says by how much. Nothing is extrapolated.
//     Call WaitCovered(ctx, end) before Window so that the end is bracketed.
//
// dcgm-exporter refreshes its values only every collect interval (30 s by
// default, flag -c in ms) and serves the same numbers in between. GPUSampler
// therefore stores a GPU reading only when its value changed, stamped with
// the scrape that first saw the change (on average half a scrape interval
// after the exporter read it; the lag is the same at both edges). The
// update interval is the median gap between changes; a window shorter than
// 10 × that interval gets a warning, as do gaps longer than 3 × the
// interval (missing samples), scrape errors, counter resets, and GPUs that
// appear or disappear.
//
// Memory is bounded: each series holds at most SamplerOptions.MaxPoints
// points (4096 by default). When full, the oldest half (the first point is
// always kept) is merged pairwise: a merged point keeps the later time and
// values and the larger peak. Counters and gauge integrals are stored
// cumulatively, so the figures at retained points stay exact and only the
// resolution of old data coarsens; a run of any length uses O(MaxPoints)
// memory per GPU and for the server.
//
// # Window semantics (Prometheus)
//
// Every figure is one instant query evaluated at time = end over the range
// [D], D = end − start, written in seconds (milliseconds when not whole):
// increase() of the energy counter (Prometheus handles resets and
// extrapolates to the range edges), avg_over_time and max_over_time of
// power, and max_over_time of a subquery of the summed power for the peak.
// Pad the window start by at least two scrape intervals after Prometheus or
// the exporter started: increase() under-reads when the range starts before
// the first sample (telemetry.md §4.2).
//
// # Units and conversions
//
//   - DCGM and NVML energy counters: mJ; J = mJ ÷ 1000.
//   - DCGM power: W. NVML power: mW; W = mW ÷ 1000.
//   - Kepler counters: J (no conversion).
//   - Wh = J ÷ 3600; kWh per 1M tokens = (J/token) ÷ 3.6.
//   - gCO2 per 1M tokens = kWh per 1M tokens × PUE × grid gCO2/kWh.
//   - Cost: window cost = cost per hour × seconds ÷ 3600;
//     CPM = cost per hour × 10^6 ÷ (goodput tok/s × 3600).
//   - vLLM kv_cache_usage_perc and SGLang token_usage: fraction 0..1.
//   - Latency histograms: seconds; percentiles by linear interpolation inside
//     the bucket, as PromQL's histogram_quantile.
//
// NaN in a float result means "not available" (no such metric, zero
// denominator); JSON encoders must turn it into null.
package telemetry
