package detcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// simulationRoots are the module directories whose packages run inside a
// deterministic step, with every package below them.
// netmodel/statesync quantizes every state before each step, as the network
// does; the other models' float math (render clocks, playout delays,
// smoothing) never feeds a step, and their drivers read the clock.
var simulationRoots = []string{"vecmath", "physics", "scene", "wire", "netmodel/statesync"}

// forbiddenCalls are functions whose result is not bit-identical across
// architectures or runs; vecmath has the deterministic replacements.
var forbiddenCalls = map[string]map[string]bool{
	"math": {"Sin": true, "Cos": true, "Tan": true, "Sincos": true, "Asin": true, "Acos": true,
		"Atan": true, "Atan2": true, "Exp": true, "Exp2": true, "Expm1": true, "Log": true,
		"Log2": true, "Log10": true, "Log1p": true, "Pow": true, "Cbrt": true, "Hypot": true,
		"Sinh": true, "Cosh": true, "Tanh": true, "FMA": true},
	"time":         {"Now": true, "Since": true, "Until": true},
	"math/rand":    {"Float64": true, "Intn": true, "Int": true, "Int63": true, "Uint64": true, "Perm": true, "Shuffle": true},
	"math/rand/v2": {"Float64": true, "IntN": true, "Int": true, "Uint64": true, "Perm": true, "Shuffle": true, "N": true},
}

type listedPackage struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Export     string
	Standard   bool
}

// goList returns the module's simulation packages and the export data of
// everything they import, for type checking.
func goList(t *testing.T) (sim []listedPackage, exports map[string]string) {
	t.Helper()
	cmd := exec.Command("go", "list", "-export", "-deps", "-json", "../../...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	exports = map[string]string{}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
		rel, err := filepath.Rel(root, p.Dir)
		if err != nil || p.Standard {
			continue
		}
		rel = filepath.ToSlash(rel)
		for _, r := range simulationRoots {
			if rel == r || strings.HasPrefix(rel, r+"/") {
				sim = append(sim, p)
			}
		}
	}
	if len(sim) == 0 {
		t.Fatal("no simulation packages found")
	}
	touchSources(t, root)
	return sim, exports
}

// touchSources opens every directory and Go file below the simulation
// roots. The checks read the sources through go subprocesses, which the test
// cache cannot see; opening them here makes any change to them invalidate a
// cached result.
func touchSources(t *testing.T, root string) {
	t.Helper()
	for _, r := range simulationRoots {
		err := filepath.WalkDir(filepath.Join(root, r), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			_, err = os.ReadFile(path)
			return err
		})
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

// checkPackage type-checks one package and reports every rule it breaks.
func checkPackage(p listedPackage, exports map[string]string) ([]string, error) {
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	lookup := func(path string) (io.ReadCloser, error) {
		if exports[path] == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(exports[path])
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", lookup)}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}}
	if _, err := conf.Check(p.ImportPath, fset, files, info); err != nil {
		return nil, err
	}
	return findViolations(fset, files, info), nil
}

func findViolations(fset *token.FileSet, files []*ast.File, info *types.Info) []string {
	var found []string
	report := func(n ast.Node, format string, args ...any) {
		found = append(found, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), fmt.Sprintf(format, args...)))
	}
	isFloatProduct := func(e ast.Expr) bool {
		for {
			p, ok := e.(*ast.ParenExpr)
			if !ok {
				break
			}
			e = p.X
		}
		b, ok := e.(*ast.BinaryExpr)
		if !ok || (b.Op != token.MUL && !(b.Op == token.QUO && isPowerOfTwo(info, b.Y))) {
			return false
		}
		tv, ok := info.Types[b]
		if !ok || tv.Value != nil { // constant products are folded, never fused
			return false
		}
		basic, ok := tv.Type.Underlying().(*types.Basic)
		return ok && basic.Info()&types.IsFloat != 0
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if (n.Op == token.ADD || n.Op == token.SUB) && (isFloatProduct(n.X) || isFloatProduct(n.Y)) {
					report(n, "floating-point product meets %s: wrap the product in float64(...) (x/2 counts: it compiles to x*0.5)", n.Op)
				}
			case *ast.AssignStmt:
				if (n.Tok == token.ADD_ASSIGN || n.Tok == token.SUB_ASSIGN) && len(n.Rhs) == 1 && isFloatProduct(n.Rhs[0]) {
					report(n, "floating-point product meets %s: wrap the product in float64(...)", n.Tok)
				}
			case *ast.RangeStmt:
				if tv, ok := info.Types[n.X]; ok {
					if _, isMap := tv.Type.Underlying().(*types.Map); isMap {
						report(n, "range over a map: the order differs between runs")
					}
				}
			case *ast.SelectorExpr:
				if obj, ok := info.Uses[n.Sel].(*types.Func); ok && obj.Pkg() != nil {
					if sig, _ := obj.Type().(*types.Signature); sig != nil && sig.Recv() == nil &&
						forbiddenCalls[obj.Pkg().Path()][obj.Name()] {
						report(n, "%s.%s is not deterministic across runs or architectures", obj.Pkg().Path(), obj.Name())
					}
				}
			}
			return true
		})
	}
	return found
}

