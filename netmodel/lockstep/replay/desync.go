package replay

import (
	"fmt"
	"strings"

	"github.com/netphys/netphys/netmodel/lockstep"
)

// Report is what Diagnose found in two replays of one match by two
// parties. Ticks are -1 where nothing differs.
type Report struct {
	Parties [2]string
	// Ticks is the number of ticks both replays hold.
	Ticks lockstep.Tick
	// InputTick is the first tick whose recorded inputs differ, for
	// player InputPlayer: InputA against InputB (as %+v prints them).
	InputTick      lockstep.Tick
	InputPlayer    int
	InputA, InputB string
	// SumTick is the first tick whose recorded checksums differ.
	SumTick lockstep.Tick
	// SimTick is the first tick after which the two re-simulations (each
	// party's inputs on its game) differ, and SimDiff the first object
	// and field that differ then (nil when the game is no Inspector, or
	// when only state it does not show differs).
	SimTick lockstep.Tick
	SimDiff *Difference
	// Simulated is how many ticks were re-simulated.
	Simulated lockstep.Tick
	// Own[i] is the first tick whose checksum recorded by party i differs
	// from the re-simulation of its own inputs: that party's run did not
	// do what its inputs say (another build, another machine's floating
	// point, memory corruption, a bug outside the inputs).
	Own [2]lockstep.Tick
	// OwnState[i] compares party i's recorded state (its first one that
	// differs from the re-simulation of its inputs) with the re-simulation.
	OwnState [2]StateDiff
	// States compares the states both parties recorded of the same tick:
	// the first such tick whose states differ.
	States StateDiff
}

// StateDiff is a difference between two states of one tick: the first
// object and field in order, the field that differs the most, and the
// number of objects that differ.
type StateDiff struct {
	Tick    lockstep.Tick // -1: none
	Diff    *Difference
	Largest *Difference
	Objects int
}

func stateDiff(t lockstep.Tick, a, b *State) (StateDiff, bool) {
	first, largest, n := CompareAll(a, b)
	return StateDiff{Tick: t, Diff: first, Largest: largest, Objects: n}, first != nil
}

func (s StateDiff) String() string {
	if s.Objects <= 1 || *s.Largest == *s.Diff {
		return s.Diff.String()
	}
	return fmt.Sprintf("%d objects differ; first %s; most %s", s.Objects, s.Diff, s.Largest)
}

// Diagnose compares two replays of one match, recorded by two parties:
// their inputs, their checksums, and their games re-simulated in
// lockstep tick by tick from their own inputs (newGame(0) for a,
// newGame(1) for b, each in the starting state; the same game for both
// unless a test plants a bug in one), stopping at the first tick where
// the re-simulations differ or one disagrees with its own recording (or
// after it, at the last tick a party kept the state of).
// With an Inspector it names the first object and field that differ, and
// compares the states the parties kept.
func Diagnose[I comparable](a, b *Replay[I], newGame func(party int) (lockstep.Game[I], error)) (*Report, error) {
	if err := a.Header.Compatible(&b.Header); err != nil {
		return nil, err
	}
	r := &Report{
		Parties:   [2]string{a.Header.Party, b.Header.Party},
		Ticks:     min(a.Ticks(), b.Ticks()),
		InputTick: -1, SumTick: -1, SimTick: -1,
		Own:      [2]lockstep.Tick{-1, -1},
		OwnState: [2]StateDiff{{Tick: -1}, {Tick: -1}},
		States:   StateDiff{Tick: -1},
	}
	reps := [2]*Replay[I]{a, b}
	for t := lockstep.Tick(0); t < r.Ticks && r.InputTick < 0; t++ {
		ia, ib := a.At(t), b.At(t)
		for p := range ia {
			if ia[p] != ib[p] {
				r.InputTick, r.InputPlayer = t, p
				r.InputA, r.InputB = fmt.Sprintf("%+v", ia[p]), fmt.Sprintf("%+v", ib[p])
				break
			}
		}
	}
	for t := lockstep.Tick(0); t < r.Ticks; t++ {
		sa, oka := a.Sum(t)
		sb, okb := b.Sum(t)
		if oka && okb && sa != sb {
			r.SumTick = t
			break
		}
	}
	r.States = compareKept(a.States, b.States)

	var games [2]lockstep.Game[I]
	var ins [2]Inspector
	for i := range games {
		g, err := newGame(i)
		if err != nil {
			return nil, err
		}
		games[i] = g
		ins[i], _ = g.(Inspector)
	}
	lastKept := lockstep.Tick(-1)
	for _, rep := range reps {
		for _, st := range rep.States {
			lastKept = max(lastKept, st.Tick)
		}
	}
	var sa, sb State
	for t := lockstep.Tick(0); t < r.Ticks; t++ {
		var sums [2]uint64
		for i, g := range games {
			g.Step(reps[i].At(t))
			sums[i] = g.Checksum()
			if want, ok := reps[i].Sum(t); ok && uint32(sums[i]) != want && r.Own[i] < 0 {
				r.Own[i] = t
			}
			if ins[i] != nil && r.OwnState[i].Tick < 0 {
				for k := range reps[i].States {
					if st := &reps[i].States[k]; st.Tick == t {
						Capture(ins[i], t, "", &sa)
						if d, ok := stateDiff(t, st, &sa); ok {
							r.OwnState[i] = d
						}
					}
				}
			}
		}
		r.Simulated = t + 1
		if sums[0] != sums[1] && r.SimTick < 0 {
			r.SimTick = t
			if ins[0] != nil && ins[1] != nil {
				Capture(ins[0], t, "", &sa)
				Capture(ins[1], t, "", &sb)
				r.SimDiff = Compare(&sa, &sb)
			}
		}
		// Stop at the first finding, or once past the last kept state
		// when there is one to compare with the re-simulation.
		if (r.SimTick >= 0 || r.Own[0] >= 0 || r.Own[1] >= 0) && t >= lastKept {
			break
		}
	}
	return r, nil
}

