package sim

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ErrInvalid is wrapped by every error that reports a bad scenario
// parameter. The message names the parameter and its allowed range.
var ErrInvalid = errors.New("sim: invalid scenario")

// Model names accepted in Scenario.Model.
const (
	// Quadratic is the paper's Model 1: Y = X1² + X2² + X3² + ε on Gaussian X.
	Quadratic = "quadratic"
	// Linear is Model 2: Y = Xβ + ε with β = (1, 2, −1, 3, −0.5, −1, 0.3, 1.7, 0.4, −0.3).
	Linear = "linear"
	// Friedman is Model 3: Y = 10 sin(πX1X2) + 20(X3−0.5)² + 10X4 + 5X5 + ε on Gaussian X.
	Friedman = "friedman"
	// Nonlinear is Model 4 with the paper's low-SNR coefficients
	// Y = sin(πX1X2) + 2(X3−0.5)² + X4 + 0.5X5 + ε, ten features driven
	// by a hidden U(−3, 0) variable plus N(0, 0.05²) feature noise.
	Nonlinear = "nonlinear"
	// NonlinearHigh is Model 4 with the high-SNR Friedman coefficients
	// (10, 20, 10, 5) used for the learning curves of the paper's Figure 5.
	NonlinearHigh = "nonlinear-high"
	// Example1 is the paper's Example 1: X1 ~ U(0,1), Y = X1² + ε.
	Example1 = "example1"
	// Example2 is Example 2: X1 = X2 ~ U(0,1), Y = X1 + X2² + ε, NA on X2.
	Example2 = "example2"
	// Example3 is Example 3: X1 ~ U(0,1), Y = X1·(1 + 2·M1) + ε.
	Example3 = "example3"
	// Prop1 is the setting of Proposition 1: Y = X1 ~ U(0,1), NA on X1.
	Prop1 = "prop1"
	// Prop2 is the setting of Proposition 2: Y = X1 ~ U(0,1),
	// X2 = X1·1{W=1} with P(W=0) = Eta, NA on X1.
	Prop2 = "prop2"
	// Stump is the appendix's variable-selection setting: X1, X2 iid N(0,1),
	// Y = 0.25·X1 + ε with ε ~ N(0,1).
	Stump = "stump"
)

// Mechanism names accepted in Scenario.Mechanism.
const (
	// None draws no missing values.
	None = "none"
	// MCAR masks each entry of the chosen columns independently with probability Rate.
	MCAR = "mcar"
	// MNAR is censoring: an entry is masked when it exceeds the empirical
	// (1−Rate) quantile of its own column in that data set.
	MNAR = "mnar"
	// Predictive draws MCAR masks and adds 2·M_j to Y for each chosen column.
	Predictive = "predictive"
	// MAR masks a column through a logistic link on the always-observed
	// columns, with the intercept calibrated so that the marginal rate is Rate.
	MAR = "mar"
)

// Models lists every model name in a stable order.
var Models = []string{Quadratic, Linear, Friedman, Nonlinear, NonlinearHigh,
	Example1, Example2, Example3, Prop1, Prop2, Stump}

// Mechanisms lists every mechanism name in a stable order.
var Mechanisms = []string{None, MCAR, MNAR, Predictive, MAR}

// Scenario fully describes one data-generating process and its missingness.
// Every field is explicit: use Defaults to obtain the paper's values for a
// model and override what differs. A Scenario is a value; its identity is
// Canonical().
type Scenario struct {
	Model string // one of Models
	// D is the number of covariates. Gaussian models need D ≥ the number of
	// covariates the target uses (quadratic 3, friedman 5, linear 10);
	// the nonlinear models and the toy settings fix D.
	D int
	// Rho is the equicorrelation of the Gaussian covariates:
	// Σ = Rho·11ᵀ + (1−Rho)·I, positive definite iff −1/(D−1) < Rho < 1.
	// Ignored (and canonicalised to 0) by models without Gaussian covariates.
	Rho float64
	// Noise is the standard deviation σ ≥ 0 of the additive noise ε on Y.
	Noise float64
	// NTrain and NTest are the training and test sample sizes (≥ 1 each).
	NTrain, NTest int
	// Mechanism is one of Mechanisms.
	Mechanism string
	// Rate is the missing rate p in [0, 1); it must be 0 for None.
	Rate float64
	// Columns lists the 0-based covariates that may be missing, strictly
	// increasing, each in [0, D).
	Columns []int
	// Eta is P(W = 0) in the Prop2 model, in [0, 1]; 0 for other models.
	Eta float64
	// Table is the user's table of a Table scenario, nil otherwise.
	Table *TableRef
	// Task is the prediction task: "" or Regression (the default), Binary
	// (simulated data through a logistic link, or a table whose target
	// has two levels) or Multiclass (a table's target with more). See
	// task.go.
	Task string
	// Scale and Threshold are a and c of a simulated binary task:
	// P(Y = 1 | X, M) = σ(a·(η(X, M) − c)); both 0 otherwise. The grid's
	// defaults are DefaultScale(model) and MedianThreshold.
	Scale, Threshold float64
}

