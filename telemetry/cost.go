package telemetry

import (
	"fmt"
	"math"
	"time"
)

// CostInput is what the cost arithmetic needs for one window. The currency is
// whatever CostPerHour is in (OpenCost's pricing currency, or the user's
// price per GPU-hour times GPUs).
type CostInput struct {
	CostPerHour float64       // currency per hour for the serving deployment
	Window      time.Duration // benchmark window
	GoodputTokS float64       // output tokens per second that met the SLO
	Requests    int64         // requests completed in the window
}

// CostFigures are derived from a CostInput. NaN means undefined (no goodput,
// no request).
type CostFigures struct {
	// WindowCost = CostPerHour × Window/3600 s.
	WindowCost float64
	// CPM, cost per million goodput tokens:
	// CostPerHour × 10^6 / (GoodputTokS × 3600).
	CPM float64
	// CostPerRequest = WindowCost / Requests.
	CostPerRequest float64
}

// Cost computes the cost figures. It rejects negative or non-finite inputs.
func Cost(in CostInput) (CostFigures, error) {
	if !(in.CostPerHour >= 0) || math.IsInf(in.CostPerHour, 0) {
		return CostFigures{}, fmt.Errorf("cost: cost per hour %v: want a finite number ≥ 0", in.CostPerHour)
	}
	if in.Window <= 0 {
		return CostFigures{}, fmt.Errorf("cost: window %v: want a positive duration", in.Window)
	}
	if !(in.GoodputTokS >= 0) || math.IsInf(in.GoodputTokS, 0) {
		return CostFigures{}, fmt.Errorf("cost: goodput %v tok/s: want a finite number ≥ 0", in.GoodputTokS)
	}
	if in.Requests < 0 {
		return CostFigures{}, fmt.Errorf("cost: requests %d: want ≥ 0", in.Requests)
	}
	f := CostFigures{WindowCost: in.CostPerHour * in.Window.Seconds() / 3600, CPM: math.NaN(), CostPerRequest: math.NaN()}
	if in.GoodputTokS > 0 {
		f.CPM = in.CostPerHour * 1e6 / (in.GoodputTokS * 3600)
	}
	if in.Requests > 0 {
		f.CostPerRequest = f.WindowCost / float64(in.Requests)
	}
	return f, nil
}
