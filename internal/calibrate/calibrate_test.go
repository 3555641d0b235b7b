package calibrate

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/misslab/misslab/internal/experiment"
	"github.com/misslab/misslab/internal/plan"
	"github.com/misslab/misslab/internal/sim"
)

// TestModelScalesOnlyLevels calibrates the default model on this machine
// and checks that each family's calibrated mean estimate over its
// pipelines (imputers aside) is what was measured, that only the levels
// moved (exponents, bends and the families not timed are as before, at
// every n), and that the base model is left as it was.
func TestModelScalesOnlyLevels(t *testing.T) {
	base := plan.DefaultCostModel()
	got, factors, err := Model(context.Background(), base, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(families(factors), timed()) {
		t.Fatalf("factors for %v, want %v", families(factors), timed())
	}
	sc, err := sim.Defaults(sim.Quadratic)
	if err != nil {
		t.Fatal(err)
	}
	est, count := map[string]float64{}, map[string]int{}
	for _, p := range experiment.Figure3Pipelines() {
		est[p.Learner()] += got.FitSeconds(p, plan.FitShape(sc, p)) - got.Strategies[p.Spec().Strategy].At(sc.NTrain)
		count[p.Learner()]++
	}
	fresh := plan.DefaultCostModel()
	for _, f := range factors {
		if r := f.Ratio(); !(r > 0.01 && r < 100) {
			t.Errorf("%s: measured %g s against %g s modelled: ratio %g is no machine's", f.Learner, f.Measured, f.Modelled, r)
		}
		if mean := est[f.Learner] / float64(count[f.Learner]); math.Abs(mean/f.Measured-1) > 1e-9 {
			t.Errorf("%s: calibrated mean estimate %g s, measured %g s", f.Learner, mean, f.Measured)
		}
		old, now := fresh.Learners[f.Learner], got.Learners[f.Learner]
		if old.Exponent != now.Exponent || !slices.Equal(old.Bends, now.Bends) {
			t.Errorf("%s: growth changed from %+v to %+v", f.Learner, old, now)
		}
		for _, n := range []int{300, 30000, 100000} {
			if r := now.At(n) / old.At(n); math.Abs(r/f.Ratio()-1) > 1e-9 {
				t.Errorf("%s at n = %d: scaled by %g, want %g", f.Learner, n, r, f.Ratio())
			}
		}
	}
	for name, law := range fresh.Learners {
		if !slices.Contains(timed(), name) && got.Learners[name].Seconds != law.Seconds {
			t.Errorf("%s was not timed but its level moved from %g to %g", name, law.Seconds, got.Learners[name].Seconds)
		}
		if base.Learners[name].Seconds != law.Seconds {
			t.Errorf("%s: the base model's level moved from %g to %g", name, law.Seconds, base.Learners[name].Seconds)
		}
	}
}

// families returns the learner of each factor.
func families(fs []Factor) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Learner)
	}
	return out
}

// timed returns the learner families of the timed pipelines, in order.
func timed() []string {
	var out []string
	for _, p := range experiment.Figure3Pipelines() {
		if l := p.Learner(); !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

func TestModelStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Model(ctx, plan.DefaultCostModel(), 3); !errors.Is(err, context.Canceled) {
		t.Fatalf("Model on a cancelled context: %v, want context.Canceled", err)
	}
}
