package main

import (
	"bufio"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/netmodel/udpdrive"
	"github.com/netphys/netphys/transport/netcode"
)

// bench server --udp: the capacity report over real UDP on loopback. The
// servers of N matches run in a process of their own, started here with
// GOMAXPROCS=1 (the --udp-serve side below): each match is a udpdrive
// server, netcode and its encryption included, on a port of its own, or
// with --rooms every match on one port (udpdrive.Rooms, as serve --rooms),
// all stepped by one udpdrive.Run loop at 60 Hz. The bots of every match run in this
// process over their own netcode clients. The server process measures its
// own CPU (user and system, everything in it: the models, the sockets,
// netcode, the GC), the frames its loop ran late, its heap and the
// traffic, and reports them on its standard output.

// benchKeyEnv hands the server process the key the bots' connect tokens
// are sealed with.
const benchKeyEnv = "NETPHYS_BENCH_SERVER_KEY"

// udpServeHello is the server process's first line: its ports, match by
// match.
type udpServeHello struct {
	Ports []uint16 `json:"ports"`
}

// udpServeResult is the server process's last line: what it measured.
type udpServeResult struct {
	Matches, Bots  int
	Frames         int           // measured
	CPU            time.Duration // the process's user+system time while measured (/proc, 10 ms resolution)
	Steps          time.Duration // wall time of the servers' Steps while measured
	LateGaps       int           // frames that came more than 1.5 frames after the one before
	Overruns       int           // frames whose Steps took longer than a frame
	WorstGap       time.Duration
	WorstWork      time.Duration
	HeapBuilt      uint64 // live heap of the servers once built, per match
	HeapPlayed     uint64 // after play, per match
	UpBytes        uint64 // every client's datagrams to the server while measured
	DownBytes      uint64
	UpPackets      uint64 // the model's datagrams both ways while measured (netcode's keep-alives not counted)
	DownPackets    uint64
	Measured       time.Duration // wall time measured
	Joined         time.Duration // how long until every bot had joined
	GOMAXPROCS     int
	DroppedPayload uint64 // payloads a server's inbox refused
	Rooms          bool   // every match on one port
}

// udpPorts is how many ports the server process of n matches listens on.
func udpPorts(o serverBenchOptions, n int) int {
	if o.rooms {
		return 1
	}
	return n
}

// benchRoomsAgree is the handshake's description of the matches of
// --rooms: the bots and the lobby agree on the model.
func benchRoomsAgree(name string) string { return "bench server " + name }

// udpHosts are the matches' servers the server process measures: a
// udpdrive server per match on its own port, or rooms on one.
type udpHosts interface {
	ports() []uint16
	sides() []udpdrive.Stepper
	joined(match, slot int) bool
	traffic(match, slot int) netmodel.Traffic
	cost() time.Duration // the Steps' wall time so far, every match's
	dropped() uint64     // payloads the inboxes refused
	Close() error
}

// udpServers is a udpdrive server per match.
type udpServers []*udpdrive.Server

func newUDPServers(model serverBenchModel, n int, key netcode.Key, log *slog.Logger) (udpServers, error) {
	servers := make(udpServers, n)
	for i := range servers {
		conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			return servers, err
		}
		srv, _, err := model.newServer(i, time.Now())
		if err != nil {
			conn.Close()
			return servers, err
		}
		scfg := udpdrive.DefaultServerConfig()
		scfg.Logger = log
		scfg.Transport.Netcode.PrivateKey = key
		scfg.Transport.Netcode.MaxClients = model.clients()
		if servers[i], err = udpdrive.NewServer(srv, conn, scfg); err != nil {
			conn.Close()
			return servers, err
		}
	}
	return servers, nil
}

func (s udpServers) ports() []uint16 {
	p := make([]uint16, len(s))
	for i, srv := range s {
		p[i] = srv.Transport().Addr().Port()
	}
	return p
}

func (s udpServers) sides() []udpdrive.Stepper {
	sides := make([]udpdrive.Stepper, len(s))
	for i, srv := range s {
		sides[i] = srv
	}
	return sides
}

func (s udpServers) joined(match, slot int) bool { return s[match].Joined(slot) }

func (s udpServers) traffic(match, slot int) netmodel.Traffic { return s[match].Traffic(slot) }

func (s udpServers) cost() time.Duration {
	var d time.Duration
	for _, srv := range s {
		d += srv.Cost().Total
	}
	return d
}

