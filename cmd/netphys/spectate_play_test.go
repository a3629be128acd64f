package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestPredictSpectatorsBetweenProcesses: serve --model predict --record
// and two bot players of 360 ticks, with three `play --spectate`
// processes watching (a spectator's --ticks are ticks shown). The server
// seats the two players only; every spectator draws hundreds of the
// server's snapshots; the match's replay verifies with `netphys replay`.
func TestPredictSpectatorsBetweenProcesses(t *testing.T) {
	processTest(t)
	const ticks = 360
	p := newProcs(t, 90*time.Second)
	record := t.TempDir()
	match := []string{"--model", "predict", "--players", "2"}
	serve, serveBuf := p.serve(nil, append([]string{"--record", record}, match...)...)
	var procs []proc
	for id := 1; id <= 5; id++ {
		args := botArgs(p.token(id), ticks, match...)
		if id > 2 {
			args = append(args, "--spectate")
		}
		procs = append(procs, p.run(nil, args...))
	}
	drawn := regexp.MustCompile(`snapshots\s+(\d+) drawn`)
	for i, pl := range procs {
		err := pl.cmd.Wait()
		out := pl.out.String()
		t.Logf("process %d:\n%s", i+1, out)
		if err != nil {
			t.Fatalf("process %d: %v", i+1, err)
		}
		if i < 2 {
			if !strings.Contains(out, "predicted") {
				t.Errorf("player %d printed no predicted ticks", i+1)
			}
			continue
		}
		m := drawn.FindStringSubmatch(out)
		if m == nil || atoi(t, m[1]) < ticks/2/2 {
			t.Errorf("spectator %d drew %v snapshots, want over %d", i+1, m, ticks/2/2)
		}
	}
	if !strings.Contains(stopServe(t, serve, serveBuf), "3 in the match") {
		t.Errorf("the server's summary does not count 3 spectators")
	}
	files, _ := filepath.Glob(filepath.Join(record, "predict-*.replay"))
	if len(files) != 1 {
		t.Fatalf("replays written: %v", files)
	}
	out, err := p.command("replay", files[0]).CombinedOutput()
	t.Logf("replay:\n%s", out)
	if err != nil || !regexp.MustCompile(`checksums: (\d+) of (\d+) snapshots decode as recorded`).Match(out) {
		t.Fatalf("replay: %v", err)
	}
}

// TestEightInterpViewersBetweenProcesses: `serve --model interp` and
// eight `play --model interp` processes, every one a spectator of the
// server's world (interp's clients only watch): each draws the server's
// snapshots for its 300 ticks, and the server counts eight of them.
func TestEightInterpViewersBetweenProcesses(t *testing.T) {
	processTest(t)
	const viewers, ticks = 8, 300
	outs, serveOut := processMatch(t, viewers, ticks, "--model", "interp", "--layout", "tower20")
	drawn := regexp.MustCompile(`snapshots\s+(\d+) drawn`)
	for i, out := range outs {
		m := drawn.FindStringSubmatch(out)
		// 30 snapshots a second over 300 ticks (5 s): about 150.
		if m == nil || atoi(t, m[1]) < 100 {
			t.Errorf("viewer %d drew %v snapshots, want over 100", i+1, m)
		}
	}
	if !strings.Contains(serveOut, fmt.Sprintf("player %d", viewers)) {
		t.Errorf("the server's summary does not name player %d:\n%s", viewers, serveOut)
	}
}
