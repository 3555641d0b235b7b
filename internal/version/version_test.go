package version

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/fpclass"
)

func TestLine(t *testing.T) {
	class := fpclass.Current()
	plat := runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
	vcs := func(rev, modified, time string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev},
			{Key: "vcs.modified", Value: modified}, {Key: "vcs.time", Value: time}}
	}
	cases := []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "misslab devel (commit unknown) " + plat + ", floating-point class " + class},
		{"go test", &debug.BuildInfo{Main: debug.Module{Path: "github.com/misslab/misslab", Version: "(devel)"}},
			"misslab devel (commit unknown) " + plat + ", floating-point class " + class},
		{"work tree with changes", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260302100405-3771b5e1a2b3+dirty"},
			Settings: vcs("3771b5e1a2b3c4d5e6f708192a3b4c5d6e7f8091", "true", "2026-03-02T10:04:05Z")},
			"misslab devel (commit 3771b5e1a2b3, modified, 2026-03-02T10:04:05Z) " + plat + ", floating-point class " + class},
		{"tagged release", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"},
			Settings: vcs("3771b5e1a2b3c4d5e6f708192a3b4c5d6e7f8091", "false", "2026-03-02T10:04:05Z")},
			"misslab v1.2.0 (commit 3771b5e1a2b3, 2026-03-02T10:04:05Z) " + plat + ", floating-point class " + class},
		{"pseudo-version after a tag", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.1-0.20260302100405-3771b5e1a2b3"}},
			"misslab devel (commit unknown) " + plat + ", floating-point class " + class},
	}
	for _, c := range cases {
		if got := fromBuildInfo(c.bi).Line(); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
	if l := Line(); !strings.HasPrefix(l, "misslab ") || !strings.HasSuffix(l, "floating-point class "+class) {
		t.Errorf("Line() = %q", l)
	}
}
