package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"
)

// OpenCost queries the OpenCost allocation API (port 9003).
type OpenCost struct {
	base   *url.URL
	name   string
	client *http.Client
}

// NewOpenCost returns a client for the OpenCost API at baseURL, e.g.
// http://opencost.opencost:9003. A nil client means http.DefaultClient.
func NewOpenCost(baseURL string, client *http.Client) (*OpenCost, error) {
	u, err := parseBaseURL("opencost URL", baseURL)
	if err != nil {
		return nil, err
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawQuery, u.Fragment = "", ""
	if client == nil {
		client = http.DefaultClient
	}
	return &OpenCost{base: u, name: "opencost " + u.Redacted(), client: client}, nil
}

// CostQuery selects what to price.
type CostQuery struct {
	Start, End time.Time
	// Aggregate is the OpenCost aggregation (namespace, pod, controller,
	// label:<k>, …); default "namespace".
	Aggregate string
	// Keys keeps only allocations whose aggregate key is listed (e.g. the
	// namespace names for aggregate=namespace). Empty keeps all.
	Keys []string
	// Namespace keeps only allocations whose properties.namespace matches,
	// whatever the aggregation. Empty keeps all.
	Namespace string
}

// CostAllocation is the cost attributed to the window, pro-rated from
// OpenCost's minute-resolution allocation.
//
// OpenCost does no currency conversion and its allocation response names no
// currency: costs are in the currency of its pricing configuration (USD for
// the built-in and AWS prices, whatever custom pricing was entered in). The
// caller must state the currency it assumes.
type CostAllocation struct {
	// Path is the API path that answered: /allocation or /allocation/compute.
	Path string
	// QueryStart and QueryEnd are the window sent to OpenCost: the
	// requested window widened to whole minutes.
	QueryStart, QueryEnd time.Time
	// QueriedCost is the sum of totalCost over the kept allocations and all
	// returned steps, for the queried window.
	QueriedCost float64
	// CostPerHour is QueriedCost divided by the queried window in hours.
	CostPerHour float64
	// WindowCost is CostPerHour × the requested window in hours.
	WindowCost float64
	// ByKey is QueriedCost per aggregate key.
	ByKey map[string]float64
	// Minutes is the largest "minutes" an allocation reported (how long the
	// workload ran inside the queried window).
	Minutes  float64
	Warnings []string
}

// ocResponse is the /allocation envelope.
type ocResponse struct {
	Code    int                           `json:"code"`
	Status  string                        `json:"status"`
	Message string                        `json:"message"`
	Data    []map[string]*ocAllocationRaw `json:"data"`
}

type ocAllocationRaw struct {
	Name       string `json:"name"`
	Properties struct {
		Namespace string `json:"namespace"`
	} `json:"properties"`
	Minutes   float64 `json:"minutes"`
	TotalCost float64 `json:"totalCost"`
}

// errNotFound makes Allocation fall back to the older path.
var errNotFound = errors.New("HTTP 404")

// Allocation queries /allocation (falling back to /allocation/compute on 404)
// with window=<start>,<end> in RFC3339 widened to whole minutes,
// aggregate=<Aggregate> and accumulate=true, then filters client-side (the
// OpenCost handler of late 2024 ignores the filter parameter) and pro-rates
// to the requested window.
func (o *OpenCost) Allocation(ctx context.Context, q CostQuery) (CostAllocation, error) {
	if !q.End.After(q.Start) {
		return CostAllocation{}, fmt.Errorf("%s: cost window: end %s is not after start %s", o.name, q.End.Format(time.RFC3339), q.Start.Format(time.RFC3339))
	}
	agg := q.Aggregate
	if agg == "" {
		agg = "namespace"
	}
	qs := q.Start.UTC().Truncate(time.Minute)
	qe := q.End.UTC().Truncate(time.Minute)
	if qe.Before(q.End) {
		qe = qe.Add(time.Minute)
	}
	params := url.Values{
		"window":     {qs.Format(time.RFC3339) + "," + qe.Format(time.RFC3339)},
		"aggregate":  {agg},
		"accumulate": {"true"},
	}
	var resp *ocResponse
	var path string
	var err error
	for _, path = range []string{"/allocation", "/allocation/compute"} {
		resp, err = o.get(ctx, path, params)
		if !errors.Is(err, errNotFound) {
			break
		}
	}
	if err != nil {
		return CostAllocation{}, err
	}
	out := CostAllocation{Path: path, QueryStart: qs, QueryEnd: qe, ByKey: map[string]float64{}}
	var seen []string
	for _, step := range resp.Data {
		for key, a := range step {
			if a == nil {
				continue
			}
			seen = append(seen, key)
			if len(q.Keys) > 0 && !containsString(q.Keys, key) {
				continue
			}
			if q.Namespace != "" && a.Properties.Namespace != q.Namespace {
				continue
			}
			if math.IsNaN(a.TotalCost) || math.IsInf(a.TotalCost, 0) {
				out.Warnings = append(out.Warnings, fmt.Sprintf("allocation %q has a non-finite totalCost; left out", key))
				continue
			}
			out.ByKey[key] += a.TotalCost
			out.QueriedCost += a.TotalCost
			out.Minutes = math.Max(out.Minutes, a.Minutes)
		}
	}
	if len(out.ByKey) == 0 {
		sort.Strings(seen)
		if len(seen) == 0 {
			seen = []string{"none"}
		}
		return CostAllocation{}, fmt.Errorf("%s%s: no allocation matches keys=%v namespace=%q for window %s (aggregate=%s; keys returned: %s)",
			o.name, path, q.Keys, q.Namespace, params.Get("window"), agg, strings.Join(dedupe(seen), ", "))
	}
	out.CostPerHour = out.QueriedCost / qe.Sub(qs).Hours()
	out.WindowCost = out.CostPerHour * q.End.Sub(q.Start).Hours()
	if qe.Sub(qs) > q.End.Sub(q.Start)+time.Second {
		out.Warnings = append(out.Warnings, fmt.Sprintf("OpenCost resolves whole minutes: queried %s to %s and pro-rated to the %v window",
			qs.Format(time.RFC3339), qe.Format(time.RFC3339), q.End.Sub(q.Start).Round(time.Millisecond)))
	}
	return out, nil
}

func dedupe(s []string) []string {
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

func (o *OpenCost) get(ctx context.Context, path string, params url.Values) (*ocResponse, error) {
	u := *o.base
	u.Path += path
	u.RawQuery = params.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("%s%s: building request: %w", o.name, path, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := o.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s%s: %w", o.name, path, unwrapURLError(err))
	}
	defer resp.Body.Close()
	body := io.LimitReader(resp.Body, 64<<20)
	if resp.StatusCode == http.StatusNotFound {
		return nil, fmt.Errorf("%s%s: %w: %s", o.name, path, errNotFound, snippet(body))
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt != "application/json" {
		return nil, fmt.Errorf("%s%s: HTTP %d with %q body: %s", o.name, path, resp.StatusCode, mt, snippet(body))
	}
	var r ocResponse
	if err := json.NewDecoder(body).Decode(&r); err != nil {
		return nil, fmt.Errorf("%s%s: HTTP %d: decoding response: %w", o.name, path, resp.StatusCode, err)
	}
	if resp.StatusCode != http.StatusOK || (r.Code != 0 && r.Code != http.StatusOK) {
		msg := r.Message
		if msg == "" {
			msg = r.Status
		}
		return nil, fmt.Errorf("%s%s: API error (HTTP %d, code %d): %s", o.name, path, resp.StatusCode, r.Code, msg)
	}
	return &r, nil
}