// isPowerOfTwo reports whether e is a constant power of two (or its
// reciprocal): the compiler turns x/2 into x*0.5, a product that fuses.
func isPowerOfTwo(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	if !ok || tv.Value == nil {
		return false
	}
	f, ok := constant.Float64Val(constant.ToFloat(tv.Value))
	if !ok || f == 0 {
		return false
	}
	frac, _ := math.Frexp(math.Abs(f))
	return frac == 0.5
}

func TestSimulationSourceRules(t *testing.T) {
	sim, exports := goList(t)
	for _, p := range sim {
		found, err := checkPackage(p, exports)
		if err != nil {
			t.Errorf("%s: %v", p.ImportPath, err)
		}
		for _, v := range found {
			t.Error(v)
		}
	}
}

// TestSourceRulesCatchViolations keeps the checker honest: each rule must
// fire on a minimal example and stay quiet on the corrected form.
func TestSourceRulesCatchViolations(t *testing.T) {
	const src = `package p
import "math"
func bad(a, b, c float64, m map[int]int) float64 {
	x := a*b + c
	x -= (a * b)
	for range m {}
	x += a/4 - c
	return x + math.Sin(a)
}
func good(a, b, c float64, i, j, k int) float64 {
	x := float64(a*b) + c
	x -= float64(a * b)
	_ = i*j + k
	x += float64(a/4) - a/3
	return x + 2*3
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.Default()}
	if _, err := conf.Check("p", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	found := findViolations(fset, []*ast.File{f}, info)
	want := []string{"p.go:4:7", "p.go:5:2", "p.go:6:2", "p.go:7:7", "p.go:8:13"}
	if len(found) != len(want) {
		t.Fatalf("found %d violations, want %d:\n%s", len(found), len(want), strings.Join(found, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(found[i], w) {
			t.Errorf("violation %d = %q, want at %s", i, found[i], w)
		}
	}
}

var fmaInstruction = regexp.MustCompile(`\((\S+\.go:\d+)\)\s+(FMADD|FMSUB|FNMADD|FNMSUB|VFMADD|VFMSUB|VFNMADD|VFNMSUB)\w*`)

// TestNoFusedMultiplyAdd compiles the simulation packages for the targets
// that fuse (arm64, and amd64 with GOAMD64=v3) and fails on any fused
// multiply-add instruction in their code.
func TestNoFusedMultiplyAdd(t *testing.T) {
	sim, _ := goList(t)
	args := []string{"build", "-o", os.DevNull, "-gcflags=-S"}
	for _, p := range sim {
		args = append(args, p.ImportPath)
	}
	for _, env := range [][]string{{"GOARCH=arm64"}, {"GOARCH=amd64", "GOAMD64=v3"}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = "../.."
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v go build: %v\n%s", env, err, lastLines(out, 20))
		}
		seen := map[string]bool{}
		for _, m := range fmaInstruction.FindAllSubmatch(out, -1) {
			where := string(m[1])
			if !seen[where] {
				seen[where] = true
				t.Errorf("%v: %s compiles to %s: round the product with float64(...); x/2 is a product too (x*0.5)", env, where, m[2])
			}
		}
		if !bytes.Contains(out, []byte("TEXT")) {
			t.Fatalf("%v: the compiler printed no assembly; the check saw nothing", env)
		}
	}
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
