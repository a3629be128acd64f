package agonestest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/netphys/netphys/transport/agones"
)

// Real is Agones' own sdk-server in its local mode, started from the
// directory that holds it and run-sdk-server.sh (shared/agones beside the
// repository). Its GameServer lives in a YAML file Real rewrites in place
// to play the Agones controller (the server sends a watch event for it).
type Real struct {
	url, file, log string
	pid            int
	players        int64
	addr           netip.AddrPort
	labels         map[string]string
}

// StartReal starts the sdk-server of sdkDir with its GameServer in a file
// under dir: state Scheduled, the given labels, a List "players" of
// capacity players, a Counter "matches" of capacity 1000, address and
// port "default" addr. extra flags go to the sdk-server (such as
// --feature-gates PlayerTracking=true).
func StartReal(sdkDir, dir string, players int64, labels map[string]string, addr netip.AddrPort, extra ...string) (*Real, error) {
	r := &Real{file: filepath.Join(dir, "gameserver.yaml"), players: players, labels: labels, addr: addr}
	if err := os.WriteFile(r.file, r.yaml(agones.StateScheduled, nil, nil, fileStatus{}), 0o644); err != nil {
		return nil, err
	}
	grpcPort, err := freePort()
	if err != nil {
		return nil, err
	}
	httpPort, err := freePort()
	if err != nil {
		return nil, err
	}
	script := filepath.Join(sdkDir, "run-sdk-server.sh")
	if _, err := os.Stat(script); err != nil {
		return nil, fmt.Errorf("agonestest: no sdk-server to run (%w); a relative directory is read from the test's package directory: give an absolute one", err)
	}
	args := append([]string{strconv.Itoa(grpcPort), strconv.Itoa(httpPort), "-f", r.file}, extra...)
	cmd := exec.Command(script, args...)
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("agonestest: %s: %w: %s", script, err, ee.Stderr)
		}
		return nil, fmt.Errorf("agonestest: %s: %w", script, err)
	}
	if r.pid, err = strconv.Atoi(strings.TrimSpace(string(out))); err != nil {
		return nil, fmt.Errorf("agonestest: %s printed %q, not a PID", script, out)
	}
	r.url = fmt.Sprintf("http://127.0.0.1:%d", httpPort)
	// The script unpacks the binary once into the cache and logs there.
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	r.log = filepath.Join(cache, "netphys-agones", fmt.Sprintf("sdk-server.%d.log", httpPort))
	return r, nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// URL is the gateway's base URL.
func (r *Real) URL() string { return r.url }

