package methods

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/methodid"
)

// tinyIdentity is the identity of the method of tinyMethods over
// testdata/identity, computed once in the shell:
//
//	cd testdata/identity
//	hm=$(sha256sum m.py | cut -d' ' -f1); hb=$(sha256sum b.txt | cut -d' ' -f1)
//	printf 'misslab-method/1\nname=tiny\nkind=learner\nversion=v1\naccepts_missing=false\nfile=b.txt\t%s\nfile=m.py\t%s\n' $hb $hm | sha256sum
const tinyIdentity = "b67a8d4681c6d2f1ac19b59efb6aef700af3812ec2993970efa16a8961613ac0"

const tinyMethods = `method "tiny" {
  kind    = "learner"
  command = ["python3", "m.py"]
  files   = ["m.py", "b.txt"]
  version = "v1"
}
`

// TestIdentityPinned checks the identity of a tiny fixture against the
// formula computed independently here and against a literal constant.
func TestIdentityPinned(t *testing.T) {
	cat, err := Parse([]byte(tinyMethods), "methods.hcl", "testdata/identity")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := cat.Lookup("tiny")
	fileSum := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata/identity", name))
		if err != nil {
			t.Fatal(err)
		}
		s := sha256.Sum256(b)
		return hex.EncodeToString(s[:])
	}
	text := "misslab-method/1\nname=tiny\nkind=learner\nversion=v1\naccepts_missing=false\n" +
		"file=b.txt\t" + fileSum("b.txt") + "\n" + "file=m.py\t" + fileSum("m.py") + "\n"
	sum := sha256.Sum256([]byte(text))
	if want := hex.EncodeToString(sum[:]); m.ID != want {
		t.Errorf("ID = %s, formula gives %s", m.ID, want)
	}
	if m.ID != tinyIdentity {
		t.Errorf("ID = %s, want the pinned %s", m.ID, tinyIdentity)
	}
}

// The identities of tinyMethods with tasks declared, computed in the
// shell as tinyIdentity with the line "tasks=regression,classification\n"
// (or "tasks=classification\n") after accepts_missing.
const (
	tinyBothIdentity  = "0cc7407c2c4050f3b1dab675f0b8e57c1f1f13062a1fd8d1c21cb78a6c2d665d"
	tinyClassIdentity = "454c7f9242bd7833544d69e08ad42821ed7b4171e03abffa8a9d20e5efa32f7b"
)

// TestIdentityTasks: a learner that does not declare classification
// (no tasks, or tasks = ["regression"]) keeps the identity pinned before
// tasks existed, so its stored results keep their keys; one that
// declares it gets another identity, the same whatever the order of its
// tasks.
func TestIdentityTasks(t *testing.T) {
	tests := []struct {
		tasks string // the attribute line, "" for none
		want  string
		class bool
	}{
		{"", tinyIdentity, false},
		{`tasks = ["regression"]`, tinyIdentity, false},
		{`tasks = ["regression", "classification"]`, tinyBothIdentity, true},
		{`tasks = ["classification", "regression"]`, tinyBothIdentity, true},
		{`tasks = ["classification"]`, tinyClassIdentity, true},
	}
	for _, tc := range tests {
		src := strings.Replace(tinyMethods, `version = "v1"`, `version = "v1"`+"\n  "+tc.tasks, 1)
		cat, err := Parse([]byte(src), "methods.hcl", "testdata/identity")
		if err != nil {
			t.Fatalf("%s: %v", tc.tasks, err)
		}
		m, _ := cat.Lookup("tiny")
		if m.ID != tc.want || m.Classifies() != tc.class {
			t.Errorf("%q: ID %s, classifies %v; want %s, %v", tc.tasks, m.ID, m.Classifies(), tc.want, tc.class)
		}
	}
}

// TestIdentityChanges checks what the identity depends on.
func TestIdentityChanges(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("m.py", "print(1)\n")
	id := func() string {
		cat, err := Parse([]byte(`method "m" {
  kind    = "learner"
  command = ["python3", "m.py"]
  files   = ["m.py"]
}`), "methods.hcl", dir)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := cat.Lookup("m")
		return m.ID
	}
	base := id()
	write("m.py", "print(2)\n")
	if id() == base {
		t.Error("the identity did not change with the file's bytes")
	}
	cfg := Config{Name: "m", Kind: "learner", Command: []string{"a"}, Files: []string{"f"}, Version: "1"}
	hashes := map[string]string{"f": "00"}
	ref := Identity(cfg, hashes)
	tests := []struct {
		name   string
		change func(c *Config)
		same   bool
	}{
		{"version", func(c *Config) { c.Version = "2" }, false},
		{"accepts_missing", func(c *Config) { c.AcceptsMissing = true }, false},
		{"tasks: classification", func(c *Config) { c.Tasks = methodid.TasksClassification }, false},
		{"tasks: both", func(c *Config) { c.Tasks = methodid.TasksBoth }, false},
		{"tasks: regression", func(c *Config) { c.Tasks = methodid.TasksRegression }, true},
		{"name", func(c *Config) { c.Name = "n" }, false},
		{"kind", func(c *Config) { c.Kind = "imputer" }, false},
		{"command", func(c *Config) { c.Command = []string{"b", "c"} }, true},
		{"env", func(c *Config) { c.Env = map[string]string{"A": "1"} }, true},
		{"timeout", func(c *Config) { c.Timeout = 1 }, true},
		{"dir", func(c *Config) { c.Dir = "/elsewhere" }, true},
	}
	for _, tc := range tests {
		c := cfg
		tc.change(&c)
		if got := Identity(c, hashes) == ref; got != tc.same {
			t.Errorf("%s: identity unchanged = %v, want %v", tc.name, got, tc.same)
		}
	}
}

// TestIdentityFileOrder checks that files are sorted by path, so that the
// order in which they are listed does not matter.
func TestIdentityFileOrder(t *testing.T) {
	h := map[string]string{"a": "1", "b": "2"}
	x := Identity(Config{Name: "m", Kind: "learner", Files: []string{"a", "b"}}, h)
	y := Identity(Config{Name: "m", Kind: "learner", Files: []string{"b", "a"}}, h)
	if x != y {
		t.Error("the identity depends on the order of files")
	}
}
