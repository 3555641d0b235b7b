package store

import "time"

// The record types of the store: what it keeps, in its own terms. They
// mirror the grid's sweeps, scenarios and pipelines field by field but
// belong to the store alone, so that no change to a domain type can
// change a byte on disk: internal/storeconv converts between the two, and
// codec.go between these types and the messages of
// proto/misslab/store/v1 that are written.

// SweepRecord is what the store keeps about a submitted sweep.
type SweepRecord struct {
	ID        string    // the sweep id: 64 lowercase hex digits, the key of its record
	Spec      *Sweep    // never nil in a stored record
	Cancelled bool      // a later submit of the same sweep undoes it
	Submitted time.Time // when it was first stored (UTC, nanosecond precision)
}

// Sweep is a sweep as stored: what its results' keys are derived from.
// A job is a (scenario, unit) pair, where a unit is a repetition of
// simulated data or one fold of a repetition's split of a table.
type Sweep struct {
	Name        string // label from the grid file; not part of any identity
	Seed        uint64 // grid seed
	Repetitions int    // ≥ 1
	Scenarios   []Scenario
	Pipelines   []Pipeline
}

// Units returns the jobs of one scenario and repetition: the folds of a
// table sweep's K-fold split, else 1.
func (s *Sweep) Units() int {
	if len(s.Scenarios) == 0 {
		return 1
	}
	return s.Scenarios[0].Units()
}

// UnitCount returns the units of the whole sweep per scenario:
// repetitions × Units().
func (s *Sweep) UnitCount() int { return s.Repetitions * s.Units() }

// Jobs returns the number of jobs: scenarios × repetitions × units.
func (s *Sweep) Jobs() int { return len(s.Scenarios) * s.UnitCount() }

// Job returns the scenario index and unit of job i in [0, Jobs()): jobs
// are numbered unit-major, as the grid numbers them.
func (s *Sweep) Job(i int) (scenario, unit int) {
	return i % len(s.Scenarios), i / len(s.Scenarios)
}

// Fold splits a unit into its repetition and fold (fold 0 for simulated
// data and hold-out splits).
func (s *Sweep) Fold(unit int) (rep, fold int) {
	k := s.Units()
	return unit / k, unit % k
}

// Scenario is a data-generating process and its missingness, or a table
// with its split and amputation (Table set).
type Scenario struct {
	Model         string  // a simulation model, or "table"
	D             int     // covariates
	Rho, Noise    float64 // equicorrelation; noise standard deviation
	NTrain, NTest int     // sample sizes of simulated data
	Mechanism     string  // missing-data mechanism
	Rate          float64 // missing rate
	Columns       []int   // 0-based covariates that may be missing
	Eta           float64 // P(W = 0) of the prop2 model, else 0
	Table         *Table  // the table read, nil for simulated data
	// Task is "" or "regression", "binary" or "multiclass"; Scale and
	// Threshold are a simulated binary task's logistic link, else 0.
	Task             string
	Scale, Threshold float64
}

// Units returns how many jobs one repetition of the scenario makes.
func (sc Scenario) Units() int {
	if sc.Table == nil || sc.Table.Folds < 2 {
		return 1
	}
	return sc.Table.Folds
}

// Table is a user's table as a sweep reads it.
type Table struct {
	SHA256, Format, Name, Target string
	Drop, Categorical, NA        []string
	Folds                        int     // K ≥ 2 for K-fold cross-validation, 0 for a hold-out
	TestFraction                 float64 // the hold-out's test share, 0 for K-fold
	Features                     []string
}

// Pipeline is a pipeline as stored: its name, the grid's setting
// overrides (sorted by key; not the resolved values) and the external
// methods it names.
type Pipeline struct {
	Name     string
	Settings []Setting
	Methods  []Method // learner first
}

// Setting is one setting override.
type Setting struct {
	Key   string
	Value float64
}

// Method is an external method's identity as a pipeline names it.
type Method struct {
	Name, Kind     string // Kind is "learner" or "imputer"
	AcceptsMissing bool
	ID             string // lowercase hex SHA-256; empty while unbound
	// Tasks are a learner's declared tasks in canonical form ("" for
	// regression only, the default; see methodid.Tasks).
	Tasks string
}

// Result is the stored outcome of one pipeline on one job. ErrKind is
// empty on success; otherwise the numbers are zero and ErrMsg says why.
//
// MAE is the mean absolute error on the test set, in the target's units.
// ImputeRMSETrain and ImputeRMSETest are the RMSE of the imputed values
// on the training and test sets (each column standardised by its training
// sd), NaN when not applicable (the pipeline does not impute, or no
// imputed entry has a known truth). A result stored by a misslab of
// schema 1 before it measured them reads back with MAE 0 (what a worker
// that does not measure it sent) and both imputation RMSEs NaN.
//
// The store keeps at most 4096 bytes of ErrMsg and 64 of ErrKind and
// Root.
type Result struct {
	R2, MSE                         float64
	FitSeconds, PredictSeconds      float64 // wall-clock seconds
	ErrKind, ErrMsg                 string
	Root                            string  // a tree's first split variable ("X1"), or empty
	RootThreshold                   float64 // its threshold
	MAE                             float64 // mean absolute error on the test set
	ImputeRMSETrain, ImputeRMSETest float64 // NaN: not applicable
	// Class holds a classification result's scores, nil for regression
	// (and for a failure); a classification result's R2, MSE and MAE are
	// NaN.
	Class *ClassScores
}

// ClassScores are the scores of a classification task's class
// probabilities on a test set (see internal/stats for their
// definitions). AUC and AUCHandTill are NaN when a class is absent from
// the test set.
type ClassScores struct {
	LogLoss, Brier, AUC, AUCHandTill, Accuracy, BalancedAccuracy, ECE float64
	// Reliability is the bins behind ECE, in order of their interval of
	// the top class probability (at most MaxCalibrationBins; nil when
	// not recorded).
	Reliability []CalibrationBin
}

// CalibrationBin sums the test rows whose top class probability falls in
// one bin: Count rows, Correct of them classified right, Confidence the
// sum of their top probabilities (so 0 ≤ Correct ≤ Count and
// 0 ≤ Confidence ≤ Count).
type CalibrationBin struct {
	Count, Correct uint64
	Confidence     float64
}

// MaxCalibrationBins bounds ClassScores.Reliability.
const MaxCalibrationBins = 100
