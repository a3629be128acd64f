package match

import (
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/viewer"
)

// Keys are the keys held in the viewer's pages.
type Keys struct{ Viewer *viewer.Server }

// Input returns the keys held now, whatever the player and tick.
func (k Keys) Input(_, _ int) scene.Input { return scene.InputFromBits(uint8(k.Viewer.Input())) }

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
