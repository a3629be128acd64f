// Package compression runs the snapshot-compression report of the
// snapshot-interpolation article on netphys: the cube world plays a
// scripted minute at 60 Hz, a snapshot of every cube is sent every tick over
// the in-memory network simulator, and each stage of the article's table
// (package wire/snapshot) is measured on the same run, with the same losses:
// bandwidth including UDP/IPv4 headers, bytes per snapshot, and the largest
// position and orientation error of what the receiver decoded against the
// real state (positions outside the codec's bounds are clamped to them, and
// counted apart). Every decoded snapshot must equal, bit for bit, the one
// the sender quantized, or the run fails with ErrMismatch.
//
// Each stage runs the snapshot-interpolation model's encoder and receiver
// (package netmodel/interp: acked baselines, shared history, 4-byte
// framing), each end with a reliable.io endpoint: packet acks tell the
// sender which snapshots arrived, the delta stages code against the newest
// acknowledged one, and stage 9 also extrapolates from an older
// acknowledged one, the candidate that codes the packet smallest. The
// receiver decodes only against snapshots it actually received.
//
// HeldOutConfig runs the same table on a second script and network seed
// that no codec decision was tuned on.
package compression
