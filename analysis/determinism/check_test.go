package determinism_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/netphys/netphys/analysis/determinism"
)

// TestCheckFMA compiles the example game for arm64 and amd64-v3: the
// product in Step fuses, as the source rule says; the one in Energy fuses
// across statements, which only the compiled code shows; Blend's is
// escaped.
func TestCheckFMA(t *testing.T) {
	found, err := determinism.CheckFMA(context.Background(), "testdata/game", "./sim")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range found {
		if f.Rule != determinism.RuleFMA {
			t.Errorf("%v: rule %q, want %q", f, f.Rule, determinism.RuleFMA)
		}
		target := "arm64"
		if strings.Contains(f.Message, "GOAMD64=v3") {
			target = "amd64-v3"
		}
		got[fmt.Sprintf("%s:%d %s", filepath.Base(f.Pos.Filename), f.Pos.Line, target)] = true
	}
	// amd64-v3 does not fuse Step's product: the compiler folds the load
	// of b.X into the addition first. A later compiler may; either is
	// right.
	want := []string{"sim.go:16 arm64", "sim.go:26 arm64", "sim.go:26 amd64-v3"}
	for _, w := range want {
		if !got[w] {
			t.Errorf("no fused multiply-add reported at %s; found:\n%v", w, found)
		}
	}
	for _, f := range found {
		if f.Pos.Line != 16 && f.Pos.Line != 26 {
			t.Errorf("unexpected finding (Blend's line 31 is escaped): %v", f)
		}
	}
}

// TestCheckErrors: code that does not build, and patterns that match
// nothing, are errors that say so, never an empty (passing) result.
func TestCheckErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := determinism.Check(ctx, "testdata/game", "./nosuchdir"); err == nil {
		t.Error("Check of a missing package: no error")
	}
	if _, err := determinism.Check(ctx, "testdata/game", "./broken"); err == nil || !strings.Contains(err.Error(), "must build") {
		t.Errorf("Check of a package that does not build: error %v, want one saying it must build", err)
	}
	if _, err := determinism.CheckFMA(ctx, "testdata/game", "./nosuchdir"); err == nil {
		t.Error("CheckFMA of a missing package: no error")
	}
}