func (s udpServers) dropped() uint64 {
	var n uint64
	for _, srv := range s {
		q, _ := srv.Dropped()
		n += q
	}
	return n
}

func (s udpServers) Close() error {
	for _, srv := range s {
		if srv != nil {
			_ = srv.Close()
		}
	}
	return nil
}

// udpRooms are the matches in rooms on one port; the lobby opens match
// i for the first token whose user data names it (i+1, 4 bytes).
type udpRooms struct {
	rooms *udpdrive.Rooms
	model serverBenchModel
	name  string
}

func newUDPRooms(model serverBenchModel, name string, n int, key netcode.Key, log *slog.Logger) (*udpRooms, error) {
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, err
	}
	r := &udpRooms{model: model, name: name}
	cfg := udpdrive.RoomsConfig{Transport: udpdrive.DefaultServerConfig().Transport, Logger: log, Lobby: r}
	cfg.Transport.Netcode.PrivateKey = key
	cfg.Transport.Netcode.MaxClients = n * model.clients()
	if r.rooms, err = udpdrive.NewRooms(conn, cfg); err != nil {
		conn.Close()
		return nil, err
	}
	return r, nil
}

func (r *udpRooms) Route(now time.Time, _ netcode.ClientID, ud *netcode.UserData) (string, error) {
	i := binary.LittleEndian.Uint32(ud[:])
	if i == 0 {
		return "", errors.New("the token names no match")
	}
	return strconv.FormatUint(uint64(i-1), 10), nil
}

func (r *udpRooms) Open(now time.Time, id string, _ *netcode.UserData) (udpdrive.MatchSetup, error) {
	i, err := strconv.Atoi(id)
	if err != nil {
		return udpdrive.MatchSetup{}, err
	}
	srv, _, err := r.model.newServer(i, now)
	if err != nil {
		return udpdrive.MatchSetup{}, err
	}
	return udpdrive.MatchSetup{Model: srv, Agree: benchRoomsAgree(r.name), Kind: r.name}, nil
}

func (r *udpRooms) Closed(time.Time, *udpdrive.Match) {}

func (r *udpRooms) ports() []uint16           { return []uint16{r.rooms.Transport().Addr().Port()} }
func (r *udpRooms) sides() []udpdrive.Stepper { return []udpdrive.Stepper{r.rooms} }

func (r *udpRooms) joined(match, slot int) bool {
	m := r.rooms.Lookup(strconv.Itoa(match))
	return m != nil && m.Joined(slot)
}

func (r *udpRooms) traffic(match, slot int) netmodel.Traffic {
	if m := r.rooms.Lookup(strconv.Itoa(match)); m != nil {
		return m.Traffic(slot)
	}
	return netmodel.Traffic{}
}

func (r *udpRooms) cost() time.Duration { return r.rooms.Cost().Total }
func (r *udpRooms) dropped() uint64     { return r.rooms.Dropped() }
func (r *udpRooms) Close() error        { return r.rooms.Close() }

var udpModels = []string{"lockstep", "lockstep-referee", "predict", "statesync"}

// benchServerUDPAll runs --udp for each model asked (interp is not
// supported: its clients are many per server, which `netphys load`
// measures against a serve process).
func benchServerUDPAll(ctx context.Context, o serverBenchOptions) error {
	fmt.Fprintf(o.stdout, "bench server --udp: REAL UDP on loopback; links: loopback (no simulated latency or loss); %v warm-up once every bot joined, %v measured; derived capacity fills %.0f %% of a core.\n",
		o.warmup, o.measure, 100*o.headroom)
	for _, name := range o.models {
		if !slices.Contains(udpModels, name) {
			if len(o.models) == 1 {
				return fmt.Errorf("--udp --model %s: want one of %s (interp's cost per client: netphys load against netphys serve)", name, strings.Join(udpModels, ", "))
			}
			continue
		}
		if err := benchServerUDP(ctx, o, name); err != nil {
			return fmt.Errorf("bench server --udp --model %s: %w", name, err)
		}
	}
	return nil
}

