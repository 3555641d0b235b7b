package methodid

import (
	"strings"
	"testing"
)

// TestCheckName: a lower-case letter, then letters, digits or _, at most
// 40 bytes; the error names the name.
func TestCheckName(t *testing.T) {
	cases := []struct {
		name string
		ok   bool
	}{
		{"hgb", true},
		{"rpart_2", true},
		{"a" + strings.Repeat("b", 39), true},
		{"a" + strings.Repeat("b", 40), false},
		{"", false},
		{"Hgb", false},
		{"2hgb", false},
		{"_hgb", false},
		{"hist-gb", false},
		{"hgb/mia", false},
		{"é", false},
	}
	for _, tc := range cases {
		err := CheckName(tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("CheckName(%q) = %v, want ok %v", tc.name, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), `method name "`+tc.name+`"`) {
			t.Errorf("CheckName(%q): %q does not name it", tc.name, err)
		}
	}
}

// TestExternal: only a method with a name is external.
func TestExternal(t *testing.T) {
	for m, want := range map[Method]bool{{}: false, {Name: "hgb"}: true, {Kind: Learner, ID: "aa"}: false} {
		if got := m.External(); got != want {
			t.Errorf("%+v.External() = %v, want %v", m, got, want)
		}
	}
}
