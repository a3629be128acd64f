package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/netphys/netphys/internal/syncbuf"
)

// procs runs the program as separate processes for one process test: the
// program built once for all tests, a fresh server key, a free UDP
// address for the server, a directory for tokens, and a deadline that
// kills whatever still runs.
type procs struct {
	t      *testing.T
	ctx    context.Context
	bin    string
	dir    string
	hexKey string
	addr   string
}

func newProcs(t *testing.T, timeout time.Duration) *procs {
	t.Helper()
	p := &procs{t: t, bin: buildProgram(t), dir: t.TempDir(), addr: freeUDPAddr(t)}
	var cancel context.CancelFunc
	p.ctx, cancel = context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	key, err := p.command("token", "--new-key").Output()
	if err != nil {
		t.Fatal(err)
	}
	p.hexKey = strings.TrimSpace(string(key))
	return p
}

// command is the program with args, logging warnings and errors only.
func (p *procs) command(args ...string) *exec.Cmd { return p.commandEnv(nil, args...) }

// commandEnv is command with env added to the environment.
func (p *procs) commandEnv(env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(p.ctx, p.bin, args...)
	cmd.Env = append(append(os.Environ(), "NETPHYS_LOG=warn"), env...)
	return cmd
}

// token writes a connect token for client id to the server's address,
// with extra flags of `netphys token`, and returns its file.
func (p *procs) token(id int, extra ...string) string {
	p.t.Helper()
	file := filepath.Join(p.dir, fmt.Sprintf("token%d", id))
	args := append([]string{"token", "--key", p.hexKey, "--servers", p.addr, "--client-id", fmt.Sprint(id), "--out", file}, extra...)
	if out, err := p.command(args...).CombinedOutput(); err != nil {
		p.t.Fatalf("token: %v\n%s", err, out)
	}
	return file
}

// start starts cmd with its output in the returned buffer (which the
// test may read while it runs); it is killed at the end of the test if
// it has not been waited for.
func (p *procs) start(cmd *exec.Cmd) *syncbuf.Buffer {
	p.t.Helper()
	out := &syncbuf.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return out
}

// serve starts `netphys serve` on the server's address with its key,
// no periodic report, and args.
func (p *procs) serve(env []string, args ...string) (*exec.Cmd, *syncbuf.Buffer) {
	p.t.Helper()
	cmd := p.commandEnv(env, append([]string{"serve", "--listen", p.addr, "--key", p.hexKey, "--report", "0"}, args...)...)
	return cmd, p.start(cmd)
}

// proc is a started process and its output.
type proc struct {
	cmd *exec.Cmd
	out *syncbuf.Buffer
}

// run starts the program with args, env added to its environment.
func (p *procs) run(env []string, args ...string) proc {
	p.t.Helper()
	cmd := p.commandEnv(env, args...)
	return proc{cmd, p.start(cmd)}
}

// wait waits for the process to end, logs its output under what, fails
// the test unless it succeeded if and only if ok, and returns the output.
func (pl proc) wait(t *testing.T, what string, ok bool) string {
	t.Helper()
	err := pl.cmd.Wait()
	t.Logf("%s:\n%s", what, pl.out)
	if (err == nil) != ok {
		t.Fatalf("%s exited with %v, want success %v", what, err, ok)
	}
	return pl.out.String()
}

// botArgs are the arguments of a headless `play --bot` with the token in
// file that plays ticks ticks of match, then lingers a second.
func botArgs(file string, ticks int, match ...string) []string {
	return append([]string{"play", "--token-file", file, "--bot", "--http", "", "--ticks", fmt.Sprint(ticks), "--linger", "1s", "--report", "0"}, match...)
}

// waitAll waits for every process to end and returns their outputs; a
// process that failed fails the test with its output.
func waitAll(t *testing.T, ps []proc) []string {
	t.Helper()
	outs := make([]string, len(ps))
	for i, pl := range ps {
		err := pl.cmd.Wait()
		outs[i] = pl.out.String()
		if err != nil {
			t.Fatalf("process %d: %v\n%s", i, err, outs[i])
		}
	}
	return outs
}

// sameChecksum checks that every output printed the lockstep checksum
// of tick ticks and that they are all equal; it returns that checksum.
func sameChecksum(t *testing.T, ticks int, outs []string) string {
	t.Helper()
	var first string
	for i, out := range outs {
		m := checksumLine.FindStringSubmatch(out)
		switch {
		case m == nil || m[1] != fmt.Sprint(ticks):
			t.Fatalf("process %d printed no checksum of tick %d:\n%s", i, ticks, out)
		case first == "":
			first = m[2]
		case m[2] != first:
			t.Errorf("process %d ended with checksum %s, process 0 with %s", i, m[2], first)
		}
	}
	t.Logf("checksum of tick %d: %s, in %d processes", ticks, first, len(outs))
	return first
}

// kill kills the process with SIGKILL and waits for it.
func (pl proc) kill(t *testing.T) {
	t.Helper()
	if err := pl.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	pl.cmd.Wait()
}

// serveRunning fails the test at once unless serve still runs; when
// says at which point of the test, out is serve's output.
func serveRunning(t *testing.T, serve *exec.Cmd, out *syncbuf.Buffer, when string) {
	t.Helper()
	if serve.ProcessState != nil || serve.Process.Signal(syscall.Signal(0)) != nil {
		t.Fatalf("serve is not running %s:\n%s", when, out.String())
	}
}

// stopServe interrupts serve (SIGINT), fails the test unless it then
// exits 0, logs its output out and returns it.
func stopServe(t *testing.T, serve *exec.Cmd, out *syncbuf.Buffer) string {
	t.Helper()
	if err := serve.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := serve.Wait(); err != nil {
		t.Errorf("serve: %v", err)
	}
	got := out.String()
	t.Logf("server:\n%s", got)
	return got
}

// tryMetricsPage returns the /metrics page of `serve --metrics addr`;
// its error is the request's (nothing listens at addr yet, say). A failed
// read fails the test.
func tryMetricsPage(t *testing.T, addr string) (string, error) {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), nil
}

// metricsPage is tryMetricsPage where serve listens already: a failed
// request fails the test.
func metricsPage(t *testing.T, addr string) string {
	t.Helper()
	body, err := tryMetricsPage(t, addr)
	if err != nil {
		t.Fatal(err)
	}
	return body
}
