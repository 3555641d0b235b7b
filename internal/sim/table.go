package sim

import (
	"errors"
	"fmt"

	"slices"
	"strconv"
	"strings"
)

// Table is the model of a scenario whose data are a user's table rather
// than a simulated law: Scenario.Table names the table, how it is read
// and how its rows are split; Mechanism, Rate and Columns describe the
// amputation added on top of the table's own NA. Such a scenario has no
// population (no Var(Y), no Bayes predictor) and is not drawn by
// Generate: the experiment runner reads the table.
const Table = "table"

// Mechanisms a table scenario accepts. None, MCAR and MAR are as for
// simulated data, except that MAR's logistic model uses the feature
// columns that are never amputed; for tables MNAR is the logistic
// mechanism on every feature value (the amputed one included), whereas
// for simulated data MNAR is the paper's censoring. SelfMasking is the
// logistic link on each column's own value (Le Morvan et al.), and
// Censoring masks values above the training quantile (the paper's MNAR).
const (
	SelfMasking = "self-masking"
	Censoring   = "censoring"
)

// TableMechanisms lists the mechanisms of table scenarios in a stable order.
var TableMechanisms = []string{None, MCAR, MAR, MNAR, SelfMasking, Censoring}

// ErrNoPopulation is returned by Generate, Variance and the Bayes
// functions for a table scenario: a user's table has no known law.
var ErrNoPopulation = errors.New("sim: a table scenario has no simulated law")

// TableRef names a user's table as a data source and says how it is read
// and split. It is part of the scenario's identity except Name: renaming
// a file reuses stored results, editing it (a new SHA256) does not.
type TableRef struct {
	SHA256 string // hex SHA-256 of every byte of the file (64 lowercase hex digits)
	Format string // "csv" or "parquet"
	Name   string // the file's base name, for reports; not part of the identity
	Target string // the target column
	// Drop and Categorical list columns not read and columns read as
	// levels (one-hot encoded with an explicit NA level).
	Drop, Categorical []string
	NA                []string // CSV cells read as NA
	// Folds is K ≥ 2 for repeated K-fold cross-validation, 0 for a
	// repeated hold-out with TestFraction in (0, 1) of the rows in the
	// test set (then TestFraction is 0 for K-fold).
	Folds        int
	TestFraction float64
	// Features lists the feature columns in table order (every kept
	// column but the target); Scenario.D is its length and
	// Scenario.Columns indexes it.
	Features []string
}

// Table bounds: enough for any real table, small enough that a typo
// cannot ask for absurd work.
const (
	MaxFolds        = 1000
	maxTableNames   = 100_000
	maxNAStrings    = 64
	maxColumnName   = 1024
	tableHashLength = 64
)

// Units returns the evaluation units of one repetition: K for K-fold
// cross-validation, 1 for a hold-out split.
func (t *TableRef) Units() int {
	if t.Folds >= 2 {
		return t.Folds
	}
	return 1
}

// Units returns how many jobs one repetition of s makes: the folds of a
// table scenario's K-fold split, else 1.
func (s Scenario) Units() int {
	if s.Table == nil {
		return 1
	}
	return s.Table.Units()
}

// validateTable checks a table scenario; errors wrap ErrInvalid.
func (s Scenario) validateTable() error {
	t := s.Table
	if t == nil {
		return invalidf("model %q needs a table", Table)
	}
	if err := t.validate(); err != nil {
		return err
	}
	switch {
	case s.Model != Table:
		return invalidf("model %q with a table; a table scenario's model is %q", s.Model, Table)
	case s.D != len(t.Features):
		return invalidf("d = %d but the table has %d feature columns", s.D, len(t.Features))
	case s.Rho != 0 || s.Noise != 0 || s.Eta != 0 || s.NTrain != 0 || s.NTest != 0:
		return invalidf("rho, noise, eta, n_train and n_test are not used with a table; they must be 0")
	case !slices.Contains(TableMechanisms, s.Mechanism):
		return invalidf("mechanism %q is unknown for a table (known: %s)", s.Mechanism, strings.Join(TableMechanisms, ", "))
	case !(s.Rate >= 0 && s.Rate < 1):
		return invalidf("rate = %v outside [0, 1)", s.Rate)
	case s.Mechanism == None && (s.Rate != 0 || len(s.Columns) != 0):
		return invalidf("mechanism %q takes no rate and no columns", None)
	case s.Mechanism != None && !(s.Rate > 0):
		return invalidf("rate = %v with mechanism %q (must be in (0, 1))", s.Rate, s.Mechanism)
	case s.Task != "" && s.Task != Regression && s.Task != Binary && s.Task != Multiclass:
		return invalidf("task %q is unknown for a table (known: %s, %s, %s)", s.Task, Regression, Binary, Multiclass)
	case s.Scale != 0 || s.Threshold != 0:
		return invalidf("scale and threshold define a simulated binary task; a table's classes are its target's levels")
	}
	return s.validateTableColumns()
}

