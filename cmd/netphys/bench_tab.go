package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/netphys/netphys/internal/headless"
	"github.com/netphys/netphys/tab"
	"github.com/netphys/netphys/tab/tabbench"
)

// bench tab: what a browser tab costs as a player. The tab's wasm
// program (tab/wasm), built as serve --web builds it, is measured in
// headless chromium: its size, raw and gzipped; its load time, from
// the page's navigation start to the first tick its client simulates;
// and what each model's client costs per frame (tabbench: lockstep in
// the tower world, lockstep with rollback in the 900-cube world,
// predict in the arena), beside the same code run natively in this
// process. The verdict applies frameRule.

func init() {
	register(&command{
		name:    "bench tab",
		summary: "a browser tab as a player: the wasm program's size and load time, and each model client's cost per frame in headless chromium against native (about 35 s; run it from the netphys module: it builds the wasm program)",
		setup:   setupBenchTab,
	})
}

// tabBenchOptions are bench tab's settings.
type tabBenchOptions struct {
	frames  int
	warmup  time.Duration
	cases   []tabbench.Case
	timeout time.Duration
}

// tabBenchReport is what bench tab measured.
type tabBenchReport struct {
	frames, warmup    string
	wasmRaw, wasmGzip int
	load              time.Duration // page open to the first simulated tick
	native, tab       []tabbench.Result
	// tabCPU is the tab's worker thread's CPU time over each case's timed
	// frames (its Span's), 0 where it could not be read; cpuErr says why
	// none could.
	tabCPU []time.Duration
	cpuErr error
}

func setupBenchTab(fs *flag.FlagSet) func(ctx context.Context, args []string) error {
	frames := fs.Int("frames", 3600, "60 Hz frames timed in each case (3600: the minute of scripted play)")
	warmup := fs.Duration("warmup", time.Second, "virtual time each case plays before its frames are timed")
	names := fs.String("cases", "", "the cases to run, comma-separated (default: all): "+caseNames())
	timeout := fs.Duration("timeout", 10*time.Minute, "give up on the browser after this long")
	return func(ctx context.Context, args []string) error {
		o := tabBenchOptions{frames: *frames, warmup: *warmup, timeout: *timeout}
		if o.frames < 1 || o.warmup < 0 || o.timeout <= 0 {
			return fmt.Errorf("--frames %d, --warmup %v, --timeout %v: want 1 frame or more, a warmup of 0 or more, a positive timeout", o.frames, o.warmup, o.timeout)
		}
		o.cases = tabbench.Cases
		if *names != "" {
			o.cases = nil
			for _, n := range strings.Split(*names, ",") {
				c, err := tabbench.Lookup(strings.TrimSpace(n))
				if err != nil {
					return fmt.Errorf("--cases: %w (known: %s)", err, caseNames())
				}
				o.cases = append(o.cases, c)
			}
		}
		r, err := runBenchTab(ctx, o)
		if err != nil {
			return err
		}
		r.print(stdoutOf(fs))
		return nil
	}
}

func caseNames() string {
	var names []string
	for _, c := range tabbench.Cases {
		names = append(names, c.Name)
	}
	return strings.Join(names, ", ")
}

// runBenchTab builds the tab's program, runs the cases natively, then in
// headless chromium.
func runBenchTab(ctx context.Context, o tabBenchOptions) (tabBenchReport, error) {
	r := tabBenchReport{frames: fmt.Sprint(o.frames), warmup: o.warmup.String()}
	slog.Info("bench tab: building the tab's wasm program", "package", tab.WasmPackage)
	prog, err := tab.Build(ctx, ".")
	if err != nil {
		return r, err
	}
	r.wasmRaw = len(prog.Wasm)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write(prog.Wasm); err != nil {
		return r, err
	}
	if err := zw.Close(); err != nil {
		return r, err
	}
	r.wasmGzip = gz.Len()

	var names []string
	for _, c := range o.cases {
		names = append(names, c.Name)
		slog.Info("bench tab: native", "case", c.Name)
		res, err := tabbench.Run(c, tabbench.Config{Warmup: o.warmup, Frames: o.frames})
		if err != nil {
			return r, err
		}
		r.native = append(r.native, res)
	}

	args := fmt.Sprintf("--frames=%d --warmup=%v --cases=%s", o.frames, o.warmup, strings.Join(names, ","))
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	if r.tab, r.load, r.tabCPU, r.cpuErr, err = benchInTab(ctx, prog, args); err != nil {
		return r, err
	}
	if len(r.tab) != len(r.native) || len(r.tabCPU) != len(r.tab) {
		return r, fmt.Errorf("bench tab: the tab ran %d cases, native %d", len(r.tab), len(r.native))
	}
	return r, nil
}

