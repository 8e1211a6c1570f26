// Package browsertest starts Debian's headless Chromium for the dashboard's browser tests
// (through github.com/chromedp/chromedp): one place that finds the browser and says what
// is missing.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Context returns a chromedp context of a new headless Chromium (1280×1000, no sandbox, no
// GPU) that ends after timeout or with the test. Without a Chromium on PATH the test is
// skipped, or fails under CI (CI set), where .ci/run installs Debian's chromium.
func Context(t testing.TB, timeout time.Duration) context.Context {
	t.Helper()
	chrome := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			chrome = p
			break
		}
	}
	if chrome == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no chromium: .ci/run installs Debian's chromium")
		}
		t.Skip("no chromium on this machine (apt-get install chromium)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chrome), chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true), chromedp.WindowSize(1280, 1000))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, timeout)
	t.Cleanup(func() { cancelT(); cancel(); cancelA() })
	return ctx
}
