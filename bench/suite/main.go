// Command suite is goodput's performance suite (make bench). It runs the
// built goodput binary and its mock as separate processes on loopback and
// prints every figure next to its target: the client's CPU per streamed
// token and per request, the throughput it sustains, the same for a Python
// aiohttp client (the ratio), how the cost grows from 1 to 50,000 streams
// and issue 22's 50,000 streams with tokens 1 s apart (for each HTTP
// client), the open-loop rate ceiling, timing fidelity against the mock's
// emission stamps, open-loop dispatch lateness, and memory over a long run.
// Rows the machine's open-files limit does not allow are printed as
// skipped. It exits non-zero only when a run
// breaks, never because a figure misses its target on a slow machine.
//
// Usage: go run ./bench/suite [-quick] [-only name,...] [-goodput bin/goodput]
// [-http-clients goodput,net/http] [-streams 100,50000] [-md FILE]
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	quick := flag.Bool("quick", false, "smaller runs (a few minutes in all)")
	only := flag.String("only", "", "comma list of sections: client,gate,python,scaling,scale,ceiling,fidelity,lateness,progress,memory")
	bin := flag.String("goodput", "bin/goodput", "the goodput binary to measure")
	python := flag.String("python", "/usr/bin/python3", "python with aiohttp (Debian's python3-aiohttp)")
	clients := flag.String("http-clients", "goodput,net/http", "goodput's --http-client values the scaling, scale and ceiling sections run with, in turn (empty: once, without the flag)")
	streams := flag.String("streams", "", "stream counts the scaling and scale sections run instead of their own (comma list, e.g. 100,50000; ratios need 100)")
	md := flag.String("md", "", "also write the figures as a Markdown table to this file")
	jsonOut := flag.String("json", "", "write the gate section's client-cost report (what goodput compare reads) to this file")
	pairs := flag.Int("pairs", 5, "gate section: alternating goodput/minimal-client pairs per load")
	pairSecs := flag.Int("pair-seconds", 3, "gate section: seconds each client runs per pair")
	flag.Parse()
	if *pairs < 1 || *pairSecs < 1 {
		fmt.Fprintln(os.Stderr, "-pairs and -pair-seconds: want positive integers")
		os.Exit(2)
	}
	s := &suite{bin: *bin, pyBin: *python, quick: *quick, work: mustTemp(), httpClients: []string{""},
		gatePairs: *pairs, gateSecs: *pairSecs}
	if *clients != "" {
		s.httpClients = strings.Split(*clients, ",")
	}
	for _, f := range strings.Split(*streams, ",") {
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "-streams: bad count %q\n", f)
			os.Exit(2)
		}
		s.streams = append(s.streams, n)
	}
	defer os.RemoveAll(s.work)
	want := map[string]bool{}
	for _, n := range strings.Split(*only, ",") {
		if n != "" {
			want[n] = true
		}
	}
	sections := []struct {
		name string
		run  func() error
	}{
		{"client", s.client}, {"gate", s.gate}, {"python", s.pythonCmp}, {"scaling", s.scaling},
		{"scale", s.scale}, {"ceiling", s.ceiling},
		{"fidelity", s.fidelity}, {"lateness", s.lateness}, {"progress", s.progress}, {"memory", s.memory},
	}
	broken := false
	start := time.Now()
	for _, sec := range sections {
		if len(want) > 0 && !want[sec.name] {
			continue
		}
		fmt.Printf("== %s\n", sec.name)
		if err := sec.run(); err != nil {
			fmt.Printf("   BROKEN: %v\n", err)
			broken = true
		}
	}
	fmt.Printf("== done in %s\n", time.Since(start).Round(time.Second))
	if *md != "" {
		if err := os.WriteFile(*md, []byte(s.markdown()), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			broken = true
		}
	}
	if *jsonOut != "" {
		if len(s.cost) == 0 {
			fmt.Fprintln(os.Stderr, "-json: the gate section did not run or measured nothing")
			broken = true
		} else if err := s.writeCost(*jsonOut); err != nil {
			fmt.Fprintln(os.Stderr, err)
			broken = true
		}
	}
	if broken {
		os.Exit(1)
	}
}

func mustTemp() string {
	d, err := os.MkdirTemp("", "goodput-bench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return d
}
