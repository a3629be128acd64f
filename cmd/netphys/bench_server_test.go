package main

import (
	"context"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestBenchServerQuick runs the capacity report's short run for every
// model and reads its tables back: the mode is named, every model's row
// is there with a server CPU, a capacity, memory and traffic, and the
// interp row has its cost per client per snapshot.
func TestBenchServerQuick(t *testing.T) {
	heavyTest(t)
	var out strings.Builder
	if err := run(context.Background(), []string{"bench", "server", "--quick"}, &out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if !strings.Contains(text, "VIRTUAL TIME") || !strings.Contains(text, "server CPU alone") {
		t.Fatalf("the report does not say it measures in virtual time:\n%s", text)
	}
	for _, title := range []string{"lockstep: 4 players", "predict: 8 bots", "statesync: the 4-seat VR table", "interp: the cube world"} {
		row := tableRow(t, text, title)
		f := numbers(t, row)
		if strings.HasPrefix(title, "interp") {
			// servers clients µs/client/snapshot sim µs/tick µs/tick p99
			// allocs B clients/core KiB built after kbps down up
			if len(f) != 13 || f[0] != 1 || f[1] != 16 || f[2] <= 0 || f[3] <= 0 || f[8] <= 0 || f[9] <= 0 || f[11] <= 0 {
				t.Errorf("%s: row %q", title, row)
			}
			continue
		}
		// matches players µs mean p99 worst calls allocs B per-core
		// per-core(p99) tick-p99 worst late "of" ticks KiB built after
		// kbps up down, per player up down
		if len(f) != 20 || f[0] != 1 || f[2] <= 0 || f[2] > f[4] || f[5] < 1 || f[8] <= 0 || f[14] <= 0 || f[15] < f[14] || f[16] <= 0 || f[17] <= 0 {
			t.Errorf("%s: row %q", title, row)
		}
		if players := map[string]float64{"l": 4, "p": 8, "s": 4}[title[:1]]; f[1] != players {
			t.Errorf("%s: %v players, want %v", title, f[1], players)
		}
		// late ticks "n of m": m is the frames measured, 60 in the quick run's second.
		if f[13] != 60 || f[12] > f[13] {
			t.Errorf("%s: late ticks %v of %v, want of 60", title, f[12], f[13])
		}
	}
}

func TestBenchServerRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--model", "bogus"},
		{"--headroom", "0"},
		{"--interp-clients", "64,x"},
		{"--loss", "1"},
	} {
		var out strings.Builder
		err := run(context.Background(), append([]string{"bench", "server"}, args...), &out)
		if err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(args[0], "-")) {
			t.Errorf("%q: err %v, want one naming %s", args, err, args[0])
		}
	}
}

// tableRow is the data row under title's table: the line after the
// header that follows the title.
func tableRow(t *testing.T, text, title string) string {
	t.Helper()
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, title) && i+2 < len(lines) {
			return lines[i+2]
		}
	}
	t.Fatalf("no table %q in\n%s", title, text)
	return ""
}

// numbers reads a row's numeric cells ("of" is skipped).
func numbers(t *testing.T, row string) []float64 {
	t.Helper()
	var out []float64
	for _, f := range strings.Fields(row) {
		if f == "of" {
			continue
		}
		x, err := strconv.ParseFloat(f, 64)
		if err != nil {
			t.Fatalf("cell %q of %q is not a number", f, row)
		}
		out = append(out, x)
	}
	return out
}

// TestBenchServerInterpPastSimmatchDefault: more clients than simmatch's
// default 64 slots join (the report asks for 256).
func TestBenchServerInterpPastSimmatchDefault(t *testing.T) {
	heavyTest(t)
	var out strings.Builder
	o := serverBenchOptions{models: []string{"interp"}, measure: 100 * time.Millisecond, interpClients: []int{65},
		headroom: 0.8, seed: 1, stdout: &out, progress: io.Discard}
	if err := benchServer(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if f := numbers(t, tableRow(t, out.String(), "interp: the cube world")); f[1] != 65 || f[2] <= 0 {
		t.Fatalf("row %v, want 65 clients and a cost", f)
	}
}

// TestBenchServerUDP runs the real-UDP mode briefly against its server
// process (the built program: it starts itself with --udp-serve), a port
// per match and then rooms on one port: the mode is named, the server
// process ran with GOMAXPROCS 1, and the row has a process CPU, frames,
// memory and traffic.
func TestBenchServerUDP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the program and runs two processes")
	}
	heavyTest(t)
	bin := buildProgram(t)
	for _, mode := range []struct {
		flags []string
		says  string
	}{{nil, "each a udpdrive server (netcode, encrypted) on its own port"}, {[]string{"--rooms"}, "in rooms on one port"}} {
		args := append([]string{"bench", "server", "--udp", "--model", "lockstep", "--matches", "2", "--seconds", "1", "--warmup", "500ms"}, mode.flags...)
		out, err := exec.Command(bin, args...).CombinedOutput()
		text := string(out)
		if err != nil {
			t.Fatalf("%q: %v\n%s", args, err, text)
		}
		if !strings.Contains(text, "REAL UDP on loopback") || !strings.Contains(text, "GOMAXPROCS 1)") || !strings.Contains(text, mode.says) {
			t.Fatalf("%q: the report does not say it ran over real UDP with a one-core server, %s:\n%s", args, mode.says, text)
		}
		lines := strings.Split(text, "\n")
		i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "matches  bots") })
		if i < 0 || i+1 >= len(lines) {
			t.Fatalf("%q: no table in\n%s", args, text)
		}
		// matches bots cpu steps per-core datagrams/match-tick
		// cpu/datagram frames late gap over worst KiB built after kbps
		// up down
		f := numbers(t, lines[i+1])
		if len(f) != 16 || f[0] != 2 || f[1] != 4 || f[2] <= 0 || f[5] <= 0 || f[6] <= 0 || f[7] < 30 || f[13] <= 0 || f[14] <= 0 || f[15] <= 0 {
			t.Fatalf("%q: row %q of\n%s", args, lines[i+1], text)
		}
	}
}
