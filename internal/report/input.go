package report

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/misslab/misslab/internal/stats"
)

// ErrInput is wrapped by errors reporting an Input that cannot be drawn.
var ErrInput = errors.New("report: invalid input")

// Input is everything a report shows. Only Sweep and Records are
// required; every optional part left empty simply leaves its figures out.
type Input struct {
	Sweep   string // sweep name, shown in the page title
	SweepID string // optional identifier (e.g. a hash), shown under the title

	// Scenarios describes each scenario key of Records, in display order
	// (e.g. MCAR, MNAR, Predictive). A record whose scenario is not
	// listed is shown after the listed ones, titled by its key.
	Scenarios []Scenario

	// Jobs counts the sweep's jobs; a banner says when the sweep is
	// incomplete or had failures. The zero value shows no banner.
	Jobs Jobs
	// Failures are the runs or jobs that produced no score, listed (grouped
	// by message) in the failures section.
	Failures []Failure

	// Records are the per-repetition scores (stats.Validate must accept them).
	Records []stats.Record
	// Family maps a pipeline to its learner family; nil means
	// stats.PrefixGroup("/") ("tree/mia" → "tree"). Within a family, a
	// pipeline is labelled by the part after "family/".
	Family stats.GroupFunc

	// Task says what the records' scores are (Regression, the zero
	// value, or Classification: AUC and log-loss; see Task).
	Task Task
	// Calibration, for a classification report, holds each pipeline's
	// reliability bins per scenario, summed over its repetitions; it adds
	// the calibration diagrams and calibration.csv.
	Calibration []CalibrationCell

	// Curves, when Curves.Point is not nil, adds the learning-curve
	// figure (Point maps a scenario to its panel, e.g. the model, and its
	// training size; Bayes gives the Bayes-rate R² of a panel, or for
	// Classification the Bayes log-loss).
	Curves stats.CurveOptions

	// Choices are stump split choices for the variable-selection figure;
	// SelectionTarget is the variable whose selection frequency is drawn
	// ("X1" when empty).
	Choices         []stats.Choice
	SelectionTarget string

	// Theory, when not nil, adds the Proposition 1 and 2 figures.
	Theory *Theory

	// Impute, when not empty, adds the figure of prediction R² against
	// imputation RMSE (per repetition; the figure shows means).
	Impute []ImputePoint

	// Conf is the confidence level of the t-tests' intervals in
	// ttests.csv (default 0.95); Alpha the significance level marked on
	// the p-value heat maps (default 0.05).
	Conf, Alpha float64
}

// Scenario labels one scenario key.
type Scenario struct {
	Key   string // stats.Record.Scenario
	Title string // short title for panel headings, e.g. "MCAR"; Key when empty
	// Labels describe the scenario in captions and tables, in order,
	// e.g. {"model", "quadratic"}, {"mechanism", "mcar"}, {"rate", "0.2"},
	// {"rho", "0.5"}, {"n_train", "1000"}, {"d", "9"}.
	Labels []Label
	// RepsPlanned is the number of repetitions the sweep plans for this
	// scenario; 0 when unknown.
	RepsPlanned int
}

// Label is one name = value pair describing a scenario.
type Label struct{ Name, Value string }

// Jobs counts a sweep's jobs (a job is one repetition of one scenario).
type Jobs struct {
	Planned int // jobs in the sweep
	Done    int // jobs finished with stored results (including ones where some pipelines failed)
	Failed  int // jobs that gave up without results
}

// Failure is one failed run (Pipeline set) or job (Pipeline empty).
type Failure struct {
	Scenario string
	Rep      int
	Pipeline string
	Message  string
}

// Theory holds the optional simulated points drawn over the closed-form
// curves of Propositions 1 and 2.
type Theory struct {
	// Etas are the η of the Proposition 2 panels; default {0, 0.25, 0.75}
	// as in the paper.
	Etas   []float64
	Points []TheoryPoint
}

// TheoryPoint is one simulated value: for Prop 1 a split threshold at
// missing rate P (Strategy "mia" or "cart"); for Prop 2 the risk
// (test MSE) of a one-split tree at rate P and coupling Eta (Strategy
// "mia", "block", "prob" or "surrogate"; others are drawn unmatched).
type TheoryPoint struct {
	Prop     int // 1 or 2
	P, Eta   float64
	Strategy string
	Value    float64
}

// prepared is the validated input with defaults filled in.
type prepared struct {
	Input
	scen   []Scenario // every scenario of Records, display order
	title  map[string]string
	family stats.GroupFunc
	reps   map[string]int      // scenario → distinct repetitions with records
	pipes  map[string][]string // scenario → its pipelines, sorted
	score  score               // what the records' R2 field holds
}

