package match

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/netphys/netphys/netmodel"
	"github.com/netphys/netphys/netmodel/udpdrive"
	"github.com/netphys/netphys/transport/netcode"
	"github.com/netphys/netphys/viewer"
)

// PlayConfig sets up one player process.
type PlayConfig struct {
	Model *Model
	Sides Sides
	Setup Setup
	Token *netcode.ConnectToken
	// Client configures the connection; its zero value means
	// udpdrive.DefaultClientConfig.
	Client udpdrive.ClientConfig
	// Bot has the game's bot play (PlayerSetup.Bot) instead of the
	// viewer's keys.
	Bot bool
	// Viewer, when set, shows the player's world and figures and, without
	// Bot, supplies the keys.
	Viewer *viewer.Server
	// Ticks ends the match after this many ticks (PlayerSetup.Ticks).
	Ticks int
	// Duration ends the match this long after the player joined, if its
	// Ticks have not ended it before; 0: no limit.
	Duration time.Duration
	// Spectate watches the match instead of playing it
	// (PlayerSetup.Spectate).
	Spectate bool
	// Linger keeps the player running this long after its match is done,
	// so the inputs it owes the others still reach them. Default 2 s.
	Linger time.Duration
	// Report logs the player's figures this often; 0: never.
	Report time.Duration
}

// ErrNoControls reports a player with neither a bot nor a viewer's keys.
var ErrNoControls = errors.New("match: a player needs a viewer for its keys, or a bot")

// Play connects one player to a server with its connect token and runs it
// until its match is done (its Ticks or its Duration, then Linger), ctx
// ends, the connection ends or the model stops, and returns the player's
// summary. A ctx that ends is a clean end: the error is nil. The player
// logs to Setup.Logger only, netcode and the driver included.
func Play(ctx context.Context, cfg PlayConfig) (Summary, error) {
	log := cfg.Setup.Logger
	if log == nil {
		log = slog.Default()
		cfg.Setup.Logger = log
	}
	if !cfg.Bot && cfg.Viewer == nil {
		return Summary{}, ErrNoControls
	}
	if cfg.Linger <= 0 {
		cfg.Linger = 2 * time.Second
	}
	if cfg.Bot && cfg.Viewer != nil {
		cfg.Viewer.SetControls(WatchControls)
	}
	ccfg := cfg.Client
	if ccfg.Transport.Tick == 0 {
		ccfg = udpdrive.DefaultClientConfig()
	}
	ccfg.Logger = log
	ccfg.Agree = Agreement(cfg.Model, cfg.Sides, cfg.Setup)
	if cfg.Spectate && !cfg.Model.OwnSpectators {
		ccfg.Agree = udpdrive.Watching(ccfg.Agree)
	}
	var player Player
	c, err := udpdrive.Dial(ctx, cfg.Token, func(slot int) (netmodel.Client, error) {
		ps := PlayerSetup{Setup: cfg.Setup, Slot: slot, Ticks: cfg.Ticks, Bot: cfg.Bot, Spectate: cfg.Spectate}
		ps.Now = time.Now()
		if !cfg.Bot {
			ps.Keys = &Keys{Viewer: cfg.Viewer}
		}
		p, err := cfg.Sides.NewPlayer(ps)
		player = p
		return p, err
	}, ccfg)
	if err != nil {
		return Summary{}, &ConnectError{Err: err}
	}
	defer c.Close()
	who := fmt.Sprintf("player %d", c.Slot()+1)
	log.Info("play: joined (players are numbered in the order they join the server)", "player", c.Slot()+1, "model", cfg.Model.Name, "bot", cfg.Bot)

	start := time.Now()
	var (
		m       meter
		figs    []viewer.Figure
		views   []viewer.View
		ended   time.Time // when the match was done
		lastLog = start
	)
	err = udpdrive.Run(ctx, udpdrive.DefaultFrame, func(now time.Time) (bool, error) {
		m.sample(now, c.Traffic(), c.Cost())
		if cfg.Viewer != nil || (cfg.Report > 0 && now.Sub(lastLog) >= cfg.Report) {
			figs = player.Figures(now, m.figures(figs[:0], "", true))
		}
		if cfg.Viewer != nil {
			views = player.Views(views[:0])
			for i := range views {
				views[i].Name = viewLabel(who, views[i].Name)
			}
			cfg.Viewer.Publish(viewer.Frame{Views: views, Figures: figs})
		}
		if cfg.Report > 0 && now.Sub(lastLog) >= cfg.Report {
			log.Info("play", append([]any{slog.Int("player", c.Slot()+1)}, figureAttrs(figs)...)...)
			lastLog = now
		}
		if player.Done() || cfg.Duration > 0 && now.Sub(start) >= cfg.Duration {
			if ended.IsZero() {
				ended = now
				log.Info("play: match done, lingering", "linger", cfg.Linger)
			}
			return now.Sub(ended) >= cfg.Linger, nil
		}
		return false, nil
	}, c)
	var bye *udpdrive.RefusedError
	if cfg.Spectate && errors.As(err, &bye) && bye.Joined && bye.Reason == udpdrive.MatchOver {
		err = nil // what it watched ended as a match ends
	}
	if errors.Is(err, udpdrive.ErrDisconnected) && c.Ended() == nil {
		err = &endedError{msg: connectionEnded(c.Transport().State()), err: err}
	}
	d := time.Since(start)
	lines := withAgreement(player, time.Now(), player.Summary(time.Now(), nil))
	lines = append(trafficLines(lines, c.Traffic(), d), costLine(c.Cost()))
	lines = dropLines(lines, c)
	if err != nil {
		// The reason the match ended for this player: the model's (a
		// lockstep player dropped for its checksum), or the server's bye.
		lines = append(lines, Line{"ended", err.Error()})
	}
	s := Summary{Command: "play", Model: cfg.Model.Name, Duration: d, Sections: []Section{{Name: who, Lines: lines}}}
	return s, err
}

// ConnectError is Play's error when the player could not connect: the
// handshake failed, timed out, or the server refused the player's match.
type ConnectError struct{ Err error }

func (e *ConnectError) Error() string { return "play: " + e.Err.Error() }
func (e *ConnectError) Unwrap() error { return e.Err }

// endedError is a connection that ended without a word from the server,
// said once ("udpdrive: disconnected: disconnected" said it twice).
type endedError struct {
	msg string
	err error
}

func (e *endedError) Error() string { return e.msg }
func (e *endedError) Unwrap() error { return e.err }

// connectionEnded says how a connection ended that the server gave no
// reason for, from the state netcode left it in.
func connectionEnded(st netcode.ClientState) string {
	switch st {
	case netcode.StateTimedOut:
		return "play: the server went silent (the connection timed out): it stopped, or the network failed"
	case netcode.StateDisconnected:
		return "play: the server closed the connection without giving a reason (it stopped, or restarted)"
	}
	return fmt.Sprintf("play: the connection ended (netcode state %q) without a reason from the server", st.String())
}
