package cli

import (
	"errors"
	"strings"
	"testing"
)

// An unknown flag one typo away from a real one names it; a name near
// none, or near too many, gets pflag's message alone.
func TestUnknownFlagSuggests(t *testing.T) {
	var o benchOptions
	fs := NewFlagSet("benchmark", "", &strings.Builder{})
	benchFlags(&o, fs)
	for arg, want := range map[string]string{
		"--max-secnds":  "unknown flag: --max-secnds: did you mean --max-seconds? (see 'goodput benchmark --help')",
		"--max-request": "unknown flag: --max-request: did you mean --max-requests? (see 'goodput benchmark --help')",
		"--profil":      "unknown flag: --profil: did you mean --profile? (see 'goodput benchmark --help')",
		"--bogus":       "unknown flag: --bogus (see 'goodput benchmark --help')",
		"--duration":    "unknown flag: --duration (see 'goodput benchmark --help')",
	} {
		err := ParseFlags(fs, []string{arg, "1"})
		var ue UsageError
		if !errors.As(err, &ue) || err.Error() != want {
			t.Errorf("%s: %v, want the usage error %q", arg, err, want)
		}
	}
}