// benchServerUDP runs one model's matches against a server process.
func benchServerUDP(ctx context.Context, o serverBenchOptions, name string) error {
	model, err := serverModel(name, o)
	if err != nil {
		return err
	}
	n := cmp.Or(o.matches, serverBenchDefaultMatches[name])
	var key netcode.Key
	if _, err := rand.Read(key[:]); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	// The server process ends by itself once it has said what it
	// measured (its profile written) and its stdin is closed, which
	// this side does once the bots have stopped: until then it keeps its
	// servers, so that no bot is told the server left before the result
	// is read. kill ends it otherwise.
	procCtx, kill := context.WithCancel(ctx)
	defer kill()
	ctx, stopBots := context.WithCancel(ctx)
	defer stopBots()
	args := []string{"bench", "server", "--udp-serve", "--model", name, "--matches", strconv.Itoa(n),
		"--seconds", strconv.FormatFloat(o.measure.Seconds(), 'f', -1, 64), "--warmup", o.warmup.String(),
		"--seed", strconv.FormatUint(o.seed, 10)}
	if o.cpuProfile != "" {
		args = append(args, "--cpuprofile", o.cpuProfile)
	}
	if o.rooms {
		args = append(args, "--rooms")
	}
	cmd := exec.CommandContext(procCtx, exe, args...)
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1", benchKeyEnv+"="+hex.EncodeToString(key[:]))
	cmd.Stderr = o.progress
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the server process: %w", err)
	}
	wait := sync.OnceValue(cmd.Wait)
	defer func() {
		kill()
		_ = wait()
	}()
	lines := bufio.NewScanner(stdout)
	var hello udpServeHello
	if err := readLine(lines, &hello); err != nil || len(hello.Ports) != udpPorts(o, n) {
		return fmt.Errorf("the server process's ports: %d of %d, %v", len(hello.Ports), udpPorts(o, n), err)
	}
	fmt.Fprintf(o.progress, "bench server --udp: %s, %d matches: the server process (pid %d) listens; dialing %d bots\n", name, n, cmd.Process.Pid, n*model.clients())
	quiet := slog.New(slog.DiscardHandler)
	clients := make([]udpdrive.Stepper, n*model.clients())
	defer func() {
		for _, c := range clients {
			if c != nil {
				_ = c.(*udpdrive.Client).Close()
			}
		}
	}()
	// The matches dial at once, each match's bots in turn: their slots
	// are the order they join in.
	dialed := make(chan error, n)
	for i := range n {
		go func() {
			port := hello.Ports[min(i, len(hello.Ports)-1)]
			for slot := range model.clients() {
				p := netcode.DefaultTokenParams()
				p.ClientID = netcode.ClientID(i*256 + slot + 1)
				p.ServerAddresses = []netip.AddrPort{netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), port)}
				binary.LittleEndian.PutUint32(p.UserData[:], uint32(i+1)) // the match, for rooms
				tok, err := netcode.GenerateConnectToken(&p, time.Now(), &key, nil)
				if err != nil {
					dialed <- err
					return
				}
				ccfg := udpdrive.DefaultClientConfig()
				ccfg.Logger = quiet
				if o.rooms {
					ccfg.Agree = benchRoomsAgree(name)
				}
				c, err := udpdrive.Dial(ctx, tok, func(got int) (netmodel.Client, error) {
					if got != slot {
						return nil, fmt.Errorf("bot %d of match %d was given slot %d", slot, i, got)
					}
					return model.newClient(i, slot, time.Now())
				}, ccfg)
				if err != nil {
					dialed <- fmt.Errorf("match %d, bot %d: %w", i, slot, err)
					return
				}
				clients[i*model.clients()+slot] = c
			}
			dialed <- nil
		}()
	}
	for range n {
		if err := <-dialed; err != nil {
			return err
		}
	}
	bots := make(chan error, 1)
	go func() { bots <- udpdrive.Run(ctx, udpdrive.DefaultFrame, nil, clients...) }()
	var r udpServeResult
	result := make(chan error, 1)
	go func() { result <- readLine(lines, &r) }()
	select {
	case err := <-bots:
		return fmt.Errorf("the bots stopped: %w", cmp.Or(err, errors.New("no error")))
	case err := <-result:
		if err != nil {
			return fmt.Errorf("the server process's result: %w", err)
		}
	}
	stopBots()
	<-bots
	_ = stdin.Close()
	exited := make(chan error, 1)
	go func() { exited <- wait() }()
	select {
	case err := <-exited:
		if err != nil {
			return fmt.Errorf("the server process: %w", err)
		}
	case <-time.After(30 * time.Second):
		return errors.New("the server process did not end 30 s after its result")
	}
	printServerBenchUDP(o, model, r, cmd.Process.Pid)
	return nil
}

