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
package stats
