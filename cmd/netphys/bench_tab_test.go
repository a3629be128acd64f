package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/tab/tabbench"
)

// TestBenchTabShort runs bench tab's machinery on a short run: the
// program is built and sized, every case runs natively and in headless
// chromium for a few frames, the tab reports its first tick, and the
// table has a row per case. No figure is judged: only that each is
// there. (A tab's single frame may read 0: its clock steps by 100 µs.)
func TestBenchTabShort(t *testing.T) {
	heavyTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	r, err := runBenchTab(ctx, tabBenchOptions{frames: 30, warmup: time.Second, cases: tabbench.Cases, timeout: 3 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r.print(&out)
	t.Logf("\n%s", out.String())
	if r.wasmRaw <= 0 || r.wasmGzip <= 0 || r.wasmGzip >= r.wasmRaw {
		t.Errorf("wasm %d bytes, %d gzipped: want both positive, the gzipped smaller", r.wasmRaw, r.wasmGzip)
	}
	if r.load <= 0 {
		t.Errorf("load time %v, want a positive one", r.load)
	}
	if len(r.native) != len(tabbench.Cases) || len(r.tab) != len(tabbench.Cases) {
		t.Fatalf("%d native and %d tab results, want %d each", len(r.native), len(r.tab), len(tabbench.Cases))
	}
	for i, c := range tabbench.Cases {
		for _, res := range []tabbench.Result{r.native[i], r.tab[i]} {
			if res.Case != c.Name || res.Frames != 30 || res.Ticks <= 0 || res.Span <= 0 {
				t.Errorf("%+v: want case %s, 30 frames, ticks simulated and a positive span", res, c.Name)
			}
		}
		if n := r.native[i]; n.Mean <= 0 || n.Max < n.P99 || n.P99 < n.Median {
			t.Errorf("native %+v: want a positive mean, median <= p99 <= max", n)
		}
		row := false
		for _, l := range strings.Split(out.String(), "\n") {
			row = row || strings.HasPrefix(l, c.Name+" ")
		}
		if !row {
			t.Errorf("the table has no row for %s", c.Name)
		}
	}
	for i, c := range r.tabCPU {
		if c < 0 {
			t.Errorf("case %d: the worker's CPU time %v", i, c)
		}
	}
	for _, want := range []string{"wasm ", "load ", "CPU tab/native", "60 Hz in a tab: yes if"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
}
