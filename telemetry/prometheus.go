package telemetry

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Prometheus queries a Prometheus server's HTTP API (/api/v1/query) for
// window figures: GPU energy from dcgm-exporter series, and Kepler energy.
// Every figure is an instant query evaluated at the window end over a range
// equal to the window, so the windows line up with the benchmark's.
type Prometheus struct {
	base   *url.URL
	name   string
	client *http.Client
}

// NewPrometheus returns a client for the Prometheus at baseURL, e.g.
// http://prometheus.monitoring:9090 (a path prefix, as behind a proxy, is
// kept). A nil client means http.DefaultClient.
func NewPrometheus(baseURL string, client *http.Client) (*Prometheus, error) {
	u, err := parseBaseURL("prometheus URL", baseURL)
	if err != nil {
		return nil, err
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawQuery, u.Fragment = "", ""
	if client == nil {
		client = http.DefaultClient
	}
	return &Prometheus{base: u, name: "prometheus " + u.Redacted(), client: client}, nil
}

// Name returns "prometheus <URL>" (password redacted).
func (p *Prometheus) Name() string { return p.name }

// PromSample is one element of an instant-vector result.
type PromSample struct {
	Labels map[string]string
	Value  float64
}

// apiResponse is the /api/v1 envelope.
type apiResponse struct {
	Status    string          `json:"status"`
	Data      json.RawMessage `json:"data"`
	ErrorType string          `json:"errorType"`
	Error     string          `json:"error"`
	Warnings  []string        `json:"warnings"`
}

type queryData struct {
	ResultType string          `json:"resultType"`
	Result     json.RawMessage `json:"result"`
}

type vectorElem struct {
	Metric map[string]string `json:"metric"`
	Value  []json.RawMessage `json:"value"`
}

// Query runs an instant query evaluated at time at and returns the vector
// (a scalar result becomes one sample without labels) and the API's
// warnings. PromQL infos (Prometheus 3.x) are ignored.
func (p *Prometheus) Query(ctx context.Context, expr string, at time.Time) ([]PromSample, []string, error) {
	form := url.Values{"query": {expr}, "time": {promTime(at)}}
	u := *p.base
	u.Path += "/api/v1/query"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), strings.NewReader(form.Encode()))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: building request: %w", p.name, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: query %s: %w", p.name, expr, unwrapURLError(err))
	}
	defer resp.Body.Close()
	body := io.LimitReader(resp.Body, 64<<20)
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt != "application/json" {
		return nil, nil, fmt.Errorf("%s: query %s: HTTP %d with %q body (not the Prometheus API?): %s",
			p.name, expr, resp.StatusCode, mt, snippet(body))
	}
	var env apiResponse
	if err := json.NewDecoder(body).Decode(&env); err != nil {
		return nil, nil, fmt.Errorf("%s: query %s: HTTP %d: decoding response: %w", p.name, expr, resp.StatusCode, err)
	}
	if env.Status != "success" {
		et := env.ErrorType
		if et == "" {
			et = "error"
		}
		return nil, nil, fmt.Errorf("%s: query %s: HTTP %d: %s: %s", p.name, expr, resp.StatusCode, et, env.Error)
	}
	var d queryData
	if err := json.Unmarshal(env.Data, &d); err != nil {
		return nil, nil, fmt.Errorf("%s: query %s: decoding data: %w", p.name, expr, err)
	}
	out, err := decodeResult(d)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: query %s: %w", p.name, expr, err)
	}
	return out, env.Warnings, nil
}

func decodeResult(d queryData) ([]PromSample, error) {
	switch d.ResultType {
	case "vector":
		var elems []vectorElem
		if err := json.Unmarshal(d.Result, &elems); err != nil {
			return nil, fmt.Errorf("decoding vector: %w", err)
		}
		out := make([]PromSample, 0, len(elems))
		for _, e := range elems {
			if len(e.Value) != 2 {
				continue // a native histogram sample: not used here
			}
			v, err := promValue(e.Value[1])
			if err != nil {
				return nil, err
			}
			out = append(out, PromSample{Labels: e.Metric, Value: v})
		}
		return out, nil
	case "scalar":
		var pair []json.RawMessage
		if err := json.Unmarshal(d.Result, &pair); err != nil || len(pair) != 2 {
			return nil, fmt.Errorf("decoding scalar: want [time, \"value\"]")
		}
		v, err := promValue(pair[1])
		if err != nil {
			return nil, err
		}
		return []PromSample{{Labels: map[string]string{}, Value: v}}, nil
	}
	return nil, fmt.Errorf("unexpected result type %q (want vector or scalar)", d.ResultType)
}

// promValue decodes a sample value, a JSON string such as "12.5", "NaN" or "+Inf".
func promValue(raw json.RawMessage) (float64, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0, fmt.Errorf("sample value %s: want a quoted number", clip(string(raw)))
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("sample value %q: %w", s, err)
	}
	return v, nil
}

// sumValues adds the finite values of a vector.
func sumValues(v []PromSample) float64 {
	s := 0.0
	for _, x := range v {
		if !math.IsNaN(x.Value) && !math.IsInf(x.Value, 0) {
			s += x.Value
		}
	}
	return s
}
