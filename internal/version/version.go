// Package version says which misslab a binary is: its version, the
// commit it was built from, the Go release, the platform and the
// floating-point class (internal/fpclass) that decides whether its scores
// can be mixed with another build's. `coordinator version`,
// `coordinator --version` and `worker --version` print Line.
package version

import (
	"fmt"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/misslab/misslab/internal/fpclass"
)

// Info is what a build knows of itself.
type Info struct {
	Version  string // the module's release ("v1.2.0"), or "devel" for a build from a work tree
	Commit   string // the VCS revision, "" when the build did not record one
	Modified bool   // the work tree had uncommitted changes
	Time     string // the commit's time (RFC 3339), "" when unknown
	Go       string // runtime.Version()
	Platform string // GOOS/GOARCH
	FPClass  string // fpclass.Current()
}

// Get reads this binary's build information (runtime/debug.ReadBuildInfo:
// the main module's version, vcs.revision, vcs.modified, vcs.time).
// `go build` in a git work tree records the commit; `go test` and `go
// run` record none, and a binary built outside version control neither.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return fromBuildInfo(bi)
}

func fromBuildInfo(bi *debug.BuildInfo) Info {
	in := Info{Version: "devel", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH, FPClass: fpclass.Current()}
	if bi == nil {
		return in
	}
	in.Version = release(bi.Main.Version)
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Commit = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		case "vcs.time":
			in.Time = s.Value
		}
	}
	return in
}

// pseudo matches a Go pseudo-version's tail (-yyyymmddhhmmss-abcdefabcdef),
// which the go command gives a build of an untagged commit.
var pseudo = regexp.MustCompile(`[-.]\d{14}-[0-9a-f]{12}$`)

// release returns a module version as a release, "devel" unless it is a
// tagged one: "(devel)", "" and pseudo-versions are builds of a work tree
// or an untagged commit, which the commit names better. A "+dirty"
// suffix is dropped (Modified says it).
func release(v string) string {
	v = strings.TrimSuffix(v, "+dirty")
	if v == "" || v == "(devel)" || pseudo.MatchString(v) {
		return "devel"
	}
	return v
}

// Line is the one-line form of Info:
//
//	misslab VERSION (commit COMMIT[, modified][, TIME]) GO GOOS/GOARCH, floating-point class CLASS
//
// say "misslab devel (commit 3771b5e1a2b3, modified, 2026-03-02T10:04:05Z)
// go1.26.8 linux/amd64, floating-point class amd64 go1.26.8 scores/1".
// COMMIT is the revision's first 12 hex digits, "unknown" when the build
// recorded none (go run, go test, a build outside git). The class is
// everything after "floating-point class ", as coordinator serve
// --fp-class and a refused worker's log write it.
func (in Info) Line() string {
	commit := "unknown"
	if in.Commit != "" {
		commit = in.Commit[:min(12, len(in.Commit))]
	}
	if in.Modified {
		commit += ", modified"
	}
	if in.Time != "" {
		commit += ", " + in.Time
	}
	return fmt.Sprintf("misslab %s (commit %s) %s %s, floating-point class %s", in.Version, commit, in.Go, in.Platform, in.FPClass)
}

// Line is Get().Line().
func Line() string { return Get().Line() }
