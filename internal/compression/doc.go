// Package compression runs the snapshot-compression report of the
// snapshot-interpolation article on netphys: the cube world plays a
// scripted minute at 60 Hz, a snapshot of every cube is sent every tick over
// the in-memory network simulator, and each stage of the article's table
// (package wire/snapshot) is measured on the same run, with the same losses:
// bandwidth including UDP/IPv4 headers, bytes per snapshot, and the largest
// position and orientation error of what the receiver decoded.
//
// Each stage runs its own sender and receiver, each with a reliable.io
// endpoint: packet acks tell the sender which snapshots arrived, and the
// delta stages code against the newest acknowledged one; stage 9 also
// extrapolates from an older acknowledged one, the candidate that codes
// the packet smallest. A 2-byte header names both by their ages; the tick
// is the packet's reliable.io sequence number. The receiver decodes only
// against snapshots it actually received.
package compression
