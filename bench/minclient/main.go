// Command minclient is the floor goodput's client cost is compared with
// (make bench): the least a Go program must do to stream completions over
// net/http. Each of N streams sends one chat completion after another for
// S seconds and reads the body into a fixed buffer, counting the content
// deltas; no SSE parsing, JSON decoding, timestamps or records. Whatever
// goodput spends beyond this per token is its own bookkeeping.
//
// Usage: minclient URL MODEL STREAMS SECONDS MAX_TOKENS
// Prints one JSON line: requests, errors, tokens, cpu_seconds, wall_seconds.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) != 6 {
		fmt.Fprintln(os.Stderr, "usage: minclient URL MODEL STREAMS SECONDS MAX_TOKENS")
		os.Exit(2)
	}
	url, model := os.Args[1]+"/v1/chat/completions", os.Args[2]
	streams, err1 := strconv.Atoi(os.Args[3])
	secs, err2 := strconv.Atoi(os.Args[4])
	maxTokens, err3 := strconv.Atoi(os.Args[5])
	if err1 != nil || err2 != nil || err3 != nil || streams < 1 || secs < 1 || maxTokens < 1 {
		fmt.Fprintln(os.Stderr, "minclient: STREAMS, SECONDS and MAX_TOKENS must be positive integers")
		os.Exit(2)
	}
	body, _ := json.Marshal(map[string]any{
		"model":                 model,
		"messages":              []map[string]string{{"role": "user", "content": "Tell me a story about benchmarks."}},
		"stream":                true,
		"stream_options":        map[string]bool{"include_usage": true, "continuous_usage_stats": true},
		"max_completion_tokens": maxTokens, "ignore_eos": true,
	})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: streams, DisableCompression: true}}
	delta := []byte(`{"content":"`)
	var requests, errs, tokens atomic.Int64
	cpu0 := cpuSeconds()
	t0 := time.Now()
	stop := t0.Add(time.Duration(secs) * time.Second)
	var wg sync.WaitGroup
	for range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 16<<10)
			for time.Now().Before(stop) {
				resp, err := client.Post(url, "application/json", bytes.NewReader(body))
				if err != nil {
					errs.Add(1)
					continue
				}
				var n int64
				for {
					k, err := resp.Body.Read(buf)
					n += int64(bytes.Count(buf[:k], delta))
					if err != nil {
						if err != io.EOF {
							errs.Add(1)
						}
						break
					}
				}
				resp.Body.Close()
				requests.Add(1)
				tokens.Add(n)
			}
		}()
	}
	wg.Wait()
	out, _ := json.Marshal(map[string]any{
		"requests": requests.Load(), "errors": errs.Load(), "tokens": tokens.Load(),
		"cpu_seconds": cpuSeconds() - cpu0, "wall_seconds": time.Since(t0).Seconds(),
	})
	fmt.Println(string(out))
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
