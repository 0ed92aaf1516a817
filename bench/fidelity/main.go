// Command fidelity reads a goodput requests.jsonl recorded against a goodput
// mock (whose chunks carry their emission stamps) and prints how far the
// client's timestamps are from the server's: for every inter-chunk gap, the
// gap the client measured minus the gap the mock produced; for every first
// token, its arrival minus its emission. It also prints request and token
// totals. Used by scripts/bench.sh; figures in BENCHMARKS.md.
//
// Usage: fidelity FILE.jsonl [benchmark-index]
package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"

	"github.com/goodput-dev/goodput/record"
)

func main() {
	if len(os.Args) < 2 || len(os.Args) > 3 {
		fmt.Fprintln(os.Stderr, "usage: fidelity FILE.jsonl [benchmark-index]")
		os.Exit(2)
	}
	bench := -1
	if len(os.Args) == 3 {
		var err error
		if bench, err = strconv.Atoi(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "fidelity: benchmark index must be an integer")
			os.Exit(2)
		}
	}
	if err := run(os.Args[1], bench, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fidelity:", err)
		os.Exit(1)
	}
}

func run(path string, bench int, w io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	dec := record.NewDecoder(f, path)
	r := record.New()
	var gapErr, firstDelay []float64
	var reqs, ok, tokens int64
	for {
		if err := dec.Decode(r); err == io.EOF {
			break
		} else if err != nil {
			return err
		}
		if bench >= 0 && r.Benchmark != bench {
			continue
		}
		reqs++
		if r.Status != record.StatusSuccessful {
			continue
		}
		ok++
		tokens += int64(r.OutputTokens)
		if len(r.EmitTimes) != len(r.ChunkTimes) || len(r.EmitTimes) == 0 {
			continue
		}
		firstDelay = append(firstDelay, float64(r.ChunkTimes[0]-r.EmitTimes[0])/1e3)
		for i := 1; i < len(r.ChunkTimes); i++ {
			measured := r.ChunkTimes[i] - r.ChunkTimes[i-1]
			produced := r.EmitTimes[i] - r.EmitTimes[i-1]
			gapErr = append(gapErr, math.Abs(float64(measured-produced))/1e3)
		}
	}
	fmt.Fprintf(w, "requests %d successful %d output_tokens %d\n", reqs, ok, tokens)
	if len(gapErr) == 0 {
		fmt.Fprintln(w, "no emission stamps (not recorded against a goodput mock?)")
		return nil
	}
	slices.Sort(gapErr)
	slices.Sort(firstDelay)
	q := func(v []float64, p float64) float64 { return v[int(math.Ceil(p*float64(len(v))))-1] }
	fmt.Fprintf(w, "itl_error_us gaps %d p50 %.1f p99 %.1f p99.9 %.1f max %.1f\n",
		len(gapErr), q(gapErr, 0.5), q(gapErr, 0.99), q(gapErr, 0.999), gapErr[len(gapErr)-1])
	fmt.Fprintf(w, "first_token_delivery_us requests %d p50 %.1f p99 %.1f p99.9 %.1f max %.1f\n",
		len(firstDelay), q(firstDelay, 0.5), q(firstDelay, 0.99), q(firstDelay, 0.999), firstDelay[len(firstDelay)-1])
	return nil
}