// readLine decodes the next line of the server process's output.
func readLine(lines *bufio.Scanner, v any) error {
	if !lines.Scan() {
		return cmp.Or(lines.Err(), errors.New("the server process ended without a word (its errors are above)"))
	}
	return json.Unmarshal(lines.Bytes(), v)
}

func printServerBenchUDP(o serverBenchOptions, m serverBenchModel, r udpServeResult, pid int) {
	w := o.stdout
	// Per tick of simulated time: a loop that runs late steps its models
	// more than once in a frame to catch up, so frames undercount ticks.
	ticks := r.Measured.Seconds() * 60 * float64(r.Matches)
	cpu := time.Duration(float64(r.CPU) / max(ticks, 1))
	steps := time.Duration(float64(r.Steps) / max(ticks, 1))
	secs := r.Measured.Seconds()
	kbps := func(b uint64) float64 { return float64(b) * 8 / 1000 / secs / float64(r.Matches) }
	// Per datagram: a starved server process, or starved bots, move fewer
	// datagrams a tick and spend less CPU a tick; the CPU per datagram
	// stays comparable across loads.
	dgrams := r.UpPackets + r.DownPackets
	perDgram := float64(r.CPU) / float64(max(dgrams, 1)) / float64(time.Microsecond)
	fmt.Fprintf(w, "\n%s\n", m.title)
	if r.Rooms {
		fmt.Fprintf(w, "  REAL UDP on loopback: one server process (pid %d, GOMAXPROCS %d) hosts the %d matches in rooms on one port: one netcode server (encrypted) of %d slots, udpdrive.Rooms as serve --rooms,\n",
			pid, r.GOMAXPROCS, r.Matches, r.Matches*r.Bots)
	} else {
		fmt.Fprintf(w, "  REAL UDP on loopback: one server process (pid %d, GOMAXPROCS %d) hosts the %d matches, each a udpdrive server (netcode, encrypted) on its own port (rooms on one port: --rooms),\n",
			pid, r.GOMAXPROCS, r.Matches)
	}
	fmt.Fprintf(w, "  one loop steps them all at 60 Hz; the %d bots run in this process. CPU: the server process's user+system time, all of it (models, sockets, netcode, GC); all %d bots joined in %v.\n",
		r.Matches*r.Bots, r.Matches*r.Bots, r.Joined.Round(time.Millisecond))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "matches\tbots\tprocess CPU µs/match-tick\tmodel steps wall µs/match-tick\tmatches/core at 60 Hz\tdatagrams/match-tick\tprocess CPU µs/datagram\tframes\tlate frames (gap > 1.5 frames)\tworst gap ms\tframes over 1/60 s\tworst frame ms\tKiB/match built\tafter play\tkbps/match up\tdown\t")
	fmt.Fprintf(tw, "%d\t%d\t%.1f\t%.1f\t%.0f\t%.1f\t%.2f\t%d\t%d\t%.1f\t%d\t%.2f\t%.0f\t%.0f\t%.1f\t%.1f\t\n",
		r.Matches, r.Bots, us(cpu), us(steps), perCore(cpu, o.headroom), float64(dgrams)/max(ticks, 1), perDgram, r.Frames, r.LateGaps, ms(r.WorstGap), r.Overruns, ms(r.WorstWork),
		float64(r.HeapBuilt)/1024, float64(r.HeapPlayed)/1024, kbps(r.UpBytes), kbps(r.DownBytes))
	tw.Flush()
	fmt.Fprintf(w, "  per match-tick: over the measured wall time at 60 ticks a second; matches/core: %.0f %% of 1/60 s over the process CPU per match-tick; late frames: the loop's ticks that came more than half a frame late (the OS, other load, or the loop itself);\n", 100*o.headroom)
	fmt.Fprintln(w, "  frames over 1/60 s: the Steps of all matches together took longer than a frame; kbps: UDP payloads both ways (netcode's packets, not IP/UDP headers);")
	fmt.Fprintln(w, "  datagrams: the models' both ways (not netcode's keep-alives); CPU per datagram is the figure a loaded machine changes least: a starved server or bots move fewer datagrams a tick.")
	if r.DroppedPayload > 0 {
		fmt.Fprintf(w, "  the servers' inboxes dropped %d payloads: the loop fell behind\n", r.DroppedPayload)
	}
}

