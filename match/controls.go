package match

import (
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/viewer"
)

// WatchControls are the page's controls line when its keys drive nobody
// (play --bot, demo --script, the server's page), rather than keys that
// would do nothing.
var WatchControls = []viewer.Control{{Does: "nobody plays from this page"}, {Keys: []string{"wheel"}, Does: "zoom"}}

// Keys are the keys held in the viewer's pages, and their mouse. With
// AutoPlay, once no key has been held (nor, with Mouse, the mouse moved)
// for that many ticks the player's scripted minute (Bot) drives it, from
// its start, until a key is pressed: the demo's first sight then moves, as
// the state demo's --autoplay does.
type Keys struct {
	Viewer   *viewer.Server
	AutoPlay int // ticks; 0: never
	// Mouse says the model reads the pointer (statesync's VR hand), so
	// moving the mouse is play too; in the others it does nothing.
	Mouse bool

	seen     bool           // a tick was asked for
	lastHeld int            // the newest tick with a key held or the mouse moved, or the first tick asked for
	pointer  viewer.Pointer // the mouse as Input last saw it
	bot      Bot
}

// Input returns the keys held now, or the script once they and the mouse
// have been idle for AutoPlay ticks. Ticks are asked for in order.
func (k *Keys) Input(p, t int) scene.Input {
	in := scene.InputFromBits(uint8(k.Viewer.Input()))
	moved := false
	if ptr, ok := k.Viewer.Pointer(); k.Mouse && ok && ptr != k.pointer {
		k.pointer, moved = ptr, true
	}
	if !k.seen || moved || in != (scene.Input{}) {
		k.seen, k.lastHeld = true, t
	}
	if k.AutoPlay <= 0 || t-k.lastHeld < k.AutoPlay {
		return in
	}
	return k.bot.Input(p, t-k.lastHeld-k.AutoPlay)
}

// Bot plays player p's scripted minute (scene.PlayerScript: the minute of
// play turned to start from the player's side of the world), over and
// over.
type Bot struct {
	scripts [scene.MaxPlayers]scene.Script // built on first use
}

// Input returns the scripted input of player p for tick t.
func (b *Bot) Input(p, t int) scene.Input {
	if p < 0 || p >= len(b.scripts) {
		return scene.Input{}
	}
	if b.scripts[p] == nil {
		b.scripts[p] = scene.PlayerScript(p)
	}
	sc := b.scripts[p]
	return sc.At(t % sc.Len())
}

// Pointer returns the pages' mouse (viewer.Server.Pointer) for the models
// whose players point (statesync's VR hand), and whether there is one.
func (k *Keys) Pointer() (scene.Pointer, bool) {
	p, ok := k.Viewer.Pointer()
	if !ok {
		return scene.Pointer{}, false
	}
	return scene.Pointer{
		From: vecmath.V3(p.From[0], p.From[1], p.From[2]),
		Dir:  vecmath.V3(p.Dir[0], p.Dir[1], p.Dir[2]),
		Lift: p.Lift, Grip: p.Grip,
	}, true
}
