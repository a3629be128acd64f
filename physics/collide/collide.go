package collide

import "github.com/netphys/netphys/vecmath"

// Collide fills m with the contact between shape a placed at xa and shape b
// placed at xb. Points whose separation is below margin (a speculative
// distance in m, e.g. 0.02) are kept, so that resting contacts persist and
// the solver can stop approaching bodies before they touch. m.Normal points
// from a to b; m.Count is 0 when the shapes are farther apart than margin,
// and for two planes. Any order of kinds works: the pair is swapped
// internally and the normal flipped back. Collide never allocates.
//
// Transforms must hold unit quaternions. For finite inputs the manifold is
// finite and its normal is a unit vector.
func Collide(a *Shape, xa vecmath.Transform, b *Shape, xb vecmath.Transform, margin float64, m *Manifold) {
	pa, pb := NewPose(xa), NewPose(xb)
	CollidePoses(a, &pa, b, &pb, margin, m)
}

// Pose is a placement with its rotation matrix. A caller that collides one
// body with many (a physics world, once per step) computes the matrix once
// per body instead of twice per pair, some 15 % of a box–box test.
type Pose struct {
	vecmath.Transform
	Mat vecmath.Mat3 // vecmath.QuatToMat3(Rot), exactly: other values give other results
}

// NewPose returns xf with its rotation matrix.
func NewPose(xf vecmath.Transform) Pose {
	return Pose{Transform: xf, Mat: vecmath.QuatToMat3(xf.Rot)}
}

// CollidePoses is Collide with the shapes placed at poses pa and pb, whose
// matrices the caller computed with NewPose or vecmath.QuatToMat3. The
// result is Collide's, bit for bit.
func CollidePoses(a *Shape, pa *Pose, b *Shape, pb *Pose, margin float64, m *Manifold) {
	*m = Manifold{}
	if a.Kind > b.Kind {
		collideOrdered(b, pb, a, pa, margin, m)
		m.Normal = m.Normal.Neg()
		return
	}
	collideOrdered(a, pa, b, pb, margin, m)
}

// collideOrdered handles the pairs with a.Kind <= b.Kind.
func collideOrdered(a *Shape, pa *Pose, b *Shape, pb *Pose, margin float64, m *Manifold) {
	xa, xb := &pa.Transform, &pb.Transform
	switch a.Kind {
	case Sphere:
		switch b.Kind {
		case Sphere:
			collideSpheres(xa.Pos, a.radius(), xb.Pos, b.radius(), margin, m)
		case Box:
			collideSphereBox(a, xa.Pos, b, pb, margin, m)
		case Capsule:
			c0, c1 := capsuleEnds(b, *xb)
			q := closestOnSegment(xa.Pos, c0, c1)
			collideSpheres(xa.Pos, a.radius(), q, b.radius(), margin, m)
		case Plane:
			collideSpherePlane(xa.Pos, a.radius(), *xb, margin, 0, m)
		}
	case Box:
		switch b.Kind {
		case Box:
			collideBoxes(a, pa, b, pb, margin, m)
		case Capsule:
			collideBoxCapsule(a, pa, b, *xb, margin, m)
		case Plane:
			collideBoxPlane(a, pa, *xb, margin, m)
		}
	case Capsule:
		switch b.Kind {
		case Capsule:
			collideCapsules(a, *xa, b, *xb, margin, m)
		case Plane:
			c0, c1 := capsuleEnds(a, *xa)
			r := a.radius()
			collideSpherePlane(c0, r, *xb, margin, 0, m)
			if c1 != c0 { // a capsule without a core is a ball: one point
				collideSpherePlane(c1, r, *xb, margin, 1, m)
			}
		}
	}
}

// addPoint appends a contact point to m if there is room.
func (m *Manifold) addPoint(p vecmath.Vec3, separation float64, id uint32) {
	if m.Count < MaxManifoldPoints {
		m.Points[m.Count] = ContactPoint{Point: p, Separation: separation, ID: id}
		m.Count++
	}
}

// midpoint returns the point halfway between a point on surface A and the
// matching point on surface B, given the point pa on A, the unit normal n
// from A to B and the separation between the surfaces along n.
func midpoint(pa, n vecmath.Vec3, separation float64) vecmath.Vec3 {
	return pa.MulAdd(0.5*separation, n)
}
