package table

import (
	"errors"
	"fmt"
)

// The sentinel errors of this package. Every error returned by it wraps
// exactly one of them (and, when there is one, the underlying cause such as
// an *fs.PathError), so callers can branch with errors.Is.
var (
	// ErrFormat: the file cannot be read as a table: it cannot be opened
	// or read, its format is unknown, the CSV is malformed (an open quote,
	// a bare quote, a row with the wrong number of fields, no header) or
	// the Parquet file is damaged.
	ErrFormat = errors.New("table: unreadable table")
	// ErrColumn: a column is unusable as asked: an empty or duplicate
	// header name, a name in Drop or Categorical (of Options or Spec) the
	// file does not have or that is in both, a cell of a numeric column
	// that is not a finite number, a Parquet column type that has no
	// numeric or text reading, a categorical feature with fewer than two
	// levels, or no feature left.
	ErrColumn = errors.New("table: bad column")
	// ErrTarget: the Spec's target cannot be learned: unknown, dropped,
	// categorical, constant, or fewer than two rows where it is not NA.
	ErrTarget = errors.New("table: bad target")
)

// tableError carries a full message (which never repeats the sentinel's
// text) and unwraps to its sentinel and to the cause the message wraps.
type tableError struct {
	kind error
	err  error
}

func (e *tableError) Error() string   { return e.err.Error() }
func (e *tableError) Unwrap() []error { return []error{e.kind, e.err} }

// errorf formats a message like fmt.Errorf (so %w keeps a cause) and marks
// it with the sentinel kind.
func errorf(kind error, format string, a ...any) error {
	return &tableError{kind: kind, err: fmt.Errorf(format, a...)}
}
