package grid

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse: any input either parses into sweeps whose scenarios all
// validate, or fails with an *Error wrapping ErrInvalid; it never panics
// nor overflows the stack.
func FuzzParse(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.hcl")
	more, _ := filepath.Glob("../../examples/*.hcl")
	for _, p := range append(paths, more...) {
		if src, err := os.ReadFile(p); err == nil {
			f.Add(src)
		}
	}
	// Deep nesting, which used to overflow the HCL parser's stack, and
	// nesting just within MaxDepth.
	const n = 100_000
	for _, src := range []string{
		"x = " + strings.Repeat("[", n) + strings.Repeat("]", n),
		strings.Repeat("a {\n", n) + strings.Repeat("}\n", n),
		"x = " + strings.Repeat(`"${`, n) + strings.Repeat(`}"`, n),
		"x = " + strings.Repeat("-", n) + "1",
		"sweep \"s\" {\n  seed = 1\n  repetitions = " + strings.Repeat("(", MaxDepth-1) + "2" +
			strings.Repeat(")", MaxDepth-1) + "\n  data {\n    model = \"quadratic\"\n  }\n" +
			"  pipelines {\n    names = [\"tree/mia\"]\n  }\n}\n",
	} {
		f.Add([]byte(src))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := Parse(src, "fuzz.hcl", testOpts)
		if err != nil {
			var ge *Error
			if !errors.As(err, &ge) || !errors.Is(err, ErrInvalid) || len(ge.Diagnostics) == 0 {
				t.Fatalf("error %T %v is not a grid *Error", err, err)
			}
			return
		}
		for _, s := range file.Sweeps {
			if len(s.Scenarios) == 0 || len(s.Pipelines) == 0 || s.Repetitions < 1 {
				t.Fatalf("empty sweep %q accepted", s.Name)
			}
			for _, sc := range s.Scenarios {
				if err := sc.Validate(); err != nil {
					t.Fatalf("invalid scenario accepted: %v", err)
				}
			}
		}
	})
}