// validateTableColumns checks the amputed columns of a table scenario.
func (s Scenario) validateTableColumns() error {
	for i, c := range s.Columns {
		if c < 0 || c >= s.D {
			return invalidf("columns[%d] = %d outside [0, %d) (0-based)", i, c, s.D)
		}
		if i > 0 && c <= s.Columns[i-1] {
			return invalidf("columns must be strictly increasing, got %v", s.Columns)
		}
		if s.Mechanism == Censoring && slices.Contains(s.Table.Categorical, s.Table.Features[c]) {
			return invalidf("mechanism %q needs numeric columns; %q is categorical", Censoring, s.Table.Features[c])
		}
	}
	if s.Mechanism != None && len(s.Columns) == 0 {
		return invalidf("columns is empty but mechanism %q needs at least one column", s.Mechanism)
	}
	if s.Mechanism == MAR && len(s.Columns) == s.D {
		return invalidf("mechanism %q needs at least one feature column that is never amputed; columns covers all %d", MAR, s.D)
	}
	return nil
}

// validate checks a table reference on its own.
func (t *TableRef) validate() error {
	if !IsTableHash(t.SHA256) {
		return invalidf("table sha256 %q is not 64 lowercase hex digits", t.SHA256)
	}
	if t.Format != "csv" && t.Format != "parquet" {
		return invalidf("table format %q is unknown (known: csv, parquet)", t.Format)
	}
	if len(t.NA) > maxNAStrings {
		return invalidf("table na lists %d strings (at most %d)", len(t.NA), maxNAStrings)
	}
	if err := t.validateNames(); err != nil {
		return err
	}
	switch {
	case t.Folds >= 2 && t.Folds <= MaxFolds && t.TestFraction == 0:
	case t.Folds == 0 && t.TestFraction > 0 && t.TestFraction < 1:
	default:
		return invalidf("split: folds = %d, test_fraction = %v; want folds in [2, %d] or test_fraction in (0, 1), not both",
			t.Folds, t.TestFraction, MaxFolds)
	}
	return nil
}

// validateNames checks the column names of a table reference.
func (t *TableRef) validateNames() error {
	if t.Target == "" {
		return invalidf("table target is empty")
	}
	if len(t.Features) == 0 {
		return invalidf("the table has no feature column")
	}
	seen := map[string]string{}
	for _, l := range []struct {
		field string
		names []string
	}{{"target", []string{t.Target}}, {"drop", t.Drop}, {"features", t.Features}} {
		if len(l.names) > maxTableNames {
			return invalidf("table %s lists %d names (at most %d)", l.field, len(l.names), maxTableNames)
		}
		for _, n := range l.names {
			if len(n) > maxColumnName {
				return invalidf("table %s: a column name of %d bytes (at most %d)", l.field, len(n), maxColumnName)
			}
			if f, dup := seen[n]; dup {
				return invalidf("column %q is named in both %s and %s", n, f, l.field)
			}
			seen[n] = l.field
		}
	}
	for _, c := range t.Categorical {
		if seen[c] != "features" {
			return invalidf("categorical column %q is not a feature column", c)
		}
	}
	return nil
}

// IsTableHash reports whether h is a hex SHA-256 as misslab writes it:
// 64 lowercase hexadecimal digits (so it is safe as a file name).
func IsTableHash(h string) bool {
	if len(h) != tableHashLength {
		return false
	}
	for _, c := range h {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// canonicalTable appends the identity of a table scenario's source and
// split: every field but Name, strings quoted so that no name can
// collide with the separators.
func (t *TableRef) canonical(b *strings.Builder) {
	list := func(key string, v []string) {
		b.WriteString(";" + key + "=[")
		for i, s := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(s))
		}
		b.WriteByte(']')
	}
	b.WriteString(";table=" + t.SHA256 + ";format=" + t.Format + ";target=" + strconv.Quote(t.Target))
	list("drop", t.Drop)
	list("categorical", t.Categorical)
	list("na", t.NA)
	list("features", t.Features)
	if t.Folds >= 2 {
		b.WriteString(";folds=" + strconv.Itoa(t.Folds))
	} else {
		b.WriteString(";test_fraction=" + strconv.FormatFloat(t.TestFraction, 'g', -1, 64))
	}
}

// tableCanonical is Canonical for a table scenario.
func (s Scenario) tableCanonical() string {
	var b strings.Builder
	b.WriteString("model=" + Table)
	s.Table.canonical(&b)
	b.WriteString(";mechanism=" + s.Mechanism)
	b.WriteString(";rate=" + strconv.FormatFloat(s.Rate, 'g', -1, 64))
	b.WriteString(";columns=")
	for i, c := range s.Columns {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(c))
	}
	b.WriteString(s.taskCanonical())
	return b.String()
}

// invalidf formats an error wrapping ErrInvalid.
func invalidf(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, a...)...)
}

// noPopulation is the error of the population functions for a table.
func noPopulation(s Scenario) error {
	if s.Model != Table {
		return nil
	}
	return fmt.Errorf("%w (table %s)", ErrNoPopulation, s.Table.Name)
}
