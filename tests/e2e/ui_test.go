package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/durabletodos/agenttodos/todo"
)

// screenshotPath is relative to the package directory, where go test runs;
// CI can upload it, and a person can look at what the test saw.
var screenshotPath = filepath.Join("output", "temporal-ui-plan.png")

func TestTemporalUIShowsThePlan(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	cfg := newWorkerConfig(t)
	startWorker(t, "ui", cfg)
	s := startSession(t, dial(t, cfg.Frontend), "ui-plan")
	items := []todo.Item{
		{Content: "Read the failing test", Status: todo.Completed},
		{Content: "Fix the off-by-one in the pager", Status: todo.InProgress},
		{Content: "Run the whole suite", Status: todo.Pending},
	}
	args, err := json.Marshal(map[string]any{"todos": items})
	if err != nil {
		t.Fatal(err)
	}
	res := s.MustWrite("ui-write-1", string(args))

	// What todo.Markdown renders for this list: the heading and the counts
	// line are the parts people read first.
	want := []string{"Plan: 1 of 3 completed", "1 pending · 1 in progress · 1 completed"}
	for _, it := range items {
		want = append(want, it.Content)
	}
	footer := fmt.Sprintf("seq %d", res.Seq)

	tab := openBrowser(t, browser, 100*time.Second)

	// Navigate waits for the load event, not for the network to go quiet:
	// the UI polls the server for as long as the page is open.
	url := cfg.UIURL() + "/namespaces/" + namespaceName + "/workflows/" + s.ID
	if err := chromedp.Do(tab, chromedp.Navigate(url)); err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	// Current details live on the User Metadata tab, as a person would find
	// them; the tab's link carries the run ID, which we need not know.
	if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS(`a[data-testid="user-metadata-tab"]`))); err != nil {
		t.Fatalf("click the User Metadata tab: %v", err)
	}

	seen := expectVisible(t, tab, want, footer, screenshotPath)
	// Some UI versions drop the last line of the details, which is why
	// todo.Markdown ends with a footer; say whether this one did.
	t.Logf("footer line %q visible: %v", footer, seen[footer])
}

// openBrowser starts a headless Chromium of its own for one test and returns
// its first tab, closed when the test ends or after limit; extra are more
// command-line options.
func openBrowser(t *testing.T, browser string, limit time.Duration, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	t.Cleanup(cancel)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, append([]chromedp.ExecAllocatorOption{
		chromedp.ExecPath(browser),
		chromedp.Headless,
		// Containers and CI runners usually cannot give Chromium its sandbox.
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		// Nothing but the UI on loopback: no QUIC probes, updates or sync
		// that would reach the internet or slow the page down.
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 900),
	}, extra...)...)
	t.Cleanup(cancelAlloc)
	tab, cancelTab := chromedp.NewContext(allocCtx)
	t.Cleanup(cancelTab)
	return tab
}

// waitVisible polls until every string in need is visible on the page or
// timeout passes, and reports which of look were visible at the end.
func waitVisible(tab context.Context, look, need []string, timeout time.Duration) (map[string]bool, error) {
	js := fmt.Sprintf(visibleJS, mustJSON(look))
	deadline := time.Now().Add(timeout)
	for {
		seen, err := chromedp.Run(tab, chromedp.Evaluate[map[string]bool](js))
		if err != nil {
			return nil, fmt.Errorf("read the page: %w", err)
		}
		all := true
		for _, w := range need {
			all = all && seen[w]
		}
		if all || time.Now().After(deadline) {
			return seen, nil
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// visibleJS reports, for each string, whether some element showing it is
// rendered with a size and, inside an iframe, within the frame's visible
// height. The UI renders current details as Markdown in a same-origin
// iframe, so the main document's text alone would miss them, and a line cut
// off by the frame's height would still be in its text.
const visibleJS = `(() => {
	const want = %s;
	const docs = [{doc: document, frame: null}];
	for (const f of document.querySelectorAll('iframe')) {
		try { if (f.contentDocument && f.contentDocument.body) docs.push({doc: f.contentDocument, frame: f}); } catch (e) {}
	}
	const out = {};
	for (const w of want) {
		out[w] = false;
		for (const {doc, frame} of docs) {
			for (const e of doc.body.querySelectorAll('*')) {
				if (!e.textContent.includes(w) || [...e.children].some(c => c.textContent.includes(w))) continue;
				const r = e.getBoundingClientRect();
				const st = doc.defaultView.getComputedStyle(e);
				if (r.width === 0 || r.height === 0 || st.visibility === 'hidden' || st.display === 'none') continue;
				if (frame && (r.top < 0 || r.bottom > frame.clientHeight + 1)) continue;
				out[w] = true;
			}
		}
	}
	return out;
})()`

// pageTextJS is the text of the page and of its iframes, for failure messages.
const pageTextJS = `[document.body.innerText, ...[...document.querySelectorAll('iframe')].map(f => {
	try { return '--- iframe ' + f.id + ' ---\n' + f.contentDocument.body.innerText; } catch (e) { return ''; }
})].join('\n')`

func saveScreenshot(t *testing.T, tab context.Context, screenshotPath string) {
	t.Helper()
	// Images (the avatar, icons) may still be loading or decoding after the
	// text is there; wait for them so the picture shows what people see.
	// Best effort: a missing image must not fail the test.
	waitImages, cancel := context.WithTimeout(tab, 5*time.Second)
	_, _ = chromedp.Run(waitImages, chromedp.Evaluate[bool](
		`Promise.all([...document.images].map(i => i.decode().catch(() => {}))).then(() => true)`, chromedp.EvalAwaitPromise))
	cancel()
	png, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
	if err != nil {
		t.Errorf("screenshot: %v", err)
		return
	}
	if err := os.MkdirAll(filepath.Dir(screenshotPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(screenshotPath, png, 0o644); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(screenshotPath)
	t.Logf("screenshot: %s", abs)
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return strings.TrimSpace(string(b))
}

// expectVisible waits until the page shows every text of want (and notes
// whether it shows extra too), saves a screenshot either way, and fails
// with the page's text when something never showed.
func expectVisible(t *testing.T, tab context.Context, want []string, extra, screenshot string) map[string]bool {
	t.Helper()
	seen, err := waitVisible(tab, append(slices.Clone(want), extra), want, 60*time.Second)
	saveScreenshot(t, tab, screenshot)
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, w := range want {
		if !seen[w] {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		text, _ := chromedp.Run(tab, chromedp.Evaluate[string](pageTextJS))
		t.Fatalf("the workflow page never showed %q (screenshot: %s); page text:\n%s", missing, screenshot, text)
	}
	return seen
}