// tabBenchState is what the page says of the tab's bench.
type tabBenchState struct {
	Origin float64 `json:"origin"` // the page's performance.timeOrigin, ms since the epoch
	State  struct {
		State     string  `json:"state"`
		Bench     string  `json:"bench"`
		FirstTick float64 `json:"firstTick"` // ms since the epoch
		Timing    string  `json:"timing"`    // "2 on": case 2's timed frames begin
		Error     string  `json:"error"`
	} `json:"st"`
}

// benchInTab serves the tab's page and runs its bench mode with args in
// headless chromium. It returns the tab's results, its load time, and
// the worker thread's CPU time over each case's timed frames, read at the
// marks the tab pauses at (0 where a mark was missed; cpuErr: none read).
func benchInTab(ctx context.Context, prog tab.Program, args string) (res []tabbench.Result, load time.Duration, cpu []time.Duration, cpuErr, err error) {
	if _, err := os.Stat(headless.ChromiumPath); err != nil {
		return nil, 0, nil, nil, fmt.Errorf("bench tab needs chromium at %s: install it (apt-get install chromium)", headless.ChromiumPath)
	}
	// No token service and no WebTransport endpoint: the bench opens no
	// session.
	h, err := tab.Handler(prog, http.NotFoundHandler(), http.NotFoundHandler())
	if err != nil {
		return nil, 0, nil, nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, 0, nil, nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()

	dir, err := os.MkdirTemp("", "netphys-bench-tab-")
	if err != nil {
		return nil, 0, nil, nil, err
	}
	defer os.RemoveAll(dir)
	allocCtx, stopBrowser := chromedp.NewExecAllocator(ctx, headless.Options(dir, 640, 360)...)
	defer stopBrowser()
	tabCtx, closeTab := chromedp.NewContext(allocCtx)
	defer closeTab()
	page := fmt.Sprintf("http://%s/?mode=bench&args=%s", ln.Addr(), url.QueryEscape(args))
	slog.Info("bench tab: in headless chromium", "page", page)
	if err := chromedp.Do(tabCtx, chromedp.Navigate(page)); err != nil {
		return nil, 0, nil, nil, fmt.Errorf("bench tab: open %s: %w", page, err)
	}
	marks := map[string]time.Duration{} // the worker's CPU time at each timing mark
	for {
		st, err := chromedp.Run(tabCtx, chromedp.Evaluate[tabBenchState](`({origin: performance.timeOrigin, st: globalThis.__tabState ?? {}})`))
		if _, seen := marks[st.State.Timing]; err == nil && st.State.Timing != "" && !seen {
			var d time.Duration
			if d, cpuErr = workerCPU(dir); cpuErr == nil {
				marks[st.State.Timing] = d
			}
		}
		switch {
		case err == nil && st.State.Error != "":
			return nil, 0, nil, nil, fmt.Errorf("bench tab: the tab failed: %s", st.State.Error)
		case err == nil && st.State.State == "done":
			if err := json.Unmarshal([]byte(st.State.Bench), &res); err != nil {
				return nil, 0, nil, nil, fmt.Errorf("bench tab: the tab's results: %w", err)
			}
			if st.State.FirstTick <= st.Origin {
				return nil, 0, nil, nil, errors.New("bench tab: the tab reported no first tick")
			}
			cpu = make([]time.Duration, len(res))
			for i := range res {
				on, okOn := marks[fmt.Sprintf("%d on", i)]
				off, okOff := marks[fmt.Sprintf("%d off", i)]
				if okOn && okOff {
					cpu[i] = off - on
				}
			}
			load = time.Duration((st.State.FirstTick - st.Origin) * float64(time.Millisecond))
			return res, load, cpu, cpuErr, nil
		case ctx.Err() != nil:
			return nil, 0, nil, nil, fmt.Errorf("bench tab: the tab did not finish (state %+v, err %v): %w", st.State, err, ctx.Err())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// frameBudget is a 60 Hz frame.
const frameBudget = time.Second / 60

// frameRule says whether a tab carries a client at 60 Hz, from its
// frames' mean and 99th percentile: the mean takes at most half the
// frame (the other half is the page's drawing, the garbage collector and
// the browser's own work), and 99 % of the frames fit in a whole frame
// (a rollback's or a reconciliation's re-simulation may spend the
// frame's budget, but not more: past it the client falls behind the
// clock).
func frameRule(mean, p99 time.Duration) bool {
	return mean <= frameBudget/2 && p99 <= frameBudget
}

// frameRuleText is frameRule in words, printed under the table.
const frameRuleText = "60 Hz in a tab: yes if the client's mean frame in the tab is at most half the 16.7 ms frame (8.3 ms; the other half is drawing, GC and the browser) and its p99 frame at most 16.7 ms"

// estimate is the client's figure in the tab from its native one and
// the case's CPU ratio, tab over native.
func estimate(native time.Duration, ratio float64) time.Duration {
	return time.Duration(float64(native) * ratio)
}

func (r tabBenchReport) print(w io.Writer) {
	fmt.Fprintf(w, "netphys bench tab: each model client's cost per 60 Hz frame (one tick, and any ticks simulated again), %d players, 100 ms RTT, 1%% loss, %s frames after %s of play; the tab: headless chromium, the program in its worker\n\n",
		tabbench.Players, r.frames, r.warmup)
	fmt.Fprintf(w, "wasm   %.1f MB raw, %.1f MB gzip (level 6)\n", float64(r.wasmRaw)/1e6, float64(r.wasmGzip)/1e6)
	fmt.Fprintf(w, "load   %.2f s from the page's navigation to the first tick simulated (page, viewer, wasm fetch and compile, world built)\n\n", r.load.Seconds())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "client\tticks/frame\tnative median\tnative mean\tnative p99\ttab wall median\ttab wall mean\ttab wall p99\ttab wall max\tmatch CPU native\tmatch CPU tab\tCPU tab/native\ttab est. mean\ttab est. p99\t60 Hz in a tab\t")
	for i, t := range r.tab {
		n := r.native[i]
		cpuTab, ratio, estMean, estP99 := "-", "-", "-", "-"
		mean, p99, wall := t.Mean, t.P99, true // the wall clock's, when the CPU could not be read
		if c := r.tabCPU[i]; c > 0 && n.Span > 0 {
			x := float64(c) / float64(n.Span)
			cpuTab, ratio = msText(c), fmt.Sprintf("%.1f×", x)
			mean, p99 = estimate(n.Mean, x), estimate(n.P99, x)
			estMean, estP99 = msText(mean), msText(p99)
			wall = false
		}
		verdict := "no"
		if frameRule(mean, p99) {
			verdict = "yes"
		}
		if wall {
			verdict += " (wall)"
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", t.Case, float64(n.Ticks)/float64(n.Frames), msText(n.Median), msText(n.Mean), msText(n.P99),
			msText(t.Median), msText(t.Mean), msText(t.P99), msText(t.Max), msText(n.Span), cpuTab, ratio, estMean, estP99, verdict)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nticks/frame: the ticks the native client simulated per frame, those a rollback or a reconciliation simulated again included. native: the timed client's frames in this process, thread CPU time. tab wall: the same in the tab's worker, wall time (performance.now, 100 µs steps), which counts what the machine gave to other processes.\n")
	fmt.Fprintf(w, "match CPU: the CPU time of the whole match (server and both clients) over the timed frames: natively this thread's, in the tab the worker thread's (/proc, 10 ms steps). tab est.: the native client's figures times the match's CPU ratio, tab over native.\n")
	if r.cpuErr != nil {
		fmt.Fprintf(w, "the tab's CPU time could not be read (%v): the verdict is the wall clock's\n", r.cpuErr)
	}
	fmt.Fprintf(w, "%s; from the estimate, or the wall clock where marked.\n", frameRuleText)
}

// msText prints d in milliseconds.
func msText(d time.Duration) string { return fmt.Sprintf("%.3f ms", ms(d)) }
