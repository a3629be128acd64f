package determinism

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// Analyzer reports every break of the determinism rules (see the package
// documentation) in the non-test files of a package. Its diagnostics carry
// the rule's name as their Category.
var Analyzer = &analysis.Analyzer{
	Name: "determinism",
	Doc: "report code that may compute different bits on another run or architecture\n\n" +
		"Checks simulation code for FMA-fusable products (write float64(a*b) + c), range over maps, " +
		"the wall clock, architecture-dependent math functions, unseeded randomness and multi-case " +
		"selects. Mark a deliberate exception with //netphys:nondeterministic <reason> on the line " +
		"or the line above.",
	URL: "https://pkg.go.dev/github.com/netphys/netphys/analysis/determinism",
	Run: run,
}

// The rules: the Category of each diagnostic.
const (
	RuleFMA      = "fma"
	RuleMapRange = "maprange"
	RuleClock    = "clock"
	RuleMath     = "math"
	RuleRandom   = "random"
	RuleSelect   = "select"
)

// EscapeComment marks a deliberate exception: at the end of the flagged
// line, or alone on the line above it, followed by the reason.
const EscapeComment = "//netphys:nondeterministic"

// exactMath are the functions of package math whose results are exactly
// specified (correctly rounded or exact), hence the same everywhere. Every
// other function of math is flagged, so a function added to math later is
// flagged until it is known to be exact.
// math.FMA is exact too, but it compiles to the fused instruction that
// CheckFMA looks for, so it is reported (with its own message) to keep the
// two checks in agreement.
var exactMath = setOf("Abs", "Ceil", "Copysign", "Dim", "Float32bits", "Float32frombits",
	"Float64bits", "Float64frombits", "Floor", "Frexp", "Ilogb", "Inf", "IsInf", "IsNaN", "Ldexp",
	"Logb", "Max", "Min", "Mod", "Modf", "NaN", "Nextafter", "Nextafter32", "Remainder", "Round",
	"RoundToEven", "Signbit", "Sqrt", "Trunc")

// exactCmplx are the exact functions of math/cmplx.
var exactCmplx = setOf("Conj", "Inf", "IsInf", "IsNaN", "NaN")

// vecmathHas are the math functions netphys/vecmath has a deterministic
// version of.
var vecmathHas = setOf("Sin", "Cos", "Sincos", "Atan", "Atan2", "Acos")

// clockCalls read or wait on the wall clock.
var clockCalls = setOf("Now", "Since", "Until", "After", "AfterFunc", "Tick", "NewTicker", "NewTimer", "Sleep")

// randomCalls are the top-level functions of the random packages that draw
// from a source the program did not seed.
var randomCalls = map[string]map[string]bool{
	"math/rand": setOf("ExpFloat64", "Float32", "Float64", "Int", "Int31", "Int31n", "Int63", "Int63n",
		"Intn", "NormFloat64", "Perm", "Read", "Shuffle", "Uint32", "Uint64"),
	"math/rand/v2": setOf("ExpFloat64", "Float32", "Float64", "Int", "Int32", "Int32N", "Int64", "Int64N",
		"IntN", "N", "NormFloat64", "Perm", "Shuffle", "Uint", "Uint32", "Uint32N", "Uint64", "Uint64N", "UintN"),
	"crypto/rand": setOf("Int", "Prime", "Read", "Text"),
}

func setOf(names ...string) map[string]bool {
	s := make(map[string]bool, len(names))
	for _, n := range names {
		s[n] = true
	}
	return s
}

func run(pass *analysis.Pass) (any, error) {
	for _, f := range pass.Files {
		tf := pass.Fset.File(f.Pos())
		if tf == nil || strings.HasSuffix(tf.Name(), "_test.go") {
			continue
		}
		c := fileChecker{pass: pass, file: tf, escaped: escapedLines(pass, tf, f)}
		ast.Inspect(f, c.visit)
	}
	return nil, nil
}

// escapedLines returns the lines the escape comments of f cover: the
// comment's own line, and the next when the comment is alone on its line.
func escapedLines(pass *analysis.Pass, tf *token.File, f *ast.File) map[int]bool {
	var lines map[int]bool
	var src []byte
	for _, g := range f.Comments {
		for _, c := range g.List {
			if !isEscape(c.Text) {
				continue
			}
			if lines == nil {
				lines = map[int]bool{}
				src, _ = pass.ReadFile(tf.Name()) // unreadable: every escape covers the next line too
			}
			l := tf.Line(c.Slash)
			lines[l] = true
			start, at := tf.Offset(tf.LineStart(l)), tf.Offset(c.Slash)
			if src == nil || at > len(src) || len(bytes.TrimSpace(src[start:at])) == 0 {
				lines[l+1] = true
			}
		}
	}
	return lines
}

// isEscape reports whether the comment text (from its //) is the escape
// comment, alone or followed by a reason.
func isEscape(text string) bool {
	rest, ok := strings.CutPrefix(text, EscapeComment)
	return ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t')
}

type fileChecker struct {
	pass    *analysis.Pass
	file    *token.File
	escaped map[int]bool
}

func (c *fileChecker) report(n ast.Node, rule, format string, args ...any) {
	if c.escaped[c.file.Line(n.Pos())] {
		return
	}
	c.pass.Report(analysis.Diagnostic{Pos: n.Pos(), End: n.End(), Category: rule, Message: fmt.Sprintf(format, args...)})
}