// Defaults returns the paper's settings for model: ρ = 0.5, σ = 0.1,
// n_train = n_test = 1000, MCAR at 20% on the columns the paper uses
// (X1..X3 for the quadratic model, every column for models 2–4, the
// column named in the example for the toy settings). It returns an
// error wrapping ErrInvalid for an unknown model.
func Defaults(model string) (Scenario, error) {
	s := Scenario{Model: model, Rho: 0.5, Noise: 0.1, NTrain: 1000, NTest: 1000,
		Mechanism: MCAR, Rate: 0.2}
	switch model {
	case Quadratic:
		s.D, s.Columns = 9, []int{0, 1, 2}
	case Linear, Friedman, Nonlinear, NonlinearHigh:
		s.D, s.Columns = 10, seq(10)
	case Example1, Example3, Prop1:
		s.D, s.Columns, s.Rate = 1, []int{0}, 0.5
	case Example2:
		s.D, s.Columns, s.Rate = 2, []int{1}, 0.5
	case Prop2:
		s.D, s.Columns, s.Rate, s.Eta = 2, []int{0}, 0.2, 0.25
	case Stump:
		s.D, s.Columns, s.Noise = 2, []int{0}, 1
	default:
		return Scenario{}, fmt.Errorf("%w: model %q is unknown (known: %s)",
			ErrInvalid, model, strings.Join(Models, ", "))
	}
	if model == Prop1 || model == Prop2 {
		s.Noise = 0
	}
	if !gaussianCovariates(model) {
		s.Rho = 0
	}
	return s, nil
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// gaussianCovariates reports whether the model draws X ~ N(1, Σ(ρ)).
func gaussianCovariates(model string) bool {
	switch model {
	case Quadratic, Linear, Friedman:
		return true
	}
	return false
}

// fixedD returns the dimension a model imposes, or 0 when D is free.
func fixedD(model string) int {
	switch model {
	case Nonlinear, NonlinearHigh:
		return 10
	case Example1, Example3, Prop1:
		return 1
	case Example2, Prop2, Stump:
		return 2
	}
	return 0
}

// minD returns the smallest D a Gaussian model accepts.
func minD(model string) int {
	switch model {
	case Quadratic:
		return 3
	case Friedman:
		return 5
	case Linear:
		return len(linearBeta)
	}
	return fixedD(model)
}

// Validate checks every field and returns an error wrapping ErrInvalid
// that names the first bad parameter and its allowed range.
func (s Scenario) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, a...)...)
	}
	if s.Model == Table || s.Table != nil {
		return s.validateTable()
	}
	if !slices.Contains(Models, s.Model) {
		return bad("model %q is unknown (known: %s)", s.Model, strings.Join(Models, ", "))
	}
	if d := fixedD(s.Model); d > 0 && s.D != d {
		return bad("d = %d but model %q has exactly %d covariates", s.D, s.Model, d)
	}
	if m := minD(s.Model); s.D < m {
		return bad("d = %d is too small for model %q (need d ≥ %d)", s.D, s.Model, m)
	}
	if s.D > maxD {
		return bad("d = %d is too large (allowed 1..%d)", s.D, maxD)
	}
	if err := s.validateRho(); err != nil {
		return err
	}
	if !(s.Noise >= 0) || math.IsInf(s.Noise, 0) {
		return bad("noise = %v must be a finite standard deviation ≥ 0", s.Noise)
	}
	if err := s.validateTask(); err != nil {
		return err
	}
	if s.NTrain < 1 || s.NTrain > maxN {
		return bad("n_train = %d outside [1, %d]", s.NTrain, maxN)
	}
	if s.NTest < 1 || s.NTest > maxN {
		return bad("n_test = %d outside [1, %d]", s.NTest, maxN)
	}
	if s.Model == Prop2 {
		if !(s.Eta >= 0 && s.Eta <= 1) {
			return bad("eta = %v outside [0, 1]", s.Eta)
		}
	} else if s.Eta != 0 {
		return bad("eta = %v is only used by model %q; it must be 0 for %q", s.Eta, Prop2, s.Model)
	}
	return s.validateMissingness()
}

