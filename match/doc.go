// Package match is the runtime that plays a game on a network model for
// people: on real UDP with netcode's connect tokens, a server process and
// one process per player, or every side in one process through the
// network simulator, with a viewer page per player, live figures, logs
// and summaries. It knows no game: a game registers its Model, and the
// runtime hosts it. netphys's own (the cube world on lockstep and
// interp, the arena on predict, the VR table on statesync, in
// internal/cubegames) are registered through the same API, and so is the
// outside game examples/pong.
//
//	Serve — the model's server side (Host) on a netcode server, match after match
//	Start — Serve on a goroutine of its own, with the connect tokens of its players
//	Play  — one player (Player) on a netcode client, until its Ticks or Duration, then Linger
//	Demo  — the Host and N Players in one process, through the network
//	        simulator's proxy, every world side by side
//
// `netphys serve --model M`, `netphys play --model M` and `netphys demo
// --model M` are these, for every registered model, with the flags
// DeclareFlags declares. Each puts the model's cores on real UDP with
// package netmodel/udpdrive, each side on a goroutine of its own at 60 Hz
// (udpdrive.Run); between frames, on that goroutine, they read the side's
// views and figures for the viewer and the log, and at the end its
// Summary, which they return. They end cleanly when their context ends
// (the error is then nil), and log to Setup.Logger only: the runtime's
// lines, the driver's and netcode's.
//
// # Plugging in your own game
//
// A game's model is a Model registered from the game's own package, whose
// Flags declares the game's own flags and returns how to build its Sides
// (examples/pong/hosted.go is a complete one):
//
//	func init() {
//		match.Register(&match.Model{Name: "pong", Summary: "two-player pong on rollback lockstep",
//			Flags: pongFlags, MaxPlayers: 2, Keys: "the up and down arrows move your paddle"})
//	}
//
//	func pongFlags(fs *flag.FlagSet) func() (match.Sides, error) {
//		pure := fs.Bool("pong-pure", false, "pong: pure lockstep")   // names unique across models
//		return func() (match.Sides, error) {                          // runs once the flags are parsed
//			return match.Sides{
//				NewHost:   func(s match.Setup) (match.Host, error) { ... },         // s.Players, s.Now, s.Logger
//				NewPlayer: func(s match.PlayerSetup) (match.Player, error) { ... }, // + s.Slot, s.Bot, s.Keys, s.Ticks
//				Config:    "rollback", // what of its flags server and players must agree on
//				World:     "",         // the world they must agree on, such as the cube world's "tower20"
//			}, nil
//		}
//	}
//
// Host is netmodel.Server and Player is netmodel.Client, each with what
// the runtime shows of it (Side): its worlds as viewer views, its live
// figures and its summary lines; a Player also says when the match it was
// asked to play (Ticks) is over. A player whose worlds must agree bit for
// bit across players implements Checksummer as well, and the demo
// compares them; a side that can say how far it agreed with the authority
// implements Agreer. The runtime adds the traffic of every player (kbps
// each way, datagrams, datagrams the receiving model refused, cpu per
// frame), so a model only reports what is its own.
//
// A player is a bot (PlayerSetup.Bot: play --bot, the demo's other
// players), which plays the game's own scripted behaviour, or has the
// viewer page's Keys: Keys.At gives the keys held at a tick (viewer.Input)
// or says that the page's autoplay runs the bot, Keys.Pointer the mouse;
// the game maps them onto its own input type.
//
// Server and players compare Agreement (the model, Sides.Config,
// Sides.World and the players) before any state or input flows: a player
// set up for another match is refused with a message naming both.
//
// A program hosts and plays with the registered model as the commands do
// (examples/pong's RunHosted):
//
//	srv, err := match.Start(ctx, match.ServeConfig{Model: m, Sides: sides, Setup: setup})
//	tok, err := srv.Token(1) // a connect token for client id 1
//	s, err := match.Play(ctx, match.PlayConfig{Model: m, Sides: sides, Setup: setup, Token: tok, Bot: true, Ticks: 600})
//	sum, _ := s.Value("player 1", "checksum")
//	_, err = srv.Stop()
//
// Every model's flags are declared on all three commands, so a name may
// be used by one model only (a game's setting shared by its models, such
// as the cube world's --layout, is declared once: look it up on the
// FlagSet first); TestEveryCommandHasHelp in cmd/netphys fails on a
// clash.
package match