func (c *fileChecker) visit(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.BinaryExpr:
		if n.Op == token.ADD || n.Op == token.SUB {
			for _, side := range []ast.Expr{n.X, n.Y} {
				if p, typ := c.floatProduct(side); p != nil {
					c.reportFMA(n, n.Op, p, typ)
					break
				}
			}
		}
		if (n.Op == token.MUL || n.Op == token.QUO) && c.isComplex(n) {
			c.reportComplex(n, n.Op)
		}
	case *ast.AssignStmt:
		if (n.Tok == token.MUL_ASSIGN || n.Tok == token.QUO_ASSIGN) && len(n.Lhs) == 1 && c.isComplex(n.Lhs[0]) {
			c.reportComplex(n, n.Tok)
		}
		if (n.Tok == token.ADD_ASSIGN || n.Tok == token.SUB_ASSIGN) && len(n.Rhs) == 1 {
			if p, typ := c.floatProduct(n.Rhs[0]); p != nil {
				c.reportFMA(n, n.Tok, p, typ)
			}
		}
	case *ast.RangeStmt:
		if t := c.pass.TypesInfo.TypeOf(n.X); t != nil {
			if _, isMap := t.Underlying().(*types.Map); isMap {
				c.report(n, RuleMapRange, "range over a map: the order differs between runs; range over a slice or over sorted keys")
			}
		}
	case *ast.SelectStmt:
		k := 0 // communication cases; a default is taken only when none is ready
		for _, cc := range n.Body.List {
			if cc.(*ast.CommClause).Comm != nil {
				k++
			}
		}
		if k >= 2 {
			c.report(n, RuleSelect, "select with %d cases: when several are ready Go picks one at random", k)
		}
	case *ast.SelectorExpr:
		c.checkCall(n)
	}
	return true
}

// reportComplex reports a complex multiplication or division (op is *,
// /, *= or /=).
func (c *fileChecker) reportComplex(n ast.Node, op token.Token) {
	name := "multiplication"
	if op == token.QUO || op == token.QUO_ASSIGN {
		name = "division"
	}
	c.report(n, RuleFMA, "complex %s: its real and imaginary parts are sums of products, which the compiler may fuse "+
		"into FMA instructions; write the parts out, rounding each product with float64(...)", name)
}

// isComplex reports whether e is a complex value that is not a constant.
func (c *fileChecker) isComplex(e ast.Expr) bool {
	tv, ok := c.pass.TypesInfo.Types[e]
	if !ok || tv.Value != nil {
		return false
	}
	basic, ok := tv.Type.Underlying().(*types.Basic)
	return ok && basic.Info()&types.IsComplex != 0
}

// reportFMA reports a product p of type typ that meets op.
func (c *fileChecker) reportFMA(n ast.Node, op token.Token, p *ast.BinaryExpr, typ types.Type) {
	conv := types.TypeString(typ, types.RelativeTo(c.pass.Pkg))
	hint := ""
	if p.Op == token.QUO {
		hint = " (a division by a power of two is a product: it compiles to a multiplication)"
	}
	c.report(n, RuleFMA, "floating-point product meets %s: the compiler may fuse them into one FMA instruction, "+
		"which rounds differently on arm64 and amd64; round the product first: %s(a*b) %s c%s", op, conv, strings.TrimSuffix(op.String(), "="), hint)
}

// floatProduct returns e, without parentheses or a leading minus, if it is
// a floating-point product (or a division by a constant power of two, which
// the compiler turns into one) that is not a constant, and its type.
func (c *fileChecker) floatProduct(e ast.Expr) (*ast.BinaryExpr, types.Type) {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
			continue
		case *ast.UnaryExpr:
			if x.Op == token.SUB || x.Op == token.ADD {
				e = x.X
				continue
			}
		}
		break
	}
	b, ok := e.(*ast.BinaryExpr)
	if !ok || (b.Op != token.MUL && !(b.Op == token.QUO && c.isPowerOfTwo(b.Y))) {
		return nil, nil
	}
	tv, ok := c.pass.TypesInfo.Types[b]
	if !ok || tv.Value != nil { // constant products are folded, never fused
		return nil, nil
	}
	basic, ok := tv.Type.Underlying().(*types.Basic)
	if !ok || basic.Info()&types.IsFloat == 0 {
		return nil, nil
	}
	return b, tv.Type
}

// isPowerOfTwo reports whether e is a constant power of two (or its
// reciprocal): the compiler turns x/2 into x*0.5, a product that fuses.
func (c *fileChecker) isPowerOfTwo(e ast.Expr) bool {
	tv, ok := c.pass.TypesInfo.Types[e]
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

// checkCall reports a use of a forbidden package-level function (called or
// taken as a value).
func (c *fileChecker) checkCall(n *ast.SelectorExpr) {
	fn, ok := c.pass.TypesInfo.Uses[n.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil {
		return
	}
	if sig, _ := fn.Type().(*types.Signature); sig == nil || sig.Recv() != nil {
		return
	}
	path, name := fn.Pkg().Path(), fn.Name()
	switch {
	case path == "math" && name == "FMA":
		c.report(n, RuleMath, "math.FMA is exact, but it compiles to the fused instruction the compiled-code check rejects: write float64(x*y) + z, or mark a deliberate one with %s", EscapeComment)
	case path == "math" && !exactMath[name], path == "math/cmplx" && !exactCmplx[name]:
		hint := ""
		if path == "math" && vecmathHas[name] {
			hint = "; netphys/vecmath has a deterministic one"
		}
		c.report(n, RuleMath, "%s.%s may give different bits on another architecture%s", path, name, hint)
	case path == "time" && clockCalls[name]:
		c.report(n, RuleClock, "time.%s uses the wall clock, which differs between peers: pass time into the step as an argument (a tick)", name)
	case randomCalls[path][name]:
		c.report(n, RuleRandom, "%s.%s draws from a source the program did not seed: use a generator made from a seed the peers share", path, name)
	}
}
