package examples_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestExamplesUseOnlyThePublicAPI keeps the examples honest as outside
// games: they import no internal package and not the cube world's.
func TestExamplesUseOnlyThePublicAPI(t *testing.T) {
	const module = "github.com/netphys/netphys"
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return err
			}
			if !strings.HasPrefix(p, module+"/") {
				continue
			}
			rest := strings.TrimPrefix(p, module+"/")
			if strings.HasPrefix(rest, "internal/") || strings.Contains(rest, "/internal/") || rest == "scene" || strings.HasPrefix(rest, "scene/") {
				t.Errorf("%s imports %s: an example may use the public packages only", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 6 {
		t.Fatalf("found %d Go files under examples/", files)
	}
}
