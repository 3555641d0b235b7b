package grid

import (
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/misslab/misslab/internal/sim"
)

// tableColumns is a table sweep's missingness.columns: "all" or names.
type tableColumns struct {
	all  bool
	idx  []int // feature indices, ascending
	at   hcl.Range
	rngs []hcl.Range
}

// tableScenarios expands the missingness block of table sweep b (absent:
// the table as it is, mechanism "none") into scenarios of task on ref.
func (p *parser) tableScenarios(b *hclsyntax.Block, ref *sim.TableRef, task string) ([]sim.Scenario, bool) {
	base := sim.Scenario{Model: sim.Table, D: len(ref.Features), Mechanism: sim.None, Table: ref, Task: task}
	miss := p.single(b.Body, "missingness")
	if miss == nil {
		return []sim.Scenario{base}, true
	}
	p.check(miss.Body, "missingness", missSchema)
	at := miss.Body.Attributes
	mech, ok := decodeList(&p.ds, at["mechanism"], "missingness.mechanism", toString)
	ok = p.known(&mech, "missingness.mechanism", "mechanism", sim.TableMechanisms) && ok
	rate, o := decodeList(&p.ds, at["rate"], "missingness.rate", toFloat)
	ok = ok && o
	cols, o := p.tableColumns(at["columns"], ref)
	ok = ok && o
	if !mech.set {
		p.ds.add(miss.DefRange(), "missingness.mechanism", "required attribute is missing (one or more of %v)", sim.TableMechanisms)
		return nil, false
	}
	if !ok {
		return nil, false
	}
	var out []sim.Scenario
	for i, m := range mech.vals {
		if m == sim.None {
			out = append(out, base)
			continue
		}
		if !rate.set {
			p.ds.add(mech.rngs[i], "missingness.rate", "mechanism %q needs a rate (the share of observed entries to ampute)", m)
			return nil, false
		}
		for j, r := range rate.vals {
			s := base
			s.Mechanism, s.Rate, s.Columns = m, r, p.amputed(cols, ref, m)
			if err := s.Validate(); err != nil {
				p.ds.add(rate.rngs[j], "missingness", "%v", err)
				ok = false
				continue
			}
			out = append(out, s)
		}
	}
	return out, ok
}

// amputed returns the feature columns mechanism m amputes: the listed
// ones, or for "all" every feature (every numeric one under censoring,
// which needs an order).
func (p *parser) amputed(c tableColumns, ref *sim.TableRef, m string) []int {
	if !c.all {
		return c.idx
	}
	var out []int
	for i, f := range ref.Features {
		if m == sim.Censoring && slices.Contains(ref.Categorical, f) {
			continue
		}
		out = append(out, i)
	}
	return out
}

// tableColumns decodes `columns = "all"` or a list of feature names;
// absent means "all".
func (p *parser) tableColumns(a *hclsyntax.Attribute, ref *sim.TableRef) (tableColumns, bool) {
	const field = "missingness.columns"
	if a == nil {
		return tableColumns{all: true}, true
	}
	if v, hd := a.Expr.Value(nil); !hd.HasErrors() && known(v) && v.Type() == cty.String && v.AsString() == "all" {
		return tableColumns{all: true, at: a.Expr.Range()}, true
	}
	l, ok := decodeList(&p.ds, a, field, toString)
	c := tableColumns{at: a.Expr.Range()}
	for i, name := range l.vals {
		j := slices.Index(ref.Features, name)
		switch {
		case j >= 0:
			c.idx = append(c.idx, j)
		case name == ref.Target:
			p.ds.add(l.rngs[i], field, "column %q is the target; only feature columns are amputed", name)
			ok = false
		case slices.Contains(ref.Drop, name):
			p.ds.add(l.rngs[i], field, "column %q is dropped", name)
			ok = false
		default:
			p.ds.add(l.rngs[i], field, `the table has no feature column %q%s (or write "all")`, name, hint(name, ref.Features))
			ok = false
		}
	}
	slices.Sort(c.idx)
	return c, ok
}
