package methodid

import (
	"fmt"
	"slices"
	"strings"
)

// Task names, as a methods file's tasks attribute writes them.
const (
	Regression     = "regression"     // a numeric target: op "fit_predict"
	Classification = "classification" // class codes 0..k−1: op "fit_predict_proba"
)

// TaskNames lists the task names a learner may declare, in canonical
// order.
var TaskNames = []string{Regression, Classification}

// Tasks is the canonical spelling of the set of tasks a learner does: the
// declared names in TaskNames order, joined by ",", with the default set
// (regression alone) spelt "" so that a method that declares nothing, or
// only "regression", keeps the identity and the stored form it had
// before classification existed.
type Tasks string

// The valid Tasks values.
const (
	TasksRegression     Tasks = ""                                // regression only: the default
	TasksClassification Tasks = Classification                    // classification only
	TasksBoth           Tasks = Regression + "," + Classification // regression and classification
)

// ParseTasks returns the canonical Tasks of a list of task names (a
// methods file's tasks). The list must be non-empty and name each task
// of TaskNames at most once, in any order.
func ParseTasks(names []string) (Tasks, error) {
	if len(names) == 0 {
		return "", fmt.Errorf("tasks is empty; give at least one of %s", quoted(TaskNames))
	}
	seen := map[string]bool{}
	for _, n := range names {
		switch {
		case !slices.Contains(TaskNames, n):
			return "", fmt.Errorf("task %q is unknown (want %s)", n, quoted(TaskNames))
		case seen[n]:
			return "", fmt.Errorf("task %q is listed twice", n)
		}
		seen[n] = true
	}
	var out []string
	for _, n := range TaskNames {
		if seen[n] {
			out = append(out, n)
		}
	}
	if t := Tasks(strings.Join(out, ",")); t != Regression {
		return t, nil
	}
	return TasksRegression, nil
}

// Check reports a Tasks value that is not one of the canonical ones
// (as when one arrives over the wire or from the store).
func (t Tasks) Check() error {
	switch t {
	case TasksRegression, TasksClassification, TasksBoth:
		return nil
	}
	return fmt.Errorf("tasks %q: want %q, %q or %q", string(t), string(TasksRegression), string(TasksClassification), string(TasksBoth))
}

// Names returns the task names of t, in canonical order.
func (t Tasks) Names() []string {
	if t == TasksRegression {
		return []string{Regression}
	}
	return strings.Split(string(t), ",")
}

// quoted writes names as "a" or "b".
func quoted(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, " or ")
}
