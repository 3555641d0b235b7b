package report

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/misslab/misslab/internal/stats"
)

// fixture builds a deterministic, paper-shaped Input from a fixed seed:
// three mechanisms of the quadratic model, learner families with their
// strategies, reps repetitions, a few failed runs, learning curves over
// three training sizes, stump choices and simulated theory points.
func fixture(reps int) Input {
	rng := rand.New(rand.NewPCG(20240611, 6))
	fams := []struct {
		name  string
		base  float64
		strat []string
	}{
		{"tree", 0.55, []string{"mia", "surrogate", "surrogate+mask", "mean", "mean+mask", "gaussian", "gaussian+mask", "oor", "oor+mask"}},
		{"forest", 0.72, []string{"mia", "mean", "mean+mask", "gaussian", "gaussian+mask", "oor", "oor+mask"}},
		{"svm", 0.60, []string{"mean", "mean+mask", "gaussian", "gaussian+mask", "oor", "oor+mask"}},
	}
	mechs := []struct{ key, title, mech string }{
		{"quadratic/mcar/0.2", "MCAR", "mcar"},
		{"quadratic/mnar/0.2", "MNAR", "mnar"},
		{"quadratic/predictive/0.2", "Predictive M", "predictive"},
	}
	in := Input{Sweep: "paper-exp1 <fixture>", SweepID: "sha256:0123abcd",
		Jobs: Jobs{Planned: 3 * (reps + 2), Done: 3 * reps, Failed: 1}}
	for mi, m := range mechs {
		in.Scenarios = append(in.Scenarios, Scenario{Key: m.key, Title: m.title, RepsPlanned: reps + 2,
			Labels: []Label{{"model", "quadratic"}, {"mechanism", m.mech}, {"rate", "0.2"},
				{"rho", "0.5"}, {"n_train", "1000"}, {"d", "9"}}})
		for rep := range reps {
			shared := 0.03 * rng.NormFloat64()
			for fi, f := range fams {
				for si, st := range f.strat {
					eff := 0.01*float64(si%4) - 0.02*float64(mi)*float64(si%3)
					if st == "oor" && f.name == "svm" {
						eff -= 0.25
					}
					r2 := f.base + eff + shared + 0.02*rng.NormFloat64()
					if rng.IntN(40) == 0 {
						r2 -= 0.3 * rng.ExpFloat64() // heavy left tail
					}
					rec := stats.Record{Scenario: m.key, Rep: rep, Pipeline: f.name + "/" + st,
						R2: r2, MSE: 4 * (1 - r2), FitSeconds: math.Exp(float64(fi) - 3 + 0.3*rng.NormFloat64()),
						PredictSeconds: math.Exp(float64(fi) - 7 + 0.3*rng.NormFloat64())}
					if mi == 1 && f.name == "svm" && st == "gaussian" && rep%7 == 3 {
						rec = stats.Record{Scenario: m.key, Rep: rep, Pipeline: rec.Pipeline, Failed: true}
						in.Failures = append(in.Failures, Failure{Scenario: m.key, Rep: rep, Pipeline: rec.Pipeline,
							Message: "impute: EM did not converge in 100 iterations"})
					}
					in.Records = append(in.Records, rec)
				}
			}
		}
	}
	in.Failures = append(in.Failures, Failure{Scenario: mechs[2].key, Rep: reps, Message: "worker lost <node-3> & lease expired"})
	return in
}

// curveFixture is a learning-curve sweep: two models × three sizes.
func curveFixture(reps int) Input {
	rng := rand.New(rand.NewPCG(7, 7))
	models := map[string]float64{"linear": 0.9, "friedman": 0.8}
	in := Input{Sweep: "paper-exp3", Jobs: Jobs{Planned: 6 * reps, Done: 6 * reps}}
	for _, model := range []string{"friedman", "linear"} {
		for _, n := range []int{300, 1000, 3000} {
			key := fmt.Sprintf("%s/mcar/0.4/n=%d", model, n)
			in.Scenarios = append(in.Scenarios, Scenario{Key: key, Title: fmt.Sprintf("%s n=%d", model, n),
				RepsPlanned: reps, Labels: []Label{{"model", model}, {"n_train", fmt.Sprint(n)}}})
			for rep := range reps {
				for _, pl := range []string{"tree/mia", "tree/mean", "tree/gaussian", "forest/mia", "forest/mean"} {
					gap := 0.5 / math.Sqrt(float64(n)) * 10
					if pl == "tree/gaussian" {
						gap /= 2
					}
					r2 := models[model] - gap + 0.02*rng.NormFloat64()
					in.Records = append(in.Records, stats.Record{Scenario: key, Rep: rep, Pipeline: pl,
						R2: r2, MSE: 1 - r2, FitSeconds: 0.01 * float64(n) / 300, PredictSeconds: 0.001})
				}
			}
		}
	}
	in.Curves = stats.CurveOptions{
		Point: func(s string) (string, int, bool) { // "model/mcar/rate/n=N"
			parts := strings.Split(s, "/")
			if len(parts) != 4 {
				return "", 0, false
			}
			n, err := strconv.Atoi(strings.TrimPrefix(parts[3], "n="))
			return parts[0], n, err == nil
		},
		Bayes: func(panel string, n int) (float64, bool) {
			v, ok := models[panel]
			return v, ok && panel == "linear"
		},
	}
	in.Choices = stumpChoices(rng)
	in.Theory = theoryPoints(rng)
	return in
}

// stumpChoices draws split choices: CART loses X1 as its missing rate
// grows, ctree does not (the appendix's finding).
func stumpChoices(rng *rand.Rand) []stats.Choice {
	var out []stats.Choice
	for _, g := range []string{"CART, NA on X1", "ctree, NA on X1"} {
		for _, rate := range []float64{0, 0.25, 0.5, 0.75} {
			for _, n := range []int{50, 100, 500, 1000} {
				pX1 := 0.5 + 0.45*(1-math.Exp(-float64(n)/300))*(1-rate)
				if g[0] == 'c' {
					pX1 = 0.5 + 0.45*(1-math.Exp(-float64(n)/300))
				}
				for range 40 {
					ch := "X2"
					switch u := rng.Float64(); {
					case u < 0.03:
						ch = ""
					case u < pX1:
						ch = "X1"
					}
					out = append(out, stats.Choice{Group: g, N: n, Rate: rate, Chosen: ch})
				}
			}
		}
	}
	return out
}

// theoryPoints are closed-form values plus noise, as a simulation would give.
func theoryPoints(rng *rand.Rand) *Theory {
	th := &Theory{}
	for _, p := range []float64{0.1, 0.3, 0.5, 0.7, 0.9} {
		s, _ := MIAThreshold(p)
		th.Points = append(th.Points, TheoryPoint{Prop: 1, P: p, Strategy: "mia", Value: s + 0.02*rng.NormFloat64()})
		for _, eta := range []float64{0, 0.25, 0.75} {
			th.Points = append(th.Points,
				TheoryPoint{Prop: 2, P: p, Eta: eta, Strategy: "mia", Value: RiskMIA(p, eta) + 0.002*rng.NormFloat64()},
				TheoryPoint{Prop: 2, P: p, Eta: eta, Strategy: "surrogate", Value: RiskSurrogate(p, eta) + 0.002*rng.NormFloat64()})
		}
	}
	return th
}
