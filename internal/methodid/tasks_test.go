package methodid

import (
	"slices"
	"strings"
	"testing"
)

// TestParseTasks: every order and spelling of a set gives one canonical
// value; regression alone is the default ""; the errors name the task.
func TestParseTasks(t *testing.T) {
	tests := []struct {
		names []string
		want  Tasks
		err   string
	}{
		{[]string{"regression"}, TasksRegression, ""},
		{[]string{"classification"}, TasksClassification, ""},
		{[]string{"regression", "classification"}, TasksBoth, ""},
		{[]string{"classification", "regression"}, TasksBoth, ""},
		{nil, "", "tasks is empty"},
		{[]string{"classify"}, "", `task "classify" is unknown`},
		{[]string{"regression", "regression"}, "", `task "regression" is listed twice`},
		{[]string{"Regression"}, "", `task "Regression" is unknown`},
	}
	for _, tc := range tests {
		got, err := ParseTasks(tc.names)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseTasks(%q) = %v, want an error containing %q", tc.names, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("ParseTasks(%q) = %q, %v; want %q", tc.names, got, err, tc.want)
		case tc.err == "" && got.Check() != nil:
			t.Errorf("ParseTasks(%q) = %q, which Check refuses", tc.names, got)
		case tc.err == "" && !slices.Equal(got.Names(), canonical(tc.names)):
			t.Errorf("%q.Names() = %q", got, got.Names())
		}
	}
	for _, bad := range []Tasks{"regression", "classification,regression", "both", " classification"} {
		if bad.Check() == nil {
			t.Errorf("Check(%q) = nil, want an error (not canonical)", bad)
		}
	}
}

// canonical sorts task names in TaskNames order.
func canonical(names []string) []string {
	out := slices.Clone(names)
	slices.SortFunc(out, func(a, b string) int { return slices.Index(TaskNames, a) - slices.Index(TaskNames, b) })
	return out
}

// TestMethodTasks: what Classifies and Regresses say of each value; an
// imputer never classifies (it never sees the target).
func TestMethodTasks(t *testing.T) {
	tests := []struct {
		m                 Method
		classify, regress bool
	}{
		{Method{Name: "hgb", Kind: Learner}, false, true},
		{Method{Name: "hgb", Kind: Learner, Tasks: TasksBoth}, true, true},
		{Method{Name: "logit", Kind: Learner, Tasks: TasksClassification}, true, false},
		{Method{Name: "mice", Kind: Imputer}, false, true},
	}
	for _, tc := range tests {
		if tc.m.Classifies() != tc.classify || tc.m.Regresses() != tc.regress {
			t.Errorf("%+v: classifies %v, regresses %v; want %v, %v", tc.m, tc.m.Classifies(), tc.m.Regresses(), tc.classify, tc.regress)
		}
	}
}