func prepare(in Input) (*prepared, error) {
	if err := stats.Validate(in.Records); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	if err := checkCalibration(in.Calibration); err != nil {
		return nil, err
	}
	p := &prepared{Input: in, title: map[string]string{}, family: in.Family, score: scoreR2}
	switch in.Task {
	case Regression:
	case Classification:
		p.score = scoreAUC
	default:
		return nil, fmt.Errorf("%w: task %d", ErrInput, in.Task)
	}
	if p.family == nil {
		p.family = stats.PrefixGroup("/")
	}
	if p.Conf == 0 {
		p.Conf = 0.95
	}
	if p.Alpha == 0 {
		p.Alpha = 0.05
	}
	if !(p.Alpha > 0 && p.Alpha < 1) || !(p.Conf > 0 && p.Conf < 1) {
		return nil, fmt.Errorf("%w: Alpha %v and Conf %v must be in (0, 1)", ErrInput, p.Alpha, p.Conf)
	}
	if p.SelectionTarget == "" {
		p.SelectionTarget = "X1"
	}
	for _, s := range in.Scenarios {
		if _, dup := p.title[s.Key]; dup {
			return nil, fmt.Errorf("%w: scenario %q listed twice", ErrInput, s.Key)
		}
		if s.Title == "" {
			s.Title = s.Key
		}
		p.title[s.Key] = s.Title
		p.scen = append(p.scen, s)
	}
	p.reps, p.pipes = map[string]int{}, map[string][]string{}
	for _, g := range stats.GroupBy(in.Records, func(r stats.Record) string { return r.Scenario }) {
		seen := map[int]bool{}
		for _, r := range g.Records {
			seen[r.Rep] = true
		}
		p.reps[g.Key] = len(seen)
		p.pipes[g.Key] = stats.Pipelines(g.Records)
	}
	for _, k := range stats.Scenarios(in.Records) {
		if _, ok := p.title[k]; !ok {
			p.title[k] = k
			p.scen = append(p.scen, Scenario{Key: k, Title: k})
		}
	}
	return p, nil
}

// strategy is a pipeline's label within its family: the part after
// "family/", or the whole name.
func (p *prepared) strategy(pipeline string) string {
	f := p.family(pipeline)
	if s, ok := strings.CutPrefix(pipeline, f+"/"); ok && f != "" {
		return s
	}
	return pipeline
}

// knownFamilies orders misslab's learner families as the paper does;
// other families follow, sorted.
var knownFamilies = []string{"tree", "ctree", "forest", "boost", "svm", "knn", "linear", "bayes"}

// lineup returns the learner families present in the given scenarios
// (all scenarios when none is given), known families first, and per
// family its pipelines sorted by strategy label.
func (p *prepared) lineup(scen ...Scenario) ([]string, map[string][]string) {
	if len(scen) == 0 {
		scen = p.scen
	}
	var all []string
	for _, s := range scen {
		all = append(all, p.pipes[s.Key]...)
	}
	pls := map[string][]string{}
	var fams []string
	for _, pl := range sortedUnique(all) {
		f := p.family(pl)
		if pls[f] == nil {
			fams = append(fams, f)
		}
		pls[f] = append(pls[f], pl)
	}
	for _, l := range pls {
		slices.SortFunc(l, func(a, b string) int { return strings.Compare(p.strategy(a), p.strategy(b)) })
	}
	rank := func(f string) int {
		if i := slices.Index(knownFamilies, f); i >= 0 {
			return i
		}
		return len(knownFamilies)
	}
	slices.Sort(fams)
	slices.SortStableFunc(fams, func(a, b string) int { return rank(a) - rank(b) })
	return fams, pls
}

// repsText says how many repetitions of a scenario have results.
func (p *prepared) repsText(s Scenario) string {
	if s.RepsPlanned > 0 {
		return fmt.Sprintf("%d of %d repetitions", p.reps[s.Key], s.RepsPlanned)
	}
	return fmt.Sprintf("%d repetitions", p.reps[s.Key])
}

// describe is a scenario's labels as "name=value, …" (its key when unlabelled).
func describe(s Scenario) string {
	if len(s.Labels) == 0 {
		return s.Key
	}
	parts := make([]string, len(s.Labels))
	for i, l := range s.Labels {
		parts[i] = l.Name + "=" + l.Value
	}
	return strings.Join(parts, ", ")
}

func sortedUnique(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}
