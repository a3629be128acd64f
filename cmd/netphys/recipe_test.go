package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestREADMERecipe runs the README's server, client and netsim commands
// (testdata/recipe.sh, on free ports instead of 40000-40002 and 9100), each
// through the same entry point as the binary: key, server with metrics,
// token, connect and echo, a metrics scrape, then a second server behind
// the netsim proxy and a client through it. About 3 s: the two echo runs.
func TestREADMERecipe(t *testing.T) {
	recipe, err := os.ReadFile("testdata/recipe.sh")
	if err != nil {
		t.Fatal(err)
	}
	text := string(recipe)
	for i, addr := range freeAddrs(t, "udp", 3) {
		text = strings.ReplaceAll(text, "127.0.0.1:4000"+strconv.Itoa(i), addr)
	}
	text = strings.ReplaceAll(text, "127.0.0.1:9100", freeAddrs(t, "tcp", 1)[0])
	t.Chdir(t.TempDir())

	ctx, stop := context.WithCancel(context.Background())
	var background []chan error
	defer func() {
		stop()
		for _, done := range background {
			if err := <-done; err != nil {
				t.Errorf("background command: %v", err)
			}
		}
	}()
	connects := 0
	for _, line := range strings.Split(text, "\n") {
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		switch {
		case len(f) == 0, f[0] == "go":
			continue
		case f[0] == "curl":
			scrape(t, "http://"+f[2], f[len(f)-1])
			continue
		case f[0] != "./netphys":
			t.Fatalf("recipe line %q: not a netphys command", line)
		}
		args := f[1:]
		if args[len(args)-1] == "&" {
			done := make(chan error, 1)
			background = append(background, done)
			go func() { done <- run(ctx, args[:len(args)-1], io.Discard) }()
			continue
		}
		redirect := ""
		if i := len(args) - 2; i > 0 && args[i] == ">" {
			redirect, args = args[i+1], args[:i]
		}
		var out bytes.Buffer
		if err := run(context.Background(), args, &out); err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out.String())
		}
		if redirect != "" {
			if err := os.WriteFile(redirect, out.Bytes(), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if args[0] == "connect" {
			connects++
			// The first runs on loopback, the second through 5 % loss each way.
			checkEchoes(t, out.String(), map[int]int{1: 90, 2: 50}[connects])
		}
	}
	if connects != 2 {
		t.Fatalf("the recipe ran %d connects, want 2", connects)
	}
}

// freeAddrs returns n distinct loopback addresses with ports free for
// network now: all are held open until all are chosen.
func freeAddrs(t *testing.T, network string, n int) []string {
	t.Helper()
	var addrs []string
	var closers []io.Closer
	defer func() {
		for _, c := range closers {
			c.Close()
		}
	}()
	for range n {
		var c io.Closer
		var addr string
		if network == "udp" {
			pc, err := net.ListenPacket("udp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			c, addr = pc, pc.LocalAddr().String()
		} else {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			c, addr = l, l.Addr().String()
		}
		closers = append(closers, c)
		addrs = append(addrs, addr)
	}
	return addrs
}

// scrape fetches url, retrying while the server starts, and wants want in it.
func scrape(t *testing.T, url, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(url)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(body), want) {
				t.Fatalf("%s lacks %q", url, want)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", url, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

var payloadLine = regexp.MustCompile(`payloads +sent (\d+), echoed (\d+), lost \d+, duplicated \d+, foreign (\d+)`)

// checkEchoes wants at least percent % of the payloads echoed and nothing foreign.
func checkEchoes(t *testing.T, out string, percent int) {
	t.Helper()
	m := payloadLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("connect printed no payload line:\n%s", out)
	}
	sent, _ := strconv.Atoi(m[1])
	echoed, _ := strconv.Atoi(m[2])
	if sent == 0 || echoed*100 < sent*percent || m[3] != "0" {
		t.Fatalf("connect: want %d%% echoed and none foreign:\n%s", percent, out)
	}
}

// TestNetsimStatsZeroNeverLogs: --stats 0 logs the counters only when the
// proxy stops, as serve --report 0 does.
func TestNetsimStatsZeroNeverLogs(t *testing.T) {
	var logs bytes.Buffer
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	ctx, stop := context.WithTimeout(context.Background(), 350*time.Millisecond)
	defer stop()
	if err := run(ctx, []string{"netsim", "--listen", "127.0.0.1:0", "--forward", "127.0.0.1:1", "--stats", "0"}, io.Discard); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(logs.String(), "msg=netsim "); n != 0 {
		t.Fatalf("%d periodic counter lines with --stats 0:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), `msg="netsim: stopped"`) {
		t.Fatalf("no counters at the stop:\n%s", logs.String())
	}
}
