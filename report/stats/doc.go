// Package stats computes the distributions of a benchmark report with
// GuideLLM's definitions (statistics.py): weighted empirical-CDF
// percentiles without interpolation, population variance,
// duration-weighted rate distributions over locally merged events and
// time-weighted concurrency. FromValues, RateDistribution and
// ConcurrencyDistribution are the entry points; they match a numpy
// re-implementation of GuideLLM's statistics bit for bit
// (testdata/guidellm_oracle.json).
//
// It also holds goodput's lossless HDR histograms: HistAcc records a
// metric, EncodeHistogram/DecodeHistogram store one in a report,
// MergeHistograms and MergeHistogramSets combine runs and shards, and
// HistogramSummary turns one back into a DistributionSummary.
//
// ci.go holds the confidence intervals: MeanCI (Student's t),
// PercentileCI/PercentileCIHist (distribution-free, order statistics by the
// exact binomial; a side too few observations cannot bound is infinite),
// ProportionCI (Clopper–Pearson) and the one-sided confidences decisions
// use (PercentileConfidence, ProportionConfidence, MeanConfidence);
// survival.go the Kaplan–Meier estimate of right-censored times
// (KaplanMeier: quantiles, their intervals, attainment).
package stats
