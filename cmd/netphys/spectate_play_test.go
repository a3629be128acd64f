package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
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
	t.Parallel() // its processes mostly wait for their frames
	const ticks = 360
	bin := buildProgram(t)
	dir, record := t.TempDir(), t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	netphys := func(args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = append(os.Environ(), "NETPHYS_LOG=warn")
		return cmd
	}
	key, err := netphys("token", "--new-key").Output()
	if err != nil {
		t.Fatal(err)
	}
	hexKey := strings.TrimSpace(string(key))
	addr := freeUDPAddr(t)
	match := []string{"--model", "predict", "--players", "2"}
	var serveBuf bytes.Buffer
	serve := netphys(append([]string{"serve", "--listen", addr, "--key", hexKey, "--report", "0", "--record", record}, match...)...)
	serve.Stdout, serve.Stderr = &serveBuf, &serveBuf
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if serve.Process != nil {
			serve.Process.Kill()
			serve.Wait()
		}
	}()
	var procs []*exec.Cmd
	var outs []*bytes.Buffer
	for id := 1; id <= 5; id++ {
		tok := filepath.Join(dir, fmt.Sprintf("token%d", id))
		if out, err := netphys("token", "--key", hexKey, "--servers", addr, "--client-id", fmt.Sprint(id), "--out", tok).CombinedOutput(); err != nil {
			t.Fatalf("token: %v\n%s", err, out)
		}
		args := append([]string{"play", "--token-file", tok, "--bot", "--http", "", "--ticks", fmt.Sprint(ticks), "--linger", "1s", "--report", "0"}, match...)
		if id > 2 {
			args = append(args, "--spectate")
		}
		p := netphys(args...)
		out := &bytes.Buffer{}
		p.Stdout, p.Stderr = out, out
		if err := p.Start(); err != nil {
			t.Fatal(err)
		}
		procs, outs = append(procs, p), append(outs, out)
	}
	drawn := regexp.MustCompile(`snapshots\s+(\d+) drawn`)
	for i, p := range procs {
		err := p.Wait()
		t.Logf("process %d:\n%s", i+1, outs[i])
		if err != nil {
			t.Fatalf("process %d: %v", i+1, err)
		}
		if i < 2 {
			if !strings.Contains(outs[i].String(), "predicted") {
				t.Errorf("player %d printed no predicted ticks", i+1)
			}
			continue
		}
		m := drawn.FindStringSubmatch(outs[i].String())
		if m == nil || atoi(t, m[1]) < ticks/2/2 {
			t.Errorf("spectator %d drew %v snapshots, want over %d", i+1, m, ticks/2/2)
		}
	}
	if err := serve.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := serve.Wait(); err != nil {
		t.Errorf("serve: %v", err)
	}
	serve.Process = nil
	t.Logf("server:\n%s", serveBuf.String())
	if !strings.Contains(serveBuf.String(), "3 in the match") {
		t.Errorf("the server's summary does not count 3 spectators")
	}
	files, _ := filepath.Glob(filepath.Join(record, "predict-*.replay"))
	if len(files) != 1 {
		t.Fatalf("replays written: %v", files)
	}
	out, err := netphys("replay", files[0]).CombinedOutput()
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
	t.Parallel() // its processes mostly wait for their frames
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
