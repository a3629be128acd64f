package cpuclock

import (
	"runtime"
	"testing"
)

func TestNowAdvancesWithWork(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := Now()
	x := 1.0
	for i := 0; i < 20_000_000 && Now() == start; i++ {
		x = x*1.0000001 + 1e-9
	}
	if Now() <= start || x == 0 {
		t.Fatalf("%s did not advance: %v", Name, Now()-start)
	}
}
