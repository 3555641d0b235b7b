package grid

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var testOpts = ParseOptions{}

// expectedErrors returns the "# error: " comment lines of a bad file.
func expectedErrors(t *testing.T, src []byte) string {
	t.Helper()
	var want []string
	for _, line := range strings.Split(string(src), "\n") {
		if rest, ok := strings.CutPrefix(line, "# error: "); ok {
			want = append(want, rest)
		}
	}
	if len(want) == 0 {
		t.Fatal("bad file has no '# error: ' line")
	}
	return strings.Join(want, "\n")
}

// TestBadFiles parses every testdata/*.bad.hcl and compares the error
// text, line by line, with the file's "# error: " comments.
func TestBadFiles(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*.bad.hcl")
	if len(paths) == 0 {
		t.Fatal("no bad files")
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := expectedErrors(t, src)
			_, err = ParseFile(path, testOpts)
			if err == nil {
				t.Fatal("parsed without error")
			}
			var ge *Error
			if !errors.Is(err, ErrInvalid) || !errors.As(err, &ge) {
				t.Errorf("error %T does not wrap ErrInvalid as *Error", err)
			}
			if got := err.Error(); got != want {
				t.Errorf("errors differ\n--- got:\n%s\n--- want:\n%s", got, want)
			}
		})
	}
}

// golden is the expectation stored next to a good file.
type golden struct {
	Sweeps []struct {
		Name        string   `json:"name"`
		Seed        uint64   `json:"seed"`
		Repetitions int      `json:"repetitions"`
		Jobs        int      `json:"jobs"`
		Scenarios   []string `json:"scenarios"` // sim.Scenario.Canonical, in order
		Pipelines   []string `json:"pipelines"` // Pipeline.Canonical, in order
	} `json:"sweeps"`
}

// TestGoodFiles parses every testdata/*.good.hcl and compares the
// expansion with the hand-written *.good.json next to it.
func TestGoodFiles(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*.good.hcl")
	if len(paths) == 0 {
		t.Fatal("no good files")
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := ParseFile(path, testOpts)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(strings.TrimSuffix(path, ".hcl") + ".json")
			if err != nil {
				t.Fatal(err)
			}
			var want golden
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			if len(f.Sweeps) != len(want.Sweeps) {
				t.Fatalf("%d sweeps, want %d", len(f.Sweeps), len(want.Sweeps))
			}
			for i, w := range want.Sweeps {
				s := f.Sweeps[i]
				if s.Name != w.Name || s.Seed != w.Seed || s.Repetitions != w.Repetitions || s.Jobs() != w.Jobs {
					t.Errorf("sweep %d: name %q seed %d reps %d jobs %d, want %q %d %d %d",
						i, s.Name, s.Seed, s.Repetitions, s.Jobs(), w.Name, w.Seed, w.Repetitions, w.Jobs)
				}
				var scen, pipes []string
				for _, sc := range s.Scenarios {
					scen = append(scen, sc.Canonical())
				}
				for _, p := range s.Pipelines {
					pipes = append(pipes, p.Canonical())
				}
				diffLists(t, s.Name+" scenarios", scen, w.Scenarios)
				diffLists(t, s.Name+" pipelines", pipes, w.Pipelines)
			}
		})
	}
}

func diffLists(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") == strings.Join(want, "\n") {
		return
	}
	t.Errorf("%s differ\n--- got:\n%s\n--- want:\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
}
