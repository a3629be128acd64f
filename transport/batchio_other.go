//go:build !linux

package transport

// newBatcher: no batched socket calls here; one datagram per call.
func newBatcher(PacketConn) batcher { return nil }
