package grid

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/methodid"
)

// Methods returns the external methods the sweep's pipelines name, each
// once, sorted by name (nil when every pipeline is built in).
func (s *Sweep) Methods() []methodid.Method {
	var out []methodid.Method
	for _, p := range s.Pipelines {
		for _, m := range p.Methods() {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	slices.SortFunc(out, func(a, b methodid.Method) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Bind binds the external methods of every pipeline (see Pipeline.Bind)
// in place, then checks that each bound learner declares the sweep's
// task (its methods file's tasks; an error wrapping ErrInvalid and
// learn.ErrNotImplemented that names the method and how to declare it).
// On an error s is unchanged; the error names the pipeline.
func (s *Sweep) Bind(bind func(name string, kind methodid.Kind) (methodid.Method, error)) error {
	out := make([]Pipeline, len(s.Pipelines))
	for i, p := range s.Pipelines {
		q, err := p.Bind(bind)
		if err != nil {
			return fmt.Errorf("pipelines[%d] %s: %w", i, p.Name(), err)
		}
		if len(s.Scenarios) > 0 {
			if err := pipelineTask(q, s.Scenarios[0].Task); err != nil {
				return invalidField(fmt.Sprintf("pipelines[%d]", i), "%w", err)
			}
		}
		out[i] = q
	}
	s.Pipelines = out
	return nil
}

// CheckMethodName reports whether name may name an external method in a
// grid (its `methods` attribute, and so a pipeline's learner or
// strategy): spelt as methodid.CheckName asks and no built-in learner or
// strategy (learn.CheckMethodName). A sweep that arrives over the wire
// gets the same check. Errors wrap learn.ErrUnknownPipeline.
func CheckMethodName(name string) error { return learn.CheckMethodName(name) }

// checkMethods reports a method name that two pipelines give different
// kinds or identities.
func (s *Sweep) checkMethods() error {
	seen := map[string]methodid.Method{}
	for i, p := range s.Pipelines {
		for _, m := range p.Methods() {
			if prev, ok := seen[m.Name]; ok && prev != m {
				return invalidField(fmt.Sprintf("pipelines[%d]", i), "method %q is %s %s here but %s %s in another pipeline",
					m.Name, m.Kind, shortID(m.ID), prev.Kind, shortID(prev.ID))
			}
			seen[m.Name] = m
		}
	}
	return nil
}

// declaredMethods reads the sweep's `methods` attribute: the names of
// the external methods its pipelines may use.
func (p *parser) declaredMethods(b *hclsyntax.Block) bool {
	p.ext, p.extAt = nil, map[string]hcl.Range{}
	l, ok := decodeList(&p.ds, b.Body.Attributes["methods"], "methods", toString)
	for i, name := range l.vals {
		if err := CheckMethodName(name); err != nil {
			p.ds.add(l.rngs[i], "methods", "%s", strings.TrimPrefix(err.Error(), learn.ErrUnknownPipeline.Error()+": "))
			ok = false
			continue
		}
		if prev, dup := p.extAt[name]; dup {
			p.ds.add(l.rngs[i], "methods", "method %q is listed twice (first at line %d)", name, prev.Start.Line)
			ok = false
			continue
		}
		p.ext, p.extAt[name] = append(p.ext, name), l.rngs[i]
	}
	return ok
}

// lookup resolves a declared method name for learn.ParseSpecWith (nil
// when the sweep declares none).
func (p *parser) lookup() learn.MethodLookup {
	if len(p.ext) == 0 {
		return nil
	}
	return func(name string) (methodid.Method, bool) {
		return methodid.Method{Name: name}, slices.Contains(p.ext, name)
	}
}

// methodsUsed reports a declared method that no pipeline uses, or that
// one pipeline uses as a learner and another as an imputer.
func (p *parser) methodsUsed(list []named) bool {
	kinds := map[string]methodid.Kind{}
	ok := true
	for _, n := range list {
		for _, m := range n.spec.Methods() {
			if k, seen := kinds[m.Name]; seen && k != m.Kind {
				p.ds.add(n.rng, "pipelines", "method %q is a %s here and a %s in another pipeline", m.Name, m.Kind, k)
				ok = false
			}
			kinds[m.Name] = m.Kind
		}
	}
	for _, name := range p.ext {
		if _, used := kinds[name]; !used && ok {
			p.ds.add(p.extAt[name], "methods", "method %q is listed but no pipeline uses it", name)
			ok = false
		}
	}
	return ok
}
