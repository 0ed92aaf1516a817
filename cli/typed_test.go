package cli

import (
	"slices"
	"testing"
)

// A typed value stands for its flag only while the flag holds the text
// it was written as.
func TestTypedStandsForItsText(t *testing.T) {
	var r typed[[]float64]
	if _, ok := r.of(""); ok {
		t.Error("an unset value stands for the empty flag")
	}
	r.put("1,2.5", []float64{1, 2.5})
	if v, ok := r.of("1,2.5"); !ok || !slices.Equal(v, []float64{1, 2.5}) {
		t.Errorf("of(its text) = %v, %v; want [1 2.5], true", v, ok)
	}
	if _, ok := r.of("4"); ok {
		t.Error("the value stands for a flag set to other text since")
	}
}