// maxD and maxN bound a scenario so that a typo cannot ask for terabytes.
const (
	maxD = 1000
	maxN = 50_000_000
)

func (s Scenario) validateRho() error {
	if !gaussianCovariates(s.Model) {
		if s.Rho != 0 {
			return fmt.Errorf("%w: rho = %v is only used by Gaussian-covariate models (%s, %s, %s); it must be 0 for %q",
				ErrInvalid, s.Rho, Quadratic, Linear, Friedman, s.Model)
		}
		return nil
	}
	lo := -1 / float64(s.D-1)
	if !(s.Rho > lo && s.Rho < 1) {
		return fmt.Errorf("%w: rho = %v makes Σ singular or indefinite for d = %d (need %.6g < rho < 1)",
			ErrInvalid, s.Rho, s.D, lo)
	}
	return nil
}

func (s Scenario) validateMissingness() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, a...)...)
	}
	if !slices.Contains(Mechanisms, s.Mechanism) {
		return bad("mechanism %q is unknown (known: %s)", s.Mechanism, strings.Join(Mechanisms, ", "))
	}
	if !(s.Rate >= 0 && s.Rate < 1) {
		return bad("rate = %v outside [0, 1)", s.Rate)
	}
	if s.Mechanism == None && s.Rate != 0 {
		return bad("rate = %v with mechanism %q (must be 0)", s.Rate, None)
	}
	for i, c := range s.Columns {
		if c < 0 || c >= s.D {
			return bad("columns[%d] = %d outside [0, %d) (0-based)", i, c, s.D)
		}
		if i > 0 && c <= s.Columns[i-1] {
			return bad("columns must be strictly increasing, got %v", s.Columns)
		}
	}
	if s.Mechanism != None && len(s.Columns) == 0 {
		return bad("columns is empty but mechanism %q needs at least one column", s.Mechanism)
	}
	if s.Mechanism == MAR {
		if !gaussianCovariates(s.Model) {
			return bad("mechanism %q needs Gaussian covariates (models %s, %s, %s), not %q",
				MAR, Quadratic, Linear, Friedman, s.Model)
		}
		if len(s.Columns) == s.D {
			return bad("mechanism %q needs at least one always-observed column; columns covers all %d", MAR, s.D)
		}
	}
	return s.validateToy()
}

// validateToy enforces the mechanism each theoretical example is defined with.
func (s Scenario) validateToy() error {
	switch s.Model {
	case Example3:
		if s.Mechanism != MCAR {
			return fmt.Errorf("%w: model %q defines its own MCAR mask; mechanism must be %q, not %q",
				ErrInvalid, s.Model, MCAR, s.Mechanism)
		}
	case Prop1, Prop2:
		if s.Mechanism != MCAR && s.Mechanism != None {
			return fmt.Errorf("%w: model %q is defined under MCAR; mechanism must be %q or %q, not %q",
				ErrInvalid, s.Model, MCAR, None, s.Mechanism)
		}
	}
	return nil
}

// Canonical returns the stable text encoding of s that identifies the
// scenario everywhere (seeds, job identity, result keys). Two scenarios
// are the same experiment if and only if their encodings are equal.
// Floats use the shortest round-trip representation.
func (s Scenario) Canonical() string {
	if s.Table != nil {
		return s.tableCanonical()
	}
	var b strings.Builder
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	b.WriteString("model=" + s.Model)
	b.WriteString(";d=" + strconv.Itoa(s.D))
	b.WriteString(";rho=" + f(s.Rho))
	b.WriteString(";noise=" + f(s.Noise))
	b.WriteString(";n_train=" + strconv.Itoa(s.NTrain))
	b.WriteString(";n_test=" + strconv.Itoa(s.NTest))
	b.WriteString(";mechanism=" + s.Mechanism)
	b.WriteString(";rate=" + f(s.Rate))
	b.WriteString(";columns=")
	for i, c := range s.Columns {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(c))
	}
	b.WriteString(";eta=" + f(s.Eta))
	b.WriteString(s.taskCanonical())
	return b.String()
}

// Population returns the canonical encoding of the parts of s that fix
// the joint law of (X, Y, M): everything but the sample sizes. Scenarios
// that differ only in n share their population quantities (Var(Y), the
// Bayes risk), which are cached under this key.
func (s Scenario) Population() string {
	t := s
	t.NTrain, t.NTest = 0, 0
	return t.Canonical()
}
