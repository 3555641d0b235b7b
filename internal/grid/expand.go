package grid

import (
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/misslab/misslab/internal/sim"
)

// axes holds the decoded lists of a sweep's data and missingness blocks.
// An absent attribute (set == false) takes the model's default from
// sim.Defaults.
type axes struct {
	model, mech         list[string]
	d, nTrain, nTest    list[int]
	rho, noise, rate    list[float64]
	eta                 list[float64] // Proposition 2's P(W = 0); model prop2 only
	task                string        // the sweep's one task: "" (regression) or sim.Binary
	scale, threshold    list[float64] // a binary task's logistic link; threshold unset: the median
	cols                columns
	dataAt, missAt, hdr hcl.Range // block headers, for defaults and combinations
}

// columns is the decoded missingness.columns attribute.
type columns struct {
	set, all bool
	vals     []int // 1-based as in the file, ascending
	rngs     []hcl.Range
	at       hcl.Range // the attribute's value
}

// decodeAxes reads the data and missingness blocks of sweep block b.
func (p *parser) decodeAxes(b *hclsyntax.Block) (*axes, bool) {
	data, miss := p.single(b.Body, "data"), p.single(b.Body, "missingness")
	if data == nil {
		p.ds.add(b.DefRange(), "data", `required block is missing: data { model = "quadratic" }`)
		return nil, false
	}
	ax := &axes{dataAt: data.DefRange(), missAt: data.DefRange(), hdr: b.DefRange()}
	p.check(data.Body, "data", dataSchema)
	at := data.Body.Attributes
	ok := true
	all := func(o bool) { ok = ok && o }
	if at["model"] == nil {
		p.ds.add(ax.dataAt, "data.model", "required attribute is missing (one of %s)", strings.Join(sim.Models, ", "))
		ok = false
	}
	ax.model, _ = decodeList(&p.ds, at["model"], "data.model", toString)
	all(p.known(&ax.model, "data.model", "model", sim.Models))
	var o bool
	ax.d, o = decodeList(&p.ds, at["d"], "data.d", toInt)
	all(o)
	ax.rho, o = decodeList(&p.ds, at["rho"], "data.rho", toFloat)
	all(o)
	ax.noise, o = decodeList(&p.ds, at["noise"], "data.noise", toFloat)
	all(o)
	ax.nTrain, o = decodeList(&p.ds, at["n_train"], "data.n_train", toInt)
	all(o)
	ax.nTest, o = decodeList(&p.ds, at["n_test"], "data.n_test", toInt)
	all(o)
	ax.eta, o = decodeList(&p.ds, at["eta"], "data.eta", toFloat)
	all(o)
	all(p.etaModels(ax))
	all(p.decodeTask(ax, at))
	if miss != nil {
		ax.missAt = miss.DefRange()
		p.check(miss.Body, "missingness", missSchema)
		at = miss.Body.Attributes
		ax.mech, o = decodeList(&p.ds, at["mechanism"], "missingness.mechanism", toString)
		all(o)
		all(p.known(&ax.mech, "missingness.mechanism", "mechanism", sim.Mechanisms))
		ax.rate, o = decodeList(&p.ds, at["rate"], "missingness.rate", toFloat)
		all(o)
		ax.cols, o = p.decodeColumns(at["columns"])
		all(o)
	}
	return ax, ok
}

// etaModels reports every model of the sweep other than prop2 when eta
// is set: η is a parameter of Proposition 2's model only.
func (p *parser) etaModels(ax *axes) bool {
	if !ax.eta.set {
		return true
	}
	ok := true
	for i, m := range ax.model.vals {
		if m != sim.Prop2 {
			p.ds.add(ax.model.rngs[i], "data.eta", "eta is only used by model %q; model %q has no eta (split the sweep)",
				sim.Prop2, m)
			ok = false
		}
	}
	return ok
}

// known reports and drops the values of *l that are not among names.
func (p *parser) known(l *list[string], field, what string, names []string) bool {
	ok := true
	vals, rngs := l.vals[:0:0], l.rngs[:0:0]
	for i, v := range l.vals {
		if !slices.Contains(names, v) {
			p.ds.add(l.rngs[i], field, "%s %q is unknown%s", what, v, hint(v, names))
			ok = false
			continue
		}
		vals, rngs = append(vals, v), append(rngs, l.rngs[i])
	}
	l.vals, l.rngs = vals, rngs
	return ok
}

