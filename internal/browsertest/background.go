package browsertest

import (
	"context"
	"testing"
)

// RunBehind runs run (a demo, say) in the background for the rest of the
// test and returns the context to Start the browser with: it ends as soon
// as run returns, so a test waiting on the page stops at once. Call it
// just before Start: its cleanup then runs after the browser is closed,
// cancels run's context and waits for run to return. The test fails if
// run returned before the test ended, or with an error.
func RunBehind(t testing.TB, ctx context.Context, run func(ctx context.Context) error) context.Context {
	t.Helper()
	runCtx, stopRun := context.WithCancel(ctx)
	browserCtx, stopBrowser := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		err := run(runCtx)
		stopBrowser() // nothing more to see
		done <- err
	}()
	t.Cleanup(func() {
		var err error
		select {
		case err = <-done:
			t.Errorf("the run ended before the test did: %v", err)
		default:
			stopRun()
			err = <-done
		}
		stopBrowser()
		if err != nil {
			t.Errorf("run: %v", err)
		}
	})
	return browserCtx
}
