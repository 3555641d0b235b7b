package grid

import (
	"encoding/json"
	"fmt"
	"maps"

	"github.com/misslab/misslab/internal/learn"
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
	spec, err := learn.ParseSpec(name)
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
func (p Pipeline) Canonical() string {
	if len(p.overrides) == 0 {
		return p.Name()
	}
	return p.Name() + p.overrides.String()
}

// pipelineJSON is the stored form of a Pipeline (the store's sweep
// records and pipeline bucket have always used it).
type pipelineJSON struct {
	Name     string
	Settings map[string]float64
}

// MarshalJSON encodes the pipeline as {"Name": ..., "Settings": ...}.
func (p Pipeline) MarshalJSON() ([]byte, error) {
	return json.Marshal(pipelineJSON{Name: p.Name(), Settings: p.overrides})
}

// UnmarshalJSON decodes and validates a pipeline written by MarshalJSON.
func (p *Pipeline) UnmarshalJSON(b []byte) error {
	var j pipelineJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	q, err := NewPipeline(j.Name, j.Settings)
	if err != nil {
		return fmt.Errorf("pipeline %q: %w", j.Name, err)
	}
	*p = q
	return nil
}
