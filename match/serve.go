package match

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/netmodel/udpdrive"
	"github.com/netphys/netphys/transport"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/viewer"
)

// ServeConfig sets up a server process.
type ServeConfig struct {
	Model *Model
	Sides Sides
	Setup Setup
	// Conn is the server's bound UDP socket; Serve owns it. Start binds
	// one on loopback if nil.
	Conn transport.PacketConn
	// Server configures netcode (key, protocol id, public address, slots):
	// udpdrive.DefaultServerConfig() and the key, say.
	Server udpdrive.ServerConfig
	// Viewer, when set, shows the host's views (if its model has any) and
	// figures.
	Viewer *viewer.Server
	// Report logs the figures this often; 0: never.
	Report time.Duration
	// Status receives the summary of every match that ends (every player
	// joined has left) while Serve goes on with a new one; nil: none.
	Status io.Writer
	// Ended, when set, is given the summary of every match that ends
	// while Serve goes on, on Serve's goroutine: a program's record of
	// its matches' results.
	Ended func(Summary)
	// Listening, when set, is called once the server is up (to serve its
	// metrics, say); its error stops Serve, its stop function runs when
	// Serve returns.
	Listening func(*udpdrive.Server) (stop func(), err error)
	// Refusals, when set, keeps what the model refused of its clients (a
	// Refuser host's counts) summed over the matches, for the metrics.
	Refusals *RefusalTally
	// Verbose logs every player's figures each Report, one line per
	// player, at level info; otherwise they are logged at level debug
	// (NETPHYS_LOG=debug) and the report is one line: the host's figures
	// and the range of the players'.
	Verbose bool
}

// failGrace is how long a failed match's model goes on being stepped
// (telling its players what went wrong, if it can) before every player
// of it gets a bye with the error and the next match begins.
const failGrace = time.Second

// StoppedReason is the bye Serve and ServeRooms send the players still
// in a match when their context ends (serve stopped by a signal, or its
// drain ran out).
const StoppedReason = "the server stopped before the match ended (shut down, or its drain ran out): join another"

// Serve runs the model's server side until ctx ends, and returns the
// summary of the last match (none if it is a match nobody joined after an
// earlier one). A match ends when every player that joined it has left
// or was released by the model (a dropped player is disconnected once it
// has been told why); Serve then prints its summary to Status and waits
// for the players of a new one, with a new Host. A match whose model
// fails (a desync nobody can be blamed for) is logged, its players get
// the error in a bye after failGrace, and the next match begins: one
// match never ends the process. Players must agree on Agreement(...)
// before they join: one set up for another match is refused, naming
// the difference.
//
// When ctx ends Serve closes the socket and returns: a clean end, the
// error nil. Everything it logs, netcode's and the driver's lines
// included, goes to Setup.Logger. Start runs it on a goroutine of its own
// and issues its players' tokens.
func Serve(ctx context.Context, cfg ServeConfig) (Summary, error) {
	log := cfg.Setup.Logger
	if log == nil {
		log = slog.Default()
		cfg.Setup.Logger = log
	}
	cfg.Setup.Now = time.Now()
	if cfg.Viewer != nil {
		cfg.Viewer.SetControls(WatchControls)
	}
	host, err := cfg.Sides.NewHost(cfg.Setup)
	if err != nil {
		cfg.Conn.Close()
		return Summary{}, err
	}
	if cfg.Refusals != nil {
		cfg.Refusals.watch(host)
	}
	cfg.Server.Logger = log
	cfg.Server.Agree = Agreement(cfg.Model, cfg.Sides, cfg.Setup)
	srv, err := udpdrive.NewServer(host, cfg.Conn, cfg.Server)
	if err != nil {
		cfg.Conn.Close()
		return Summary{}, err
	}
	defer srv.Close()
	if cfg.Listening != nil {
		stop, err := cfg.Listening(srv)
		if err != nil {
			return Summary{}, err
		}
		defer stop()
	}
	slots := srv.Transport().MaxClients()
	meters := make([]meter, slots)
	played := make([]bool, slots) // slots that joined the match
	ids := make([]uint64, slots)  // their client ids, from their tokens
	var hostMeter meter
	start, lastLog := time.Now(), time.Now()
	matches := 1
	var (
		figs   []viewer.Figure
		views  []viewer.View
		failed failure
	)
	side := &survivor{srv: srv, log: log, failed: &failed}
	err = udpdrive.Run(ctx, udpdrive.DefaultFrame, func(now time.Time) (bool, error) {
		if failed.err != nil && !failed.ended && now.Sub(failed.at) >= failGrace {
			srv.EndMatch(now, failed.err.Error())
			failed.ended = true
		}
		inMatch, over := 0, false
		for slot := range slots {
			if srv.Joined(slot) && !srv.Watching(slot) { // spectators keep no match alive
				inMatch++
				if !played[slot] {
					ids[slot] = uint64(srv.Transport().ClientID(netcode.ClientIndex(slot)))
					log.Info("serve: player joined", "player", slot+1, "client_id", ids[slot])
				}
				played[slot] = true
			} else if played[slot] {
				over = true
			}
		}
		if over && inMatch == 0 {
			srv.EndSpectators(now)
			s := matchSummary(cfg.Model.Name, host, srv, played, ids, now.Sub(start), failed.err)
			if cfg.Status != nil {
				s.Print(cfg.Status)
			}
			if cfg.Ended != nil {
				cfg.Ended(s)
			}
			log.Info("serve: match over, the next waits for its players", "match", matches, "duration", now.Sub(start).Round(time.Millisecond), "failed", failed.err)
			failed = failure{}
			cfg.Setup.Now = now
			next, err := cfg.Sides.NewHost(cfg.Setup)
			if err != nil {
				return true, err
			}
			if err := srv.Replace(next); err != nil {
				return true, err
			}
			if cfg.Refusals != nil {
				cfg.Refusals.watch(next)
			}
			closeHost(host, log)
			host, start, matches = next, now, matches+1
			clear(played)
			clear(ids)
		}
		// The meters sample every frame: sampled only when a report is
		// due, the first report of a match read all zeros.
		hostMeter.sample(now, netmodel.Traffic{}, srv.Cost())
		for slot := range slots {
			if srv.Joined(slot) {
				meters[slot].sample(now, srv.Traffic(slot), udpdrive.Cost{})
			} else {
				meters[slot] = meter{} // the slot's next client starts afresh
			}
		}
		logNow := cfg.Report > 0 && now.Sub(lastLog) >= cfg.Report
		if cfg.Viewer == nil && !logNow {
			return false, nil
		}
		figs = append(host.Figures(now, figs[:0]), viewer.Figure{Name: "server cpu", Value: hostMeter.cpu, Unit: "ms"})
		nHost := len(figs)
		for slot := range slots {
			if srv.Joined(slot) {
				figs = meters[slot].figures(figs, playerPrefix(slot), false)
			}
		}
		if cfg.Viewer != nil {
			views = hostViews(cfg.Model, host.Views(views[:0]))
			cfg.Viewer.Publish(viewer.Frame{Views: views, Figures: figs})
		}
		if logNow {
			logServeReport(ctx, log, figs[:nHost], meters, srv, ids, inMatch, cfg.Verbose)
			lastLog = now
		}
		return false, nil
	}, side)
	cutOff := false
	for slot := range slots {
		cutOff = cutOff || srv.Joined(slot)
	}
	if err == nil && cutOff {
		// ctx ended with players in the match: they are told why, and the
		// summary says it (their bye counts as match_failed).
		srv.EndMatch(time.Now(), StoppedReason)
		if failed.err == nil {
			failed.err = errors.New(StoppedReason)
		}
	}
	closeHost(host, log)
	if matches > 1 && !slices.Contains(played, true) {
		return Summary{}, err // the match nobody joined: its predecessors printed theirs
	}
	return matchSummary(cfg.Model.Name, host, srv, played, ids, time.Since(start), failed.err), err
}

