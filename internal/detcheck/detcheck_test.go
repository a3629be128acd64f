package detcheck

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/netphys/netphys/analysis/determinism"
)

// moduleRoot is the module's directory, from this package's.
const moduleRoot = "../.."

// TestSimulationSourceRules runs the determinism analyzer over every
// simulation package.
func TestSimulationSourceRules(t *testing.T) {
	touchSources(t)
	found, err := determinism.Check(context.Background(), moduleRoot, SimulationPackages...)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Error(f)
	}
}

// TestNoFusedMultiplyAdd compiles the simulation packages for the targets
// that fuse (arm64, and amd64 with GOAMD64=v3) and fails on any fused
// multiply-add instruction in their code.
func TestNoFusedMultiplyAdd(t *testing.T) {
	touchSources(t)
	found, err := determinism.CheckFMA(context.Background(), moduleRoot, SimulationPackages...)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Error(f)
	}
}

// touchSources opens every Go file of the simulation packages. The
// compiled-code check reads them through go subprocesses, which the test
// cache cannot see; opening them here makes any change to them invalidate
// a cached result.
func touchSources(t *testing.T) {
	t.Helper()
	for _, p := range SimulationPackages {
		root := filepath.Join(moduleRoot, strings.TrimSuffix(p, "/..."))
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			_, err = os.ReadFile(path)
			return err
		})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
}
