//go:build !amd64

package golden

// hostHasV3 is false off amd64: an amd64-v3 binary runs under qemu, and
// when this binary itself runs under qemu its CPU says nothing of the host.
func hostHasV3() bool { return false }
