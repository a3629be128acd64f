package determinism

import (
	"context"
	"errors"
	"fmt"
	"go/token"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// A Finding is one break of a rule.
type Finding struct {
	Pos     token.Position // where: an absolute file name, line and column
	Rule    string         // RuleFMA, RuleMapRange, ...
	Message string         // what is wrong and what to write instead
}

func (f Finding) String() string { return fmt.Sprintf("%s: %s (%s)", f.Pos, f.Message, f.Rule) }

// Check loads the packages that patterns name (go list patterns such as
// "./sim/...", resolved in the module at dir; "" is the current directory)
// and runs [Analyzer] on them. It returns the findings sorted by position,
// and an error, with no findings, when a package does not load or does not
// type-check: the rules are checked on code that builds.
func Check(ctx context.Context, dir string, patterns ...string) ([]Finding, error) {
	cfg := &packages.Config{
		Context: ctx,
		Mode:    packages.LoadSyntax | packages.NeedModule,
		Dir:     dir,
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("determinism: loading %s: %w", strings.Join(patterns, " "), err)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("determinism: %s matched no packages", strings.Join(patterns, " "))
	}
	var loadErrs []error
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			loadErrs = append(loadErrs, fmt.Errorf("%s: %s", p.PkgPath, e))
		}
	})
	if len(loadErrs) > 0 {
		return nil, fmt.Errorf("determinism: the packages must build before they are checked (go build %s):\n%w",
			strings.Join(patterns, " "), errors.Join(loadErrs...))
	}
	graph, err := checker.Analyze([]*analysis.Analyzer{Analyzer}, pkgs, nil)
	if err != nil {
		return nil, fmt.Errorf("determinism: %w", err)
	}
	var found []Finding
	for _, act := range graph.Roots {
		if act.Err != nil {
			return nil, fmt.Errorf("determinism: %s: %w", act.Package.PkgPath, act.Err)
		}
		for _, d := range act.Diagnostics {
			found = append(found, Finding{Pos: act.Package.Fset.Position(d.Pos), Rule: d.Category, Message: d.Message})
		}
	}
	sortFindings(found)
	return found, nil
}

func sortFindings(found []Finding) {
	sort.SliceStable(found, func(i, j int) bool {
		a, b := found[i].Pos, found[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
}
