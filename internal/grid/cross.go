package grid

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/misslab/misslab/internal/sim"
)

// expander walks the cross product of a sweep's axes, model by model, and
// validates every scenario. Loops nest in the documented order (outermost
// first): model, d, rho, noise, n_train, n_test, eta, mechanism, rate,
// scale, threshold.
type expander struct {
	ds  *diags
	ax  *axes
	out []sim.Scenario
	ok  bool
}

// dim is one axis of the cross product for a given model.
type dim struct {
	name string // the parameter's name in sim's messages, e.g. "rho"
	n    int
	set  func(s *sim.Scenario, i int)
	rng  func(i int) (hcl.Range, bool) // false when the value is a default
}

func newDim[T comparable](name string, l list[T], def T, set func(*sim.Scenario, T)) dim {
	vals, rngs := l.vals, l.rngs
	if !l.set {
		vals, rngs = []T{def}, nil
	}
	return dim{name: name, n: len(vals),
		set: func(s *sim.Scenario, i int) { set(s, vals[i]) },
		rng: func(i int) (hcl.Range, bool) {
			if rngs == nil {
				return hcl.Range{}, false
			}
			return rngs[i], true
		}}
}

// Indices of the dims whose values interact with others.
const (
	dimMech = 6
	dimRate = 7
)

func (x *expander) dims(def sim.Scenario) []dim {
	ax, rho, eta := x.ax, x.ax.rho, x.ax.eta
	if ignoresRho(def) {
		rho = list[float64]{} // forced to the default 0
	}
	if def.Model != sim.Prop2 {
		eta = list[float64]{} // reported by etaModels; the default 0 finds other errors
	}
	return []dim{
		newDim("d", ax.d, def.D, func(s *sim.Scenario, v int) { s.D = v }),
		newDim("rho", rho, def.Rho, func(s *sim.Scenario, v float64) { s.Rho = v }),
		newDim("noise", ax.noise, def.Noise, func(s *sim.Scenario, v float64) { s.Noise = v }),
		newDim("n_train", ax.nTrain, def.NTrain, func(s *sim.Scenario, v int) { s.NTrain = v }),
		newDim("n_test", ax.nTest, def.NTest, func(s *sim.Scenario, v int) { s.NTest = v }),
		newDim("eta", eta, def.Eta, func(s *sim.Scenario, v float64) { s.Eta = v }),
		newDim("mechanism", ax.mech, def.Mechanism, func(s *sim.Scenario, v string) { s.Mechanism = v }),
		newDim("rate", ax.rate, def.Rate, func(s *sim.Scenario, v float64) { s.Rate = v }),
		newDim("scale", ax.scale, def.Scale, func(s *sim.Scenario, v float64) { s.Scale = v }),
		newDim("threshold", ax.threshold, def.Threshold, func(s *sim.Scenario, v float64) { s.Threshold = v }),
	}
}

// fieldOf maps a parameter name of sim's messages to the grid field.
var fieldOf = map[string]string{
	"model": "data.model", "d": "data.d", "rho": "data.rho", "noise": "data.noise",
	"n_train": "data.n_train", "n_test": "data.n_test", "mechanism": "missingness.mechanism",
	"rate": "missingness.rate", "columns": "missingness.columns", "eta": "data.eta",
	"scale": "data.scale", "threshold": "data.threshold", "task": "data.task",
}

