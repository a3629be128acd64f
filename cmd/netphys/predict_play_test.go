package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPredictMatchBetweenProcesses is issue 13's separate-process check:
// the program, built by the test, runs `serve --model predict` and three
// `play --model predict --bot` processes on loopback; each player predicts
// its ticks, compares them with the server's and sees hits, and the server
// commits hits.
func TestPredictMatchBetweenProcesses(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "netphys")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
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
	const players, ticks = 3, 360
	match := []string{"--model", "predict", "--players", fmt.Sprint(players)}

	var serveOut bytes.Buffer
	serve := netphys(append([]string{"serve", "--listen", addr, "--key", hexKey, "--report", "0"}, match...)...)
	serve.Stdout, serve.Stderr = &serveOut, &serveOut
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if serve.Process != nil {
			serve.Process.Kill()
			serve.Wait()
		}
	}()
	plays := make([]*exec.Cmd, players)
	outs := make([]*bytes.Buffer, players)
	for i := range plays {
		tok := filepath.Join(dir, fmt.Sprintf("token%d", i))
		if out, err := netphys("token", "--key", hexKey, "--servers", addr, "--client-id", fmt.Sprint(i+1), "--out", tok).CombinedOutput(); err != nil {
			t.Fatalf("token: %v\n%s", err, out)
		}
		plays[i] = netphys(append([]string{"play", "--token-file", tok, "--bot", "--http", "", "--ticks", fmt.Sprint(ticks),
			"--linger", "1s", "--report", "0"}, match...)...)
		outs[i] = &bytes.Buffer{}
		plays[i].Stdout, plays[i].Stderr = outs[i], outs[i]
		if err := plays[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	compared := regexp.MustCompile(`mispredicted\s+\d+ of (\d+) ticks clear of contacts, \d+ of (\d+) near them`)
	for i, p := range plays {
		err := p.Wait()
		t.Logf("player process %d:\n%s", i, outs[i])
		if err != nil {
			t.Fatalf("player process %d: %v", i, err)
		}
		m := compared.FindStringSubmatch(outs[i].String())
		if m == nil {
			t.Fatalf("player process %d printed no mispredictions", i)
		}
		free, near := atoi(t, m[1]), atoi(t, m[2])
		if free+near < ticks/2 {
			t.Errorf("player process %d compared %d ticks of %d", i, free+near, ticks)
		}
	}
	if err := serve.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := serve.Wait(); err != nil {
		t.Errorf("serve: %v\n%s", err, serveOut.String())
	}
	serve.Process = nil
	t.Logf("server:\n%s", serveOut.String())
	if !regexp.MustCompile(`[1-9]\d* hits committed`).MatchString(serveOut.String()) || !strings.Contains(serveOut.String(), "player 3") {
		t.Errorf("server summary lacks committed hits or a player")
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
