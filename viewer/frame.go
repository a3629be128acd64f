package viewer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"
)

// FrameSeq numbers the frames a Server publishes, from 1. A page that
// receives seq 7 after seq 4 skipped two frames because it was slow.
type FrameSeq uint32

// Cube is one box as the page draws it. Positions and half extents are in
// metres, in the scene's frame: Y up, the ground is the plane y = 0.
type Cube struct {
	ID          uint32     // stable identity across frames (the scene's cube index)
	Position    [3]float32 // centre, m
	Rotation    [4]float32 // unit quaternion x, y, z, w
	HalfExtents [3]float32 // half the edge lengths, m (0.5 for a 1 m cube)
	Interacting bool       // touched by the player or by an interacting cube: red
	Player      bool       // the cube the keyboard drives: blue
	AtRest      bool       // asleep: grey (interacting wins over at rest)
	// Owner is who has authority over the cube, for the models that
	// distribute it (statesync): 0 is nobody (the colours above), p+1
	// is player p, drawn in that player's colour. At most MaxOwner.
	Owner uint8
}

// View is one world drawn in its own viewport with its own label, such as
// "authority" or "remote".
//
// The camera of a view looks down at its player (the last Player cube)
// from behind. By default every view shares one camera, which looks along
// -z and follows the first view's player, so that views of one world
// (authority and remote) compare pixel for pixel. A view with a Facing has
// a camera of its own that follows its own player and looks along Facing:
// a player's own view of a table that players face from different sides.
type View struct {
	Name  string // label shown above the viewport; at most MaxViewName bytes of UTF-8
	Cubes []Cube
	// Facing is the direction (x, z) on the ground the view's own camera
	// looks in, a unit vector; zero: the shared camera.
	Facing [2]float32
	// Overview says the view is nobody's own, such as the server's world:
	// its camera frames the whole scene instead of following the view's
	// player. False: the view is a player's, whose cube is the view's last
	// Player cube.
	Overview bool
}

// Frame is what the demo hands to Publish at render rate: every world to
// draw, in this order in a grid of viewports, and the live figures for
// the overlay.
type Frame struct {
	Views   []View
	Figures []Figure
}

// Limits of the binary frame message. The encoder refuses frames beyond
// them and the decoder rejects them, so a reader never allocates more than
// MaxViews*MaxCubes cubes, and only after the bytes to fill them arrived.
const (
	FrameVersion = 4                       // first byte of every binary frame message; 2 added Cube.Owner, 3 View.Facing, 4 View.Overview
	MaxOwner     = 7                       // Cube.Owner fits three bits
	MaxViews     = 32                      // views in one frame: a server and 16 players with room to spare
	MaxViewName  = 64                      // bytes of a view's name
	MaxCubes     = 1 << 16                 // cubes in one view
	cubeBytes    = 48                      // encoded size of one cube
	headerBytes  = 8                       // encoded size of the frame header
	facingBytes  = 8                       // encoded size of View.Facing
	viewFixed    = 1 + 4 + facingBytes + 1 // encoded size of a view without its name and cubes
)

// View flag bits on the wire. Undefined bits must be zero.
const (
	viewOverview     = 1 << 0
	viewFlagsDefined = viewOverview
)

// facingTolerance is how far from 1 the length of a View.Facing may be.
const facingTolerance = 1e-3

// validFacing reports whether f is zero or a unit vector.
func validFacing(f [2]float32) bool {
	if f == [2]float32{} {
		return true
	}
	x, z := float64(f[0]), float64(f[1])
	return math.Abs(math.Sqrt(float64(x*x)+float64(z*z))-1) <= facingTolerance
}

// Cube flag bits on the wire. Undefined bits must be zero.
const (
	flagInteracting = 1 << 0
	flagPlayer      = 1 << 1
	flagAtRest      = 1 << 2
	ownerShift      = 3 // bits 3-5: Cube.Owner
	flagsDefined    = flagInteracting | flagPlayer | flagAtRest | MaxOwner<<ownerShift
)

// Errors of the frame encoding.
var (
	ErrFrameVersion = errors.New("viewer: unknown frame version")
	ErrTruncated    = errors.New("viewer: frame message truncated")
	ErrMalformed    = errors.New("viewer: malformed frame message")
	ErrLimit        = errors.New("viewer: frame beyond the limits")
)

