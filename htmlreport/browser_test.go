//go:build unix

package htmlreport

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/report"
)

// chromiumPath finds a Chromium binary: $GOODPUT_CHROMIUM, else chromium
// or chromium-browser on PATH, else Debian's /usr/bin/chromium.
func chromiumPath() string {
	if p := os.Getenv("GOODPUT_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	return ""
}

// pageCheck is what the in-page script reports.
type pageCheck struct {
	Charts []struct {
		ID    string  `json:"id"`
		W     float64 `json:"w"`
		H     float64 `json:"h"`
		Right float64 `json:"right"`
		Drawn int     `json:"drawn"`
	} `json:"charts"`
	Toggled     *bool    `json:"toggled"`
	Restored    *bool    `json:"restored"`
	Text        string   `json:"text"`
	Scripts     int      `json:"scripts"`
	ScrollWidth float64  `json:"scrollWidth"`
	Wide        []string `json:"wide"` // elements past the right edge
}

// checkScript measures every chart (its size, and how many series marks
// have a non-empty bounding box), clicks a legend entry twice (hiding then
// showing its series: proof that the inline script ran under the page's
// Content Security Policy), and returns the page's text.
const checkScript = `(() => {
  const charts = [...document.querySelectorAll("svg.chart")].map(svg => {
    const r = svg.getBoundingClientRect();
    const drawn = [...svg.querySelectorAll("g.s path, g.s circle, g.mark path")]
      .filter(e => { const b = e.getBBox(); return b.width > 0 || b.height > 0; }).length;
    return {id: svg.id, w: r.width, h: r.height, right: r.right, drawn: drawn};
  });
  let toggled = null, restored = null;
  const lg = document.querySelector("svg.chart .lgi");
  if (lg) {
    const g = lg.ownerSVGElement.querySelector('g.s[data-s="' + lg.getAttribute("data-s") + '"]');
    lg.dispatchEvent(new MouseEvent("click", {bubbles: true}));
    toggled = getComputedStyle(g).display === "none";
    lg.dispatchEvent(new MouseEvent("click", {bubbles: true}));
    restored = getComputedStyle(g).display !== "none";
  }
  const wide = [...document.querySelectorAll("body *")]
    .filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5 && !e.closest("svg"))
    .map(e => e.tagName + " " + (e.textContent || "").slice(0, 60)).slice(0, 5);
  return {charts: charts, toggled: toggled, restored: restored, text: document.body.innerText,
    scripts: document.scripts.length, scrollWidth: document.documentElement.scrollWidth, wide: wide};
})()`

// layoutCheck is what layoutScript finds at one window width.
type layoutCheck struct {
	Width    float64  `json:"width"`    // the page's client width, CSS px
	Overflow []string `json:"overflow"` // content wider than its box, or a box past its parent's
	Clipped  []string `json:"clipped"`  // chart text outside its chart (cut off by the SVG)
	Cut      []string `json:"cut"`      // labels cut short with "…"
	Scrolls  []string `json:"scrolls"`  // boxes that scroll sideways (wide tables)
	Empty    []string `json:"empty"`    // tables whose every figure is a dash
}

// layoutScript lists every element that does not fit: an HTML box whose
// content is wider than it (scrollWidth > clientWidth) unless the box
// scrolls sideways on purpose (a wide table's wrapper: listed apart), or
// whose box reaches past its parent's (not a scrolling one); a chart's
// text outside its SVG, which clips it; and a label (chart text, a
// legend entry, a table head or caption) ending in "…"; and a table
// with rows whose every figure (past its first two columns) is a dash,
// a section shown without data.
const layoutScript = `(() => {
  const tol = 1;
  const desc = e => {
    let s = e.tagName.toLowerCase();
    const c = e.getAttribute("class");
    if (c) s += "." + c.trim().split(/\s+/).join(".");
    const sec = e.closest("[id]");
    if (sec) s = "#" + sec.id + " " + s;
    return s + " " + JSON.stringify((e.textContent || "").trim().replace(/\s+/g, " ").slice(0, 60));
  };
  const shown = e => { const r = e.getBoundingClientRect(); return r.width > 0 || r.height > 0; };
  const scrolls = e => { const o = getComputedStyle(e).overflowX; return o === "auto" || o === "scroll"; };
  const out = {width: document.documentElement.clientWidth, overflow: [], clipped: [], cut: [], scrolls: [], empty: []};
  for (const e of document.querySelectorAll("body *")) {
    if (e.closest("svg") || !shown(e)) continue;
    if (getComputedStyle(e).display !== "inline" && e.clientWidth > 0 && e.scrollWidth > e.clientWidth + tol) {
      const what = e.scrollWidth + " px of content in " + e.clientWidth + ": " + desc(e);
      (scrolls(e) ? out.scrolls : out.overflow).push(what);
    }
    const p = e.parentElement;
    if (p && p !== document.documentElement && !scrolls(p) && getComputedStyle(p).display !== "inline" && !e.closest("table")) {
      const r = e.getBoundingClientRect(), q = p.getBoundingClientRect();
      if (r.right > q.right + tol || r.left < q.left - tol) {
        out.overflow.push("box " + Math.round(r.left) + ".." + Math.round(r.right) + " past its parent's " +
          Math.round(q.left) + ".." + Math.round(q.right) + ": " + desc(e));
      }
    }
  }
  for (const t of document.querySelectorAll("svg text")) {
    if (!shown(t)) continue;
    const r = t.getBoundingClientRect(), q = t.ownerSVGElement.getBoundingClientRect();
    if (r.left < q.left - tol || r.right > q.right + tol || r.top < q.top - tol || r.bottom > q.bottom + tol) {
      out.clipped.push(Math.round(r.left - q.left) + ".." + Math.round(r.right - q.left) + " of " + Math.round(q.width) + " px: " + desc(t));
    }
  }
  for (const t of document.querySelectorAll("svg text, th, caption")) {
    if (shown(t) && /…$/.test(t.textContent.trim())) out.cut.push(desc(t));
  }
  for (const t of document.querySelectorAll("table")) {
    const figs = [...t.querySelectorAll("tbody tr")].flatMap(r => [...r.cells].slice(2).map(c => c.textContent.trim()));
    if (shown(t) && figs.length > 0 && figs.every(v => v === "–" || v === "-" || v === "")) out.empty.push(desc(t));
  }
  return out;
})()`

// browserRun is what a page did in the browser.
type browserRun struct {
	layouts       []layoutCheck // at each width asked for, in order
	screenshots   []string      // the PNG files, one per width
	screen, print pageCheck
	pdf           []byte
	requests      []string // URLs requested, other than the page's own file and data: URLs
	problems      []string // console errors and warnings, exceptions, error log entries
	sawRequests   int      // Network.requestWillBeSent events, the page's own included
}

// openInBrowser loads the HTML file at path in headless Chromium with the
// network closed off and drives it over the DevTools protocol: the page is
// checked on screen, then at each of widths (CSS px) by layoutScript with
// a full-page screenshot saved under t.TempDir() (or $GOODPUT_SCREENSHOTS),
// then with print media at
// A4 width (210 mm less 2 × 12 mm margins = 703 CSS px), then printed to
// PDF. It skips the test when no Chromium is installed (fails with
// GOODPUT_CI set), and always kills the browser.
func openInBrowser(t *testing.T, path string, widths ...int) *browserRun {
	t.Helper()
	bin := chromiumPath()
	if bin == "" {
		if os.Getenv("GOODPUT_CI") != "" {
			t.Fatal("GOODPUT_CI is set but no Chromium was found (apt-get install -y --no-install-recommends chromium, or set GOODPUT_CHROMIUM)")
		}
		t.Skip("Chromium not installed: apt-get install -y --no-install-recommends chromium (set GOODPUT_CI to make this a failure)")
	}
	fileURL := (&url.URL{Scheme: "file", Path: path}).String()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--no-default-browser-check", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--disable-default-apps", "--disable-dev-shm-usage", "--mute-audio", "--hide-scrollbars",
		// Any request that did leave would go to a closed local port.
		"--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
		"--user-data-dir="+filepath.Join(t.TempDir(), "profile"), "--remote-debugging-port=0", "about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the browser and its helpers in one group, killed together
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	var logMu sync.Mutex
	var browserLog strings.Builder
	defer func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the process group this test started
		_ = cmd.Wait()
		if t.Failed() {
			logMu.Lock()
			t.Logf("browser stderr:\n%s", browserLog.String())
			logMu.Unlock()
		}
	}()

	type found struct {
		url string
		err error
	}
	ch := make(chan found, 1)
	go func() {
		u, err := devToolsURL(stderr, &browserLog, &logMu)
		ch <- found{u, err}
	}()
	var wsURL string
	select {
	case f := <-ch:
		if f.err != nil {
			t.Fatal(f.err)
		}
		wsURL = f.url
	case <-ctx.Done():
		t.Fatal("Chromium did not announce its DevTools URL in time")
	}
	ws, err := dialWS(ctx, wsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	cdp := newCDP(ws)
	defer func() { _ = cdp.call(ctx, "", "Browser.close", nil, nil) }()

	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := cdp.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		t.Fatal(err)
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := cdp.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		t.Fatal(err)
	}
	s := attached.SessionID
	for _, m := range []string{"Network.enable", "Log.enable", "Runtime.enable", "Page.enable"} {
		if err := cdp.call(ctx, s, m, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := cdp.call(ctx, s, "Page.navigate", map[string]any{"url": fileURL}, &nav); err != nil {
		t.Fatal(err)
	}
	if nav.ErrorText != "" {
		t.Fatalf("navigating to %s: %s", fileURL, nav.ErrorText)
	}
	if _, err := cdp.waitEvent(ctx, s, "Page.loadEventFired"); err != nil {
		t.Fatal(err)
	}
	run := &browserRun{}
	evaluate(ctx, t, cdp, s, checkScript, &run.screen)
	shots := t.TempDir()
	if d := os.Getenv("GOODPUT_SCREENSHOTS"); d != "" { // a directory to keep them in (a CI artifact)
		shots = d
	}
	for _, w := range widths {
		if err := cdp.call(ctx, s, "Emulation.setDeviceMetricsOverride", map[string]any{"width": w, "height": 900, "deviceScaleFactor": 1, "mobile": false}, nil); err != nil {
			t.Fatal(err)
		}
		var lc layoutCheck
		evaluate(ctx, t, cdp, s, layoutScript, &lc)
		run.layouts = append(run.layouts, lc)
		var shot struct {
			Data string `json:"data"`
		}
		if err := cdp.call(ctx, s, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true}, &shot); err != nil {
			t.Fatal(err)
		}
		png, err := base64.StdEncoding.DecodeString(shot.Data)
		if err != nil || !strings.HasPrefix(string(png), "\x89PNG") {
			t.Fatalf("screenshot at %d px: not a PNG (%v)", w, err)
		}
		file := filepath.Join(shots, fmt.Sprintf("report-%d.png", w))
		if err := os.WriteFile(file, png, 0o644); err != nil {
			t.Fatal(err)
		}
		run.screenshots = append(run.screenshots, file)
	}

	if err := cdp.call(ctx, s, "Emulation.setEmulatedMedia", map[string]any{"media": "print"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := cdp.call(ctx, s, "Emulation.setDeviceMetricsOverride", map[string]any{"width": 703, "height": 1000, "deviceScaleFactor": 1, "mobile": false}, nil); err != nil {
		t.Fatal(err)
	}
	evaluate(ctx, t, cdp, s, checkScript, &run.print)
	var pdf struct {
		Data string `json:"data"`
	}
	if err := cdp.call(ctx, s, "Page.printToPDF", map[string]any{"paperWidth": 8.27, "paperHeight": 11.69, "marginTop": 0.47, "marginBottom": 0.47,
		"marginLeft": 0.47, "marginRight": 0.47}, &pdf); err != nil {
		t.Fatal(err)
	}
	run.pdf, _ = base64.StdEncoding.DecodeString(pdf.Data)

	for _, ev := range cdp.eventsNamed("Network.requestWillBeSent") {
		run.sawRequests++
		var p struct {
			Request struct {
				URL string `json:"url"`
			} `json:"request"`
		}
		_ = json.Unmarshal(ev.Params, &p)
		if u := p.Request.URL; u != fileURL && !strings.HasPrefix(u, "data:") {
			run.requests = append(run.requests, u)
		}
	}
	for _, ev := range cdp.eventsNamed("Runtime.consoleAPICalled", "Runtime.exceptionThrown", "Log.entryAdded") {
		var p struct {
			Type  string `json:"type"`
			Entry struct {
				Level string `json:"level"`
			} `json:"entry"`
		}
		_ = json.Unmarshal(ev.Params, &p)
		switch {
		case ev.Method == "Runtime.exceptionThrown",
			ev.Method == "Runtime.consoleAPICalled" && (p.Type == "error" || p.Type == "assert" || p.Type == "warning"),
			ev.Method == "Log.entryAdded" && (p.Entry.Level == "error" || p.Entry.Level == "warning"):
			run.problems = append(run.problems, ev.Method+": "+string(ev.Params))
		}
	}
	return run
}

// TestBrowser opens a rendered report (a 10-round sweep with records and
// telemetry, a second sweep, a GuideLLM report) in headless Chromium: the
// page must load without console errors, exceptions or any request but
// its own file; every chart must have drawn marks; the legend toggle must
// work; and printed on A4 the page must fit the width.
func TestBrowser(t *testing.T) {
	if chromiumPath() == "" && os.Getenv("GOODPUT_CI") == "" {
		t.Skip("Chromium not installed: apt-get install -y --no-install-recommends chromium (set GOODPUT_CI to make this a failure)")
	}
	dir := t.TempDir()
	a, recs := buildSweep(t, sweepSpec{rounds: 10, seconds: 10, chunks: 32, kneeAt: 5, telemetry: true, label: "a"}, true)
	b, _ := buildSweep(t, sweepSpec{rounds: 10, seconds: 10, chunks: 32, kneeAt: 3, telemetry: true, label: "b"}, false)
	legacy, err := report.Read(filepath.Join("..", "report", "testdata", "benchmarks_stripped_legacy_v0.3.json"))
	if err != nil {
		t.Fatal(err)
	}
	recPath := writeRecords(t, dir, recs)
	page := render(t, []*report.Report{a, b, legacy}, Options{Records: []RecordSource{RecordsFile(recPath)}})
	htmlPath := filepath.Join(dir, "report.html")
	if err := os.WriteFile(htmlPath, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	wantCharts := strings.Count(page, `<svg xmlns="http://www.w3.org/2000/svg" class="chart"`)

	run := openInBrowser(t, htmlPath)
	check := run.screen
	if len(check.Charts) != wantCharts || wantCharts < 20 {
		t.Errorf("the browser shows %d charts, the HTML has %d (want at least 20)", len(check.Charts), wantCharts)
	}
	for _, c := range check.Charts {
		if c.W <= 0 || c.H <= 0 || c.Drawn == 0 {
			t.Errorf("chart %s: %.0f×%.0f px, %d drawn marks; want a visible chart with marks", c.ID, c.W, c.H, c.Drawn)
		}
	}
	if check.Toggled == nil || !*check.Toggled || check.Restored == nil || !*check.Restored {
		t.Errorf("clicking a legend entry: hidden %v, shown again %v; want both true (the inline script must run under the CSP)", check.Toggled, check.Restored)
	}
	for _, want := range []string{"Knee and capacity", "Goodput at the knee", "Replicas for a target load", "Comparison of the runs"} {
		if !strings.Contains(check.Text, want) {
			t.Errorf("page text lacks %q", want)
		}
	}
	for _, c := range run.print.Charts {
		if c.Right > 703.5 || c.W < 300 {
			t.Errorf("print layout: chart %s spans %.0f px ending at %.0f; want it within the 703 px of an A4 page", c.ID, c.W, c.Right)
		}
	}
	if run.print.ScrollWidth > 703.5 {
		t.Errorf("print layout: the page is %.0f px wide, wider than A4's 703 px: %q", run.print.ScrollWidth, run.print.Wide)
	}
	if !strings.HasPrefix(string(run.pdf), "%PDF") {
		t.Error("printToPDF gave no PDF")
	}
	if run.sawRequests == 0 {
		t.Error("no Network.requestWillBeSent at all: the network domain was not recording")
	}
	for _, u := range run.requests {
		t.Errorf("the page requested %s", u)
	}
	for _, p := range run.problems {
		t.Errorf("browser reported %s", p)
	}
}

// The browser check can fail: a page that fetches from another host and
// throws is caught.
func TestBrowserCatchesRequests(t *testing.T) {
	if chromiumPath() == "" && os.Getenv("GOODPUT_CI") == "" {
		t.Skip("Chromium not installed: apt-get install -y --no-install-recommends chromium (set GOODPUT_CI to make this a failure)")
	}
	path := filepath.Join(t.TempDir(), "bad.html")
	bad := "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>bad</title></head><body>" +
		"<img src=\"http://example.com/pixel.png\" alt=\"\"><script>undefinedFunction()</script></body></html>\n"
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	run := openInBrowser(t, path)
	if !slices.Contains(run.requests, "http://example.com/pixel.png") {
		t.Errorf("the remote image request was not seen: %q", run.requests)
	}
	if len(run.problems) == 0 {
		t.Error("the script exception was not seen")
	}
}

// evaluate runs a script in the page and decodes its value into out.
func evaluate(ctx context.Context, t *testing.T, cdp *cdpClient, session, script string, out any) {
	t.Helper()
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails json.RawMessage `json:"exceptionDetails"`
	}
	if err := cdp.call(ctx, session, "Runtime.evaluate", map[string]any{"expression": script, "returnByValue": true}, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.ExceptionDetails) > 0 {
		t.Fatalf("check script failed: %s", res.ExceptionDetails)
	}
	if err := json.Unmarshal(res.Result.Value, out); err != nil {
		t.Fatalf("check script result: %v", err)
	}
}

// TestBrowserLayout lays a report out in headless Chromium at 1280 and
// 800 px (a laptop, a half screen) and checks that nothing overflows:
// no box holds content wider than itself or reaches past its parent's
// (tables may scroll sideways in their wrapper), no chart text falls
// outside its chart, where the SVG would clip it, no label is cut short
// with "…" and no table is all dashes. The runs have long names, as real
// ones do (a model, its precision, the hardware), and a GuideLLM report
// lacks most figures. Full-page screenshots are saved under the test's
// temporary directory (logged on failure).
func TestBrowserLayout(t *testing.T) {
	if testing.Short() {
		t.Skip("headless Chromium takes several seconds: not in -short")
	}
	if chromiumPath() == "" && os.Getenv("GOODPUT_CI") == "" {
		t.Skip("Chromium not installed: apt-get install -y --no-install-recommends chromium (set GOODPUT_CI to make this a failure)")
	}
	dir := t.TempDir()
	long := "llama-3.1-70b-instruct-fp8-tp8-on-8xH100-SXM-80GB-vllm-0.9.1"
	a, recs := buildSweep(t, sweepSpec{rounds: 10, seconds: 10, chunks: 32, kneeAt: 5, telemetry: true, label: long}, true)
	b, _ := buildSweep(t, sweepSpec{rounds: 6, seconds: 10, chunks: 32, kneeAt: 3, label: long + "-baseline"}, false)
	// Two models, one named longer than a legend row.
	q := func(p50, p99 float64) *report.Quantiles {
		return &report.Quantiles{Count: 4, Mean: report.Float(p50), P50: report.Float(p50), P90: report.Float(p99), P99: report.Float(p99), Max: report.Float(p99)}
	}
	for i, bm := range b.Benchmarks {
		if bm.Extras == nil {
			t.Fatal("the sweep's benchmarks have no goodput extras")
		}
		f := float64(i + 1)
		bm.Extras.ByModel = []report.GroupFigures{
			{Name: "meta-llama/Llama-3.1-70B-Instruct with the LoRA adapter customer-support-v7-2026-11-30 (sql, tools, long context)",
				Requests: report.StatusCounts{Successful: 6, Total: 6}, RequestsPerSecond: report.Float(f), TTFTMs: q(80, 100*f)},
			{Name: "llama-8b", Requests: report.StatusCounts{Successful: 3, Total: 3}, RequestsPerSecond: 0.5, TTFTMs: q(70, 150*f)},
		}
	}
	legacy, err := report.Read(filepath.Join("..", "report", "testdata", "benchmarks_stripped_legacy_v0.3.json"))
	if err != nil {
		t.Fatal(err)
	}
	recPath := writeRecords(t, dir, recs)
	page := render(t, []*report.Report{a, b, legacy}, Options{Records: []RecordSource{RecordsFile(recPath)}})
	htmlPath := filepath.Join(dir, "report.html")
	if err := os.WriteFile(htmlPath, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	widths := []int{1280, 800}
	run := openInBrowser(t, htmlPath, widths...)
	if len(run.layouts) != len(widths) {
		t.Fatalf("%d layouts checked, want %d", len(run.layouts), len(widths))
	}
	for i, lc := range run.layouts {
		if lc.Width > float64(widths[i]) || lc.Width < float64(widths[i])-20 {
			t.Errorf("at %d px the page is %.0f px wide", widths[i], lc.Width)
		}
		for _, l := range []struct {
			what  string
			items []string
		}{{"overflows its box", lc.Overflow}, {"is clipped by its chart", lc.Clipped}, {"is cut with …", lc.Cut}, {"has no figure", lc.Empty}} {
			for _, it := range l.items {
				t.Errorf("at %d px, %s: %s", widths[i], l.what, it)
			}
		}
		for _, it := range lc.Scrolls {
			t.Logf("at %d px, scrolls sideways: %s", widths[i], it)
		}
		if t.Failed() {
			t.Logf("screenshot at %d px: %s", widths[i], run.screenshots[i])
		}
	}
	for _, p := range run.problems {
		t.Errorf("browser reported %s", p)
	}
}

// The layout check can fail: a page with a word wider than its box, a
// chart label past the chart's edge, a head cut with "…" and a table of
// dashes has each found.
func TestBrowserLayoutCatches(t *testing.T) {
	if testing.Short() {
		t.Skip("headless Chromium takes several seconds: not in -short")
	}
	if chromiumPath() == "" && os.Getenv("GOODPUT_CI") == "" {
		t.Skip("Chromium not installed: apt-get install -y --no-install-recommends chromium (set GOODPUT_CI to make this a failure)")
	}
	path := filepath.Join(t.TempDir(), "bad.html")
	bad := "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>bad</title></head><body>" +
		"<div id=\"narrow\" style=\"width:100px\">awordmuchwiderthanonehundredpixelsofitsboxwithnoplacetobreak</div>" +
		"<svg id=\"chart\" width=\"200\" height=\"50\" viewBox=\"0 0 200 50\"><text x=\"150\" y=\"20\">a label past the edge</text></svg>" +
		"<table id=\"dashes\"><thead><tr><th>#</th><th>Strategy</th><th>Energy Wh…</th></tr></thead>" +
		"<tbody><tr><td>0</td><td>constant</td><td>–</td></tr></tbody></table></body></html>\n"
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	run := openInBrowser(t, path, 800)
	lc := run.layouts[0]
	for _, l := range []struct {
		what, id string
		items    []string
	}{{"overflow", "#narrow", lc.Overflow}, {"clipped", "#chart", lc.Clipped}, {"cut", "#dashes", lc.Cut}, {"empty", "#dashes", lc.Empty}} {
		if !slices.ContainsFunc(l.items, func(s string) bool { return strings.HasPrefix(s, l.id+" ") || strings.Contains(s, ": "+l.id+" ") }) {
			t.Errorf("%s: %s not found in %q", l.what, l.id, l.items)
		}
	}
}
