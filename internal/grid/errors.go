package grid

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// ErrInvalid is wrapped by every error that reports a bad grid file: the
// *Error returned by Parse and ParseFile, and the error of WithRepetitions.
var ErrInvalid = errors.New("grid: invalid grid file")

// Diagnostic is one problem found in a grid file.
type Diagnostic struct {
	Filename string // as given to Parse or ParseFile
	Line     int    // 1-based line of the offending token
	Column   int    // 1-based column (in characters) of the offending token
	// Field is the dotted path of the offending setting inside its sweep,
	// e.g. "missingness.rate", "learner.tree", "seed"; "syntax" for HCL
	// syntax errors, "sweep" for problems with the sweep block itself and
	// "limit" for a file past one of the input limits (MaxDepth, ...).
	Field   string
	Message string
}

// String formats the diagnostic as "file:line:column: field: message".
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s:%d:%d: %s: %s", d.Filename, d.Line, d.Column, d.Field, d.Message)
}

// Error is the error returned for an invalid grid file. It lists every
// problem found, sorted by position, and wraps ErrInvalid.
type Error struct {
	Diagnostics []Diagnostic
}

// Error returns one diagnostic per line.
func (e *Error) Error() string {
	lines := make([]string, len(e.Diagnostics))
	for i, d := range e.Diagnostics {
		lines[i] = d.String()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns ErrInvalid so that errors.Is(err, ErrInvalid) holds.
func (e *Error) Unwrap() error { return ErrInvalid }

// diags accumulates diagnostics, dropping exact repeats (the cross product
// can hit the same bad element many times).
type diags struct {
	list []Diagnostic
	seen map[Diagnostic]bool
}

func (ds *diags) add(rng hcl.Range, field, format string, a ...any) {
	d := Diagnostic{Filename: rng.Filename, Line: rng.Start.Line, Column: rng.Start.Column,
		Field: field, Message: fmt.Sprintf(format, a...)}
	if ds.seen == nil {
		ds.seen = map[Diagnostic]bool{}
	}
	if ds.seen[d] {
		return
	}
	ds.seen[d] = true
	ds.list = append(ds.list, d)
}

// addHCL converts diagnostics produced by the HCL library.
func (ds *diags) addHCL(hd hcl.Diagnostics, field string, fallback hcl.Range) {
	for _, d := range hd {
		if d.Severity != hcl.DiagError {
			continue
		}
		rng := fallback
		if d.Subject != nil {
			rng = *d.Subject
		}
		msg := d.Summary
		if d.Detail != "" {
			msg += "; " + d.Detail
		}
		ds.add(rng, field, "%s", msg)
	}
}

// err returns nil when no diagnostic was recorded, else an *Error with the
// diagnostics sorted by position (stable for equal positions).
func (ds *diags) err() error {
	if len(ds.list) == 0 {
		return nil
	}
	out := slices.Clone(ds.list)
	slices.SortStableFunc(out, func(a, b Diagnostic) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	return &Error{Diagnostics: out}
}
