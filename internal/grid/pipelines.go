package grid

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/misslab/misslab/internal/learn"
)

// BayesPipeline is the pipeline `bayes = true` adds to a sweep.
const BayesPipeline = learn.Bayes + "/" + learn.Oracle

// named is a parsed pipeline name with the place it was written.
type named struct {
	spec learn.Spec
	rng  hcl.Range
}

// allStrategies lists every strategy some learner accepts.
func allStrategies() []string {
	var out []string
	for _, l := range learn.Learners {
		for _, s := range learn.Strategies(l) {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// pipelines decodes the pipelines blocks, bayes and the learner settings
// of sweep b into the sweep's pipelines, in file order.
func (p *parser) pipelines(b *hclsyntax.Block) ([]Pipeline, bool) {
	var list []named
	ok := true
	for _, pb := range p.blocksOf(b.Body, "pipelines", 0) {
		ns, o := p.pipelineBlock(pb)
		list, ok = append(list, ns...), ok && o
	}
	if a := b.Body.Attributes["bayes"]; a != nil {
		on, o := decodeScalar(&p.ds, a, "bayes", toBool)
		ok = ok && o
		if on {
			list = append(list, named{learn.Spec{Learner: learn.Bayes, Strategy: learn.Oracle}, a.Expr.Range()})
		}
	}
	if len(list) == 0 && ok {
		p.ds.add(b.DefRange(), "pipelines", "the sweep runs no pipeline: add pipelines { learners = [...] strategies = [...] } or bayes = true")
		return nil, false
	}
	ok = p.noRepeats(list) && ok
	ok = ok && p.methodsUsed(list)
	if !ok {
		p.settingsBlocks(b, list, false) // still report their own errors
		return nil, false
	}
	return p.withSettings(b, list)
}

// noRepeats reports pipelines listed more than once.
func (p *parser) noRepeats(list []named) bool {
	ok := true
	first := map[learn.Spec]hcl.Range{}
	for _, n := range list {
		if prev, dup := first[n.spec]; dup {
			p.ds.add(n.rng, "pipelines", "pipeline %q is listed twice (first at line %d)", n.spec.Name(), prev.Start.Line)
			ok = false
		}
		first[n.spec] = n.rng
	}
	return ok
}

// pipelineBlock decodes one pipelines block: either names, or the cross
// product learners × strategies (learners outermost).
func (p *parser) pipelineBlock(pb *hclsyntax.Block) ([]named, bool) {
	p.check(pb.Body, "pipelines", pipelineSchema)
	at := pb.Body.Attributes
	names, learners, strategies := at["names"], at["learners"], at["strategies"]
	switch {
	case names != nil && (learners != nil || strategies != nil):
		p.ds.add(names.NameRange, "pipelines.names",
			"a pipelines block holds either names or learners and strategies, not both")
		return nil, false
	case names != nil:
		l, ok := decodeList(&p.ds, names, "pipelines.names", toString)
		var out []named
		for i, n := range l.vals {
			if spec, bad := p.parseName(n); bad != "" {
				p.ds.add(l.rngs[i], "pipelines.names", "%s", bad)
				ok = false
			} else {
				out = append(out, named{spec, l.rngs[i]})
			}
		}
		return out, ok
	case learners == nil || strategies == nil:
		missing := "learners"
		if learners != nil {
			missing = "strategies"
		}
		p.ds.add(pb.DefRange(), "pipelines."+missing,
			"required attribute is missing: a pipelines block needs learners and strategies (crossed), or names")
		return nil, false
	}
	return p.cross(learners, strategies)
}

// cross expands learners × strategies, rejecting every invalid pair by name.
func (p *parser) cross(la, sa *hclsyntax.Attribute) ([]named, bool) {
	ls, ok1 := decodeList(&p.ds, la, "pipelines.learners", toString)
	ss, ok2 := decodeList(&p.ds, sa, "pipelines.strategies", toString)
	ok := ok1 && ok2
	known := allStrategies()
	goodS := make([]bool, len(ss.vals))
	for j, s := range ss.vals {
		base, _ := strings.CutSuffix(s, learn.MaskSuffix)
		if goodS[j] = slices.Contains(known, base) || base == learn.NativeNA || slices.Contains(p.ext, base); !goodS[j] {
			p.ds.add(ss.rngs[j], "pipelines.strategies", "strategy %q is unknown%s", base, hint(base, known))
			ok = false
		}
	}
	var out []named
	for i, l := range ls.vals {
		if learn.Strategies(l) == nil && !slices.Contains(p.ext, l) {
			p.ds.add(ls.rngs[i], "pipelines.learners", "learner %q is unknown%s", l, hint(l, learn.Learners))
			ok = false
			continue
		}
		for j, s := range ss.vals {
			if !goodS[j] {
				continue
			}
			spec, bad := p.parseName(l + "/" + s)
			if bad != "" {
				p.ds.add(ss.rngs[j], "pipelines.strategies", "%s", bad)
				ok = false
				continue
			}
			out = append(out, named{spec, ss.rngs[j]})
		}
	}
	return out, ok
}

// parseName parses a pipeline name with learn.ParseSpecWith (the
// sweep's declared methods allowed), or returns a message naming what is
// wrong.
func (p *parser) parseName(name string) (learn.Spec, string) {
	lookup := p.lookup()
	spec, err := learn.ParseSpecWith(name, lookup)
	if err == nil {
		return spec, ""
	}
	learner, rest, ok := strings.Cut(name, "/")
	if !ok {
		return learn.Spec{}, fmt.Sprintf("%q is not of the form learner/strategy[+mask]", name)
	}
	valid := learn.Strategies(learner)
	if valid == nil && slices.Contains(p.ext, learner) {
		return learn.Spec{}, strings.TrimPrefix(err.Error(), learn.ErrUnknownPipeline.Error()+": ")
	}
	if valid == nil {
		return learn.Spec{}, fmt.Sprintf("%s: learner %q is unknown%s", name, learner, hint(learner, append(slices.Clone(learn.Learners), p.ext...)))
	}
	strategy, _ := strings.CutSuffix(rest, learn.MaskSuffix)
	if known := append(allStrategies(), append([]string{learn.NativeNA}, p.ext...)...); !slices.Contains(known, strategy) {
		return learn.Spec{}, fmt.Sprintf("%s: strategy %q is unknown%s", name, strategy, hint(strategy, known))
	}
	if !slices.Contains(valid, strategy) {
		return learn.Spec{}, fmt.Sprintf("%s: learner %q does not support strategy %q (supported: %s)",
			name, learner, strategy, strings.Join(valid, ", "))
	}
	msg := strings.TrimPrefix(err.Error(), learn.ErrUnknownPipeline.Error()+": ")
	if !strings.Contains(msg, name) {
		msg = name + ": " + msg
	}
	return learn.Spec{}, msg
}
