package reportgen

import (
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/methodid"
)

// TestMethodsInReports: external pipelines are labelled without their
// identities (keys, settings line), and the report names each method's
// identity once.
func TestMethodsInReports(t *testing.T) {
	hgb := methodid.Method{Name: "hgb", Kind: methodid.Learner, AcceptsMissing: true, ID: strings.Repeat("ab", 32)}
	mk := func(name string, s map[string]float64) grid.Pipeline {
		p, err := grid.NewPipelineWith(name, s, []methodid.Method{hgb})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	sw := &grid.Sweep{Pipelines: []grid.Pipeline{mk("hgb/native", map[string]float64{"max_iter": 50}),
		mk("hgb/native", map[string]float64{"max_iter": 100}), grid.MustPipeline("tree/mia", nil)}}
	keys := pipelineKeys(sw)
	if keys[0] != "hgb/native{max_iter=50}" || keys[1] != "hgb/native{max_iter=100}" || keys[2] != "tree/mia" {
		t.Errorf("keys %q", keys)
	}
	if got, want := methodsText(sw), "  ·  methods: hgb abababababababab"; got != want {
		t.Errorf("methodsText %q, want %q", got, want)
	}
	if got := settingsText(sw); strings.Contains(got, "@") || !strings.Contains(got, "max_iter=50") {
		t.Errorf("settingsText %q", got)
	}
	if got := methodsText(&grid.Sweep{Pipelines: []grid.Pipeline{grid.MustPipeline("tree/mia", nil)}}); got != "" {
		t.Errorf("built-in sweep: methodsText %q", got)
	}
}
