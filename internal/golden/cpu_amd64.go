package golden

import "golang.org/x/sys/cpu"

// hostHasV3 reports whether this CPU runs GOAMD64=v3 binaries natively.
func hostHasV3() bool {
	x := cpu.X86
	return x.HasAVX && x.HasAVX2 && x.HasBMI1 && x.HasBMI2 && x.HasFMA && x.HasOSXSAVE
}
