package main

import (
	"bytes"
	"context"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/netphys/netphys/internal/detcheck"
)

// vetGameFindings are what netphys vet must report in the outside game of
// testdata/vetgame: a*b + c, a map range, math.Sin and time.Now in its
// step, each on its line.
var vetGameFindings = []*regexp.Regexp{
	regexp.MustCompile(`step\.go:19:\d+: range over a map.*\(maprange\)`),
	regexp.MustCompile(`step\.go:20:\d+: floating-point product meets \+.*float64\(a\*b\) \+ c.*\(fma\)`),
	regexp.MustCompile(`step\.go:22:\d+: math\.Sin may give different bits on another architecture.*\(math\)`),
	regexp.MustCompile(`step\.go:24:\d+: time\.Now uses the wall clock.*\(clock\)`),
}

func TestVetFlagsOutsideGame(t *testing.T) {
	var out bytes.Buffer
	err := run(context.Background(), []string{"vet", "--fma", "--dir", "testdata/vetgame", "./step"}, &out)
	if err == nil || !strings.Contains(err.Error(), "determinism findings") {
		t.Fatalf("netphys vet: error %v, want one counting the findings\n%s", err, out.String())
	}
	for _, re := range vetGameFindings {
		if !re.MatchString(out.String()) {
			t.Errorf("netphys vet did not report %s:\n%s", re, out.String())
		}
	}
	// --fma: the product fuses in the arm64 build.
	if !regexp.MustCompile(`step\.go:20: compiles to a fused multiply-add \(FMADDD\) for GOARCH=arm64`).MatchString(out.String()) {
		t.Errorf("netphys vet --fma did not report the arm64 FMADDD of step.go:20:\n%s", out.String())
	}
	if strings.Contains(out.String(), "server.go") {
		t.Errorf("netphys vet reported a package it was not given:\n%s", out.String())
	}
}

// TestVetPassesSimulationPackages: the project's own simulation packages
// (those internal/detcheck holds to the rules) pass netphys vet.
func TestVetPassesSimulationPackages(t *testing.T) {
	var out bytes.Buffer
	args := append([]string{"vet", "--dir", "../.."}, detcheck.SimulationPackages...)
	if err := run(context.Background(), args, &out); err != nil {
		t.Fatalf("netphys vet %s: %v\n%s", strings.Join(detcheck.SimulationPackages, " "), err, out.String())
	}
	if !strings.Contains(out.String(), "no determinism findings") {
		t.Errorf("netphys vet printed no verdict:\n%s", out.String())
	}
}

// TestVetTool runs the program as go vet's tool on the outside game.
func TestVetTool(t *testing.T) {
	heavyTest(t)
	bin := buildProgram(t)
	cmd := exec.Command("go", "vet", "-vettool="+bin, "./step")
	cmd.Dir = "testdata/vetgame"
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("go vet -vettool=netphys passed the outside game:\n%s", out)
	}
	for _, want := range []string{"step.go:19:", "range over a map", "step.go:20:", "floating-point product meets +",
		"step.go:22:", "math.Sin may give", "step.go:24:", "time.Now uses the wall clock"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("go vet -vettool=netphys: no %q in its output:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "server.go") {
		t.Errorf("go vet -vettool=netphys reported a package it was not given:\n%s", out)
	}
}

func TestIsVetTool(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"-V=full"}, true},
		{[]string{"-flags"}, true},
		{[]string{"/tmp/go-build1/b001/vet.cfg"}, true},
		{[]string{"-json", "/tmp/go-build1/b001/vet.cfg"}, true},
		{nil, false},
		{[]string{"vet", "./..."}, false},
		{[]string{"--help"}, false},
		{[]string{"vet", "x.cfg"}, false},
	} {
		if got := isVetTool(c.args); got != c.want {
			t.Errorf("isVetTool(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}

// TestVetErrors: a package that does not build, or a pattern that matches
// nothing, is an error that says so, never a pass.
func TestVetErrors(t *testing.T) {
	for _, c := range []struct {
		pattern, want string
	}{
		{"./broken", "must build"},
		{"./nosuchpackage", "nosuchpackage"},
	} {
		var out bytes.Buffer
		err := run(context.Background(), []string{"vet", "--dir", "testdata/vetgame", c.pattern}, &out)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("netphys vet %s: error %v, want one mentioning %q", c.pattern, err, c.want)
		}
		if strings.Contains(out.String(), "no determinism findings") {
			t.Errorf("netphys vet %s printed a pass:\n%s", c.pattern, out.String())
		}
	}
}
