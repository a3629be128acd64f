package statesync

import "github.com/netphys/netphys/vecmath"

// jitterBuffer plays a remote player's avatar back a fixed delay behind
// the newest sample, so that samples arriving unevenly still play at an
// even pace, interpolated to the exact instant of each step (the
// article's 100 ms buffer). Times are in the remote player's steps, with
// the render offset as a fraction.
type jitterBuffer struct {
	samples []timedAvatar // by time, oldest first, at most jitterSamples
	play    float64
	playing bool
}

type timedAvatar struct {
	t float64
	a Avatar
}

// catchUpLimit is how far behind, in steps, playback catches up rather
// than jumping.
const catchUpLimit = 60

// jitterSamples bounds the buffer: a second of samples at 60 per second
// is far more than the delay needs.
const jitterSamples = 64

func (j *jitterBuffer) reset() { j.samples, j.playing = j.samples[:0], false }

// push adds a sample, in time order; a duplicate time is ignored.
func (j *jitterBuffer) push(t float64, a Avatar) {
	k := len(j.samples)
	for k > 0 && j.samples[k-1].t > t {
		k--
	}
	if k > 0 && j.samples[k-1].t == t {
		return
	}
	if len(j.samples) == jitterSamples {
		if k == 0 {
			return
		}
		copy(j.samples, j.samples[1:k])
		j.samples[k-1] = timedAvatar{t, a}
		return
	}
	j.samples = append(j.samples, timedAvatar{})
	copy(j.samples[k+1:], j.samples[k:])
	j.samples[k] = timedAvatar{t, a}
}

// next advances playback by one step of the remote clock and returns the
// avatar at the new playback time. delay is in steps. Playback that has
// fallen behind newest - delay (samples lost in a burst arrive together
// afterwards) catches up at double speed rather than jumping, so that a
// hand never sweeps through the world faster than it moved; it jumps
// only when a second or more behind, or ahead by more than the delay (a
// clock jump). It never plays past the newest sample.
func (j *jitterBuffer) next(delay float64) (Avatar, bool) {
	n := len(j.samples)
	if n == 0 {
		return Avatar{}, false
	}
	newest := j.samples[n-1].t
	target := newest - delay
	switch {
	case !j.playing || j.play < target-catchUpLimit || j.play > target+delay:
		j.play, j.playing = target, true
	case j.play < target-1:
		j.play += 2
	default:
		j.play++
	}
	j.play = min(j.play, newest)
	// Drop what playback has passed, keeping the sample before it.
	drop := 0
	for drop+1 < n && j.samples[drop+1].t <= j.play {
		drop++
	}
	if drop > 0 {
		j.samples = append(j.samples[:0], j.samples[drop:]...)
		n -= drop
	}
	a := j.samples[0]
	if n == 1 || j.play <= a.t {
		return a.a, true
	}
	b := j.samples[1]
	return lerpAvatar(a.a, b.a, (j.play-a.t)/(b.t-a.t)), true
}

func lerpPose(a, b vecmath.Transform, t float64) vecmath.Transform {
	return vecmath.Transform{Pos: a.Pos.Lerp(b.Pos, t), Rot: a.Rot.Nlerp(b.Rot, t)}
}

// lerpAvatar interpolates the poses; what the parts hold is a's until
// the next sample is reached.
func lerpAvatar(a, b Avatar, t float64) Avatar {
	out := a
	for k := range out.Parts {
		out.Parts[k].Pose = lerpPose(a.Parts[k].Pose, b.Parts[k].Pose, t)
	}
	return out
}
