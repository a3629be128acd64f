package lockstep

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/netphys/netphys/transport/netsim"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of testdata/*.txt")

// TestScripts plays the scenarios of testdata/*.txt: each block is a
// command, a "----" line and the output the command must print, in the
// style of etcd raft's interaction tests. -rewrite regenerates the
// outputs. Commands:
//
//	new players=N [rollback=T] [tcp] [latency=D] [jitter=D] [loss=P] [seed=S]
//	link P [latency=D] [jitter=D] [loss=P]   player P's link, both ways
//	run D                         advance virtual time; print the error, if any
//	stats                         every side's figures
//	perturb P                     change player P's world by one unit: a desync
//	leave P                       the driver disconnects player P
func TestScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { runScript(t, f) })
	}
}

// scriptBlock is a command, the comment lines before it (kept by
// -rewrite) and its expected output.
type scriptBlock struct{ comment, cmd, want string }

func readScript(t *testing.T, path string) []scriptBlock {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []scriptBlock
	var comment strings.Builder
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			comment.WriteString(line + "\n")
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		b := scriptBlock{comment: comment.String(), cmd: line}
		comment.Reset()
		if !sc.Scan() || sc.Text() != "----" {
			t.Fatalf("%s: %q is not followed by ----", path, line)
		}
		var out []string
		for sc.Scan() && sc.Text() != "" {
			out = append(out, sc.Text())
		}
		b.want = strings.Join(out, "\n")
		blocks = append(blocks, b)
	}
	return blocks
}

func runScript(t *testing.T, path string) {
	blocks := readScript(t, path)
	var x *match
	var clients []*Client[stick, *stick] // by slot; nil once left
	var rewritten strings.Builder
	for _, b := range blocks {
		fields := strings.Fields(b.cmd)
		args := map[string]string{}
		for _, f := range fields[1:] {
			k, v, _ := strings.Cut(f, "=")
			args[k] = v
		}
		var got string
		switch fields[0] {
		case "new":
			cfg := DefaultConfig()
			if rb, ok := args["rollback"]; ok {
				cfg = DefaultRollbackConfig()
				cfg.Rollback = atoi(t, rb)
			}
			if _, ok := args["tcp"]; ok {
				cfg = DefaultStreamConfig()
			}
			cfg.Players = atoi(t, args["players"])
			seed := uint64(1)
			if s, ok := args["seed"]; ok {
				seed = uint64(atoi(t, s))
			}
			x = newMatch(t, cfg, conditions(t, args), seed)
			clients = append([]*Client[stick, *stick](nil), x.clients...)
			got = fmt.Sprintf("%d players, %v, rollback %d", cfg.Players, cfg.Transport, cfg.Rollback)
		case "link":
			c := conditions(t, args)
			if err := x.m.SetLink(atoi(t, fields[1]), c, c); err != nil {
				t.Fatal(err)
			}
			got = "ok"
		case "run":
			d, err := time.ParseDuration(fields[1])
			if err != nil {
				t.Fatal(err)
			}
			got = "ok"
			if err := x.m.Run(d); err != nil {
				got = "error: " + err.Error()
			}
			got = fmt.Sprintf("t=%v %s", x.m.Elapsed(), got)
		case "stats":
			got = scriptStats(x, clients)
		case "perturb":
			x.games[atoi(t, fields[1])].p[0].x++
			got = "ok"
		case "leave":
			p := atoi(t, fields[1])
			x.m.Leave(p)
			clients[p] = nil
			got = "ok"
		default:
			t.Fatalf("%s: unknown command %q", path, b.cmd)
		}
		if *rewrite {
			fmt.Fprintf(&rewritten, "%s%s\n----\n%s\n\n", b.comment, b.cmd, got)
			continue
		}
		if got != b.want {
			t.Errorf("%s\n----\ngot:\n%s\nwant:\n%s", b.cmd, got, b.want)
		}
	}
	if *rewrite {
		if err := os.WriteFile(path, []byte(strings.TrimSuffix(rewritten.String(), "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func scriptStats(x *match, clients []*Client[stick, *stick]) string {
	var b strings.Builder
	st := x.server.Stats(x.m.Now())
	fmt.Fprintf(&b, "server: tick %d, verified %d, disconnected %d", st.Tick, st.Verified, st.Disconnected)
	if st.Desync != nil {
		fmt.Fprintf(&b, ", %v", st.Desync)
	}
	for i, c := range clients {
		if c == nil {
			continue
		}
		s := c.Stats()
		fmt.Fprintf(&b, "\nclient %d: player %d, tick %d, confirmed %d, delay %d ms (target %d), stalled %d (longest %d ms), rollbacks %d, resimulated %d, rejected %d",
			i, s.Player, s.Tick, s.Confirmed, s.InputDelay.Milliseconds(), s.TargetDelay.Milliseconds(),
			s.Stalled, s.LongestStall.Milliseconds(), s.Rollbacks, s.Resimulated, s.Rejected)
	}
	return b.String()
}

func conditions(t *testing.T, args map[string]string) netsim.Conditions {
	var c netsim.Conditions
	if l, ok := args["latency"]; ok {
		d, err := time.ParseDuration(l)
		if err != nil {
			t.Fatal(err)
		}
		c.Latency = d
	}
	if j, ok := args["jitter"]; ok {
		d, err := time.ParseDuration(j)
		if err != nil {
			t.Fatal(err)
		}
		c.Jitter = d
	}
	if l, ok := args["loss"]; ok {
		p, err := netsim.ParseProbability(l)
		if err != nil {
			t.Fatal(err)
		}
		c.Loss = p
	}
	return c
}

func atoi(t *testing.T, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return n
}
