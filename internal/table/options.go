package table

import (
	"fmt"
	"slices"

	"github.com/misslab/misslab/internal/suggest"
)

// checkHeader refuses empty and repeated column names.
func checkHeader(file string, names []string) error {
	first := make(map[string]int, len(names))
	for i, n := range names {
		if n == "" {
			return errorf(ErrColumn, "%s: column %d has no name in the header", file, i+1)
		}
		if j, ok := first[n]; ok {
			return errorf(ErrColumn, "%s: column name %q appears twice in the header (columns %d and %d)", file, n, j+1, i+1)
		}
		first[n] = i
	}
	return nil
}

// checkLists refuses names in drop or categorical that are not in names,
// and names in both lists.
func checkLists(file string, names, drop, categorical []string) error {
	for _, l := range []struct {
		what string
		list []string
	}{{"drop", drop}, {"categorical", categorical}} {
		for _, n := range l.list {
			if !slices.Contains(names, n) {
				return errorf(ErrColumn, "%s: %s names column %q, which the table does not have%s",
					file, l.what, n, suggest.Hint(n, names))
			}
		}
	}
	for _, n := range drop {
		if slices.Contains(categorical, n) {
			return errorf(ErrColumn, "%s: column %q is listed in both drop and categorical", file, n)
		}
	}
	return nil
}

// plan checks the header against opt and returns one builder per column
// in file order, nil for the dropped ones.
func plan(file string, names []string, opt Options) ([]*builder, error) {
	if err := checkHeader(file, names); err != nil {
		return nil, err
	}
	if err := checkLists(file, names, opt.Drop, opt.Categorical); err != nil {
		return nil, err
	}
	out := make([]*builder, len(names))
	for i, n := range names {
		switch {
		case slices.Contains(opt.Drop, n):
		case slices.Contains(opt.Categorical, n):
			out[i] = &builder{field: i, name: n, kind: Categorical, index: map[string]int32{}}
		default:
			out[i] = &builder{field: i, name: n, kind: Numeric}
		}
	}
	return out, nil
}

// naList returns opt.NA, or DefaultNA when it is nil.
func naList(opt Options) []string {
	if opt.NA == nil {
		return DefaultNA
	}
	return opt.NA
}

// quoteList formats names as `"a", "b" or "c"` for messages.
func quoteList(names []string) string {
	s := ""
	for i, n := range names {
		switch {
		case i == 0:
		case i == len(names)-1:
			s += " or "
		default:
			s += ", "
		}
		s += fmt.Sprintf("%q", n)
	}
	return s
}
