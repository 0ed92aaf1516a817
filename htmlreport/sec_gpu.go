package htmlreport

import (
	"math"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/report"
)

// gaugeOf returns a round's combined GPU gauge, nil when absent.
func gaugeOf(r *roundView, name string) *report.GPUGaugeTelemetry {
	if t := telemetryOf(r); t != nil {
		return t.GPU.Gauge(name)
	}
	return nil
}

// utilOf is a round's mean GPU utilization (%), NaN when absent.
func utilOf(r *roundView) float64 {
	if g := gaugeOf(r, "utilization"); g != nil {
		return fv(g.Mean)
	}
	return math.NaN()
}

// renderGPUTelemetry writes each round's GPU gauges beside its throughput,
// and utilization against the load, so that the knee can be read against
// GPU saturation. Nothing when no round has GPU gauges.
func renderGPUTelemetry(p *page, v *runView, with []*roundView) {
	cols := []struct{ name, head string }{
		{"utilization", "GPU util %"}, {"sm_active", "SM active %"}, {"tensor_active", "Tensor %"},
		{"dram_active", "DRAM %"}, {"framebuffer_used", "FB used MiB"}, {"temperature", "Temp °C"},
		{"sm_clock", "SM clock MHz"}, {"power_limit", "Power limit W"},
	}
	head := []string{"#", "Strategy", "Out tok/s"}
	for _, c := range cols {
		head = append(head, c.head+" mean / peak")
	}
	head = append(head, "Throttle reasons")
	var rows [][]cell
	for _, r := range with {
		g := telemetryOf(r).GPU
		if g == nil {
			continue
		}
		row := []cell{numCell(strconv.Itoa(r.i)), {text: r.label}, numCell(fmtNum(r.outTokS))}
		for _, c := range cols {
			x := g.Gauge(c.name)
			if x == nil {
				row = append(row, numCell("–"))
				continue
			}
			row = append(row, cell{text: fmtNum(fv(x.Mean)) + " / " + fmtNum(fv(x.Peak)), class: "num",
				title: strconv.FormatInt(int64(x.GPUs), 10) + " GPUs, " + x.Combine + " over GPUs; " + g.Source})
		}
		thr := "none"
		if len(g.ThrottleReasons) > 0 {
			thr = strings.Join(g.ThrottleReasons, ", ")
		}
		rows = append(rows, append(row, cell{text: clip(thr, 80)}))
	}
	if len(rows) == 0 {
		return
	}
	p.table(&table{caption: "GPU utilization, memory, temperature and clocks over each window", head: head, rows: rows})
	p.el("p", `class="sub"`, "Activity gauges are averaged over the GPUs, memory and power limit summed; peaks are the highest GPU (or sum). "+
		"Utilization is the share of time a kernel ran; SM, tensor and DRAM activity are DCGM's profiling fields when the exporter has them.")
	u := roundSeries(v, "GPU utilization (mean)", 4, utilOf, "%")
	if len(u.pts) > 1 {
		c := &chart{id: v.id + "-gpu-util", title: "GPU utilization against " + strings.ToLower(v.load.label),
			x: axis{label: v.load.label, zero: true}, y: axis{label: "GPU utilization (%)", zero: true}, series: []series{u}, height: 200}
		kneeMark(c, v, utilOf, "%")
		p.figure(c, "Mean GPU utilization of each round: where throughput stops growing while utilization is near 100 %, the GPUs are saturated.")
	}
}