// model expands every scenario of the i-th model.
func (x *expander) model(mi int) {
	m := x.ax.model.vals[mi]
	def, err := sim.Defaults(m)
	if err != nil {
		return // reported while decoding
	}
	def = x.ax.taskDefaults(def)
	dims := x.dims(def)
	for _, d := range dims {
		if d.n == 0 {
			return // every value of an axis was bad (and reported)
		}
	}
	idx := make([]int, len(dims))
	for {
		if s, keep := x.build(mi, def, dims, idx); keep {
			x.out = append(x.out, s)
		}
		k := len(idx) - 1
		for ; k >= 0; k-- {
			if idx[k]++; idx[k] < dims[k].n {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// build makes and validates the scenario at idx. Mechanism "none" has
// rate 0 and no columns whatever the file says, and only its first rate
// is kept; keep is false for the dropped duplicates and for invalid
// scenarios.
func (x *expander) build(mi int, def sim.Scenario, dims []dim, idx []int) (sim.Scenario, bool) {
	s := def
	for k, d := range dims {
		d.set(&s, idx[k])
	}
	x.ax.resolveThreshold(&s)
	if s.Mechanism == sim.None {
		if idx[dimRate] > 0 {
			return s, false
		}
		s.Rate = 0
	}
	colsOK := x.columns(mi, &s, def)
	switch {
	case s.Mechanism == sim.None:
		s.Columns = nil // no column goes missing: one identity for every columns setting
	case !colsOK:
		s.Columns = slices.Clone(def.Columns) // still look for other errors
	}
	if !x.validate(mi, &s, def, dims, idx) || !colsOK {
		x.ok = false
		return s, false
	}
	return s, true
}

// columns sets s.Columns (0-based) from the file's 1-based list, "all",
// or the model's default, checking the list against s.D.
func (x *expander) columns(mi int, s *sim.Scenario, def sim.Scenario) bool {
	c := x.ax.cols
	switch {
	case !c.set:
		s.Columns = slices.Clone(def.Columns)
	case c.all:
		s.Columns = make([]int, s.D)
		for i := range s.Columns {
			s.Columns[i] = i
		}
	default:
		s.Columns = make([]int, len(c.vals))
		ok := true
		for i, v := range c.vals {
			if v > s.D {
				x.ds.add(c.rngs[i], "missingness.columns",
					"column %d is outside 1..%d: model %q has d = %d (columns are 1-based: X1..X%d)",
					v, s.D, x.ax.model.vals[mi], s.D, s.D)
				ok = false
			}
			s.Columns[i] = v - 1
		}
		return ok
	}
	return true
}

// validate runs sim's validation and reports each bad parameter at the
// file element it came from. After a failure it resets the parameter to
// the model's default and validates again, so that one bad value does not
// hide another.
func (x *expander) validate(mi int, s *sim.Scenario, def sim.Scenario, dims []dim, idx []int) bool {
	tried := map[string]bool{}
	for {
		err := s.Validate()
		if err == nil {
			return len(tried) == 0
		}
		msg := strings.TrimPrefix(err.Error(), sim.ErrInvalid.Error()+": ")
		name := leadingName(msg)
		rng, field, known := x.locate(mi, name, dims, idx)
		if !known {
			msg += fmt.Sprintf(" (default of model %q)", x.ax.model.vals[mi])
		}
		x.ds.add(rng, field, "%s", msg)
		if tried[name] || !reset(s, name, def) {
			return false
		}
		tried[name] = true
	}
}

// leadingName returns the parameter name a sim message starts with.
func leadingName(msg string) string {
	end := strings.IndexFunc(msg, func(r rune) bool { return !(r == '_' || r >= 'a' && r <= 'z') })
	if end < 0 {
		return msg
	}
	return msg[:end]
}

// locate finds where the parameter of sim's message comes from in the
// file. known is false when the value is the model's default.
func (x *expander) locate(mi int, name string, dims []dim, idx []int) (rng hcl.Range, field string, known bool) {
	modelRng := x.ax.model.rngs[mi]
	field, ok := fieldOf[name]
	if !ok {
		return modelRng, "data", true // a combination sim does not attribute
	}
	for k, d := range dims {
		if d.name == name {
			if r, set := d.rng(idx[k]); set {
				return r, field, true
			}
			return modelRng, field, false
		}
	}
	if name == "columns" && x.ax.cols.set {
		return x.ax.cols.at, field, true
	}
	return modelRng, field, name == "model"
}

// reset restores parameter name of s to the model's default; false when
// the parameter cannot be reset.
func reset(s *sim.Scenario, name string, def sim.Scenario) bool {
	switch name {
	case "d":
		s.D = def.D
	case "rho":
		s.Rho = def.Rho
	case "noise":
		s.Noise = def.Noise
	case "n_train":
		s.NTrain = def.NTrain
	case "n_test":
		s.NTest = def.NTest
	case "mechanism":
		s.Mechanism, s.Rate = def.Mechanism, def.Rate
	case "rate":
		s.Rate = def.Rate
		if s.Mechanism == sim.None {
			s.Rate = 0
		}
	case "columns":
		s.Columns = slices.Clone(def.Columns)
	case "eta":
		s.Eta = def.Eta
	case "scale":
		s.Scale = def.Scale
	case "threshold":
		s.Threshold = def.Threshold
	default:
		return false
	}
	return true
}
