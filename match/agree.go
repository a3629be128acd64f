package match

// agreement compares the checksums players report for the same tick. Each
// player's reports go into a ring indexed by tick; a tick is compared
// once every player has reported it, and counted as agreeing or not.
type agreement struct {
	rings    [][agreeRing]report // per player
	compared int                 // ticks every player reported
	differ   int                 // of those, ticks whose checksums differ
	first    int                 // the first tick that differed, if differ > 0
	newest   int                 // the newest tick compared
}

// agreeRing is how many ticks back a report waits for the other players:
// 8 s at 60 Hz, more than any input delay the models allow to pass
// unnoticed in a demo.
const agreeRing = 512

type report struct {
	tick     int
	sum      uint64
	ok, done bool // ok: reported; done: compared
}

func newAgreement(players int) *agreement {
	return &agreement{rings: make([][agreeRing]report, players)}
}

// note records player p's checksum of tick and compares the tick if every
// player has now reported it.
func (a *agreement) note(p, tick int, sum uint64) {
	if tick < 0 {
		return
	}
	i := tick % agreeRing
	if r := a.rings[p][i]; r.ok && r.tick == tick {
		return // noted already: the tick can no longer change
	}
	a.rings[p][i] = report{tick: tick, sum: sum, ok: true}
	for q := range a.rings {
		if r := a.rings[q][i]; !r.ok || r.tick != tick || r.done {
			return
		}
	}
	same := true
	for q := range a.rings {
		same = same && a.rings[q][i].sum == sum
		a.rings[q][i].done = true
	}
	a.compared++
	a.newest = max(a.newest, tick)
	if !same {
		if a.differ == 0 {
			a.first = tick
		}
		a.differ++
	}
}