// logServeReport logs the report of one period: one line of the host's
// figures and the range of the players' rates, then a line per player at
// level debug (info if verbose).
func logServeReport(ctx context.Context, log *slog.Logger, hostFigs []viewer.Figure, meters []meter, srv *udpdrive.Server, ids []uint64, players int, verbose bool) {
	var up, down spread
	for slot := range meters {
		if srv.Joined(slot) {
			up.add(meters[slot].up)
			down.add(meters[slot].down)
		}
	}
	attrs := append(figureAttrs(hostFigs), slog.Int("players", players))
	if players > 0 {
		attrs = append(attrs, slog.String("up_per_player", up.text("kbps")), slog.String("down_per_player", down.text("kbps")))
	}
	log.Info("serve", attrs...)
	level := slog.LevelDebug
	if verbose {
		level = slog.LevelInfo
	}
	if !log.Enabled(ctx, level) {
		return
	}
	for slot := range meters {
		if srv.Joined(slot) {
			m := &meters[slot]
			log.Log(ctx, level, "serve: player", "player", slot+1, "client_id", ids[slot],
				"up", Round(m.up)+" kbps", "down", Round(m.down)+" kbps")
		}
	}
}

// closeHost ends what a host keeps open for its match (a replay it
// records: Setup.Record).
func closeHost(host Host, log *slog.Logger) {
	if c, ok := host.(io.Closer); ok {
		if err := c.Close(); err != nil {
			log.Error("serve: the match's recording failed", "err", err)
		}
	}
}

// failure is the error that ended the current match, if any.
type failure struct {
	err   error
	at    time.Time
	ended bool // its players were sent away
}

// survivor steps the server and turns a model's failure into the end of
// its match instead of the end of the process.
type survivor struct {
	srv    *udpdrive.Server
	log    *slog.Logger
	failed *failure
}

func (s *survivor) Step(now time.Time) error {
	err := s.srv.Step(now)
	if err == nil || !errors.Is(err, udpdrive.ErrUpdate) {
		return err
	}
	if s.failed.err == nil {
		s.log.Error("serve: the match failed; its players are told, then the next match begins", "err", err)
		*s.failed = failure{err: err, at: now}
	}
	return nil
}

// matchSummary is the summary of one match of d: the host's lines and the
// traffic of every slot that played in it.
func matchSummary(model string, host Host, srv *udpdrive.Server, played []bool, ids []uint64, d time.Duration, failed error) Summary {
	lines := withAgreement(host, time.Now(), host.Summary(time.Now(), nil))
	if failed != nil {
		lines = append(lines, Line{"failed", failed.Error()})
	}
	lines = refusalLines(lines, srv.Refusals())
	s := Summary{Command: "serve", Model: model, Duration: d,
		Sections: []Section{{Name: "server", Lines: dropLines(append(lines, costLine(srv.Cost())), srv)}}}
	for slot, p := range played {
		if p {
			s.Sections = append(s.Sections, Section{Name: fmt.Sprintf("player %d (client id %d)", slot+1, ids[slot]), Lines: trafficLines(nil, srv.Traffic(slot), d)})
		}
	}
	return s
}
