package main

import (
	"encoding/binary"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/netphys/netphys/netmodel/lockstep"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/transport/netsim"
)

// The late-join rows of bench lockstep: 4 players (late join on:
// MaxSnapshotBytes 8 MB); player 3 leaves at 5 s and comes back with its
// client id at 7 s as a new client, takes its held seat, receives the
// game's state and the inputs since, catches up and plays to 20 s. The
// state is the referee's, or without a referee a player's (asked for a
// checkpoint tick ahead, relayed once all agreed on its checksum).
// Measured: the time from connecting to having the snapshot and to
// playing (simulated up to its join tick), the snapshot's size and every
// byte the joiner received, the longest stall the others saw after the
// join, and how many checksums the server compared after it (all equal,
// or the row shows the error).

// MarshalState and UnmarshalState make inputChain a lockstep.Snapshotter:
// its state is its hash.
func (g *inputChain) MarshalState() ([]byte, error) {
	return binary.LittleEndian.AppendUint64(nil, g.h), nil
}

func (g *inputChain) UnmarshalState(b []byte) error {
	if len(b) != 8 {
		return fmt.Errorf("inputChain: a state of %d bytes, want 8", len(b))
	}
	g.h = binary.LittleEndian.Uint64(b)
	return nil
}

// ljResult is one late-join row.
type ljResult struct {
	cond             lsCondition
	mode, game       string
	source           string        // the snapshot's: "referee" or "player"
	snapshot, joined time.Duration // connect to having the snapshot, to playing
	bytes            int           // the snapshot
	received         uint64        // every byte the joiner received by playing, with headers
	othersStall      time.Duration // the longest stall of the other players after the join
	verified         uint64        // checksums the server compared after the join
	err              error
}

func ljGameName(layout *scene.Layout) string {
	if layout == nil {
		return "inputChain"
	}
	return layout.String()
}

var ljConditions = []lsCondition{{"100ms/1%", 100 * time.Millisecond, 0.01}, {"250ms/5%", 250 * time.Millisecond, 0.05}}

// ljSources are the snapshot sources of the rows: the referee's state, a
// player's.
var ljSources = []bool{true, false}

func runLateJoinRow(o lsOptions, c lsCondition, mode lsMode, layout *scene.Layout, refereed bool) (ljResult, error) {
	r := ljResult{cond: c, mode: mode.name, game: "inputChain", source: "player"}
	const players = 4
	cfg := mode.cfg()
	cfg.Players = players
	cfg.MaxSnapshotBytes = 8 << 20
	newGame := func() (lockstep.Game[scene.Input], error) {
		if layout == nil {
			return &inputChain{}, nil
		}
		return scene.NewLockstep(*layout, scene.DefaultConfig(), players)
	}
	r.game = ljGameName(layout)
	srv, err := lockstep.NewServer[scene.Input](cfg, simmatch.Epoch)
	if err != nil {
		return r, err
	}
	if refereed {
		r.source = "referee"
		ref, err := newGame()
		if err != nil {
			return r, err
		}
		if err := srv.SetReferee(ref); err != nil {
			return r, err
		}
	}
	cond := netsim.Conditions{Latency: c.rtt / 2, Loss: c.loss}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: o.seed, Conditions: cond}}, srv)
	if err != nil {
		return r, err
	}
	clients := make([]*lockstep.Client[scene.Input, *scene.Input], players)
	join := func(id uint64) (int, error) {
		g, err := newGame()
		if err != nil {
			return 0, err
		}
		cl, err := lockstep.NewClient[scene.Input](cfg, g, scene.LockstepBot(), m.Now())
		if err != nil {
			return 0, err
		}
		slot, err := m.JoinID(cl, id)
		if err == nil {
			clients[slot] = cl
		}
		return slot, err
	}
	for id := range uint64(players) {
		if _, err := join(id + 1); err != nil {
			return r, err
		}
	}
	frame := time.Second / 60
	run := make([]time.Duration, players)
	var verifiedAt uint64
	joiner := -1
	for f := 0; f < 20*60; f++ {
		switch f {
		case 5 * 60:
			m.Leave(3)
		case 7 * 60:
			if joiner, err = join(players); err != nil {
				return r, fmt.Errorf("late join: %w", err)
			}
			verifiedAt = srv.Stats(m.Now()).Verified
		}
		if r.err = m.Run(frame); r.err != nil {
			return r, nil
		}
		if joiner < 0 {
			continue
		}
		for p, cl := range clients {
			if p == joiner {
				continue
			}
			if cl.Stats().Stalling {
				run[p] += frame
				r.othersStall = max(r.othersStall, run[p])
			} else {
				run[p] = 0
			}
		}
		if s := clients[joiner].Stats(); s.CaughtUp > 0 && r.joined == 0 {
			r.received = m.Traffic(joiner).DownBytes
			r.joined = s.CaughtUp // from the joiner's start, when it connected
		}
	}
	s := clients[joiner].Stats()
	r.bytes = s.SnapshotBytes
	if s.SnapshotBytes > 0 {
		r.snapshot = s.Joined
	}
	st := srv.Stats(m.Now())
	r.verified = st.Verified - verifiedAt
	if st.Desync != nil || st.Drops[lockstep.ReasonDesync] > 0 {
		r.err = fmt.Errorf("desync: %v, %d dropped for one", st.Desync, st.Drops[lockstep.ReasonDesync])
	} else if r.joined == 0 {
		r.err = fmt.Errorf("the joiner did not catch up by 20 s")
	}
	return r, nil
}

func printLateJoin(o lsOptions, rows []ljResult) {
	w := o.stdout
	fmt.Fprintf(w, "\nlate join: 4 players; player 3 leaves at 5 s and comes back as a new client at 7 s into its held seat; seed %d\n", o.seed)
	fmt.Fprintf(w, "source: the state is the referee's, or (no referee) a player's of a checkpoint tick ahead, relayed once all agreed on its checksum\n")
	fmt.Fprintf(w, "snapshot and playing: from connecting to having the state, and to having simulated up to its join tick; received: every byte (with headers) the joiner got until then\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "game\tcondition\tmode\tsource\tsnapshot\tplaying\tstate bytes\treceived bytes\tothers' longest stall after\tchecksums verified after\terror\t")
	for _, r := range rows {
		e := "-"
		if r.err != nil {
			e = r.err.Error()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.0f ms\t%.0f ms\t%d\t%d\t%.0f ms\t%d\t%s\t\n", r.game, r.cond.name, r.mode, r.source,
			ms(r.snapshot), ms(r.joined), r.bytes, r.received, ms(r.othersStall), r.verified, e)
	}
	tw.Flush()
}