// AppendFrame appends the binary message carrying the views of a frame to
// b. All integers and floats are little-endian; floats are IEEE 754 binary32
// so that the page reads them with a DataView without conversion.
//
// Header, 8 bytes:
//
//	 0       1       2       3       4       5       6       7
//	+-------+-------+-------+-------+-------+-------+-------+-------+
//	|version| views |   reserved=0  |          seq (u32)            |
//	+-------+-------+-------+-------+-------+-------+-------+-------+
//
// Then each view: its name, cube count, facing and flags, then its cubes.
//
//	+-------+---------------------------+---------------+-------+-------+-------+
//	| nlen  |  name (nlen bytes, UTF-8) |  cubes (u32)  |  fx   |  fz   | vflags|
//	+-------+---------------------------+---------------+-------+-------+-------+
//
// fx and fz are View.Facing as float32: both zero, or a unit vector.
// vflags is one byte: bit 0 View.Overview, the others zero.
//
// Each cube, 48 bytes (ten float32 and two u32):
//
//	offset  0      4      8      12     16     20     24     28
//	      +------+------+------+------+------+------+------+------+
//	      |  id  |  px  |  py  |  pz  |  qx  |  qy  |  qz  |  qw  |
//	      +------+------+------+------+------+------+------+------+
//	offset 32     36     40     44
//	      +------+------+------+------+
//	      |  hx  |  hy  |  hz  | flags|   flags: bit 0 interacting,
//	      +------+------+------+------+   bit 1 player, bit 2 at rest,
//	                                      bits 3-5 owner (0: nobody)
//
// A view takes 14 bytes and its name, then 48 bytes per cube: 43,200 for
// 900 cubes.
func AppendFrame(b []byte, seq FrameSeq, views []View) ([]byte, error) {
	if len(views) > MaxViews {
		return b, fmt.Errorf("%w: %d views, at most %d", ErrLimit, len(views), MaxViews)
	}
	for i := range views {
		v := &views[i]
		if len(v.Name) > MaxViewName || !utf8.ValidString(v.Name) {
			return b, fmt.Errorf("%w: view %d: name must be UTF-8 of at most %d bytes", ErrLimit, i, MaxViewName)
		}
		if len(v.Cubes) > MaxCubes {
			return b, fmt.Errorf("%w: view %q: %d cubes, at most %d", ErrLimit, v.Name, len(v.Cubes), MaxCubes)
		}
		if !validFacing(v.Facing) {
			return b, fmt.Errorf("%w: view %q: facing %v is neither zero nor a unit vector", ErrLimit, v.Name, v.Facing)
		}
		for j := range v.Cubes {
			if v.Cubes[j].Owner > MaxOwner {
				return b, fmt.Errorf("%w: view %q: cube %d owner %d, at most %d", ErrLimit, v.Name, j, v.Cubes[j].Owner, MaxOwner)
			}
		}
	}
	b = append(b, FrameVersion, byte(len(views)), 0, 0)
	b = binary.LittleEndian.AppendUint32(b, uint32(seq))
	for i := range views {
		v := &views[i]
		b = append(b, byte(len(v.Name)))
		b = append(b, v.Name...)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(v.Cubes)))
		for _, f := range v.Facing {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
		}
		var flags byte
		if v.Overview {
			flags |= viewOverview
		}
		b = append(b, flags)
		for j := range v.Cubes {
			b = appendCube(b, &v.Cubes[j])
		}
	}
	return b, nil
}

// FrameSize returns the length of AppendFrame's message for views that are
// within the limits.
func FrameSize(views []View) int {
	n := headerBytes
	for i := range views {
		n += viewFixed + len(views[i].Name) + cubeBytes*len(views[i].Cubes)
	}
	return n
}

