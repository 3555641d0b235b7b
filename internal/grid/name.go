package grid

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// MaxNameBytes bounds a sweep's name (the label of its block in a grid
// file): 256 bytes.
const MaxNameBytes = 256

// CheckName checks a sweep's name, which logs, status lines and report
// directories show: at most MaxNameBytes bytes of UTF-8 text without
// control characters (it may be empty). Errors wrap ErrInvalid and name
// the field "name".
func CheckName(name string) error {
	if msg := nameProblem(name); msg != "" {
		return invalidField("name", "%s", msg)
	}
	return nil
}

// nameProblem says what is wrong with a sweep's name, or "".
func nameProblem(name string) string {
	switch {
	case len(name) > MaxNameBytes:
		return fmt.Sprintf("a name of %d bytes, longer than the %d allowed", len(name), MaxNameBytes)
	case !utf8.ValidString(name):
		return fmt.Sprintf("the name %.40q is not UTF-8 text", name)
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return fmt.Sprintf("the name %q holds the control character %U", name, r)
		}
	}
	return ""
}
