// Package match is the runtime every network model runs on: the
// `netphys serve --model M`, `netphys play --model M` and
// `netphys demo --model M` commands, for any model registered here.
//
//	serve: Serve  — the model's server side (Host) on a netcode server
//	play:  Play   — one player (Player) on a netcode client, its own viewer page
//	demo:  Demo   — the Host and N Players in one process, through the
//	                network simulator's proxy, every world side by side
//
// All three put the model's cores on real UDP with package
// netmodel/udpdrive, each side on a goroutine of its own at 60 Hz
// (udpdrive.Run); between frames, on that goroutine, they read the side's
// views and figures for the viewer and the log, and at the end its
// summary. The demo's players post theirs to a board that the server's
// goroutine publishes.
//
// # Adding a model
//
// A model is one file of this package (lockstep.go is the example) that
// registers a Model from init:
//
//	func init() {
//		Register(&Model{Name: "interp", Summary: "snapshot interpolation", Flags: interpFlags})
//	}
//
//	func interpFlags(fs *flag.FlagSet) func() (Sides, error) {
//		pps := fs.Int("pps", 30, "interp: snapshots per second")   // names unique across models
//		return func() (Sides, error) {                              // runs once the flags are parsed
//			return Sides{
//				NewHost:   func(s Setup) (Host, error) { ... },        // s.Players, s.Layout, s.Now
//				NewPlayer: func(s PlayerSetup) (Player, error) { ... }, // + s.Slot, s.Controls, s.Ticks
//			}, nil
//		}
//	}
//
// Host is netmodel.Server and Player is netmodel.Client, each with what
// the runtime shows of it (Side): its worlds as viewer views, its live
// figures and its summary lines; a Player also says when the match it was
// asked to play (--ticks) is over. A player whose worlds must agree bit
// for bit across players implements Checksummer as well, and the demo
// compares them. The runtime adds the traffic of every player (kbps each
// way, datagrams, datagrams the receiving model refused, cpu per frame),
// so a model only reports what is its own. Controls give a player's input
// by tick: the viewer's keys (Keys) or a bot (Bot, each player's scripted
// minute of the cube world); PlayerSetup.Bot tells a model with scripted
// behaviours of its own to play those instead.
//
// Nothing else changes: the commands list the model in --model, declare its
// flags, and run it. Every model's flags are declared on all three
// commands, so a name may be used by one model only;
// TestEveryCommandHasHelp in cmd/netphys fails on a clash.
package match
