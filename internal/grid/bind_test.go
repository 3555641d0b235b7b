package grid

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/methodid"
)

// taskGrid is a sweep of the given task over the external learner
// learner (natively) and a tree behind the external imputer sk_iterative.
func taskGrid(t *testing.T, task, learner string) *Sweep {
	t.Helper()
	src := `sweep "byom" {
  seed        = 1
  repetitions = 2
  methods     = ["` + learner + `", "sk_iterative"]
  data {
    model = "quadratic"
    task  = "` + task + `"
  }
  pipelines { names = ["` + learner + `/native", "tree/sk_iterative+mask", "` + learner + `/sk_iterative"] }
}
`
	f, err := Parse([]byte(src), "byom.hcl", ParseOptions{})
	if err != nil {
		t.Fatalf("a %s grid naming unbound methods must parse (they are checked when bound): %v", task, err)
	}
	return f.Sweeps[0]
}

// TestBindChecksTheTask: binding refuses a learner whose methods file
// does not declare the sweep's task, naming the method and how to
// declare it, and leaves the sweep unbound; an external imputer serves
// either task.
func TestBindChecksTheTask(t *testing.T) {
	id := func(c string) string { return strings.Repeat(c, 64) }
	iterative := methodid.Method{Name: "sk_iterative", Kind: methodid.Imputer, ID: id("c")}
	for _, tc := range []struct {
		name, task string
		learner    methodid.Method
		want       []string // substrings of the refusal; nil: bound
	}{
		{"regression learner, binary", "binary", methodid.Method{Name: "hgb", Kind: methodid.Learner, AcceptsMissing: true, ID: id("a")},
			[]string{`pipelines[0]: hgb/native cannot run task "binary"`, `external learner "hgb" does not declare classification`,
				`tasks = ["regression", "classification"]`}},
		{"both, binary", "binary", methodid.Method{Name: "hgb", Kind: methodid.Learner, AcceptsMissing: true, Tasks: methodid.TasksBoth, ID: id("b")}, nil},
		{"both, regression", "regression", methodid.Method{Name: "hgb", Kind: methodid.Learner, AcceptsMissing: true, Tasks: methodid.TasksBoth, ID: id("b")}, nil},
		{"classification only, binary", "binary", methodid.Method{Name: "logit", Kind: methodid.Learner, AcceptsMissing: true, Tasks: methodid.TasksClassification, ID: id("d")}, nil},
		{"classification only, regression", "regression", methodid.Method{Name: "logit", Kind: methodid.Learner, AcceptsMissing: true, Tasks: methodid.TasksClassification, ID: id("d")},
			[]string{`logit/native cannot run task "regression"`, `external learner "logit" does classification only`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sw := taskGrid(t, tc.task, tc.learner.Name)
			before := sw.Hash()
			err := sw.Bind(func(name string, kind methodid.Kind) (methodid.Method, error) {
				if name == "sk_iterative" {
					return iterative, nil
				}
				return tc.learner, nil
			})
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				if err := sw.Check(); err != nil {
					t.Errorf("the bound sweep fails its check: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalid) || !errors.Is(err, learn.ErrNotImplemented) {
				t.Fatalf("err = %v, want ErrInvalid and learn.ErrNotImplemented", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
			if sw.Hash() != before {
				t.Error("a refused Bind changed the sweep")
			}
		})
	}
}

// TestPipelineJSONTasks: a pipeline's JSON form carries a classifying
// method's tasks and reads back the same; a method that only regresses
// is written exactly as before tasks existed (no Tasks key).
func TestPipelineJSONTasks(t *testing.T) {
	reg := methodid.Method{Name: "hgb", Kind: methodid.Learner, AcceptsMissing: true, ID: strings.Repeat("a", 64)}
	cls := methodid.Method{Name: "logit", Kind: methodid.Learner, Tasks: methodid.TasksClassification, ID: strings.Repeat("b", 64)}
	for _, tc := range []struct {
		name string
		m    methodid.Method
		want string
	}{
		{"hgb/native", reg, `{"Name":"hgb/native","Settings":null,"Methods":[{"Name":"hgb","Kind":"learner","AcceptsMissing":true,"ID":"` + reg.ID + `"}]}`},
		{"logit/mean", cls, `{"Name":"logit/mean","Settings":null,"Methods":[{"Name":"logit","Kind":"learner","AcceptsMissing":false,"Tasks":"classification","ID":"` + cls.ID + `"}]}`},
	} {
		p, err := NewPipelineWith(tc.name, nil, []methodid.Method{tc.m})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(p)
		if err != nil || string(b) != tc.want {
			t.Errorf("%s: %s (%v), want %s", tc.name, b, err, tc.want)
		}
		var back Pipeline
		if err := json.Unmarshal(b, &back); err != nil || back.Methods()[0] != tc.m {
			t.Errorf("%s: read back %+v (%v), want %+v", tc.name, back.Methods(), err, tc.m)
		}
	}
}
