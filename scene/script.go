package scene

// A Script is a scripted input sequence: each segment holds one input for a
// number of ticks. Tests, benchmarks and the headless demo play the same
// script, so their runs are reproducible and comparable.
type Script []Segment

// Segment is one input held for Ticks fixed steps.
type Segment struct {
	Ticks int
	Input Input
}

// Len returns the script's length in ticks.
func (sc Script) Len() int {
	n := 0
	for _, seg := range sc {
		n += seg.Ticks
	}
	return n
}

// At returns the input of tick t; past the end the script is idle.
func (sc Script) At(t int) Input {
	for _, seg := range sc {
		if t < seg.Ticks {
			return seg.Input
		}
		t -= seg.Ticks
	}
	return Input{}
}

// PlayMinute is a minute of play at 60 Hz over the Cubes900 layout: for
// 45 seconds the player ploughs through the grid, gathers katamari balls,
// blasts them apart and rolls on; then everything is left to come to rest.
var PlayMinute = Script{
	{Ticks: 240, Input: Input{Up: true}},
	{Ticks: 240, Input: Input{Up: true, Z: true}},
	{Ticks: 180, Input: Input{Left: true, Z: true}},
	{Ticks: 120, Input: Input{Down: true, Z: true}},
	{Ticks: 90, Input: Input{Space: true}},
	{Ticks: 90},
	{Ticks: 240, Input: Input{Right: true}},
	{Ticks: 240, Input: Input{Up: true, Z: true}},
	{Ticks: 90, Input: Input{Space: true, Z: true}},
	{Ticks: 210, Input: Input{Down: true, Left: true}},
	{Ticks: 240, Input: Input{Right: true, Z: true}},
	{Ticks: 90, Input: Input{Space: true}},
	{Ticks: 330, Input: Input{Up: true}},
	{Ticks: 300, Input: Input{Down: true, Z: true}},
	{Ticks: 900},
}