// benchServerUDPServe is the server process of --udp: it builds the
// matches' servers, says its ports, waits for every bot, then warms up,
// measures and says what it measured.
func benchServerUDPServe(ctx context.Context, o serverBenchOptions, name string) error {
	kb, err := hex.DecodeString(os.Getenv(benchKeyEnv))
	var key netcode.Key
	if err != nil || len(kb) != len(key) {
		return fmt.Errorf("--udp-serve is the server side of --udp: it needs the key in %s", benchKeyEnv)
	}
	copy(key[:], kb)
	model, err := serverModel(name, o)
	if err != nil {
		return err
	}
	n := cmp.Or(o.matches, serverBenchDefaultMatches[name])
	quiet := slog.New(slog.DiscardHandler)
	base := heapLive()
	var hosts udpHosts
	if o.rooms {
		// The matches open as their first bots join: built is the
		// netcode server and the rooms alone.
		hosts, err = newUDPRooms(model, name, n, key, quiet)
	} else {
		hosts, err = newUDPServers(model, n, key, quiet)
	}
	if hosts != nil {
		defer hosts.Close()
	}
	if err != nil {
		return err
	}
	r := udpServeResult{Matches: n, Bots: model.clients(), HeapBuilt: (heapLive() - base) / uint64(n), GOMAXPROCS: runtime.GOMAXPROCS(0), Rooms: o.rooms}
	if err := json.NewEncoder(os.Stdout).Encode(udpServeHello{Ports: hosts.ports()}); err != nil {
		return err
	}
	frame := udpdrive.DefaultFrame
	start := time.Now()
	var joinedAt, measureFrom, prev time.Time
	var cpu0, steps0 time.Duration
	var traffic0 []netmodel.Traffic
	traffic := func() []netmodel.Traffic {
		t := make([]netmodel.Traffic, 0, n*r.Bots)
		for i := range n {
			for slot := range r.Bots {
				t = append(t, hosts.traffic(i, slot))
			}
		}
		return t
	}
	const joinWithin = time.Minute
	err = udpdrive.Run(ctx, frame, func(now time.Time) (bool, error) {
		work := time.Since(now)
		gap := now.Sub(prev)
		prev = now
		switch {
		case joinedAt.IsZero():
			for i := range n {
				for slot := range r.Bots {
					if !hosts.joined(i, slot) {
						if now.Sub(start) > joinWithin {
							return true, fmt.Errorf("match %d: bot %d has not joined within %v", i, slot, joinWithin)
						}
						return false, nil
					}
				}
			}
			joinedAt, r.Joined = now, now.Sub(start)
			fmt.Fprintf(os.Stderr, "bench server --udp-serve: %s, %d matches: every bot joined; warm-up\n", name, n)
		case measureFrom.IsZero():
			if now.Sub(joinedAt) >= o.warmup {
				measureFrom = now
				var err error
				if cpu0, err = processCPU(os.Getpid()); err != nil {
					return true, err
				}
				steps0, traffic0 = hosts.cost(), traffic()
				fmt.Fprintf(os.Stderr, "bench server --udp-serve: %s, %d matches: measuring\n", name, n)
			}
		default:
			r.Frames++
			if gap > frame*3/2 {
				r.LateGaps++
			}
			if work > frame {
				r.Overruns++
			}
			r.WorstGap, r.WorstWork = max(r.WorstGap, gap), max(r.WorstWork, work)
			if now.Sub(measureFrom) < o.measure {
				return false, nil
			}
			cpu1, err := processCPU(os.Getpid())
			if err != nil {
				return true, err
			}
			r.CPU, r.Measured = cpu1-cpu0, now.Sub(measureFrom)
			r.Steps, r.DroppedPayload = hosts.cost()-steps0, hosts.dropped()
			for k, t := range traffic() {
				r.UpBytes += t.UpBytes - traffic0[k].UpBytes
				r.DownBytes += t.DownBytes - traffic0[k].DownBytes
				r.UpPackets += t.UpPackets - traffic0[k].UpPackets
				r.DownPackets += t.DownPackets - traffic0[k].DownPackets
			}
			return true, nil
		}
		return false, nil
	}, hosts.sides()...)
	if err != nil {
		return err
	}
	if r.Frames == 0 {
		return fmt.Errorf("stopped before measuring: %w", cmp.Or(ctx.Err(), errors.New("the loop ended")))
	}
	r.HeapPlayed = (heapLive() - base) / uint64(n)
	runtime.KeepAlive(hosts)
	if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
		return err
	}
	// The servers close (telling the bots) only once the bots have
	// stopped: the calling side closes stdin then, or dies.
	_, err = io.Copy(io.Discard, os.Stdin)
	return err
}
