package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/durabletodos/agenttodos/todo"
)

func TestTemporalUIShowsThePlan(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	cfg := newWorkerConfig(t)
	startWorker(t, "ui", cfg)
	c := dial(t, cfg.Frontend)
	s := startSession(t, c, "ui-plan")
	items := []todo.Item{
		{Content: "Read the failing test", Status: todo.Completed},
		{Content: "Fix the off-by-one in the pager", Status: todo.InProgress},
		{Content: "Run the whole suite", Status: todo.Pending},
	}
	args, _ := json.Marshal(map[string]any{"todos": items})
	s.mustWrite("ui-write-1", string(args))

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(browser),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 1000),
	)
	defer cancelAlloc()
	bctx, cancelB := chromedp.NewContext(allocCtx, chromedp.WithLogf(t.Logf))
	defer cancelB()

	url := cfg.UIURL() + "/namespaces/default/workflows/ui-plan"
	if err := chromedp.Do(bctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll("output", 0o755)
	for i := 0; i < 4; i++ {
		time.Sleep(3 * time.Second)
		text, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.body.innerText`))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("text %d:\n%s", i, text)
		png, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join("output", "explore.png"), png, 0o644)
	}
}
