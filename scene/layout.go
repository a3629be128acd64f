package scene

import (
	"fmt"

	"github.com/netphys/netphys/vecmath"
)

// Layout names a starting arrangement of cubes.
type Layout int

const (
	// Cubes900 is the articles' world: 900 cubes resting in a 30×30 grid
	// with 2 m pitch, the player in front of them.
	Cubes900 Layout = iota
	// Tower20 is the VR sample's tower: 20 cubes stacked 20 m high.
	Tower20
	// Pyramid10 is a pyramid of cubes whose base row holds 10.
	Pyramid10
)

// Layouts lists every layout, for flags and tests.
var Layouts = []Layout{Cubes900, Tower20, Pyramid10}

func (l Layout) String() string {
	switch l {
	case Cubes900:
		return "cubes900"
	case Tower20:
		return "tower20"
	case Pyramid10:
		return "pyramid10"
	}
	return fmt.Sprintf("Layout(%d)", int(l))
}

// ParseLayout returns the layout whose String is name.
func ParseLayout(name string) (Layout, error) {
	for _, l := range Layouts {
		if l.String() == name {
			return l, nil
		}
	}
	return 0, fmt.Errorf("scene: unknown layout %q (want cubes900, tower20 or pyramid10)", name)
}

func (l Layout) build(s *Scene) error {
	size := s.cfg.CubeSize
	switch l {
	case Cubes900:
		const n, pitch = 30, 2.0
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				x := float64(float64(2*i-(n-1)) * (pitch / 2))
				z := float64(float64(2*j-(n-1)) * (pitch / 2))
				if err := s.addCube(vecmath.V3(x, float64(size/2), z), vecmath.QuatIdentity); err != nil {
					return err
				}
			}
		}
		return s.addPlayer(0, float64(n)*pitch/2+4)
	case Tower20:
		for i := 0; i < 20; i++ {
			y := float64(float64(2*i+1) * (size / 2))
			if err := s.addCube(vecmath.V3(0, y, 0), vecmath.QuatIdentity); err != nil {
				return err
			}
		}
		return s.addPlayer(0, 8)
	case Pyramid10:
		for row := 0; row < 10; row++ {
			count := 10 - row
			y := float64(float64(2*row+1) * (size / 2))
			for i := 0; i < count; i++ {
				x := float64(float64(2*i-(count-1)) * (size / 2))
				if err := s.addCube(vecmath.V3(x, y, 0), vecmath.QuatIdentity); err != nil {
					return err
				}
			}
		}
		return s.addPlayer(0, 8)
	}
	return fmt.Errorf("unknown layout %d", int(l))
}
