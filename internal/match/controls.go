package match

import (
	"github.com/netphys/netphys/scene"
	"github.com/netphys/netphys/viewer"
)

// Keys are the keys held in the viewer's pages.
type Keys struct{ Viewer *viewer.Server }

// Input returns the keys held now, whatever the tick.
func (k Keys) Input(int) scene.Input { return scene.InputFromBits(uint8(k.Viewer.Input())) }

// Bot plays a script, starting Offset ticks into it and looping, so that
// bots in one match do not move in step.
type Bot struct {
	Script scene.Script
	Offset int
}

// Input returns the script's input for tick t.
func (b Bot) Input(t int) scene.Input {
	n := b.Script.Len()
	if n == 0 {
		return scene.Input{}
	}
	return b.Script.At((t + b.Offset) % n)
}

// BotFor returns the bot of the player in slot: the scripted minute of
// play, each slot a quarter of it further on.
func BotFor(slot int) Bot {
	return Bot{Script: scene.PlayMinute, Offset: slot * scene.PlayMinute.Len() / 4}
}