// compareKept returns the first tick both lists hold a state of whose
// states differ.
func compareKept(a, b []State) StateDiff {
	best := StateDiff{Tick: -1}
	for i := range a {
		for j := range b {
			if a[i].Tick != b[j].Tick || (best.Tick >= 0 && a[i].Tick >= best.Tick) {
				continue
			}
			if d, ok := stateDiff(a[i].Tick, &a[i], &b[j]); ok {
				best = d
			}
		}
	}
	return best
}

// First returns the verdict: the earliest tick at which anything
// differs, and the object and field named: the first to differ in the
// re-simulation, else the one that differs the most in a kept state (at
// the later tick at).
func (r *Report) First() (tick lockstep.Tick, diff *Difference, at lockstep.Tick) {
	tick, at = -1, -1
	for _, t := range []lockstep.Tick{r.SimTick, r.SumTick, r.Own[0], r.Own[1], r.OwnState[0].Tick, r.OwnState[1].Tick, r.States.Tick} {
		if t >= 0 && (tick < 0 || t < tick) {
			tick = t
		}
	}
	if r.SimDiff != nil {
		return tick, r.SimDiff, r.SimTick
	}
	// A state kept ticks after the divergence: the first objects in
	// order may only have been nudged through contacts since; the field
	// that differs the most is where it started.
	for _, s := range []StateDiff{r.OwnState[0], r.OwnState[1], r.States} {
		if s.Largest != nil {
			return tick, s.Largest, s.Tick
		}
	}
	return tick, nil, -1
}

// String prints the report, one finding a line.
func (r *Report) String() string {
	var b strings.Builder
	name := func(i int) string {
		if r.Parties[i] == "" {
			return string(rune('A' + i))
		}
		return fmt.Sprintf("%c (%s)", 'A'+i, r.Parties[i])
	}
	fmt.Fprintf(&b, "%s against %s: %d ticks in both\n", name(0), name(1), r.Ticks)
	if r.InputTick < 0 {
		fmt.Fprintf(&b, "inputs: identical\n")
	} else {
		fmt.Fprintf(&b, "inputs: first differ at tick %d, player %d: A %s, B %s\n", r.InputTick, r.InputPlayer, r.InputA, r.InputB)
	}
	if r.SumTick < 0 {
		fmt.Fprintf(&b, "recorded checksums: agree wherever both hold one\n")
	} else {
		fmt.Fprintf(&b, "recorded checksums: first differ at tick %d\n", r.SumTick)
	}
	switch {
	case r.SimTick < 0:
		fmt.Fprintf(&b, "re-simulation: A and B agree over the %d ticks re-simulated\n", r.Simulated)
	case r.SimDiff != nil:
		fmt.Fprintf(&b, "re-simulation: A and B first differ after tick %d: %s\n", r.SimTick, r.SimDiff)
	default:
		fmt.Fprintf(&b, "re-simulation: A and B first differ after tick %d, in state the game's inspector does not show\n", r.SimTick)
	}
	for i := range 2 {
		if r.Own[i] >= 0 {
			fmt.Fprintf(&b, "%s: its checksum of tick %d differs from the re-simulation of its own inputs: its run diverged there (another build or machine, or state outside the inputs)\n", name(i), r.Own[i])
		}
		if s := r.OwnState[i]; s.Tick >= 0 {
			fmt.Fprintf(&b, "%s: its kept state of tick %d differs from the re-simulation: %s\n", name(i), s.Tick, s)
		}
	}
	if r.States.Tick >= 0 {
		fmt.Fprintf(&b, "kept states: A's and B's of tick %d differ: %s\n", r.States.Tick, r.States)
	}
	if t, d, at := r.First(); t < 0 {
		fmt.Fprintf(&b, "verdict: no difference found\n")
	} else if d != nil && at == t {
		fmt.Fprintf(&b, "verdict: first difference after tick %d: %s\n", t, d)
	} else if d != nil {
		fmt.Fprintf(&b, "verdict: first difference after tick %d; by tick %d the most at %s\n", t, at, d)
	} else {
		fmt.Fprintf(&b, "verdict: first difference at tick %d\n", t)
	}
	return b.String()
}
