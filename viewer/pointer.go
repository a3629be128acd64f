package viewer

import (
	"fmt"
	"math"
	"strconv"
)

// Pointer is the mouse of a page, for the models whose player points at
// the world (the VR table's hand): the ray from the camera of the viewport
// under the mouse through the mouse, in the scene's frame (metres, Y up),
// how far the player raised the pointed point (right-drag), and whether
// the left button is held.
//
// The page sends a ray rather than the point it hits: the page knows its
// camera, the server knows the scene (at which height the hand is, how far
// it may reach), so each side does the part it knows, and the hand the
// server moves to where the ray crosses its height stays under the mouse.
type Pointer struct {
	From [3]float64 // the camera, m; each coordinate within ±MaxPointerCoord
	Dir  [3]float64 // unit vector from the camera through the mouse
	Lift float64    // m above the hand's usual height (negative: below), within ±MaxPointerCoord
	Grip bool       // the left button is held
}

// MaxPointerCoord bounds the coordinates of a Pointer, m: a page's camera
// never stands a kilometre away, so a larger number is a broken page.
const MaxPointerCoord = 1000

// dirTolerance is how far the length of Pointer.Dir may be from 1: a page
// rounds the unit vector it computed to a few decimals.
const dirTolerance = 0.01

// validate reports what is wrong with p, or nil.
func (p *Pointer) validate() error {
	for i, v := range [...]float64{p.From[0], p.From[1], p.From[2], p.Lift} {
		if math.IsNaN(v) || math.Abs(v) > MaxPointerCoord {
			return fmt.Errorf("%w: pointer coordinate %d is %v, want within ±%d m", ErrPageMessage, i, v, MaxPointerCoord)
		}
	}
	d := p.Dir
	l2 := float64(float64(d[0]*d[0])+float64(d[1]*d[1])) + float64(d[2]*d[2])
	if math.IsNaN(l2) || math.Abs(math.Sqrt(l2)-1) > dirTolerance {
		return fmt.Errorf("%w: pointer direction %v is not a unit vector", ErrPageMessage, d)
	}
	return nil
}

// appendPointer appends p as the "pointer" object of an input message.
// Floats are written in their shortest exact form, so that they parse back
// to the same bits.
func appendPointer(b []byte, p *Pointer) []byte {
	vec := func(b []byte, name string, v [3]float64) []byte {
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, `":[`...)
		for i, x := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendFloat(b, x, 'g', -1, 64)
		}
		return append(b, ']')
	}
	b = append(b, '{')
	b = vec(b, "from", p.From)
	b = append(b, ',')
	b = vec(b, "dir", p.Dir)
	b = append(b, `,"lift":`...)
	b = strconv.AppendFloat(b, p.Lift, 'g', -1, 64)
	b = append(b, `,"grip":`...)
	b = strconv.AppendBool(b, p.Grip)
	return append(b, '}')
}
