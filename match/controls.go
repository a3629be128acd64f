package match

import "github.com/netphys/netphys/viewer"

// WatchControls are the page's controls line when its keys drive nobody
// (play --bot, demo --script, the server's page), rather than keys that
// would do nothing.
var WatchControls = []viewer.Control{{Does: "nobody plays from this page"}, {Keys: []string{"wheel"}, Does: "zoom"}}

// Keys are the keys held in the viewer's pages and their mouse, as the
// runtime hands them to a player that is not a bot (PlayerSetup.Keys):
// game-neutral, for the game to map onto its own input. With AutoPlay,
// once no key has been held (nor, with Mouse, the mouse moved) for that
// many ticks, At says the game's bot should play, from its start, until a
// key is pressed: the demo's first sight then moves, as the state demo's
// --autoplay does.
type Keys struct {
	Viewer   *viewer.Server
	AutoPlay int // ticks; 0: never
	// Mouse says the game reads the pointer (statesync's VR hand), so
	// moving the mouse is play too; otherwise only keys are.
	Mouse bool

	seen     bool           // a tick was asked for
	lastHeld int            // the newest tick with a key held or the mouse moved, or the first tick asked for
	pointer  viewer.Pointer // the mouse as At last saw it
}

// KeyState is what drives a player at one tick: the keys held in the
// pages or, once they have been idle for Keys.AutoPlay ticks, the game's
// bot.
type KeyState struct {
	// Held are the keys held in the pages now (viewer.KeyLeft, ...).
	Held viewer.Input
	// Auto says nobody has played for AutoPlay ticks: the game's bot
	// plays its tick Since (0 on the first tick of the autoplay) instead
	// of Held.
	Auto  bool
	Since int
}

// At returns what drives the player at tick t. Ticks are asked for in
// order.
func (k *Keys) At(t int) KeyState {
	in := k.Viewer.Input()
	moved := false
	if ptr, ok := k.Viewer.Pointer(); k.Mouse && ok && ptr != k.pointer {
		k.pointer, moved = ptr, true
	}
	if !k.seen || moved || in != 0 {
		k.seen, k.lastHeld = true, t
	}
	if k.AutoPlay <= 0 || t-k.lastHeld < k.AutoPlay {
		return KeyState{Held: in}
	}
	return KeyState{Held: in, Auto: true, Since: t - k.lastHeld - k.AutoPlay}
}

// Pointer returns the pages' mouse (viewer.Server.Pointer), for the games
// whose players point (statesync's VR hand), and whether there is one.
func (k *Keys) Pointer() (viewer.Pointer, bool) { return k.Viewer.Pointer() }
