package archtest

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/misslab/misslab/"

// thirdParty maps the words of the table's "may import" column that name
// other modules to the import paths they allow (a path ending in "/"
// allows every package under it).
var thirdParty = map[string][]string{
	"gonum":      {"gonum.org/v1/gonum/"},
	"gonum/plot": {"gonum.org/v1/plot", "gonum.org/v1/plot/"},
	"bbolt":      {"go.etcd.io/bbolt", "go.etcd.io/bbolt/"},
	"hcl/v2":     {"github.com/hashicorp/hcl/v2", "github.com/hashicorp/hcl/v2/", "github.com/zclconf/go-cty/"},
	"parquet-go": {"github.com/parquet-go/parquet-go", "github.com/parquet-go/parquet-go/"},
	"protobuf":   {"google.golang.org/protobuf/"},
	"grpc":       {"google.golang.org/grpc", "google.golang.org/grpc/"},
	"hclog":      {"github.com/hashicorp/go-hclog"},
	"prometheus": {"github.com/prometheus/"},
	"x/sys":      {"golang.org/x/sys/"},
}

// rules is what a package's row allows: module packages (relative to
// the module; "learn/*" allows every subpackage) and other modules'
// import paths.
type rules struct {
	module, other []string
}

// allowed reads the package table of docs/ARCHITECTURE.md: package path
// (relative to the module) → what it may import. In the "may import"
// column, "proto" is proto/misslab/v1, "proto/store" proto/misslab/store/v1,
// a word of thirdParty another module, and any other word a package of
// internal/; "—" is nothing.
func allowed(t *testing.T) map[string]rules {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]rules{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		if len(cells) != 5 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`internal/") {
			continue
		}
		pkg := strings.Trim(strings.TrimSpace(cells[1]), "`")
		var r rules
		for _, w := range strings.Split(cells[3], ",") {
			w = strings.Trim(strings.Fields(w + " x")[0], "`")
			switch {
			case w == "proto":
				r.module = append(r.module, "proto/misslab/v1")
			case w == "proto/store":
				r.module = append(r.module, "proto/misslab/store/v1")
			case thirdParty[w] != nil:
				r.other = append(r.other, thirdParty[w]...)
			case w != "" && w != "—" && w != "x":
				r.module = append(r.module, "internal/"+w)
			}
		}
		out[pkg] = r
	}
	if len(out) < 20 {
		t.Fatalf("read only %d package rows from docs/ARCHITECTURE.md", len(out))
	}
	return out
}

// imports lists each internal package's imports (not its tests'): of this
// module (relative to it) and of other modules.
func imports(t *testing.T) map[string]rules {
	t.Helper()
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	cmd := exec.Command(gobin, "list", "-json=ImportPath,Imports", "./...")
	cmd.Dir = filepath.Join("..", "..")
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	out := map[string]rules{}
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
		var r rules
		for _, imp := range p.Imports {
			if m, ok := strings.CutPrefix(imp, module); ok {
				r.module = append(r.module, m)
			} else if strings.Contains(strings.Split(imp, "/")[0], ".") {
				r.other = append(r.other, imp)
			}
		}
		out[rel] = r
	}
	return out
}

// TestImportsMatchArchitecture: every internal package is in the table
// and imports only what its row allows, of this module and of others, so
// the document cannot drift.
func TestImportsMatchArchitecture(t *testing.T) {
	may := allowed(t)
	for pkg, imps := range imports(t) {
		if pkg == "internal/archtest" || strings.HasPrefix(pkg, "internal/report/cmd/") {
			continue
		}
		r, ok := may[pkg]
		if !ok {
			t.Errorf("%s is not in docs/ARCHITECTURE.md's package table", pkg)
			continue
		}
		for _, imp := range imps.module {
			if !permitted(imp, r.module) {
				t.Errorf("%s imports %s, which docs/ARCHITECTURE.md does not allow (allowed: %v)", pkg, imp, r.module)
			}
		}
		for _, imp := range imps.other {
			if !slices.ContainsFunc(r.other, func(p string) bool { return imp == p || strings.HasSuffix(p, "/") && strings.HasPrefix(imp, p) }) {
				t.Errorf("%s imports %s, another module its row of docs/ARCHITECTURE.md does not name", pkg, imp)
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
