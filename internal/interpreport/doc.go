// Package interpreport runs the snapshot-interpolation report (`netphys
// bench interp`): the cube world plays the busy part of its scripted
// minute once, and snapshot-interpolation servers (package netmodel/interp)
// at several snapshot rates and network conditions send it to clients that
// draw it with each interpolation, in virtual time over the network
// simulator. Each client's view is compared every frame with the server's
// real state at the time it shows: History, ViewErrors and ErrorStats are
// that measure, which the interp demo (match) shares.
package interpreport
