package compare

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// LimitKind is how a threshold is expressed.
type LimitKind uint8

// Limit kinds.
const (
	// LimitOff disables the gate of a metric (its row is still shown).
	LimitOff LimitKind = iota
	// LimitPercent is a change relative to the baseline, "5%".
	LimitPercent
	// LimitPoints is an absolute change of a rate in percentage points,
	// "0.5pp" (error rate 1.0% → 1.5%).
	LimitPoints
	// LimitDuration is an absolute change of a latency, "20ms".
	LimitDuration
)

// Limit is one threshold: how much a metric may get worse before the gate
// fails. Num is the number as written: 5 for "5%", 0.5 for "0.5pp", 20 for
// "20ms" (durations are kept in milliseconds).
type Limit struct {
	Kind LimitKind
	Num  float64
}

// String writes the limit so that ParseLimit reads it back: "5%",
// "0.5pp", "20ms", "off".
func (l Limit) String() string {
	n := strconv.FormatFloat(l.Num, 'f', -1, 64)
	switch l.Kind {
	case LimitPercent:
		return n + "%"
	case LimitPoints:
		return n + "pp"
	case LimitDuration:
		return n + "ms"
	}
	return "off"
}

// maxLimitNum bounds the number of a limit (1,000,000% is already no gate).
const maxLimitNum = 1e6

// ParseLimit reads a threshold: "off" (or "none"), a percentage "5%", a
// number of percentage points "0.5pp", or a duration "20ms", "0.5s",
// "500us". accept lists the kinds the metric takes (off is always
// accepted); errors say which forms are accepted. Numbers are plain
// decimals ≥ 0 (no sign, exponent, NaN or infinity).
func ParseLimit(s string, accept ...LimitKind) (Limit, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "off" || t == "none" {
		return Limit{}, nil
	}
	num, unit := splitNumber(t)
	v, err := parseDecimal(num)
	if err != nil {
		return Limit{}, fmt.Errorf("%q: %v; want %s", clip(s), err, forms(accept))
	}
	var l Limit
	switch unit {
	case "%":
		l = Limit{Kind: LimitPercent, Num: v}
	case "pp":
		l = Limit{Kind: LimitPoints, Num: v}
	case "ms":
		l = Limit{Kind: LimitDuration, Num: v}
	case "s":
		l = Limit{Kind: LimitDuration, Num: v * 1000}
	case "us", "µs":
		l = Limit{Kind: LimitDuration, Num: v / 1000}
	case "":
		return Limit{}, fmt.Errorf("%q: a bare number is ambiguous; want %s", clip(s), forms(accept))
	default:
		return Limit{}, fmt.Errorf("%q: unknown unit %q; want %s", clip(s), clip(unit), forms(accept))
	}
	ok := false
	for _, k := range accept {
		ok = ok || k == l.Kind
	}
	if !ok {
		return Limit{}, fmt.Errorf("%q: want %s", clip(s), forms(accept))
	}
	if l.Num > maxLimitNum || (l.Kind == LimitPoints && l.Num > 100) {
		return Limit{}, fmt.Errorf("%q: too large; want %s", clip(s), forms(accept))
	}
	return l, nil
}

// splitNumber splits "12.5ms" into "12.5" and "ms".
func splitNumber(s string) (num, unit string) {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	return s[:i], strings.TrimSpace(s[i:])
}

// parseDecimal reads digits with at most one '.', e.g. "5", "0.5", ".5".
func parseDecimal(s string) (float64, error) {
	if s == "" || s == "." || strings.Count(s, ".") > 1 {
		return 0, errors.New("not a number")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, errors.New("not a number")
	}
	return v, nil
}

// forms describes the accepted forms of a limit.
func forms(accept []LimitKind) string {
	var parts []string
	for _, k := range accept {
		switch k {
		case LimitPercent:
			parts = append(parts, "a percentage like 5%")
		case LimitPoints:
			parts = append(parts, "percentage points like 0.5pp")
		case LimitDuration:
			parts = append(parts, "a duration like 20ms")
		}
	}
	parts = append(parts, "off")
	if len(parts) == 2 {
		return parts[0] + " or " + parts[1]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

func clip(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max], "") + "…"
}
