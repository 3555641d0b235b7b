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

// TestScikitStrategySettings: the built-in iterative and knn strategies
// take their settings in strategy blocks; "knn" names the KNN learner in
// a learner block and the KNN imputer in a strategy block, each with its
// own keys; a key of the other is refused.
func TestScikitStrategySettings(t *testing.T) {
	src := func(blocks string) []byte {
		return []byte(`sweep "s" {
  seed = 1
  repetitions = 1
  data { model = "quadratic" }
  pipelines {
    learners   = ["knn", "tree"]
    strategies = ["iterative+mask", "knn"]
  }
` + blocks + `
}`)
	}
	f, err := Parse(src(`  learner "knn" { k = 7 }
  strategy "knn" { knn_k = 3 }
  strategy "iterative" { iterative_maxiter = 4 }`), "ok.hcl", ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, p := range f.Sweeps[0].Pipelines {
		got[p.Name()] = p.Resolved().String()
	}
	want := map[string]string{
		"knn/knn":             "{k=7,knn_k=3}",
		"knn/iterative+mask":  "{iterative_maxiter=4,iterative_tol=0.001,k=7}",
		"tree/knn":            "{cp=0,knn_k=3,maxdepth=30,maxsurrogate=5,minbucket=30,minsplit=0}",
		"tree/iterative+mask": "{cp=0,iterative_maxiter=4,iterative_tol=0.001,maxdepth=30,maxsurrogate=5,minbucket=30,minsplit=0}",
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: resolved %s, want %s", name, got[name], w)
		}
	}
	_, err = Parse(src(`  strategy "knn" { k = 3 }`), "bad.hcl", ParseOptions{})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `unknown key "k"`) {
		t.Errorf("k in the knn strategy block: %v, want unknown key", err)
	}
}
