package archtest

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const module = "github.com/misslab/misslab/"

// allowed reads the package table of docs/ARCHITECTURE.md: package path
// (relative to the module) → the module packages it may import. Entries
// like "learn/*" allow every subpackage; "proto" is proto/misslab/v1;
// words that name no package of the module (gonum, bbolt, hcl/v2) are
// ignored here.
func allowed(t *testing.T) map[string][]string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		if len(cells) != 5 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`internal/") {
			continue
		}
		pkg := strings.Trim(strings.TrimSpace(cells[1]), "`")
		var may []string
		for _, w := range strings.Split(cells[3], ",") {
			w = strings.Trim(strings.Fields(w + " x")[0], "`")
			switch {
			case w == "proto":
				may = append(may, "proto/misslab/v1")
			case w == "proto/store":
				may = append(may, "proto/misslab/store/v1")
			case w != "" && w != "—" && w != "x":
				may = append(may, "internal/"+w)
			}
		}
		out[pkg] = may
	}
	if len(out) < 20 {
		t.Fatalf("read only %d package rows from docs/ARCHITECTURE.md", len(out))
	}
	return out
}

// imports lists each internal package's imports of this module (not its
// tests').
func imports(t *testing.T) map[string][]string {
	t.Helper()
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	cmd := exec.Command(gobin, "list", "-json=ImportPath,Imports", "./...")
	cmd.Dir = filepath.Join("..", "..")
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	out := map[string][]string{}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		rel, ok := strings.CutPrefix(p.ImportPath, module)
		if !ok || !strings.HasPrefix(rel, "internal/") {
			continue
		}
		for _, imp := range p.Imports {
			if r, ok := strings.CutPrefix(imp, module); ok {
				out[rel] = append(out[rel], r)
			}
		}
		if out[rel] == nil {
			out[rel] = []string{}
		}
	}
	return out
}

// TestImportsMatchArchitecture: every internal package is in the table
// and imports only what its row allows, so the document cannot drift.
func TestImportsMatchArchitecture(t *testing.T) {
	may := allowed(t)
	for pkg, imps := range imports(t) {
		if pkg == "internal/archtest" || strings.HasPrefix(pkg, "internal/report/cmd/") {
			continue
		}
		rules, ok := may[pkg]
		if !ok {
			t.Errorf("%s is not in docs/ARCHITECTURE.md's package table", pkg)
			continue
		}
		for _, imp := range imps {
			if !permitted(imp, rules) {
				t.Errorf("%s imports %s, which docs/ARCHITECTURE.md does not allow (allowed: %v)", pkg, imp, rules)
			}
		}
	}
}

func permitted(imp string, rules []string) bool {
	for _, r := range rules {
		if base, ok := strings.CutSuffix(r, "/*"); ok && strings.HasPrefix(imp, base+"/") || imp == r {
			return true
		}
	}
	return false
}