// decodeColumns reads `columns = "all"` or a list of 1-based column numbers.
func (p *parser) decodeColumns(a *hclsyntax.Attribute) (columns, bool) {
	const field = "missingness.columns"
	if a == nil {
		return columns{}, true
	}
	if v, hd := a.Expr.Value(nil); !hd.HasErrors() && known(v) && v.Type() == cty.String {
		if v.AsString() != "all" {
			p.ds.add(a.Expr.Range(), field, `expected "all" or a list of 1-based column numbers, got %s`, show(v))
			return columns{}, false
		}
		return columns{set: true, all: true, at: a.Expr.Range()}, true
	}
	l, ok := decodeList(&p.ds, a, field, toInt)
	var idx []int // of the valid columns, sorted by column
	for i, c := range l.vals {
		if c < 1 {
			p.ds.add(l.rngs[i], field, "column %d does not exist: columns are numbered from 1 (X1)", c)
			ok = false
			continue
		}
		idx = append(idx, i)
	}
	slices.SortFunc(idx, func(i, j int) int { return l.vals[i] - l.vals[j] })
	c := columns{set: true, at: a.Expr.Range()}
	for _, i := range idx {
		c.vals = append(c.vals, l.vals[i])
		c.rngs = append(c.rngs, l.rngs[i])
	}
	return c, ok
}

// ignoresRho reports whether model has no Gaussian covariates, so that ρ
// is canonicalised to 0 (sim.Defaults documents ρ = 0.5 for the others).
func ignoresRho(def sim.Scenario) bool { return def.Rho == 0 }

// count returns the number of scenarios the axes expand to, saturating
// above MaxScenarios.
func (ax *axes) count() int {
	total := 0
	for _, m := range ax.model.vals {
		def, err := sim.Defaults(m)
		if err != nil {
			continue
		}
		n := mulSat(mulSat(lenOr(ax.d), lenOr(ax.noise)), mulSat(lenOr(ax.nTrain), lenOr(ax.nTest)))
		if m == sim.Prop2 {
			n = mulSat(n, lenOr(ax.eta))
		}
		if !ignoresRho(def) {
			n = mulSat(n, lenOr(ax.rho))
		}
		mechs := ax.mech.vals
		if !ax.mech.set {
			mechs = []string{def.Mechanism}
		}
		per := 0
		for _, mech := range mechs {
			if mech == sim.None {
				per++
			} else {
				per += lenOr(ax.rate)
			}
		}
		total += mulSat(n, per)
		if total > MaxScenarios {
			return MaxScenarios + 1
		}
	}
	return total
}

// mulSat multiplies two counts in [0, MaxScenarios+1], saturating there.
func mulSat(a, b int) int {
	if a == 0 || b == 0 {
		return 0
	}
	if a > (MaxScenarios+1)/b {
		return MaxScenarios + 1
	}
	return a * b
}

func lenOr[T comparable](l list[T]) int {
	if !l.set {
		return 1
	}
	return len(l.vals)
}

// scenarios decodes and expands the scenario cross product of sweep b.
func (p *parser) scenarios(b *hclsyntax.Block) ([]sim.Scenario, bool) {
	ax, ok := p.decodeAxes(b)
	if ax == nil {
		return nil, false
	}
	// Bad elements were reported and dropped: expanding the rest still
	// finds the errors that only show in combination.
	n := ax.count()
	if n > MaxScenarios {
		p.ds.add(ax.dataAt, "data", "the cross product has more than %d scenarios; split the sweep", MaxScenarios)
		return nil, false
	}
	if p.nScenarios += n; p.nScenarios > MaxFileScenarios {
		p.ds.add(ax.dataAt, "data", "the file's sweeps have more than %d scenarios in all; split the file", MaxFileScenarios)
		return nil, false
	}
	x := &expander{ds: &p.ds, ax: ax, ok: true}
	for i := range ax.model.vals {
		x.model(i)
	}
	return x.out, ok && x.ok
}
