package fpclass

import (
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

// amd64Level returns the GOAMD64 level the test binary was built for
// (from its build settings, else $GOAMD64, else 1, Go's default).
func amd64Level(t *testing.T) int {
	t.Helper()
	v := os.Getenv("GOAMD64")
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "GOAMD64" {
				v = s.Value
			}
		}
	}
	if v == "" {
		return 1
	}
	n, err := strconv.Atoi(strings.TrimPrefix(v, "v"))
	if err != nil {
		t.Fatalf("GOAMD64=%q: %v", v, err)
	}
	return n
}
