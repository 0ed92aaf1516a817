package run

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/goodput-dev/goodput/livemetrics"
	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/sweep"
)

// liveMetrics is the run's --metrics-addr endpoint and the engine its
// in-flight gauge reads.
type liveMetrics struct {
	srv    *livemetrics.Server
	engine atomic.Pointer[loadgen.Engine]
}

// startLiveMetrics binds --metrics-addr before any load, so that a busy
// address fails the run at once; the endpoint closes when the run ends,
// after one more scrape when Prometheus has been scraping it.
func (s *state) startLiveMetrics(context.Context) error {
	if s.cfg.MetricsAddr == "" {
		return nil
	}
	lm := &liveMetrics{}
	srv, err := livemetrics.Listen(s.cfg.MetricsAddr, livemetrics.Options{InFlight: func() float64 {
		if e := lm.engine.Load(); e != nil {
			return float64(e.Live().InFlight)
		}
		return 0
	}})
	if err != nil {
		return err
	}
	lm.srv = srv
	s.live = lm
	fmt.Fprintf(s.stderr, "live metrics: serving http://%s/metrics while the run lasts\n", srv.Addr())
	s.onClose(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		_ = srv.Close(ctx)
	})
	return nil
}

// observer puts the live series in front of next; next itself without
// --metrics-addr.
func (lm *liveMetrics) observer(e *loadgen.Engine, next sweep.Observer) sweep.Observer {
	if lm == nil {
		return next
	}
	lm.engine.Store(e)
	return lm.srv.Observer(next)
}
