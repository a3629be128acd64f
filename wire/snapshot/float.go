package snapshot

import (
	"fmt"

	"github.com/netphys/netphys/vecmath"
	"github.com/netphys/netphys/wire"
)

// Stages 1–4 send every cube in full, with no baseline. Per cube:
//
//	stage 1: position 3×32      | orientation 4×32     | velocity 3×32 | interacting 1 = 321 bits
//	stage 2: position 3×32      | smallest three 2+3×9 | velocity 3×32 | interacting 1 = 222 bits
//	stage 3: position 18+14+18  | smallest three 29    | interacting 1 | velocity 3×32 = 176 bits
//	stage 4: position 18+14+18  | smallest three 29    | interacting 1                 = 80 bits
//
// (Stage 3 is stage 4's cube followed by the velocity.)

func serializeVec32(s wire.Stream, v *vecmath.Vec3) error {
	c := [3]float32{float32(v.X), float32(v.Y), float32(v.Z)}
	for i := range c {
		if err := wire.SerializeFloat32(s, &c[i]); err != nil {
			return err
		}
	}
	*v = vecmath.Vec3{X: float64(c[0]), Y: float64(c[1]), Z: float64(c[2])}
	return nil
}

// serializeFloats codes stages 1 and 2.
func (c Codec) serializeFloats(s wire.Stream, snap *Snapshot) error {
	for i := range snap.Cubes {
		cube := snap.Cubes[i]
		if err := serializeVec32(s, &cube.Position); err != nil {
			return fmt.Errorf("snapshot: cube %d: %w", i, err)
		}
		if c.Stage == Uncompressed {
			q := [4]float32{float32(cube.Rotation.X), float32(cube.Rotation.Y),
				float32(cube.Rotation.Z), float32(cube.Rotation.W)}
			for j := range q {
				if err := wire.SerializeFloat32(s, &q[j]); err != nil {
					return fmt.Errorf("snapshot: cube %d: %w", i, err)
				}
			}
			cube.Rotation = vecmath.Quat{X: float64(q[0]), Y: float64(q[1]), Z: float64(q[2]), W: float64(q[3])}
		} else if err := wire.SerializeQuat(s, &cube.Rotation, c.Config.OrientationBits); err != nil {
			return fmt.Errorf("snapshot: cube %d: %w", i, err)
		}
		if err := serializeVec32(s, &cube.LinearVelocity); err != nil {
			return fmt.Errorf("snapshot: cube %d: %w", i, err)
		}
		if err := wire.SerializeBool(s, &cube.Interacting); err != nil {
			return err
		}
		if s.Mode() == wire.Reading {
			snap.Cubes[i] = cube
		}
	}
	return nil
}

// quantizeFloats returns what stages 1 and 2 decode for cube.
func (c Codec) quantizeFloats(cube Cube) (Cube, error) {
	out := Cube{Position: f32Vec(cube.Position), LinearVelocity: f32Vec(cube.LinearVelocity), Interacting: cube.Interacting}
	if c.Stage == Uncompressed {
		q := cube.Rotation
		out.Rotation = vecmath.Quat{X: float64(float32(q.X)), Y: float64(float32(q.Y)),
			Z: float64(float32(q.Z)), W: float64(float32(q.W))}
		return out, nil
	}
	var err error
	out.Rotation, err = wire.QuantizeQuatValue(cube.Rotation, c.Config.OrientationBits)
	return out, err
}

// serializeQuantized codes stages 3 and 4.
func (c Codec) serializeQuantized(s wire.Stream, snap *Snapshot) error {
	for i := range snap.Cubes {
		var q quantizedCube
		vel := snap.Cubes[i].LinearVelocity
		if s.Mode() != wire.Reading {
			var err error
			if q, err = c.stageConfig().quantize(snap.Cubes[i]); err != nil {
				return fmt.Errorf("snapshot: cube %d: %w", i, err)
			}
		}
		if err := c.stageConfig().serializeCube(s, &q); err != nil {
			return fmt.Errorf("snapshot: cube %d: %w", i, err)
		}
		if c.Stage == QuantizedPosition {
			if err := serializeVec32(s, &vel); err != nil {
				return fmt.Errorf("snapshot: cube %d: %w", i, err)
			}
		} else {
			vel = vecmath.Vec3{}
		}
		if s.Mode() == wire.Reading {
			snap.Cubes[i] = c.stageConfig().cube(q)
			snap.Cubes[i].LinearVelocity = vel
		}
	}
	return nil
}
