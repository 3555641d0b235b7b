package grid

import (
	"errors"
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/learn"
)

// TestLearnCheckSettingsAsHook wires the real learn.CheckSettings the way
// the CLI does and checks that a key the linear learner does not know is
// reported at the learner block while known keys pass.
func TestLearnCheckSettingsAsHook(t *testing.T) {
	opts := ParseOptions{ValidatePipeline: func(name string, s map[string]float64) error {
		return learn.CheckSettings(name, s)
	}}
	src := func(key string) string {
		return `sweep "s" {
  seed = 1
  repetitions = 1
  data { model = "linear" }
  pipelines { names = ["linear/mean"] }
  learner "linear" {
    ` + key + ` = 0
  }
}`
	}
	if _, err := Parse([]byte(src("lambda")), "ok.hcl", opts); err != nil {
		t.Fatalf("lambda rejected: %v", err)
	}
	_, err := Parse([]byte(src("bogus")), "bad.hcl", opts)
	if !errors.Is(err, ErrInvalid) || !strings.HasPrefix(err.Error(), "bad.hcl:6:3: learner.linear: ") ||
		!strings.Contains(err.Error(), `"bogus"`) {
		t.Errorf("err = %v", err)
	}
}
