package grid

import (
	"github.com/misslab/misslab/internal/sim"
)

// fitShape is a scenario's Shape before a pipeline's mask columns.
type fitShape struct {
	Shape
	maskable int // columns that get an indicator under "+mask"
}

// of returns the shape of pipeline p's fits: with its mask indicators.
func (f fitShape) of(p Pipeline) Shape {
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
func FitShape(sc sim.Scenario, p Pipeline) Shape {
	return scenarioShape(sc, nil).of(p)
}

// scenarioShape returns the shape of sc's fits: for a table sweep (tp
// not nil) one fold's training rows and the table's design columns, and
// as missing fraction the mean NA rate of the features (read by plan;
// unknown, so 0, for a sweep that arrived without its file) plus the
// amputation's share of the cells.
func scenarioShape(sc sim.Scenario, tp *TablePlan) fitShape {
	amputed := 0
	if sc.Mechanism != sim.None {
		amputed = len(sc.Columns)
	}
	if tp == nil {
		sh := fitShape{Shape: Shape{N: sc.NTrain, D: sc.D}, maskable: amputed}
		if sc.D > 0 {
			sh.Missing = sc.Rate * float64(amputed) / float64(sc.D)
		}
		return sh
	}
	sh := fitShape{Shape: Shape{N: tp.TrainRows, D: tp.Columns}, maskable: amputed}
	if tp.Features == 0 {
		return sh
	}
	amputedNames := map[string]bool{}
	for _, c := range sc.Columns {
		if sc.Mechanism != sim.None && c < len(sc.Table.Features) {
			amputedNames[sc.Table.Features[c]] = true
		}
	}
	na := 0.0
	if f := tp.File; f != nil {
		for _, c := range f.Columns {
			if c.Name == tp.Target {
				continue
			}
			na += c.NARate
			if c.NA > 0 && !amputedNames[c.Name] {
				sh.maskable++ // an incomplete column the amputation did not count
			}
		}
	}
	sh.Missing = min(1, (na+sc.Rate*float64(amputed))/float64(tp.Features))
	return sh
}
