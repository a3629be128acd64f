package snapshot

import (
	"fmt"

	"github.com/netphys/netphys/wire"
)

// Stages 5–8 code each cube against its baseline. With a nil baseline they
// fall back to stage 4 (every cube in full). Layouts:
//
//	stage 5: per cube: changed (1) [cube, 80 bits]
//	stage 6: count of changed cubes (BitsRequired(N)), then per changed cube:
//	         relative index (wire.IndexClasses) | cube, 80 bits
//	stage 7: as 6, the cube being
//	         position: 3 × relative (posClasses) |
//	         orientation: same largest (1) [3 × relative (rotClasses) | smallest three, 29] |
//	         interacting (1)
//	stage 8: as 7 with position changed (1) and orientation changed (1)
//	         bits in front of the position and orientation parts
//
// A decoded cube that equals its baseline where the encoding says it
// changed is ErrInvalid: an encoder never produces it, and rejecting it
// keeps every decodable packet canonical (it re-encodes to itself).

// posClasses code a position index delta: |d| ≤ 4 in 1+3 bits, ≤ 20 in
// 2+5, ≤ 148 in 3+8 (0.29 m), ≤ 1172 in 4+11 (2.3 m), else 4 + 20 bits.
var posClasses = wire.Classes{3, 5, 8, 11}

// rotClasses code a smallest-three component delta: ±2 steps in 1+2 bits,
// ±10 in 2+4, ±74 in 3+7, else 3 + 10 bits.
var rotClasses = wire.Classes{2, 4, 7}

func (c Codec) serializeDelta(s wire.Stream, snap *Snapshot, ref Reference) error {
	cfg := c.stageConfig()
	target, err := cfg.codingTarget(s, snap)
	if err != nil {
		return err
	}
	defer releaseTarget(s, target)
	cur := *target
	base, err := cfg.referenceInts(ref.Base)
	if err != nil {
		return fmt.Errorf("snapshot: baseline: %w", err)
	}
	switch {
	case base == nil:
		for i := range cur {
			if err := cfg.serializeCube(s, &cur[i]); err != nil {
				return fmt.Errorf("snapshot: cube %d: %w", i, err)
			}
		}
	case c.Stage == ChangedBits:
		err = c.serializeChangedBits(s, cur, base)
	default:
		err = c.serializeChangedIndices(s, cur, base)
	}
	if err != nil {
		return err
	}
	if s.Mode() == wire.Reading {
		for i := range cur {
			snap.Cubes[i] = cfg.cube(cur[i])
		}
		snap.remember(cfg, cur)
	}
	return nil
}

func (c Codec) serializeChangedBits(s wire.Stream, cur, base []quantizedCube) error {
	for i := range cur {
		changed := cur[i] != base[i]
		if err := wire.SerializeBool(s, &changed); err != nil {
			return err
		}
		if !changed {
			cur[i] = base[i]
			continue
		}
		if err := c.stageConfig().serializeCube(s, &cur[i]); err != nil {
			return fmt.Errorf("snapshot: cube %d: %w", i, err)
		}
		if cur[i] == base[i] {
			return fmt.Errorf("snapshot: cube %d sent unchanged: %w", i, wire.ErrInvalid)
		}
	}
	return nil
}

func (c Codec) serializeChangedIndices(s wire.Stream, cur, base []quantizedCube) error {
	n := len(cur)
	count := 0
	for i := range cur {
		if cur[i] != base[i] {
			count++
		}
	}
	if err := wire.SerializeInt(s, &count, 0, n); err != nil {
		return err
	}
	prev := -1
	for range count {
		i := prev + 1
		if s.Mode() != wire.Reading {
			for cur[i] == base[i] {
				i++
			}
		} else if i >= n {
			return fmt.Errorf("snapshot: %d changed cubes do not fit after cube %d: %w", count, prev, wire.ErrInvalid)
		}
		if err := wire.SerializeIndexDelta(s, prev, &i, n-1); err != nil {
			return fmt.Errorf("snapshot: index after %d: %w", prev, err)
		}
		for j := prev + 1; j < i; j++ {
			cur[j] = base[j]
		}
		if err := c.serializeChangedCube(s, &cur[i], base[i]); err != nil {
			return fmt.Errorf("snapshot: cube %d: %w", i, err)
		}
		if cur[i] == base[i] {
			return fmt.Errorf("snapshot: cube %d sent unchanged: %w", i, wire.ErrInvalid)
		}
		prev = i
	}
	for j := prev + 1; j < n; j++ {
		cur[j] = base[j]
	}
	return nil
}

// serializeChangedCube codes one changed cube of stages 6–8.
func (c Codec) serializeChangedCube(s wire.Stream, q *quantizedCube, base quantizedCube) error {
	cfg := c.stageConfig()
	if c.Stage == ChangedIndices {
		return cfg.serializeCube(s, q)
	}
	posChanged, rotChanged := true, true
	if c.Stage == SeparateChanges {
		posChanged, rotChanged = q.pos != base.pos, q.rot != base.rot
		if err := wire.SerializeBool(s, &posChanged); err != nil {
			return err
		}
		if err := wire.SerializeBool(s, &rotChanged); err != nil {
			return err
		}
	}
	if posChanged {
		if err := cfg.serializeRelativePosition(s, &q.pos, base.pos); err != nil {
			return err
		}
		if c.Stage == SeparateChanges && q.pos == base.pos {
			return fmt.Errorf("snapshot: position sent unchanged: %w", wire.ErrInvalid)
		}
	} else {
		q.pos = base.pos
	}
	if rotChanged {
		if err := cfg.serializeRelativeRotation(s, &q.rot, base.rot); err != nil {
			return err
		}
		if c.Stage == SeparateChanges && q.rot == base.rot {
			return fmt.Errorf("snapshot: orientation sent unchanged: %w", wire.ErrInvalid)
		}
	} else {
		q.rot = base.rot
	}
	return wire.SerializeBool(s, &q.interacting)
}

func (cfg Config) serializeRelativePosition(s wire.Stream, pos *[3]int64, base [3]int64) error {
	top := cfg.maxIndex()
	for i := range pos {
		if err := wire.SerializeRelative(s, &pos[i], base[i], 0, top[i], posClasses); err != nil {
			return fmt.Errorf("snapshot: position axis %d: %w", i, err)
		}
	}
	return nil
}

// serializeRelativeRotation codes the smallest three relative to the
// baseline's when the largest component is the same, in full otherwise.
func (cfg Config) serializeRelativeRotation(s wire.Stream, rot *wire.SmallestThree, base wire.SmallestThree) error {
	same := rot.Largest == base.Largest
	if err := wire.SerializeBool(s, &same); err != nil {
		return err
	}
	if !same {
		if err := wire.SerializeSmallestThree(s, rot, cfg.OrientationBits); err != nil {
			return err
		}
		if rot.Largest == base.Largest {
			return fmt.Errorf("snapshot: full orientation with the baseline's largest component: %w", wire.ErrInvalid)
		}
		return nil
	}
	rot.Largest = base.Largest
	k := int64(1)<<(cfg.OrientationBits-1) - 1
	for i := range rot.C {
		v := int64(rot.C[i])
		if err := wire.SerializeRelative(s, &v, int64(base.C[i]), -k, k, rotClasses); err != nil {
			return err
		}
		rot.C[i] = int32(v)
	}
	if !rot.Valid(cfg.OrientationBits) {
		return fmt.Errorf("snapshot: orientation %+v: %w", *rot, wire.ErrInvalid)
	}
	return nil
}
