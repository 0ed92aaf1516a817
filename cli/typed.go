package cli

// typed is a value a front end built for a text flag (GuideLLM v0.7's
// options build --rate, --slo and --outputs), kept with the text it also
// wrote into the flag for --print-config and the run id. The value stands
// for the flag while the flag still holds that text, so what the front
// end built is used as built, never parsed back from its text.
type typed[T any] struct {
	text string
	v    T
	set  bool
}

// put records v, written into the flag as text.
func (t *typed[T]) put(text string, v T) { *t = typed[T]{text: text, v: v, set: true} }

// of is the value when the flag holds its text, ok false otherwise.
func (t typed[T]) of(flag string) (T, bool) {
	if !t.set || t.text != flag {
		var zero T
		return zero, false
	}
	return t.v, true
}
