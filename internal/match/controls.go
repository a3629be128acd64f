package match

import (
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/viewer"
)

// Keys are the keys held in the viewer's pages. With AutoPlay, once no
// key has been held for that many ticks the player's scripted minute
// (Bot) drives it, from its start, until a key is pressed: the demo's
// first sight then moves, as the state demo's --autoplay does.
type Keys struct {
	Viewer   *viewer.Server
	AutoPlay int // ticks; 0: never

	seen     bool // a tick was asked for
	lastHeld int  // the newest tick with a key held, or the first tick asked for
	bot      Bot
}

// Input returns the keys held now, or the script once they have been
// idle for AutoPlay ticks. Ticks are asked for in order.
func (k *Keys) Input(p, t int) scene.Input {
	in := scene.InputFromBits(uint8(k.Viewer.Input()))
	if !k.seen || in != (scene.Input{}) {
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
