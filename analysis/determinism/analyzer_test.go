package determinism_test

import (
	"testing"

	"github.com/netphys/netphys/analysis/determinism"
	"golang.org/x/tools/go/analysis/analysistest"
)

// TestAnalyzer runs every rule on code that breaks it (each line marked
// `// want`) and on the corrected forms beside it, which must stay quiet;
// escape checks the escape comment and testfiles that test files are not
// checked.
func TestAnalyzer(t *testing.T) {
	results := analysistest.Run(t, analysistest.TestData(), determinism.Analyzer,
		"fma", "maprange", "clock", "mathfunc", "random", "selects", "escape", "testfiles")
	rules := map[string]int{}
	for _, r := range results {
		for _, d := range r.Diagnostics {
			rules[d.Category]++
		}
	}
	for _, rule := range []string{determinism.RuleFMA, determinism.RuleMapRange, determinism.RuleClock,
		determinism.RuleMath, determinism.RuleRandom, determinism.RuleSelect} {
		if rules[rule] == 0 {
			t.Errorf("no diagnostic of rule %q: its category is not set", rule)
		}
	}
}