// Close stops the sdk-server.
func (r *Real) Close() {
	if p, err := os.FindProcess(r.pid); err == nil {
		p.Signal(syscall.SIGTERM)
		for range 50 {
			if p.Signal(syscall.Signal(0)) != nil {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		p.Kill()
	}
}

// Allocate plays a GameServerAllocation: the GameServer file is rewritten
// in place with state Allocated and the labels and annotations.
func (r *Real) Allocate(labels, annotations map[string]string) error {
	if s := r.State(); s != agones.StateReady {
		return fmt.Errorf("agonestest: allocate: the game server is %s, not Ready", s)
	}
	return r.write(r.yaml(agones.StateAllocated, labels, annotations, fileStatus{}))
}

// AllocateCounted plays a GameServerAllocation of a fleet whose servers
// host many matches each (tokenservice.Allocator.Counter): a Ready or
// Allocated server with room in its Counter "matches" (the one Counter
// of the file) is rewritten Allocated with that Counter one more than
// the sdk-server reports, the labels and annotations added to its own,
// and its List "players" as it reports it.
func (r *Real) AllocateCounted(counter string, labels, annotations map[string]string) error {
	if counter != "matches" {
		return fmt.Errorf("agonestest: allocate: the game server has no Counter %q (its one Counter is matches)", counter)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	gs, err := (&agones.Client{URL: r.url, HTTP: http.DefaultClient}).GameServer(ctx)
	if err != nil {
		return err
	}
	if s := gs.Status.State; s != agones.StateReady && s != agones.StateAllocated {
		return fmt.Errorf("agonestest: allocate: the game server is %s, not Ready or Allocated", s)
	}
	c := gs.Status.Counters[counter]
	if c.Count >= c.Capacity {
		return fmt.Errorf("agonestest: allocate: the Counter %q is full (%d of %d)", counter, c.Count, c.Capacity)
	}
	return r.write(r.yaml(agones.StateAllocated, merged(gs.ObjectMeta.Labels, labels), merged(gs.ObjectMeta.Annotations, annotations),
		fileStatus{matches: int64(c.Count) + 1, players: gs.Status.Lists["players"].Values}))
}

// merged is base with add added.
func merged(base, add map[string]string) map[string]string {
	out := maps.Clone(base)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, add)
	return out
}

// write rewrites the GameServer file with b in one write over the file
// in place, without truncating it: every version is fileSize bytes, so
// the sdk-server never reads an empty or shortened file between two
// events.
func (r *Real) write(b []byte) error {
	f, err := os.OpenFile(r.file, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// State is the GameServer's state as the sdk-server reports it, or the
// error text.
func (r *Real) State() string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	gs, err := (&agones.Client{URL: r.url, HTTP: http.DefaultClient}).GameServer(ctx)
	if err != nil {
		return err.Error()
	}
	return gs.Status.State
}

// Healths counts the health pings in the sdk-server's log.
func (r *Real) Healths() int {
	b, _ := os.ReadFile(r.log)
	return bytes.Count(b, []byte("Health Ping Received"))
}

// Log is the sdk-server's log so far.
func (r *Real) Log() string {
	b, _ := os.ReadFile(r.log)
	return string(b)
}

// fileSize is the size of every version of the GameServer file.
const fileSize = 4096

// fileStatus is what the GameServer file holds of its status besides
// the state, address and ports: the Counter "matches"' count and the
// List "players"' values.
type fileStatus struct {
	matches int64
	players []string
}

// yaml is the GameServer file: state, the labels of StartReal and
// labels, annotations, the Counter "matches" and the List "players".
func (r *Real) yaml(state string, labels, annotations map[string]string, st fileStatus) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: agones.dev/v1\nkind: GameServer\nmetadata:\n  name: netphys-test\n  namespace: default\n")
	writeMap(&b, "labels", r.labels, labels)
	writeMap(&b, "annotations", annotations)
	fmt.Fprintf(&b, "spec:\n  health:\n    periodSeconds: 5\n    failureThreshold: 3\n    initialDelaySeconds: 5\n")
	fmt.Fprintf(&b, "status:\n  state: %s\n  address: %s\n  ports:\n  - name: default\n    port: %d\n", state, r.addr.Addr(), r.addr.Port())
	fmt.Fprintf(&b, "  counters:\n    matches:\n      count: %d\n      capacity: 1000\n", st.matches)
	fmt.Fprintf(&b, "  lists:\n    players:\n      capacity: %d\n", r.players)
	if len(st.players) > 0 {
		b.WriteString("      values:\n")
		for _, v := range st.players {
			fmt.Fprintf(&b, "      - %s\n", strconv.Quote(v))
		}
	}
	if pad := fileSize - b.Len() - 1; pad > 0 {
		b.WriteString("#" + strings.Repeat(" ", pad-1) + "\n")
	}
	return []byte(b.String())
}

func writeMap(b *strings.Builder, name string, ms ...map[string]string) {
	all := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			all[k] = v
		}
	}
	if len(all) == 0 {
		return
	}
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(b, "  %s:\n", name)
	for _, k := range keys {
		fmt.Fprintf(b, "    %s: %s\n", strconv.Quote(k), strconv.Quote(all[k]))
	}
}
