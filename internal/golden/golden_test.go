package golden

import (
	"slices"
	"strings"
	"testing"
)

// TestRunner checks the choice of emulator for every host and target: a
// binary the machine cannot run is never executed directly.
func TestRunner(t *testing.T) {
	arm64 := crossTarget{"arm64", "arm64", ""}
	v1 := crossTarget{"amd64", "amd64", "v1"}
	v3 := crossTarget{"amd64-v3", "amd64", "v3"}
	for _, c := range []struct {
		target crossTarget
		host   string
		hostV3 bool
		want   string // emulator base name and flags, "" for native
	}{
		{arm64, "amd64", true, "qemu-aarch64-static"},
		{arm64, "arm64", false, ""},
		{v3, "amd64", true, ""},
		{v3, "amd64", false, "qemu-x86_64-static -cpu max"},
		{v3, "arm64", false, "qemu-x86_64-static -cpu max"},
		{v1, "arm64", false, "qemu-x86_64-static"},
		{v1, "amd64", false, ""},
	} {
		argv, err := runner(c.target, c.host, c.hostV3)
		if err != nil {
			t.Logf("%s on %s: %v (qemu not installed here)", c.target.name, c.host, err)
			if c.want == "" {
				t.Errorf("%s on %s should run natively: %v", c.target.name, c.host, err)
			}
			continue
		}
		if len(argv) > 0 {
			argv[0] = argv[0][strings.LastIndex(argv[0], "/")+1:]
		}
		if got := strings.Join(argv, " "); got != c.want {
			t.Errorf("%s on %s: runner %q, want %q", c.target.name, c.host, got, c.want)
		}
	}
}

// TestCrossTargets checks that the recording build is checked from a
// non-amd64 test binary, and only then.
func TestCrossTargets(t *testing.T) {
	names := func(ts []crossTarget) []string {
		var out []string
		for _, c := range ts {
			out = append(out, c.name)
		}
		return out
	}
	if got := names(crossTargets("amd64")); !slices.Equal(got, []string{"arm64", "amd64-v3"}) {
		t.Errorf("from amd64: %v", got)
	}
	if got := names(crossTargets("arm64")); !slices.Equal(got, []string{"amd64-v3", "amd64"}) {
		t.Errorf("from arm64: %v", got)
	}
}
