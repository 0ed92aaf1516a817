package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/goodput-dev/goodput/internal/redact"
)

// maxExpositionBytes bounds one /metrics body (a vLLM exposition is a few
// hundred KiB; a DCGM one for 8 GPUs is tens of KiB).
const maxExpositionBytes = 32 << 20

// acceptText asks for the classic text format, which every exporter serves.
const acceptText = "text/plain;version=0.0.4;q=1,*/*;q=0.1"

// families is a parsed exposition: metric families by name.
type families map[string]*dto.MetricFamily

// parseMetricsURL checks an exporter URL and adds the path /metrics when the
// URL has none. what names the flag or field in errors.
func parseMetricsURL(what, raw string) (*url.URL, error) {
	u, err := parseBaseURL(what, raw)
	if err != nil {
		return nil, err
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/metrics"
	}
	return u, nil
}

// parseBaseURL checks that raw is an absolute http(s) URL with a host.
func parseBaseURL(what, raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s %q: want an absolute http:// or https:// URL such as http://host:9400/metrics", what, redact.URL(raw))
	}
	return u, nil
}

// scrape fetches and parses one exposition. Errors name the URL (redacted).
func scrape(ctx context.Context, client *http.Client, u *url.URL) (families, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("building request: %w", err)
	}
	req.Header.Set("Accept", acceptText)
	resp, err := client.Do(req)
	if err != nil {
		return nil, unwrapURLError(err)
	}
	defer resp.Body.Close()
	body := io.LimitReader(resp.Body, maxExpositionBytes)
	if resp.StatusCode != http.StatusOK {
		return nil, &httpStatusError{code: resp.StatusCode, msg: fmt.Sprintf("HTTP %d: %s", resp.StatusCode, snippet(body))}
	}
	return decodeExposition(body, expfmt.ResponseFormat(resp.Header))
}

// unwrapURLError drops the *url.Error wrapper (its text repeats the URL,
// which the caller already names) but keeps the cause.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// snippet reads up to 200 bytes of a body for an error message.
func snippet(r io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(r, 200))
	s := strings.TrimSpace(strings.ToValidUTF8(string(b), "?"))
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "(empty body)"
	}
	return s
}

// decodeExposition parses an exposition in the given format; an unknown
// content type (a file server's application/octet-stream) is read as text,
// as Prometheus 2.x does.
func decodeExposition(r io.Reader, format expfmt.Format) (families, error) {
	if format.FormatType() == expfmt.TypeUnknown {
		format = expfmt.NewFormat(expfmt.TypeTextPlain)
	}
	dec := expfmt.NewDecoder(r, format)
	out := families{}
	for {
		mf := &dto.MetricFamily{}
		err := dec.Decode(mf)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("parsing exposition: %w", err)
		}
		if prev, ok := out[mf.GetName()]; ok {
			prev.Metric = append(prev.Metric, mf.Metric...)
			continue
		}
		out[mf.GetName()] = mf
	}
}

// scalarValue returns the value of a counter, gauge or untyped sample, and
// NaN for other types (a summary or histogram under a scalar's name).
func scalarValue(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Untyped != nil:
		return m.Untyped.GetValue()
	}
	return math.NaN()
}

// label returns the value of the first of names present on m. Names are
// compared case-insensitively (dcgm-exporter spells Hostname and hostname).
func label(m *dto.Metric, names ...string) string {
	for _, n := range names {
		for _, lp := range m.GetLabel() {
			if strings.EqualFold(lp.GetName(), n) {
				return lp.GetValue()
			}
		}
	}
	return ""
}