func appendCube(b []byte, c *Cube) []byte {
	b = binary.LittleEndian.AppendUint32(b, c.ID)
	for _, f := range c.Position {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	for _, f := range c.Rotation {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	for _, f := range c.HalfExtents {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	var flags uint32
	if c.Interacting {
		flags |= flagInteracting
	}
	if c.Player {
		flags |= flagPlayer
	}
	if c.AtRest {
		flags |= flagAtRest
	}
	flags |= uint32(c.Owner) << ownerShift
	return binary.LittleEndian.AppendUint32(b, flags)
}

// DecodeFrame reads a message written by AppendFrame. It never panics and
// allocates cubes only for bytes that are present; anything AppendFrame
// would not write (an unknown version, a reserved bit, trailing bytes) is an
// error, so a decoded frame re-encodes to the same bytes.
func DecodeFrame(b []byte) (FrameSeq, []View, error) {
	if len(b) < headerBytes {
		return 0, nil, fmt.Errorf("%w: %d-byte header", ErrTruncated, len(b))
	}
	if b[0] != FrameVersion {
		return 0, nil, fmt.Errorf("%w: %d", ErrFrameVersion, b[0])
	}
	nviews := int(b[1])
	if nviews > MaxViews {
		return 0, nil, fmt.Errorf("%w: %d views", ErrLimit, nviews)
	}
	if b[2] != 0 || b[3] != 0 {
		return 0, nil, fmt.Errorf("%w: reserved header bytes set", ErrMalformed)
	}
	seq := FrameSeq(binary.LittleEndian.Uint32(b[4:]))
	b = b[headerBytes:]
	views := make([]View, nviews)
	for i := range views {
		var err error
		if b, err = decodeView(b, &views[i]); err != nil {
			return 0, nil, fmt.Errorf("view %d: %w", i, err)
		}
	}
	if len(b) != 0 {
		return 0, nil, fmt.Errorf("%w: %d trailing bytes", ErrMalformed, len(b))
	}
	return seq, views, nil
}

// decodeView reads one view from the front of b and returns the rest.
func decodeView(b []byte, v *View) ([]byte, error) {
	if len(b) < 1 {
		return nil, ErrTruncated
	}
	nlen := int(b[0])
	if nlen > MaxViewName {
		return nil, fmt.Errorf("%w: %d-byte name", ErrLimit, nlen)
	}
	if len(b) < nlen+viewFixed {
		return nil, ErrTruncated
	}
	name := b[1 : 1+nlen]
	if !utf8.Valid(name) {
		return nil, fmt.Errorf("%w: name is not UTF-8", ErrMalformed)
	}
	v.Name = string(name)
	b = b[1+nlen:]
	n := binary.LittleEndian.Uint32(b)
	for i := range v.Facing {
		v.Facing[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4+4*i:]))
	}
	flags := b[4+facingBytes]
	b = b[4+facingBytes+1:]
	if n > MaxCubes {
		return nil, fmt.Errorf("%w: %d cubes", ErrLimit, n)
	}
	if !validFacing(v.Facing) {
		return nil, fmt.Errorf("%w: facing %v is neither zero nor a unit vector", ErrMalformed, v.Facing)
	}
	if flags&^viewFlagsDefined != 0 {
		return nil, fmt.Errorf("%w: undefined view flags %#x", ErrMalformed, flags)
	}
	v.Overview = flags&viewOverview != 0
	if uint64(len(b)) < uint64(n)*cubeBytes {
		return nil, fmt.Errorf("%w: %d cubes announced, %d bytes left", ErrTruncated, n, len(b))
	}
	v.Cubes = make([]Cube, n)
	for i := range v.Cubes {
		if err := decodeCube(b[i*cubeBytes:(i+1)*cubeBytes], &v.Cubes[i]); err != nil {
			return nil, fmt.Errorf("cube %d: %w", i, err)
		}
	}
	return b[int(n)*cubeBytes:], nil
}

// decodeCube reads one cube from exactly cubeBytes bytes.
func decodeCube(b []byte, c *Cube) error {
	word := func(i int) uint32 { return binary.LittleEndian.Uint32(b[4*i:]) }
	c.ID = word(0)
	for i := range c.Position {
		c.Position[i] = math.Float32frombits(word(1 + i))
	}
	for i := range c.Rotation {
		c.Rotation[i] = math.Float32frombits(word(4 + i))
	}
	for i := range c.HalfExtents {
		c.HalfExtents[i] = math.Float32frombits(word(8 + i))
	}
	flags := word(11)
	if flags&^flagsDefined != 0 {
		return fmt.Errorf("%w: undefined flags %#x", ErrMalformed, flags)
	}
	c.Interacting = flags&flagInteracting != 0
	c.Player = flags&flagPlayer != 0
	c.AtRest = flags&flagAtRest != 0
	c.Owner = uint8(flags >> ownerShift & MaxOwner)
	return nil
}
