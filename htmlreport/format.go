package htmlreport

import (
	"math"
	"strconv"
	"strings"
)

// fmtTick formats an axis value whose ticks are step apart: just enough
// decimals to tell neighbouring ticks apart, thousands grouped, and a k, M
// or G suffix chosen by mag, the axis's largest magnitude (so that one
// axis uses one suffix): k from ten thousand, M from a million, G from a
// billion.
func fmtTick(v, step, mag float64) string {
	if v == 0 {
		return "0"
	}
	a := math.Abs(mag)
	switch {
	case a >= 1e12 || math.Abs(v) < 1e-6:
		return strconv.FormatFloat(v, 'g', 3, 64)
	case a >= 1e9:
		return fmtDec(v/1e9, decimalsFor(step/1e9)) + "G"
	case a >= 1e6:
		return fmtDec(v/1e6, decimalsFor(step/1e6)) + "M"
	case a >= 1e4:
		return fmtDec(v/1e3, decimalsFor(step/1e3)) + "k"
	}
	return fmtDec(v, decimalsFor(step))
}

// decimalsFor is the number of decimals that shows a multiple of step
// exactly (step a 1-2-5 value or a power of ten).
func decimalsFor(step float64) int {
	step = math.Abs(step)
	if step == 0 || step >= 1 || math.IsNaN(step) || math.IsInf(step, 0) {
		return 0
	}
	d := int(math.Ceil(-math.Log10(step) - 1e-9))
	// 0.25 or 0.5 steps need the digit of the 5.
	if r := step * math.Pow(10, float64(d)); math.Abs(r-math.Round(r)) > 1e-6 {
		d++
	}
	return min(d, 9)
}

// fmtDec formats v with dec decimals and comma-grouped thousands.
func fmtDec(v float64, dec int) string {
	s := strconv.FormatFloat(v, 'f', dec, 64)
	if s == "-0" || strings.HasPrefix(s, "-0.") && strings.Trim(s[3:], "0") == "" {
		s = s[1:]
	}
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	intPart, frac, hasFrac := strings.Cut(s, ".")
	intPart = groupDigits(intPart)
	if neg {
		intPart = "-" + intPart
	}
	if hasFrac {
		return intPart + "." + frac
	}
	return intPart
}

// fmtNum formats a figure for a table or label with about three
// significant digits (at least the integer part), grouped thousands; "–"
// for a value that is not a number.
func fmtNum(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a >= 1e15:
		return strconv.FormatFloat(v, 'g', 3, 64)
	case a >= 100:
		return fmtDec(v, 0)
	case a >= 10:
		return fmtDec(v, 1)
	case a >= 1:
		return fmtDec(v, 2)
	case a >= 1e-7:
		return fmtDec(v, 2+int(math.Ceil(-math.Log10(a)-1e-9)))
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// fmtPct formats a fraction as a percentage.
func fmtPct(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "–"
	}
	p := 100 * f
	switch {
	case p == 0:
		return "0%"
	case math.Abs(p) >= 10:
		return fmtDec(p, 1) + "%"
	case math.Abs(p) >= 0.1:
		return fmtDec(p, 2) + "%"
	}
	return fmtNum(p) + "%"
}

// fmtCoord formats an SVG coordinate: one decimal, no trailing ".0".
func fmtCoord(v float64) string {
	s := strconv.FormatFloat(math.Round(v*10)/10, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	if s == "-0" {
		return "0"
	}
	return s
}

// groupDigits inserts commas between groups of three digits.
func groupDigits(digits string) string {
	if len(digits) <= 3 {
		return digits
	}
	var b strings.Builder
	pre := len(digits) % 3
	if pre > 0 {
		b.WriteString(digits[:pre])
	}
	for i := pre; i < len(digits); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(digits[i : i+3])
	}
	return b.String()
}

// fmtInt formats an integer with grouped thousands.
func fmtInt(n int64) string {
	if n < 0 {
		return "-" + groupDigits(strconv.FormatUint(uint64(-(n+1))+1, 10))
	}
	return groupDigits(strconv.FormatInt(n, 10))
}
