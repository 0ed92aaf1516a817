package sweep

import (
	"encoding/json"
	"fmt"

	"github.com/goodput-dev/goodput/loadgen"
)

// Describe is the plan as JSON: each planner's type and exported
// parameters, wrappers (Repeat, StopOn) with the plan they wrap. The same
// plan gives the same bytes however its flags were spelled, so run ids
// hash it.
func Describe(p Planner) ([]byte, error) {
	b, err := json.Marshal(described{p})
	if err != nil {
		return nil, fmt.Errorf("describe the plan: %w", err)
	}
	return b, nil
}

// described marshals a planner with its type name.
type described struct{ p Planner }

func (d described) MarshalJSON() ([]byte, error) {
	if d.p == nil {
		return []byte("null"), nil
	}
	return json.Marshal(struct {
		Type string
		Plan Planner
	}{fmt.Sprintf("%T", d.p), d.p})
}

func (r *repeat) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Repeat int
		Plan   described
	}{r.n, described{r.p}})
}

func (s stopOn) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		StopOn []loadgen.StopReason
		Plan   described
	}{s.reasons, described{s.p}})
}

func (k *KneePlanner) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Detection KneeDetection
		Plan      described
	}{k.Detection, described{k.Inner}})
}
