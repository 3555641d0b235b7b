package reportgen

import (
	"strconv"
	"strings"

	"github.com/misslab/misslab/internal/report"
	"github.com/misslab/misslab/internal/sim"
)

// describer names the scenarios of one sweep. A short title shows only
// the parameters that differ between the sweep's scenarios (Figure 3's
// sweep gives "MCAR", "MNAR", "Predictive"); labels show every parameter
// a reader needs.
type describer struct {
	vary map[string]bool // parameter → takes several values in the sweep
}

// Parameters in title order (the grid's loop order, missingness last).
const (
	pModel   = "model"
	pD       = "d"
	pRho     = "rho"
	pNoise   = "noise"
	pNTrain  = "n_train"
	pNTest   = "n_test"
	pEta     = "eta"
	pMissing = "missing" // mechanism and rate
	pRate    = "rate"
	pColumns = "columns"
)

func newDescriber(scen []sim.Scenario) describer {
	values := map[string]map[string]bool{}
	see := func(param, v string) {
		if values[param] == nil {
			values[param] = map[string]bool{}
		}
		values[param][v] = true
	}
	for _, sc := range scen {
		see(pModel, sc.Model)
		see(pD, strconv.Itoa(sc.D))
		if gaussian(sc.Model) { // ρ is 0 by definition elsewhere: not a difference
			see(pRho, fmtF(sc.Rho))
		}
		see(pNoise, fmtF(sc.Noise))
		see(pNTrain, strconv.Itoa(sc.NTrain))
		see(pNTest, strconv.Itoa(sc.NTest))
		if sc.Model == sim.Prop2 {
			see(pEta, fmtF(sc.Eta))
		}
		see(pMissing, sc.Mechanism)
		if sc.Mechanism != sim.None {
			see(pRate, fmtF(sc.Rate))
			see(pColumns, columnsText(sc))
		}
	}
	d := describer{vary: map[string]bool{}}
	for param, vs := range values {
		d.vary[param] = len(vs) > 1
	}
	return d
}

// gaussian reports whether the model has Gaussian covariates (and so a ρ).
func gaussian(model string) bool {
	return model == sim.Quadratic || model == sim.Linear || model == sim.Friedman
}

// title is the scenario's short title: the varying parameters, e.g.
// "linear", "MCAR", "n=50 · MCAR 25%", "ρ=0.2 · MNAR"; model and
// missingness when nothing varies.
func (d describer) title(sc sim.Scenario) string {
	parts := d.parts(sc, false)
	if len(parts) == 0 {
		if sc.Table != nil {
			return sc.Table.Name + " · " + missingText(sc, true)
		}
		return sc.Model + " · " + missingText(sc, true)
	}
	return strings.Join(parts, " · ")
}

// panel is the learning-curve panel of the scenario: its title without
// the training size, always naming the model and the missingness, e.g.
// "linear · MCAR 40%".
func (d describer) panel(sc sim.Scenario) string {
	return strings.Join(d.parts(sc, true), " · ")
}

// parts lists the title's pieces in grid order. For a panel the
// training size is left out and model and missingness are always shown.
func (d describer) parts(sc sim.Scenario, panel bool) []string {
	var out []string
	add := func(param, text string) {
		if d.vary[param] {
			out = append(out, text)
		}
	}
	if panel {
		out = append(out, sc.Model)
	} else {
		add(pModel, sc.Model)
	}
	add(pD, "d="+strconv.Itoa(sc.D))
	if gaussian(sc.Model) {
		add(pRho, "ρ="+fmtF(sc.Rho))
	}
	add(pNoise, "σ="+fmtF(sc.Noise))
	if !panel {
		add(pNTrain, "n="+strconv.Itoa(sc.NTrain))
	}
	add(pNTest, "n_test="+strconv.Itoa(sc.NTest))
	if sc.Model == sim.Prop2 {
		add(pEta, "η="+fmtF(sc.Eta))
	}
	if panel || d.vary[pMissing] || d.vary[pRate] {
		out = append(out, missingText(sc, panel || d.vary[pRate]))
	}
	if sc.Mechanism != sim.None {
		add(pColumns, "NA on "+columnsText(sc))
	}
	return out
}

// labels describes every parameter of sc for the report's tables and
// captions, columns 1-based as in grid files. ρ is shown for models with
// Gaussian covariates, η for Proposition 2's model, σ and n_test when
// they differ from the model's defaults or between scenarios.
func (d describer) labels(sc sim.Scenario) []report.Label {
	if sc.Table != nil {
		return tableLabels(sc)
	}
	def, _ := sim.Defaults(sc.Model)
	ls := []report.Label{{Name: "model", Value: sc.Model}, {Name: "mechanism", Value: mechanismText(sc.Mechanism)}}
	if sc.Mechanism != sim.None {
		ls = append(ls, report.Label{Name: "rate", Value: percent(sc.Rate)},
			report.Label{Name: "columns", Value: columnsText(sc)})
	}
	if gaussian(sc.Model) {
		ls = append(ls, report.Label{Name: "rho", Value: fmtF(sc.Rho)})
	}
	ls = append(ls, report.Label{Name: "n_train", Value: strconv.Itoa(sc.NTrain)})
	if d.vary[pNTest] || sc.NTest != def.NTest {
		ls = append(ls, report.Label{Name: "n_test", Value: strconv.Itoa(sc.NTest)})
	}
	ls = append(ls, report.Label{Name: "d", Value: strconv.Itoa(sc.D)})
	if d.vary[pNoise] || sc.Noise != def.Noise {
		ls = append(ls, report.Label{Name: "noise", Value: fmtF(sc.Noise)})
	}
	if sc.Model == sim.Prop2 {
		ls = append(ls, report.Label{Name: "eta", Value: fmtF(sc.Eta)})
	}
	return ls
}

// missingText is "MCAR 20%" (or "MCAR" without the rate), "no NA" for
// mechanism none.
func missingText(sc sim.Scenario, withRate bool) string {
	if sc.Mechanism == sim.None {
		return "no NA"
	}
	t := mechanismText(sc.Mechanism)
	if withRate {
		t += " " + percent(sc.Rate)
	}
	return t
}

// mechanismText is the paper's name of a mechanism.
func mechanismText(m string) string {
	switch m {
	case sim.MCAR, sim.MNAR, sim.MAR:
		return strings.ToUpper(m)
	case sim.SelfMasking:
		return "self-masking"
	case sim.Censoring:
		return "censoring"
	case sim.Predictive:
		return "Predictive"
	}
	return m
}

// columnsText lists the maskable columns 1-based: "X1, X2, X3", or
// "all (X1–X10)" when every one of more than three columns is.
func columnsText(sc sim.Scenario) string {
	if len(sc.Columns) == 0 {
		return "none"
	}
	if sc.Table != nil {
		return tableColumnsText(sc)
	}
	if len(sc.Columns) == sc.D && sc.D > 3 {
		return "all (X1–X" + strconv.Itoa(sc.D) + ")"
	}
	names := make([]string, len(sc.Columns))
	for i, c := range sc.Columns {
		names[i] = "X" + strconv.Itoa(c+1)
	}
	return strings.Join(names, ", ")
}

// percent formats a rate in [0, 1) as a percentage, "20%", "12.5%".
func percent(rate float64) string {
	return strconv.FormatFloat(rate*100, 'g', 4, 64) + "%"
}

func fmtF(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
