package grid

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/methodid"
)

// Pipeline is a parsed, validated pipeline: its name as a learn.Spec, the
// setting overrides the grid gave it, and the settings resolved from
// them (family defaults, preset, overrides). A Pipeline is made only by
// NewPipeline (or decoded from JSON through it), so every value that
// travels through the coordinator, the wire, the store and the worker
// has been parsed exactly once where it entered.
type Pipeline struct {
	spec      learn.Spec
	overrides learn.Settings // nil when none
	resolved  learn.Settings
}

// NewPipeline parses name (learner/strategy[+mask]) and validates the
// overrides against the learner family and the strategy. Errors wrap
// learn.ErrUnknownPipeline or learn.ErrBadSetting (one joined error per
// bad key; see learn.ResolveSettings).
func NewPipeline(name string, overrides map[string]float64) (Pipeline, error) {
	return NewPipelineWith(name, overrides, nil)
}

// NewPipelineWith is NewPipeline for a pipeline that may name external
// methods: each learner or strategy name that is not built in must be
// one of methods (bound or not; see learn.ParseSpecWith). A Submit and a
// stored record use it with the methods they carry.
func NewPipelineWith(name string, overrides map[string]float64, methods []methodid.Method) (Pipeline, error) {
	var lookup learn.MethodLookup
	if len(methods) > 0 {
		lookup = func(n string) (methodid.Method, bool) {
			i := slices.IndexFunc(methods, func(m methodid.Method) bool { return m.Name == n })
			if i < 0 {
				return methodid.Method{}, false
			}
			return methods[i], true
		}
	}
	spec, err := learn.ParseSpecWith(name, lookup)
	if err != nil {
		return Pipeline{}, err
	}
	return pipelineOf(spec, overrides)
}

// pipelineOf is NewPipeline for a name already parsed.
func pipelineOf(spec learn.Spec, overrides map[string]float64) (Pipeline, error) {
	resolved, err := learn.ResolveSettings(spec, overrides)
	if err != nil {
		return Pipeline{}, err
	}
	p := Pipeline{spec: spec, resolved: resolved}
	if len(overrides) > 0 {
		p.overrides = maps.Clone(overrides)
	}
	return p, nil
}

// MustPipeline is NewPipeline for names and settings known to be valid
// (tests, built-in grids); it panics on an error.
func MustPipeline(name string, overrides map[string]float64) Pipeline {
	p, err := NewPipeline(name, overrides)
	if err != nil {
		panic(err)
	}
	return p
}

// Spec returns the parsed name.
func (p Pipeline) Spec() learn.Spec { return p.spec }

// Name returns the canonical pipeline name, e.g. "tree/surrogate+mask".
func (p Pipeline) Name() string { return p.spec.Name() }

// Learner returns the learner family, e.g. "tree".
func (p Pipeline) Learner() string { return p.spec.Learner }

// Overrides returns a copy of the settings the grid gave (nil when none).
// They, not the resolved values, make the pipeline's identity (see
// Canonical), so a pipeline written without settings keeps its stored
// results however the defaults are spelled; a change to a learner's
// default values must therefore come with a new setting or preset, never
// silently.
func (p Pipeline) Overrides() learn.Settings { return p.overrides.Clone() }

// Resolved returns a copy of the effective settings.
func (p Pipeline) Resolved() learn.Settings { return p.resolved.Clone() }

// IsBayes reports whether the pipeline is the Bayes oracle.
func (p Pipeline) IsBayes() bool { return p.spec.Learner == learn.Bayes }

// Canonical returns the pipeline's identity: its name followed by its
// overrides sorted by key, e.g. "tree/mia{cp=0.01,minbucket=7}".
//
// A pipeline with external methods adds their identities, which is what
// keys its stored results: "hgb/native{max_iter=100}@hgb=3f2a9c1b2d4e5f60"
// (the first 16 hex digits of each bound method's ID, learner first). A
// changed method file therefore never reuses the results of the old one.
func (p Pipeline) Canonical() string {
	c := p.Label()
	for i, m := range p.spec.Methods() {
		sep := ","
		if i == 0 {
			sep = "@"
		}
		c += sep + m.Name + "=" + shortID(m.ID)
	}
	return c
}

// Label is Canonical without the methods' identities: the name and the
// overrides, e.g. "hgb/native{max_iter=100}". It names the pipeline in
// reports and derives its random stream, so that a method whose file
// changed gets the same seeds as before.
func (p Pipeline) Label() string {
	if len(p.overrides) == 0 {
		return p.Name()
	}
	return p.Name() + p.overrides.String()
}

// shortID is the part of a method identity that Canonical shows.
func shortID(id string) string {
	if id == "" {
		return "unbound"
	}
	return id[:min(16, len(id))]
}

// pipelineJSON is the stored form of a Pipeline (the store's sweep
// records and pipeline bucket have always used it; Methods is absent for
// built-in pipelines).
type pipelineJSON struct {
	Name     string
	Settings map[string]float64
	Methods  []methodid.Method `json:",omitempty"`
}

// MarshalJSON encodes the pipeline as {"Name": ..., "Settings": ...},
// with "Methods" when it names external ones.
func (p Pipeline) MarshalJSON() ([]byte, error) {
	return json.Marshal(pipelineJSON{Name: p.Name(), Settings: p.overrides, Methods: p.spec.Methods()})
}

// UnmarshalJSON decodes and validates a pipeline written by MarshalJSON.
func (p *Pipeline) UnmarshalJSON(b []byte) error {
	var j pipelineJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	q, err := NewPipelineWith(j.Name, j.Settings, j.Methods)
	if err != nil {
		return fmt.Errorf("pipeline %q: %w", j.Name, err)
	}
	*p = q
	return nil
}

// Methods returns the pipeline's external methods, learner first (nil
// for a built-in pipeline).
func (p Pipeline) Methods() []methodid.Method { return p.spec.Methods() }

// Bind returns the pipeline with its external methods bound by bind,
// which maps a method's name and kind to the method some worker offers;
// a built-in pipeline is returned unchanged. Errors are bind's, or wrap
// learn.ErrUnknownPipeline when the bound method does not fit its place
// (another kind; a learner run natively that does not accept NA).
func (p Pipeline) Bind(bind func(name string, kind methodid.Kind) (methodid.Method, error)) (Pipeline, error) {
	q := p
	for _, m := range []*methodid.Method{&q.spec.LearnerMethod, &q.spec.ImputerMethod} {
		if !m.External() {
			continue
		}
		b, err := bind(m.Name, m.Kind)
		if err != nil {
			return Pipeline{}, err
		}
		if b.Name != m.Name || b.Kind != m.Kind || b.ID == "" {
			return Pipeline{}, fmt.Errorf("%w: %s: method %q is an external %s with ID %q, wanted a bound %s",
				learn.ErrUnknownPipeline, p.Name(), m.Name, b.Kind, b.ID, m.Kind)
		}
		*m = b
	}
	if err := q.spec.CheckMethods(); err != nil {
		return Pipeline{}, err
	}
	return q, nil
}

// Bound reports whether every external method of the pipeline has an
// identity (always true for built-in pipelines).
func (p Pipeline) Bound() bool {
	return !slices.ContainsFunc(p.spec.Methods(), func(m methodid.Method) bool { return m.ID == "" })
}
