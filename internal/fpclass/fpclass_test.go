package fpclass

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

func TestName(t *testing.T) {
	cases := []struct {
		arch    string
		fused   bool
		version string
		want    string
	}{
		{"amd64", false, "go1.26.8", "amd64 go1.26.8"},
		{"amd64", true, "go1.26.8", "amd64+fma go1.26.8"},
		{"arm64", true, "go1.27.0", "arm64+fma go1.27.0"},
	}
	for _, c := range cases {
		if got := name(c.arch, c.fused, c.version); got != c.want {
			t.Errorf("name(%q, %v, %q) = %q, want %q", c.arch, c.fused, c.version, got, c.want)
		}
	}
}

// TestFusesMatchesBuild checks the probe against what the compiler is
// documented to do: never fuse on amd64 below v3 (the default, v1),
// always on arm64, and against math.FMA's exact answer.
func TestFusesMatchesBuild(t *testing.T) {
	fusedValue := math.FMA(probe.x, probe.y, probe.z)
	if fusedValue != -0x1p-60 || probe.x*probe.y != 1 {
		t.Fatalf("the probe does not separate the two roundings: fused %g", fusedValue)
	}
	got := fuses()
	if got != (mulAdd(probe.x, probe.y, probe.z) == fusedValue) {
		t.Fatalf("fuses() = %v disagrees with mulAdd = %g", got, mulAdd(probe.x, probe.y, probe.z))
	}
	switch runtime.GOARCH {
	case "arm64":
		if !got {
			t.Error("arm64 always fuses, but the probe saw no fusion")
		}
	case "amd64", "386":
		level := amd64Level(t)
		if want := runtime.GOARCH == "amd64" && level >= 3; got != want {
			t.Errorf("GOAMD64=v%d: fuses() = %v, want %v", level, got, want)
		}
	}
	p := Platform()
	if !strings.HasPrefix(p, runtime.GOARCH) || !strings.HasSuffix(p, runtime.Version()) {
		t.Errorf("Platform() = %q: want GOARCH first and the Go version last", p)
	}
	if c, want := Current(), p+" scores/"+strconv.Itoa(ScoreVersion); c != want {
		t.Errorf("Current() = %q, want %q: the platform, then the score version", c, want)
	}
}

func TestAccepts(t *testing.T) {
	cases := []struct {
		want, got string
		ok        bool
	}{
		{"amd64 go1.26.8", "amd64 go1.26.8", true},
		{"amd64 go1.26.8", "amd64+fma go1.26.8", false},
		{"amd64 go1.26.8", "amd64 go1.26.9", false},
		{"amd64 go1.26.8 scores/2", "amd64 go1.26.8 scores/1", false},
		{"amd64 go1.26.8", "", false},
		{Any, "arm64+fma go1.26.8", true},
		{Any, "", true},
	}
	for _, c := range cases {
		if ok := Accepts(c.want, c.got); ok != c.ok {
			t.Errorf("Accepts(%q, %q) = %v, want %v", c.want, c.got, ok, c.ok)
		}
	}
}

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
