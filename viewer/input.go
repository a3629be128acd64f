package viewer

import "strings"

// Input is the set of keys held in the pages, one bit per key. The bit
// order is scene.Input's (Left is bit 0 ... Z is bit 5), so the demo maps it
// with scene.InputFromBits(uint8(in)).
type Input uint8

// The keys of the cube world: the arrows push the player, space lifts it
// and blasts cubes away, z pulls cubes in (katamari).
const (
	KeyLeft Input = 1 << iota
	KeyRight
	KeyUp
	KeyDown
	KeySpace
	KeyZ
)

// keyNames are the names of the keys in input messages, by bit.
var keyNames = [...]string{"left", "right", "up", "down", "space", "z"}

// Has reports whether every key of k is held.
func (in Input) Has(k Input) bool { return in&k == k }

// String lists the held keys as in an input message, such as "left+space",
// or "none".
func (in Input) String() string {
	var names []string
	for i, name := range keyNames {
		if in&(1<<i) != 0 {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "+")
}

func keyByName(name string) Input {
	for i, n := range keyNames {
		if n == name {
			return 1 << i
		}
	}
	return 0
}
