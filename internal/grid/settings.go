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
	hdr  hcl.Range
}

// settingsKind describes one kind of settings block.
type settingsKind struct {
	block string              // "learner" or "strategy"
	names func() []string     // the valid labels
	of    func(string) string // the learner or strategy of a pipeline name
}

var (
	learnerKind  = settingsKind{"learner", func() []string { return learn.Learners }, learnerOf}
	strategyKind = settingsKind{"strategy", allStrategies, strategyOf}
)

func learnerOf(name string) string {
	l, _, _ := strings.Cut(name, "/")
	return l
}

func strategyOf(name string) string {
	_, rest, _ := strings.Cut(name, "/")
	s, _ := strings.CutSuffix(rest, learn.MaskSuffix)
	return s
}

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
		used[k.of(n.name)] = true
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
		if !slices.Contains(k.names(), name) {
			p.ds.add(sb.LabelRanges[0], field, "%s %q is unknown%s", k.block, name, hint(name, k.names()))
			ok = false
			continue
		}
		p.check(sb.Body, field, schema{anyAttr: true})
		vals, o := p.settingValues(sb, field)
		ok = ok && o && len(sb.Body.Blocks) == 0
		switch {
		case !used[name] && pipesOK:
			p.ds.add(hdr, field, "settings for %s %q, but no pipeline of this sweep uses it", k.block, name)
			ok = false
		case o && k.block == "learner" && p.opts.ValidateSettings != nil:
			if err := p.opts.ValidateSettings(name, maps.Clone(vals)); err != nil {
				p.ds.add(hdr, field, "%v", err)
				ok = false
			}
		}
		out[name] = settingsBlock{vals, hdr}
	}
	return out, ok
}

// settingValues reads the numeric attributes of a settings block.
func (p *parser) settingValues(sb *hclsyntax.Block, field string) (map[string]float64, bool) {
	vals := map[string]float64{}
	ok := true
	for _, a := range attrsInOrder(sb.Body) {
		if v, o := decodeScalar(&p.ds, a, field+"."+a.Name, toFloat); o {
			vals[a.Name] = v
		} else {
			ok = false
		}
	}
	return vals, ok
}

// withSettings attaches to each pipeline of list the settings of its
// learner block and of its strategy block, and runs the pipeline hook.
func (p *parser) withSettings(b *hclsyntax.Block, list []named) ([]Pipeline, bool) {
	ls, ss, ok := p.settingsBlocks(b, list, true) // on errors, go on with the valid values
	out := make([]Pipeline, 0, len(list))
	for _, n := range list {
		lb, sb := ls[learnerOf(n.name)], ss[strategyOf(n.name)]
		pl, at, field, o := p.merge(n, lb, sb)
		if o && p.opts.ValidatePipeline != nil {
			if err := p.opts.ValidatePipeline(pl.Name, maps.Clone(pl.Settings)); err != nil {
				p.ds.add(at, field, "%v", err)
				o = false
			}
		}
		ok = ok && o
		out = append(out, pl)
	}
	return out, ok
}

// merge builds the pipeline with both blocks' settings; at and field say
// where a problem of this pipeline is best reported: the learner block,
// else the strategy block, else the pipeline's name.
func (p *parser) merge(n named, lb, sb settingsBlock) (pl Pipeline, at hcl.Range, field string, ok bool) {
	pl, at, field, ok = Pipeline{Name: n.name}, n.rng, "pipelines", true
	if len(lb.vals)+len(sb.vals) == 0 {
		return pl, at, field, true
	}
	pl.Settings = maps.Clone(lb.vals)
	if pl.Settings == nil {
		pl.Settings = map[string]float64{}
	}
	for _, k := range slices.Sorted(maps.Keys(sb.vals)) {
		if _, both := pl.Settings[k]; both {
			p.ds.add(sb.hdr, "strategy."+strategyOf(n.name), "%q is set both here and in learner %q (line %d); set it in one place",
				k, learnerOf(n.name), lb.hdr.Start.Line)
			ok = false
		}
		pl.Settings[k] = sb.vals[k]
	}
	if len(lb.vals) > 0 {
		return pl, lb.hdr, "learner." + learnerOf(n.name), ok
	}
	return pl, sb.hdr, "strategy." + strategyOf(n.name), ok
}
