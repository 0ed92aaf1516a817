package telemetry

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// QueueReader reads how many requests an inference server is running and
// how many wait in its queue, now, from its /metrics (the engine table's
// running and waiting series): what a runner asks
// before a round to know that the server has drained what earlier rounds
// left (sweep.Drain).
type QueueReader struct {
	urls   []*url.URL
	name   string
	client *http.Client
}

// NewQueueReader returns a reader for the server's metrics URL, e.g.
// http://127.0.0.1:8000/metrics (path /metrics added when absent). A nil
// client means http.DefaultClient.
func NewQueueReader(metricsURL string, client *http.Client) (*QueueReader, error) {
	return NewReplicaQueueReader([]string{metricsURL}, client)
}

// NewReplicaQueueReader reads every replica's /metrics and sums their
// queues: the deployment has drained when all of them have.
func NewReplicaQueueReader(metricsURLs []string, client *http.Client) (*QueueReader, error) {
	if len(metricsURLs) == 0 {
		return nil, fmt.Errorf("server metrics: no URL")
	}
	q := &QueueReader{client: client}
	var names []string
	for _, raw := range metricsURLs {
		u, err := parseMetricsURL("server metrics URL", raw)
		if err != nil {
			return nil, err
		}
		q.urls = append(q.urls, u)
		names = append(names, u.Redacted())
	}
	if q.client == nil {
		q.client = http.DefaultClient
	}
	q.name = "server metrics " + strings.Join(names, ", ")
	return q, nil
}

// Queue scrapes the server once (retrying transient errors until ctx's
// deadline, else for DefaultTimeout) and returns its running and waiting
// requests, each summed over engines. It is an error when the exposition
// has neither gauge; a missing one of the two reads 0.
func (q *QueueReader) Queue(ctx context.Context) (running, waiting float64, err error) {
	for _, u := range q.urls {
		r, w, err := q.queue(ctx, u)
		if err != nil {
			return 0, 0, err
		}
		running, waiting = running+r, waiting+w
	}
	return running, waiting, nil
}

// queue reads one replica.
func (q *QueueReader) queue(ctx context.Context, u *url.URL) (running, waiting float64, err error) {
	name := "server metrics " + u.Redacted()
	var fams families
	tries, err := retry(ctx, probeBound(ctx, DefaultTimeout), DefaultTimeout, func(rctx context.Context) error {
		var err error
		fams, err = scrape(rctx, q.client, u)
		return err
	})
	if err != nil {
		if tries > 1 {
			err = fmt.Errorf("%w (tried %d times)", err, tries)
		}
		return 0, 0, fmt.Errorf("%s: %w", name, err)
	}
	var v [2]float64
	found := false
	for i, col := range []int{srvRunning, srvWaiting} {
		_, r, ok := firstRef(fams, serverScalars[col].refs)
		if !ok {
			continue
		}
		sum, n := r.sum(fams)
		v[i] += sum
		found = found || n > 0
	}
	if !found {
		return 0, 0, fmt.Errorf("%s: no running or waiting requests gauge (looked for %s)", name,
			strings.Join(append(refNames(serverScalars[srvRunning].refs), refNames(serverScalars[srvWaiting].refs)...), ", "))
	}
	return v[0], v[1], nil
}
