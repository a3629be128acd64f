// Package golden checks per-step checksum sequences against files recorded
// on linux/amd64, and reruns such a check in the same package's test binary
// built for arm64 (under qemu-aarch64-static) and for amd64 with
// GOAMD64=v3, where the compiler may use fused multiply-add: the proof that
// a simulation is bit-identical across architectures (DESIGN.md §2).
package golden

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Check compares sums, one checksum per step, with the file at path. With
// update it rewrites the file instead.
func Check(t testing.TB, path string, sums []uint64, update bool) {
	t.Helper()
	if update {
		var b strings.Builder
		b.WriteString("# checksums of a scripted run, one per step: tick checksum\n")
		for i, s := range sums {
			fmt.Fprintf(&b, "%d %016x\n", i+1, s)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%v (rerun the test with -update to record it)", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	i := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		var tick int
		var want uint64
		if _, err := fmt.Sscanf(line, "%d %x", &tick, &want); err != nil || tick != i+1 {
			t.Fatalf("%s: bad line %q", path, line)
		}
		if i >= len(sums) || sums[i] != want {
			t.Fatalf("%s/%s: tick %d checksum %016x, golden %016x", runtime.GOARCH, os.Getenv("GOAMD64"), tick, sums[min(i, len(sums)-1)], want)
		}
		i++
	}
	if i != len(sums) {
		t.Fatalf("%s holds %d ticks, the run has %d", path, i, len(sums))
	}
	t.Logf("%d ticks match the golden checksums, last %016x", i, sums[i-1])
}

// CrossArch builds the test binary of the package in the working directory
// for arm64 and for amd64 with GOAMD64=v3, runs the test named test in each
// (arm64 under qemu-aarch64-static), and fails unless it passes in both.
// A missing qemu is a failure with the package to install, never a skip.
func CrossArch(t *testing.T, test string) {
	dir := t.TempDir()
	for _, target := range []struct {
		name, goarch, goamd64, qemu string
	}{
		{"arm64", "arm64", "", "qemu-aarch64-static"},
		{"amd64-v3", "amd64", "v3", ""},
	} {
		bin := filepath.Join(dir, target.name+".test")
		build := exec.Command("go", "test", "-c", "-o", bin, ".")
		build.Env = append(os.Environ(), "GOARCH="+target.goarch, "CGO_ENABLED=0")
		if target.goamd64 != "" {
			build.Env = append(build.Env, "GOAMD64="+target.goamd64)
		}
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("%s: go test -c: %v\n%s", target.name, err, out)
		}
		args := []string{"-test.run", "^" + test + "$", "-test.count", "1", "-test.v"}
		run := exec.Command(bin, args...)
		if target.qemu != "" && target.goarch != runtime.GOARCH {
			qemu, err := exec.LookPath(target.qemu)
			if err != nil {
				t.Fatalf("%s: %s not found: install qemu-user-static (apt-get install -y qemu-user-static)", target.name, target.qemu)
			}
			run = exec.Command(qemu, append([]string{bin}, args...)...)
		}
		out, err := run.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: "+test) {
			t.Fatalf("%s: %s failed: %v\n%s", target.name, test, err, out)
		}
		t.Logf("%s: %s", target.name, lineContaining(string(out), "ticks match"))
	}
}

func lineContaining(out, s string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, s) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}
