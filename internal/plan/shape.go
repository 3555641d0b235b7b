package plan

import (
	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/sim"
)

// fitShape is a scenario's Shape before a pipeline's mask columns.
type fitShape struct {
	Shape
	maskable int // columns that get an indicator under "+mask"
}

// of returns the shape of pipeline p's fits: with its mask indicators.
func (f fitShape) of(p grid.Pipeline) Shape {
	sh := f.Shape
	if p.Spec().Mask {
		sh.D += f.maskable
	}
	return sh
}

// FitShape returns the shape of pipeline p's fits on simulated scenario
// sc: n_train rows; d covariates plus, for a "+mask" pipeline, one
// indicator per column that may be missing; the missing fraction
// rate·|columns|/d (0 without a mechanism).
func FitShape(sc sim.Scenario, p grid.Pipeline) Shape {
	return scenarioShape(sc, nil).of(p)
}

// scenarioShape returns the shape of sc's fits: n_train rows and d
// covariates for simulated data, and the amputation's share of the cells
// missing; for a table sweep (tp not nil) see tableShape.
func scenarioShape(sc sim.Scenario, tp *Table) fitShape {
	amputated := 0
	if sc.Mechanism != sim.None {
		amputated = len(sc.Columns)
	}
	if tp != nil {
		sh := tableShape(sc, tp, amputated)
		sh.Classes = tableClasses(sc, tp)
		return sh
	}
	sh := fitShape{Shape: Shape{N: sc.NTrain, D: sc.D}, maskable: amputated}
	if sim.IsClassification(sc.Task) {
		sh.Classes = 2 // a simulated classification is binary
	}
	if sc.D > 0 {
		sh.Missing = sc.Rate * float64(amputated) / float64(sc.D)
	}
	return sh
}

// tableShape is scenarioShape for a table sweep whose scenario sc
// amputates that many features: one fold's training rows, the table's
// design columns, and as missing fraction the mean NA rate of the
// features (read by plan; unknown, so 0, for a sweep that arrived
// without its file) plus the amputation's share of the cells. Every
// feature with NA or amputated gets a mask indicator.
func tableShape(sc sim.Scenario, tp *Table, amputated int) fitShape {
	sh := fitShape{Shape: Shape{N: tp.TrainRows, D: tp.Columns}, maskable: amputated}
	if tp.Features == 0 {
		return sh
	}
	isAmputated := map[string]bool{}
	for _, c := range sc.Columns[:amputated] {
		isAmputated[sc.Table.Features[c]] = true
	}
	na := 0.0
	if f := tp.File; f != nil {
		for _, c := range f.Columns {
			if c.Name == tp.Target {
				continue
			}
			na += c.NARate
			if c.NA > 0 && !isAmputated[c.Name] {
				sh.maskable++
			}
		}
	}
	sh.Missing = min(1, (na+sc.Rate*float64(amputated))/float64(tp.Features))
	return sh
}

// UnknownClasses is the number of classes plan assumes for a multiclass
// table sweep that arrived without its file.
const UnknownClasses = 3

// tableClasses is the number of classes of a table sweep's target: 0
// for regression, the target's levels when plan read the file.
func tableClasses(sc sim.Scenario, tp *Table) int {
	switch {
	case !sim.IsClassification(sc.Task):
		return 0
	case tp.File != nil && len(tp.File.Classes) >= 2:
		return len(tp.File.Classes)
	case sc.Task == sim.Binary:
		return 2
	}
	return UnknownClasses
}
