package adapters_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/methodid"
	"github.com/misslab/misslab/internal/methods"
)

// TestDocGrids parses every grid of docs/METHODS.md (the ```hcl blocks
// that start with a sweep) and binds its methods to the shipped
// methods.hcl and the page's own methods file, so that the page's grid
// syntax cannot drift from the parser's. No interpreter is needed.
func TestDocGrids(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "METHODS.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "my_ridge.py"), []byte(fenced(t, string(doc), "<!-- example-method: my_ridge.py")), 0o600); err != nil {
		t.Fatal(err)
	}
	copyFile(t, "misslab_method.py", filepath.Join(dir, "misslab_method.py"))
	page := loadMethods(t, dir, fenced(t, string(doc), "<!-- example-methods-file"))
	shipped, err := methods.Load("methods.hcl")
	if err != nil {
		t.Fatal(err)
	}
	bind := func(name string, kind methodid.Kind) (methodid.Method, error) {
		for _, c := range []*methods.Catalog{shipped, page} {
			if m, ok := c.Lookup(name); ok && m.Kind == kind {
				return m, nil
			}
		}
		return methodid.Method{}, fmt.Errorf("no %s %q", kind, name)
	}
	grids := hclBlocks(string(doc), "sweep ")
	if len(grids) < 2 {
		t.Fatalf("found %d grids in docs/METHODS.md, want at least 2", len(grids))
	}
	for i, src := range grids {
		f, err := grid.Parse([]byte(src), fmt.Sprintf("METHODS.md grid %d", i+1), grid.ParseOptions{})
		if err != nil {
			t.Errorf("grid %d: %v", i+1, err)
			continue
		}
		for _, sw := range f.Sweeps {
			if len(sw.Methods()) == 0 {
				t.Errorf("grid %d, sweep %s: uses no external method", i+1, sw.Name)
			}
			if err := sw.Bind(bind); err != nil {
				t.Errorf("grid %d, sweep %s: %v", i+1, sw.Name, err)
			}
		}
	}
}

// hclBlocks returns the bodies of the ```hcl blocks of doc that start
// with prefix.
func hclBlocks(doc, prefix string) []string {
	var out []string
	for _, part := range strings.Split(doc, "```hcl\n")[1:] {
		body, _, _ := strings.Cut(part, "```")
		if strings.HasPrefix(body, prefix) {
			out = append(out, body)
		}
	}
	return out
}
