package htmlreport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/report"
)

// Options adjust a rendering. The zero value is valid.
type Options struct {
	// Title is the page title; "" derives one from the runs' names.
	Title string
	// Names labels the reports, by position (e.g. the file names); a
	// missing or empty name falls back to the run id, then the model.
	Names []string
	// Records gives the per-request records of the report at the same
	// position (nil entries: none). With records, "requests over time" is
	// drawn per time bin from them; without, per round from the report.
	Records []RecordSource
}

// Render writes one self-contained HTML page showing reps to w. It fails
// only when there is nothing to render, a report is nil, a record source
// cannot be read, or w fails; a report lacking data gets notes in place
// of the sections it cannot fill. The output depends only on the inputs.
func Render(w io.Writer, reps []*report.Report, opts Options) error {
	return RenderContext(context.Background(), w, reps, opts)
}

// RenderContext is Render with a context that cancels the reading of
// record sources.
func RenderContext(ctx context.Context, w io.Writer, reps []*report.Report, opts Options) error {
	if len(reps) == 0 {
		return errors.New("rendering HTML: no report to render")
	}
	runs := make([]*runView, len(reps))
	for i, rep := range reps {
		if rep == nil {
			return fmt.Errorf("rendering HTML: report %d is nil", i)
		}
		var name string
		if i < len(opts.Names) {
			name = opts.Names[i]
		}
		var rec RecordSource
		if i < len(opts.Records) {
			rec = opts.Records[i]
		}
		runs[i] = newRunView(i, rep, name, rec)
	}
	uniqueNames(runs)
	timelines := make([]*timeline, len(runs))
	for i, v := range runs {
		if v.records == nil {
			continue
		}
		tl, err := recordTimeline(ctx, v.records, v.rep)
		if err != nil {
			return fmt.Errorf("rendering HTML: records of %s: %w", v.name, err)
		}
		timelines[i] = tl
	}

	p := &page{}
	title := opts.Title
	if title == "" {
		names := make([]string, len(runs))
		for i, v := range runs {
			names[i] = v.name
		}
		title = "goodput report: " + clip(strings.Join(names, ", "), 160)
	}
	p.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
		`<meta name="viewport" content="width=device-width, initial-scale=1">`, "\n",
		`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src `, cspHash(styleCSS),
		`; script-src `, cspHash(scriptJS), `; img-src data:; base-uri 'none'; form-action 'none'">`, "\n",
		`<meta name="generator" content="goodput">`, "\n")
	p.el("title", "", title)
	p.raw("\n<style>", styleCSS, "</style>\n</head>\n<body>\n<header>\n")
	p.el("h1", "", title)
	p.raw(`<p class="sub">`)
	p.text(fmt.Sprintf("%d %s. Self-contained page: it loads nothing from any host; hover a point for its value, click a legend entry to hide or show a series.",
		len(runs), plural(len(runs), "report", "reports")))
	p.raw("</p>\n</header>\n")

	p.raw("<nav><ul>\n")
	for _, v := range runs {
		p.raw(`<li><a href="#`, v.id, `">`)
		p.text(v.name)
		p.raw("</a></li>\n")
	}
	if len(runs) > 1 {
		p.raw(`<li><a href="#cmp">Comparison of the runs</a></li>`, "\n")
	}
	p.raw("</ul></nav>\n<main>\n")
	for i, v := range runs {
		renderRun(p, v, timelines[i])
	}
	if len(runs) > 1 {
		renderComparison(p, runs)
	}
	p.raw("</main>\n<footer>")
	p.text("Rendered by goodput's htmlreport from the report data alone. Percentiles are of successful requests unless a caption says otherwise; " +
		"a dash (–) is a figure the report does not have.")
	p.raw("</footer>\n<script>", scriptJS, "</script>\n</body>\n</html>\n")
	if _, err := io.WriteString(w, p.String()); err != nil {
		return fmt.Errorf("writing HTML report: %w", err)
	}
	return nil
}

// uniqueNames appends " (2)", " (3)" … to repeated run names.
func uniqueNames(runs []*runView) {
	seen := map[string]int{}
	for _, v := range runs {
		seen[v.name]++
		if n := seen[v.name]; n > 1 {
			v.name += " (" + strconv.Itoa(n) + ")"
		}
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// renderRun writes one report's section.
func renderRun(p *page, v *runView, tl *timeline) {
	p.raw(`<section class="run" id="`, v.id, `">`, "\n")
	p.el("h2", "", "Run "+v.name)
	renderRunHeader(p, v)
	renderMetadata(p, v)
	renderKnee(p, v)
	renderRounds(p, v)
	renderLoadCurve(p, v)
	renderGroups(p, v)
	renderDistributions(p, v)
	renderTimeline(p, v, tl)
	renderErrors(p, v)
	renderSessions(p, v)
	renderServerTime(p, v)
	renderTelemetry(p, v)
	p.raw("</section>\n")
}

// h3 writes a subsection heading with an anchor.
func h3(p *page, v *runView, anchor, text string) {
	p.el("h3", `id="`+v.id+"-"+anchor+`"`, text)
}
