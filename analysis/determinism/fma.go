package determinism

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"go/token"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// FMATargets are the builds CheckFMA compiles: the two common targets whose
// compilers fuse a product into a sum (plain amd64 has no FMA instruction
// before GOAMD64=v3).
var FMATargets = [][]string{{"GOARCH=arm64"}, {"GOARCH=amd64", "GOAMD64=v3"}}

// fmaInstruction matches a fused multiply-add in the compiler's assembly
// listing (-gcflags=-S), with the source line it came from: arm64's
// FMADDD/FMSUBD/FNMADDD/FNMSUBD (and the S forms) and amd64's VFMADD231SD
// and kin.
var fmaInstruction = regexp.MustCompile(`\((\S+\.go):(\d+)\)\s+((?:FMADD|FMSUB|FNMADD|FNMSUB|VFMADD|VFMSUB|VFNMADD|VFNMSUB)\w*)`)

// CheckFMA compiles the packages that patterns name (in the module at dir;
// "" is the current directory) for each of FMATargets, with the assembly
// listing of those packages' functions, and returns one finding per
// source line and target where the compiler emitted a fused multiply-add.
// It catches what the source rule cannot: a product fused with a sum in
// another statement or across an inlined call; the line named is the one
// the instruction came from, which may be in an inlined function of
// another package. A line carrying the escape comment (or below one) is
// not reported. It needs the go command on PATH; the builds are cached,
// so a second run takes about as long as go list.
func CheckFMA(ctx context.Context, dir string, patterns ...string) ([]Finding, error) {
	var found []Finding
	for _, env := range FMATargets {
		args := append([]string{"build", "-o", os.DevNull, "-gcflags=-S"}, patterns...)
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		target := strings.Join(env, " ")
		if err != nil {
			return nil, fmt.Errorf("determinism: %s go build %s: %w\n%s", target, strings.Join(patterns, " "), err, lastLines(out, 20))
		}
		if !bytes.Contains(out, []byte("TEXT")) {
			return nil, fmt.Errorf("determinism: %s go build printed no assembly for %s, so nothing was checked: do the patterns name packages with code?", target, strings.Join(patterns, " "))
		}
		seen := map[string]bool{}
		escapes := escapeLines{}
		for _, m := range fmaInstruction.FindAllSubmatch(out, -1) {
			file, lineText, instr := string(m[1]), string(m[2]), string(m[3])
			line, _ := strconv.Atoi(lineText)
			key := file + ":" + lineText
			if seen[key] || escapes.escaped(file, line) {
				continue
			}
			seen[key] = true
			found = append(found, Finding{
				Pos:  token.Position{Filename: file, Line: line},
				Rule: RuleFMA,
				Message: fmt.Sprintf("compiles to a fused multiply-add (%s) for %s: round the product that meets a sum "+
					"with float64(...), here or in the function inlined here (x/2 is a product too: x*0.5)", instr, target),
			})
		}
	}
	sortFindings(found)
	return found, nil
}

// escapeLines reads the escape comments of the files the assembly names.
type escapeLines map[string]map[int]bool

func (e escapeLines) escaped(file string, line int) bool {
	lines, ok := e[file]
	if !ok {
		lines = map[int]bool{}
		if src, err := os.ReadFile(file); err == nil { // a file that cannot be read has no escapes
			sc := bufio.NewScanner(bytes.NewReader(src))
			sc.Buffer(nil, len(src)+1)
			for n := 1; sc.Scan(); n++ {
				if i := strings.Index(sc.Text(), EscapeComment); i >= 0 && isEscape(sc.Text()[i:]) {
					lines[n] = true
					if strings.TrimSpace(sc.Text()[:i]) == "" { // alone on its line: it covers the next
						lines[n+1] = true
					}
				}
			}
		}
		e[file] = lines
	}
	return lines[line]
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
