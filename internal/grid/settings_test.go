package grid

import (
	"errors"
	"strings"
	"testing"
)

// TestSettingsCheckedByLearn: the parser validates every setting with the
// learn package (no hook to forget) and reports every bad key of a block
// at its own line, once, however many pipelines use the block.
func TestSettingsCheckedByLearn(t *testing.T) {
	src := func(body string) []byte {
		return []byte(`sweep "s" {
  seed = 1
  repetitions = 1
  data { model = "quadratic" }
  pipelines {
    learners   = ["tree"]
    strategies = ["mia", "mean"]
  }
  learner "tree" {
` + body + `
  }
}`)
	}
	cases := []struct {
		name, body string
		want       []string // error lines, in order; nil: valid
	}{
		{"valid", "    cp = 0.02\n    minbucket = 5", nil},
		{"cp out of range", "    cp = 7", []string{
			`bad.hcl:10:5: learner.tree.cp: tree/mia: cp = 7, want a number in [0, 1]`}},
		{"every bad key", "    wibble = 1\n    minbucket = -5", []string{
			`bad.hcl:10:5: learner.tree.wibble: tree/mia: unknown key "wibble" (allowed: `,
			`bad.hcl:11:5: learner.tree.minbucket: tree/mia: minbucket = -5, want an integer in [1,`}},
		{"preset switch", "    rpart_defaults = 2", []string{
			`bad.hcl:10:5: learner.tree.rpart_defaults: tree/mia: preset switch "rpart_defaults" = 2, want 0 or 1`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse(src(tc.body), "bad.hcl", ParseOptions{})
			if tc.want == nil {
				if err != nil || len(f.Sweeps[0].Pipelines) != 2 {
					t.Fatalf("valid settings rejected: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tc.want) {
				t.Fatalf("got %d errors, want %d:\n%v", len(lines), len(tc.want), err)
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(lines[i], w) {
					t.Errorf("error %d:\n got %s\nwant %s...", i, lines[i], w)
				}
			}
		})
	}
}
