package experiment

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/ampute"
	"github.com/misslab/misslab/internal/sim"
	"github.com/misslab/misslab/internal/split"
	"github.com/misslab/misslab/internal/table"
)

// Stream purposes of a table job's amputation: the model's random
// weights are drawn from the training rows' fit stream; each set's
// masks from its own stream.
const (
	purposeAmputeFit   = "ampute/fit"
	purposeAmputeTrain = "ampute/train"
	purposeAmputeTest  = "ampute/test"
)

// tableData splits a table job's design by its repetition's folds and
// amputes it: the amputation model is fitted on the training rows only.
func tableData(job Job) (dataset, error) {
	d, ref := job.Design, job.Scenario.Table
	if d == nil {
		return dataset{}, fmt.Errorf("table %s: the job carries no design matrix", ref.Name)
	}
	if job.Fold < 0 || job.Fold >= ref.Units() {
		return dataset{}, fmt.Errorf("table %s: fold %d outside [0, %d)", ref.Name, job.Fold, ref.Units())
	}
	trRows, teRows := split.Rows(assignRows(job, d), job.Fold)
	data := dataset{train: pick(d.X, trRows), test: pick(d.X, teRows), trainY: pickY(d.Y, trRows), testY: pickY(d.Y, teRows),
		key: job.Scenario.Canonical(), unit: job.Rep*ref.Units() + job.Fold, classes: len(d.Classes)}
	if data.classes > 0 {
		return data, amputeUnlessNone(job, d, &data)
	}
	data.variance = popVariance(data.testY)
	if !(data.variance > 0) {
		return dataset{}, fmt.Errorf("table %s, repetition %d, fold %d: the %d test targets are constant, so R² is undefined",
			ref.Name, job.Rep, job.Fold, len(data.testY))
	}
	if job.Scenario.Mechanism == sim.None {
		return data, nil
	}
	return data, amputeData(job, d, &data)
}

// amputeData fits the scenario's amputation on data.train and applies it
// to both sets, keeping the amputed numeric entries' truth.
func amputeData(job Job, d *table.Design, data *dataset) error {
	sc := job.Scenario
	spec := ampute.Spec{Mechanism: ampute.Mechanism(sc.Mechanism), Rate: sc.Rate, Amputed: sc.Columns}
	ztr, zte := naGroups(data.train, d), naGroups(data.test, d)
	m, err := ampute.Fit(ztr, d.Groups, spec, sim.Stream(job.Seed, data.key, data.unit, purposeAmputeFit))
	if err != nil {
		return fmt.Errorf("amputation: %w", err)
	}
	mtr, err := m.Apply(ztr, sim.Stream(job.Seed, data.key, data.unit, purposeAmputeTrain))
	if err != nil {
		return fmt.Errorf("amputation: %w", err)
	}
	mte, err := m.Apply(zte, sim.Stream(job.Seed, data.key, data.unit, purposeAmputeTest))
	if err != nil {
		return fmt.Errorf("amputation: %w", err)
	}
	t := &truth{train: data.train, test: data.test}
	numeric := make([]bool, len(d.Labels))
	for f, g := range d.Groups {
		numeric[g[0]] = !d.Categorical[f]
	}
	t.sd = columnSD(data.train, numeric)
	data.train, t.knownTrain = applyMask(data.train, mtr, d)
	data.test, t.knownTest = applyMask(data.test, mte, d)
	data.truth = t
	return nil
}

// naGroups returns X with a categorical feature's whole group NaN where
// its NA level is set, so that amputation sees the natural NA of every
// feature alike (X itself when the design has no categorical feature).
func naGroups(X *mat.Dense, d *table.Design) *mat.Dense {
	cat := false
	for _, c := range d.Categorical {
		cat = cat || c
	}
	if !cat {
		return X
	}
	Z := mat.DenseCopyOf(X)
	n, _ := Z.Dims()
	for f, g := range d.Groups {
		if !d.Categorical[f] {
			continue
		}
		naCol := g[len(g)-1]
		for i := range n {
			if Z.At(i, naCol) == 1 {
				for _, c := range g {
					Z.Set(i, c, math.NaN())
				}
			}
		}
	}
	return Z
}

// applyMask returns a copy of X with the amputed entries made NA: NaN
// for a numeric feature, the explicit NA level for a categorical one;
// known marks the amputed numeric entries (row-major).
func applyMask(X *mat.Dense, m *ampute.Mask, d *table.Design) (*mat.Dense, []bool) {
	out := mat.DenseCopyOf(X)
	n, p := out.Dims()
	known := make([]bool, n*p)
	for i := range n {
		row := out.RawRowView(i)
		for f, g := range d.Groups {
			if !m.Amputed(i, f) {
				continue
			}
			if !d.Categorical[f] {
				row[g[0]] = math.NaN()
				known[i*p+g[0]] = true
				continue
			}
			for _, c := range g {
				row[c] = 0
			}
			row[g[len(g)-1]] = 1
		}
	}
	return out, known
}

// pick returns the listed rows of X, in order.
func pick(X *mat.Dense, rows []int) *mat.Dense {
	_, p := X.Dims()
	data := make([]float64, 0, len(rows)*p)
	for _, i := range rows {
		data = append(data, X.RawRowView(i)...)
	}
	return mat.NewDense(len(rows), p, data)
}

// pickY returns the listed entries of y, in order.
func pickY(y []float64, rows []int) []float64 {
	out := make([]float64, len(rows))
	for k, i := range rows {
		out[k] = y[i]
	}
	return out
}

// popVariance returns the variance of y with divisor n (two passes).
func popVariance(y []float64) float64 {
	if len(y) == 0 {
		return math.NaN()
	}
	var m float64
	for _, v := range y {
		m += v
	}
	m /= float64(len(y))
	var s float64
	for _, v := range y {
		s += (v - m) * (v - m)
	}
	return s / float64(len(y))
}

// assignRows returns the folds of the job's repetition: stratified by
// class for a classification design (split.AssignStratified).
func assignRows(job Job, d *table.Design) []int {
	if d.Classes == nil {
		return split.Assign(job.Seed, job.Scenario.Table, job.Rep, len(d.Y))
	}
	classes := make([]int, len(d.Y))
	for i, y := range d.Y {
		classes[i] = int(y)
	}
	return split.AssignStratified(job.Seed, job.Scenario.Table, job.Rep, classes)
}

// amputeUnlessNone amputes the job's data unless its mechanism is none.
func amputeUnlessNone(job Job, d *table.Design, data *dataset) error {
	if job.Scenario.Mechanism == sim.None {
		return nil
	}
	return amputeData(job, d, data)
}
