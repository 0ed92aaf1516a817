package mock

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"

	"sync"
	"testing"
	"time"
)

// A minimal streaming load client for the capacity tests: it sends
// completions with a prompt of exactly PromptTokens token ids, ignore_eos and
// max_tokens, and takes each chunk's time from its goodput_emit_ns stamp (the
// mock's emission time, which the model governs), so the test client's own
// scheduling on a busy machine does not blur the quantiles. TTFT runs from
// the client's send time to the first chunk's stamp.

// loadSpec is one run against a mock on 127.0.0.1.
type loadSpec struct {
	url     string
	w       Workload
	streams int           // closed loop: streams (0 for open loop)
	stagger time.Duration // closed loop: stream s starts at s·stagger/streams
	rate    float64       // open loop: requests/s, constant spacing
	warmup  time.Duration // requests sent before are not measured
	measure time.Duration // measurement window after the warm-up
}

// loadResult is what the client measured for requests sent in the window.
type loadResult struct {
	ttfts, gaps  []float64 // seconds
	tokensPerSec float64   // chunks received in the window per second (one token each)
	requests     int
	failures     int
}

func (r loadResult) measured() measured {
	sec := func(x float64) time.Duration { return time.Duration(x * 1e9) }
	m := measured{
		ttftP99:      sec(nearestRank(r.ttfts, 0.99)),
		itlP95:       sec(nearestRank(r.gaps, 0.95)),
		tokensPerSec: r.tokensPerSec,
		requests:     r.requests,
	}
	sum := 0.0
	for _, x := range r.ttfts {
		sum += x
	}
	m.e2eP99 = sec(sum / float64(len(r.ttfts))) // the mean TTFT, kept in e2eP99's slot
	return m
}

func completionBody(w Workload) []byte {
	var b bytes.Buffer
	b.WriteString(`{"prompt":[`)
	for i := range max(w.PromptTokens, 1) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("42")
	}
	fmt.Fprintf(&b, `],"max_tokens":%d,"ignore_eos":true,"stream":true}`, w.OutputTokens)
	return b.Bytes()
}

// oneRequest sends a request and returns the read time of each data chunk
// (without [DONE]) and whether the stream ended with [DONE].
func oneRequest(ctx context.Context, client *http.Client, url string, body []byte, br *bufio.Reader, times []time.Time) ([]time.Time, bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return times, false, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return times, false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return times, false, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	br.Reset(resp.Body)
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return times, false, err
		}
		if !bytes.HasPrefix(line, []byte("data: ")) {
			continue
		}
		if bytes.HasPrefix(line, []byte("data: [DONE]")) {
			return times, true, nil
		}
		ns, ok := stampOf(line)
		if !ok {
			return times, false, fmt.Errorf("chunk without goodput_emit_ns: %s", line)
		}
		times = append(times, time.Unix(0, ns))
	}
}

// stampOf extracts goodput_emit_ns from a chunk.
func stampOf(line []byte) (int64, bool) {
	const key = `"goodput_emit_ns":`
	i := bytes.Index(line, []byte(key))
	if i < 0 {
		return 0, false
	}
	var ns int64
	j := i + len(key)
	for ; j < len(line) && line[j] >= '0' && line[j] <= '9'; j++ {
		ns = ns*10 + int64(line[j]-'0')
	}
	return ns, j > i+len(key)
}

// runLoadSpec drives the mock and collects the client-side measurements.
func runLoadSpec(t testing.TB, spec loadSpec) loadResult {
	t.Helper()
	body := completionBody(spec.w)
	url := spec.url + "/v1/completions"
	conns := max(spec.streams, 256)
	tr := &http.Transport{MaxIdleConns: conns, MaxIdleConnsPerHost: conns, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	ctx, cancel := context.WithTimeout(context.Background(), spec.warmup+spec.measure+30*time.Second)
	defer cancel()

	t0 := time.Now()
	from, to := t0.Add(spec.warmup), t0.Add(spec.warmup+spec.measure)
	var (
		mu  sync.Mutex
		res loadResult
		wg  sync.WaitGroup
	)
	record := func(sent time.Time, times []time.Time, done bool, err error) {
		mu.Lock()
		defer mu.Unlock()
		for _, at := range times {
			if !at.Before(from) && at.Before(to) {
				res.tokensPerSec++
			}
		}
		if sent.Before(from) || !sent.Before(to) {
			return
		}
		if err != nil || !done || len(times) != spec.w.OutputTokens {
			res.failures++
			return
		}
		res.requests++
		res.ttfts = append(res.ttfts, times[0].Sub(sent).Seconds())
		for i := 1; i < len(times); i++ {
			res.gaps = append(res.gaps, times[i].Sub(times[i-1]).Seconds())
		}
	}
	if spec.streams > 0 {
		for s := range spec.streams {
			wg.Go(func() {
				start := t0.Add(spec.stagger * time.Duration(s) / time.Duration(spec.streams))
				time.Sleep(time.Until(start))
				br := bufio.NewReaderSize(nil, 16<<10)
				var times []time.Time
				for time.Now().Before(to) && ctx.Err() == nil {
					sent := time.Now()
					var (
						done bool
						err  error
					)
					times, done, err = oneRequest(ctx, client, url, body, br, times[:0])
					record(sent, times, done, err)
				}
			})
		}
	} else {
		for i := 0; ; i++ {
			at := t0.Add(time.Duration(float64(i) / spec.rate * 1e9))
			if !at.Before(to) {
				break
			}
			time.Sleep(time.Until(at))
			wg.Go(func() {
				br := bufio.NewReaderSize(nil, 16<<10)
				sent := time.Now()
				times, done, err := oneRequest(ctx, client, url, body, br, nil)
				record(sent, times, done, err)
			})
		}
	}
	wg.Wait()
	res.tokensPerSec /= spec.measure.Seconds()
	return res
}

// startCapacityServer starts a mock with capacity model m.
func startCapacityServer(t testing.TB, m CapacityModel, tpc int) *Server {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Capacity = &m
	cfg.TokensPerChunk = tpc
	// The load sends one prompt over and over, which the prefix cache
	// would serve; the knees are those of distinct prompts.
	cfg.PrefixCache = false
	return startServer(t, cfg)
}

func fmtMeasured(m measured) string {
	return fmt.Sprintf("ttft p99 %v mean %v, itl p95 %v, %.0f tok/s, %d requests",
		m.ttftP99.Round(10*time.Microsecond), m.e2eP99.Round(10*time.Microsecond), m.itlP95.Round(10*time.Microsecond), m.tokensPerSec, m.requests)
}

func fmtPoint(p OperatingPoint) string {
	return fmt.Sprintf("ttft p99 %v mean %v, itl p95 %v, %.0f tok/s",
		p.TTFTP99.Round(10*time.Microsecond), p.TTFTMean.Round(10*time.Microsecond), p.ITLP95.Round(10*time.Microsecond), p.OutputTokensPerSec)
}
