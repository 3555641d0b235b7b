package grid

import (
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/misslab/misslab/internal/learn"
)

// settingsBlock is one `learner "name" { ... }` or `strategy "name" { ... }`
// block: numeric overrides and the block header for diagnostics.
type settingsBlock struct {
	vals map[string]float64
	keys map[string]hcl.Range // where each key is written
	hdr  hcl.Range
}

// settingsKind describes one kind of settings block.
type settingsKind struct {
	block string                  // "learner" or "strategy"
	names func() []string         // the valid built-in labels (a sweep's methods are valid too)
	of    func(learn.Spec) string // the learner or strategy of a pipeline
}

var (
	learnerKind = settingsKind{"learner", func() []string { return learn.Learners },
		func(s learn.Spec) string { return s.Learner }}
	strategyKind = settingsKind{"strategy", allStrategies, func(s learn.Spec) string { return s.Strategy }}
)

// settingsBlocks decodes the learner and strategy blocks of sweep b.
// Blocks that no pipeline of list uses are errors, but only when the
// pipelines themselves were valid (pipesOK), to avoid a cascade.
func (p *parser) settingsBlocks(b *hclsyntax.Block, list []named, pipesOK bool) (l, s map[string]settingsBlock, ok bool) {
	l, ok1 := p.settingsOf(b, learnerKind, list, pipesOK)
	s, ok2 := p.settingsOf(b, strategyKind, list, pipesOK)
	return l, s, ok1 && ok2
}

func (p *parser) settingsOf(b *hclsyntax.Block, k settingsKind, list []named, pipesOK bool) (map[string]settingsBlock, bool) {
	used := map[string]bool{}
	for _, n := range list {
		used[k.of(n.spec)] = true
	}
	out := map[string]settingsBlock{}
	ok := true
	for _, sb := range p.blocksOf(b.Body, k.block, 1) {
		name, field, hdr := sb.Labels[0], k.block+"."+sb.Labels[0], sb.DefRange()
		if prev, dup := out[name]; dup {
			p.ds.add(hdr, field, "duplicate %s %q block (first at line %d)", k.block, name, prev.hdr.Start.Line)
			ok = false
			continue
		}
		if known := append(k.names(), p.ext...); !slices.Contains(known, name) {
			p.ds.add(sb.LabelRanges[0], field, "%s %q is unknown%s", k.block, name, hint(name, known))
			ok = false
			continue
		}
		p.check(sb.Body, field, schema{anyAttr: true})
		vals, keys, o := p.settingValues(sb, field)
		ok = ok && o && len(sb.Body.Blocks) == 0
		if !used[name] && pipesOK {
			p.ds.add(hdr, field, "settings for %s %q, but no pipeline of this sweep uses it", k.block, name)
			ok = false
		}
		out[name] = settingsBlock{vals, keys, hdr}
	}
	return out, ok
}

// settingValues reads the numeric attributes of a settings block, and
// where each is written.
func (p *parser) settingValues(sb *hclsyntax.Block, field string) (map[string]float64, map[string]hcl.Range, bool) {
	vals, keys := map[string]float64{}, map[string]hcl.Range{}
	ok := true
	for _, a := range attrsInOrder(sb.Body) {
		if v, o := decodeScalar(&p.ds, a, field+"."+a.Name, toFloat); o {
			vals[a.Name], keys[a.Name] = v, a.NameRange
		} else {
			ok = false
		}
	}
	return vals, keys, ok
}

// withSettings builds each pipeline of list with the settings of its
// learner block and of its strategy block, validated by the learn
// package: every bad key is reported where it is written (once, however
// many pipelines use the block), and a problem of the combination (two
// presets switched on) at the block that set the settings.
func (p *parser) withSettings(b *hclsyntax.Block, list []named) ([]Pipeline, bool) {
	ls, ss, ok := p.settingsBlocks(b, list, true) // on errors, go on with the valid values
	out := make([]Pipeline, 0, len(list))
	reported := map[hcl.Range]bool{}
	for _, n := range list {
		lb, sb := ls[n.spec.Learner], ss[n.spec.Strategy]
		m, o := p.merge(n, lb, sb)
		pl, o2 := p.validate(n, m, reported)
		if ok = ok && o && o2; ok {
			out = append(out, pl)
		}
	}
	return out, ok
}

// merged is a pipeline's settings from both blocks, with where each key
// is written and where a problem of the whole is best reported: the
// learner block, else the strategy block, else the pipeline's name.
type merged struct {
	vals  map[string]float64
	keys  map[string]hcl.Range
	at    hcl.Range
	field string
}

// merge combines both blocks' settings for pipeline n.
func (p *parser) merge(n named, lb, sb settingsBlock) (merged, bool) {
	m := merged{vals: map[string]float64{}, keys: map[string]hcl.Range{}, at: n.rng, field: "pipelines"}
	ok := true
	maps.Copy(m.vals, lb.vals)
	maps.Copy(m.keys, lb.keys)
	prefix := ""
	if n.spec.ImputerMethod.External() { // its keys are its own: "<imputer>.<key>"
		prefix = n.spec.Strategy + "."
	}
	for _, key := range slices.Sorted(maps.Keys(sb.vals)) {
		k := prefix + key
		if _, both := m.vals[k]; both {
			p.ds.add(sb.hdr, "strategy."+n.spec.Strategy, "%q is set both here and in learner %q (line %d); set it in one place",
				k, n.spec.Learner, lb.hdr.Start.Line)
			ok = false
		}
		m.vals[k], m.keys[k] = sb.vals[key], sb.keys[key]
	}
	switch {
	case len(lb.vals) > 0:
		m.at, m.field = lb.hdr, "learner."+n.spec.Learner
	case len(sb.vals) > 0:
		m.at, m.field = sb.hdr, "strategy."+n.spec.Strategy
	}
	return m, ok
}

// validate checks every key of m on its own against the pipeline (so
// that each bad key is reported at its line), then the whole set.
func (p *parser) validate(n named, m merged, reported map[hcl.Range]bool) (Pipeline, bool) {
	ok := true
	for _, k := range slices.Sorted(maps.Keys(m.vals)) {
		if _, err := learn.ResolveSettings(n.spec, learn.Settings{k: m.vals[k]}); err != nil {
			if at := m.keys[k]; !reported[at] {
				reported[at] = true
				p.ds.add(at, m.field+"."+k, "%s", settingMessage(err))
			}
			ok = false
		}
	}
	if !ok {
		return Pipeline{}, false
	}
	pl, err := pipelineOf(n.spec, m.vals)
	if err != nil {
		if !reported[m.at] {
			reported[m.at] = true
			p.ds.add(m.at, m.field, "%s", settingMessage(err))
		}
		return Pipeline{}, false
	}
	return pl, true
}

// settingMessage is a learn error without its package prefix.
func settingMessage(err error) string {
	msg := err.Error()
	for _, prefix := range []string{learn.ErrBadSetting.Error() + ": ", learn.ErrNotImplemented.Error() + ": "} {
		msg = strings.TrimPrefix(msg, prefix)
	}
	return msg
}
