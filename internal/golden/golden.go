// Package golden checks per-step checksum sequences against files recorded
// on linux/amd64, and reruns such a check (or any golden test) in the same
// package's test binary built for arm64 and for amd64 with GOAMD64=v3,
// where the compiler may use fused multiply-add, under qemu-user where the
// machine cannot run them: the proof that a simulation is bit-identical
// across architectures.
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
// for the other targets among arm64, amd64 with GOAMD64=v3 and the plain
// amd64 build that records the goldens (all but the running binary's own
// GOARCH, which the calling run checks), runs the test named test in each,
// and fails unless it passes in all. A binary the machine cannot run
// natively runs under qemu-user: qemu-aarch64-static for arm64,
// qemu-x86_64-static for amd64 (with -cpu max for v3 on a CPU without
// it). The host is what the go command reports (GOHOSTARCH), not the
// running binary's GOARCH, which is arm64 when the tests themselves run
// under `go test -exec qemu-aarch64-static`. A missing qemu is a failure
// with the package to install, never a skip.
func CrossArch(t *testing.T, test string) {
	host, err := exec.Command("go", "env", "GOHOSTARCH").Output()
	if err != nil {
		t.Fatalf("go env GOHOSTARCH: %v", err)
	}
	dir := t.TempDir()
	for _, target := range crossTargets(runtime.GOARCH) {
		bin := filepath.Join(dir, target.name+".test")
		build := exec.Command("go", "test", "-c", "-o", bin, ".")
		build.Env = append(os.Environ(), "GOARCH="+target.goarch, "GOAMD64="+target.goamd64, "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("%s: go test -c: %v\n%s", target.name, err, out)
		}
		args := []string{"-test.run", "^" + test + "$", "-test.count", "1", "-test.v"}
		argv, err := runner(target, strings.TrimSpace(string(host)), hostHasV3())
		if err != nil {
			t.Fatalf("%s: %v", target.name, err)
		}
		argv = append(argv, bin)
		run := exec.Command(argv[0], append(argv[1:], args...)...)
		out, err := run.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: "+test) {
			t.Fatalf("%s: %s failed: %v\n%s", target.name, test, err, out)
		}
		how := "native"
		if len(argv) > 1 {
			how = strings.Join(argv[:len(argv)-1], " ")
		}
		t.Logf("%s (%s): %s", target.name, how, lineContaining(string(out), "match"))
	}
}

// crossTarget is a build to check: GOARCH and, for amd64, GOAMD64.
type crossTarget struct{ name, goarch, goamd64 string }

// crossTargets lists the builds to check from a test binary built for
// goarch: arm64, amd64-v3 and the recording amd64 build, less the running
// binary's own architecture, which the calling test run checks itself.
func crossTargets(goarch string) []crossTarget {
	var ts []crossTarget
	if goarch != "arm64" {
		ts = append(ts, crossTarget{"arm64", "arm64", ""})
	}
	ts = append(ts, crossTarget{"amd64-v3", "amd64", "v3"})
	if goarch != "amd64" {
		ts = append(ts, crossTarget{"amd64", "amd64", "v1"})
	}
	return ts
}

// runner returns the command prefix that runs a binary of target on a
// machine of architecture host: nothing when the machine runs it natively,
// else the qemu-user emulator, looked up in PATH.
func runner(target crossTarget, host string, hostV3 bool) ([]string, error) {
	if target.goarch == host && (target.goamd64 != "v3" || hostV3) {
		return nil, nil
	}
	var qemu string
	var args []string
	switch target.goarch {
	case "arm64":
		qemu = "qemu-aarch64-static"
	case "amd64":
		qemu = "qemu-x86_64-static"
		if target.goamd64 == "v3" {
			args = []string{"-cpu", "max"}
		}
	default:
		return nil, fmt.Errorf("no emulator known for GOARCH=%s", target.goarch)
	}
	path, err := exec.LookPath(qemu)
	if err != nil {
		return nil, fmt.Errorf("%s not found: install qemu-user-static (apt-get install -y qemu-user-static)", qemu)
	}
	return append([]string{path}, args...), nil
}

func lineContaining(out, s string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, s) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}
