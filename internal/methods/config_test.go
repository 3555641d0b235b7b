package methods

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/misslab/misslab/internal/methodid"
)

// TestBadConfigs loads every testdata/config/*.bad.hcl and expects an
// error wrapping ErrConfig that contains each of the file's "# want: "
// lines (position included).
func TestBadConfigs(t *testing.T) {
	paths, err := filepath.Glob("testdata/config/*.bad.hcl")
	if err != nil || len(paths) < 20 {
		t.Fatalf("glob: %v, %d files", err, len(paths))
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var wants []string
			for _, line := range strings.Split(string(src), "\n") {
				if w, ok := strings.CutPrefix(line, "# want: "); ok {
					wants = append(wants, "testdata/config/"+w)
				}
			}
			if len(wants) == 0 {
				t.Fatal("no # want: line")
			}
			_, err = Load(p)
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("Load = %v, want an error wrapping ErrConfig", err)
			}
			for _, w := range wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\ndoes not contain\n%s", err, w)
				}
			}
		})
	}
}

// TestGoodConfigs loads every testdata/config/*.good.hcl.
func TestGoodConfigs(t *testing.T) {
	dir, err := filepath.Abs("testdata/config")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file  string
		names []string
	}{
		{"minimal.good.hcl", []string{"hgb"}},
		{"full.good.hcl", []string{"hgb", "mice_r"}},
		{"empty.good.hcl", nil},
	}
	paths, _ := filepath.Glob("testdata/config/*.good.hcl")
	if len(paths) != len(tests) {
		t.Fatalf("%d good files, %d cases: add a case for each file", len(paths), len(tests))
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			cat, err := Load(filepath.Join("testdata/config", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			ms := cat.Methods()
			if len(ms) != len(tc.names) {
				t.Fatalf("methods %v, want %v", ms, tc.names)
			}
			for i, m := range ms {
				if m.Name != tc.names[i] || len(m.ID) != 64 {
					t.Errorf("method %d = %+v, want name %q and a 64-digit ID", i, m, tc.names[i])
				}
				cfg, _ := cat.Config(m.Name)
				if cfg.Dir != dir {
					t.Errorf("Dir = %q, want %q", cfg.Dir, dir)
				}
			}
		})
	}
}

// TestFullConfigFields checks every decoded field of full.good.hcl.
func TestFullConfigFields(t *testing.T) {
	cat, err := Load("testdata/config/full.good.hcl")
	if err != nil {
		t.Fatal(err)
	}
	hgb, _ := cat.Config("hgb")
	want := Config{Name: "hgb", Kind: methodid.Learner, Command: []string{"python3", "method.py", "--fast"},
		Files: []string{"method.py", "lib/util.py"}, Version: "sklearn-1.2", AcceptsMissing: true,
		Tasks: methodid.TasksBoth, Timeout: 90 * time.Second, StartTimeout: 5 * time.Second}
	if hgb.Name != want.Name || hgb.Kind != want.Kind || strings.Join(hgb.Command, " ") != strings.Join(want.Command, " ") ||
		strings.Join(hgb.Files, " ") != strings.Join(want.Files, " ") || hgb.Version != want.Version ||
		!hgb.AcceptsMissing || hgb.Tasks != want.Tasks || hgb.Timeout != want.Timeout || hgb.StartTimeout != want.StartTimeout {
		t.Errorf("hgb = %+v, want %+v", hgb, want)
	}
	if len(hgb.Env) != 2 || hgb.Env["OMP_NUM_THREADS"] != "1" || hgb.Env["PATH"] != "/usr/bin:/bin" {
		t.Errorf("hgb env = %v", hgb.Env)
	}
	mice, _ := cat.Config("mice_r")
	if mice.Kind != methodid.Imputer || mice.Timeout != DefaultTimeout || mice.StartTimeout != DefaultStartTimeout ||
		mice.AcceptsMissing || mice.Tasks != methodid.TasksRegression || mice.Version != "" {
		t.Errorf("mice_r = %+v, want an imputer with the defaults", mice)
	}
	if m, _ := cat.Lookup("hgb"); m.Tasks != methodid.TasksBoth || !m.Classifies() || !m.Regresses() {
		t.Errorf("Lookup(hgb) = %+v, want it to classify and regress", m)
	}
	m, ok := cat.Lookup("mice_r")
	if !ok || m.Kind != methodid.Imputer || m.ID == "" || !m.External() {
		t.Errorf("Lookup(mice_r) = %+v, %v", m, ok)
	}
	if _, ok := cat.Lookup("nope"); ok {
		t.Error("Lookup(nope) found a method")
	}
	hgb.Command[0] = "changed"
	if again, _ := cat.Config("hgb"); again.Command[0] != "python3" {
		t.Error("Config returned the catalog's own slice")
	}
}

// TestAllProblemsReported checks that one file with several problems
// reports each, sorted by line.
func TestAllProblemsReported(t *testing.T) {
	src := `method "a" {
  kind = "x"
}
method "tree" {
  kind    = "learner"
  command = ["p"]
  foo     = 1
}
`
	_, err := Parse([]byte(src), "m.hcl", t.TempDir())
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want *ConfigError", err)
	}
	want := []string{`m.hcl:1,1-11: method "a": command is required`, `m.hcl:2,10-13: method "a": kind = "x" is unknown`,
		`m.hcl:4,8-14: method "tree": "tree" is the name of a built-in`, `m.hcl:7,3-6: method "tree": unknown attribute "foo"`}
	if len(ce.Problems) != len(want) {
		t.Fatalf("problems:\n%v\nwant %d", err, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(ce.Problems[i], w) {
			t.Errorf("problem %d = %q, want prefix %q", i, ce.Problems[i], w)
		}
	}
}
