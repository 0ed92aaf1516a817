// Package merge combines the reports of a sharded run (one goodput per
// pod, --shard-index i of --shard-count n) into one report:
// merge.Shards(ctx, files, opts) checks that the shards belong together (a
// Refusal names the file and the reason), then rebuilds each round from
// every shard's per-request records when all are present (path "records",
// exact) or else from their HDR histograms (path "histograms").
// report/README.md describes the checks and both paths.
package merge
