// Package methodid is the public identity of an external method
// (docs/METHODS.md): what grids, the protocol, the coordinator and the
// learners know of it, without its command line or how it runs.
package methodid

import (
	"fmt"
	"strings"
)

// Kind says what an external method does in a pipeline.
type Kind string

// Kinds of external methods.
const (
	// Learner fits on training covariates and targets and predicts test
	// targets: it takes a pipeline's learner place ("hgb/native").
	Learner Kind = "learner"
	// Imputer fits on training covariates and fills the NA of the
	// training and test covariates: it takes a strategy's place
	// ("tree/sk_iterative").
	Imputer Kind = "imputer"
)

// Method is the public identity of an external method: everything a
// grid, the coordinator and the store know of it. Its command line never
// leaves the worker that runs it (package methods reads it from the
// worker operator's methods file).
type Method struct {
	Name string // as in the methods file and the grid, e.g. "hgb"
	Kind Kind   // Learner or Imputer
	// AcceptsMissing says a learner may be run on covariates with NA
	// (strategy "native"); false: only behind an imputer.
	AcceptsMissing bool
	// Tasks are the tasks a learner declares in its methods file, in
	// canonical form: TasksRegression ("", the default and every
	// method's before classification existed), TasksClassification or
	// TasksBoth. Imputers have "" (they never see the target).
	Tasks Tasks `json:",omitempty"`
	// ID is the lowercase hex SHA-256 identity of the method (name, kind,
	// version, accepts_missing, tasks when not the default, and the bytes
	// of its files; package methods computes it). Empty until the
	// coordinator binds the grid's name to a method some worker or its
	// own methods file offers.
	ID string
}

// Classifies reports whether the method is a learner that declares
// classification (a methods file's tasks lists "classification").
func (m Method) Classifies() bool {
	return m.Kind != Imputer && (m.Tasks == TasksClassification || m.Tasks == TasksBoth)
}

// Regresses reports whether the method, if a learner, does regression:
// true unless its tasks are "classification" alone.
func (m Method) Regresses() bool { return m.Tasks != TasksClassification }

// External reports whether m names an external method (a zero Method
// marks a built-in learner or strategy).
func (m Method) External() bool { return m.Name != "" }

// CheckName reports whether name is spelt as an external method's name
// must be: it matches ^[a-z][a-z0-9_]*$ and has at most 40 bytes. It
// does not know misslab's built-in learners and strategies, whose names
// a method may not take either (learn.CheckMethodName checks both).
func CheckName(name string) error {
	if name == "" || len(name) > 40 || name[0] < 'a' || name[0] > 'z' ||
		strings.IndexFunc(name, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') }) >= 0 {
		return fmt.Errorf("method name %q: want a lower-case letter, then letters, digits or _ (at most 40 bytes)", name)
	}
	return nil
}
