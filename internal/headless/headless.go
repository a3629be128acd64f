// Package headless holds how netphys starts headless chromium: for the
// browser tests (internal/browsertest) and for the reports that measure
// in a browser (`netphys bench tab`).
package headless

import "github.com/chromedp/chromedp"

// ChromiumPath is where Debian's chromium package installs the browser.
const ChromiumPath = "/usr/bin/chromium"

// Options are chromedp's options for headless chromium with the profile
// in dataDir (a fresh directory) and a window of width × height CSS
// pixels.
func Options(dataDir string, width, height int) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(ChromiumPath),
		chromedp.Headless,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.UserDataDir(dataDir),
		// No background traffic: the network is closed and background
		// fetches hang.
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		// A headless tab counts as hidden: without these, chromium runs its
		// timers and frames about once a second.
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		// WebGL without a GPU: SwiftShader, the software renderer chromium
		// ships, which --disable-gpu would otherwise leave switched off.
		chromedp.Flag("use-angle", "swiftshader"),
		chromedp.Flag("enable-unsafe-swiftshader", true),
		chromedp.WindowSize(width, height),
	}
}
