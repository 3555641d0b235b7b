package grid

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/sim"
)

// decodeTask reads a data block's task, scale and threshold. task is one
// value for the whole sweep ("regression", the default, or "binary");
// scale and threshold are lists crossed like the other parameters, and
// threshold may be "median" (its default): the median of the model's
// signal (sim.MedianThreshold), resolved per scenario.
func (p *parser) decodeTask(ax *axes, at hclsyntax.Attributes) bool {
	ok := true
	if a := at["task"]; a != nil {
		l, o := decodeList(&p.ds, a, "data.task", toString)
		switch {
		case !o:
			ok = false
		case len(l.vals) != 1:
			p.ds.add(a.Expr.Range(), "data.task", "give one task per sweep (one of %v); split the sweep to compare tasks", sim.Tasks)
			ok = false
		case !slices.Contains(sim.Tasks, l.vals[0]):
			p.ds.add(l.rngs[0], "data.task", "task %q is unknown%s", l.vals[0], hint(l.vals[0], sim.Tasks))
			ok = false
		case l.vals[0] == sim.Binary:
			ax.task = sim.Binary
		}
	}
	var o bool
	ax.scale, o = decodeList(&p.ds, at["scale"], "data.scale", toFloat)
	ok = ok && o
	if a := at["threshold"]; a != nil {
		if s, hd := a.Expr.Value(nil); !hd.HasErrors() && known(s) && s.Type().FriendlyName() == "string" && s.AsString() == "median" {
			return ok // the default
		}
		ax.threshold, o = decodeList(&p.ds, a, "data.threshold", toFloat)
		ok = ok && o
	}
	return ok
}

// taskDefaults makes def, a model's defaults, the defaults of the sweep's
// task: a binary task has the model's default scale (sim.DefaultScale),
// no noise (its randomness is the Bernoulli draw), and a threshold set
// per scenario by resolveThreshold.
func (ax *axes) taskDefaults(def sim.Scenario) sim.Scenario {
	if ax.task != sim.Binary {
		return def
	}
	def.Task, def.Scale, def.Noise = sim.Binary, sim.DefaultScale(def.Model), 0
	return def
}

// resolveThreshold sets the median threshold of a binary scenario whose
// file gives none, once its model, d and ρ are known. A model without a
// binary task keeps threshold 0 (its validation says why).
func (ax *axes) resolveThreshold(s *sim.Scenario) {
	if s.Task != sim.Binary || ax.threshold.set {
		return
	}
	if c, err := sim.MedianThreshold(s.Model, s.D, s.Rho); err == nil {
		s.Threshold = c
	}
}

// tasksFit reports, at sweep b's pipelines blocks, every pipeline that
// cannot run the sweep's task (see learn.Classifies): a classification
// needs learners with a classification mode. The grid's external methods
// are not bound yet; Sweep.Bind checks them against their methods files.
func (p *parser) tasksFit(b *hclsyntax.Block, scen []sim.Scenario, pipes []Pipeline) bool {
	if len(scen) == 0 || !sim.IsClassification(scen[0].Task) {
		return true
	}
	at := b.DefRange()
	if pbs := p.blocksOf(b.Body, "pipelines", 0); len(pbs) > 0 {
		at = pbs[0].DefRange()
	}
	ok := true
	for _, pl := range pipes {
		if err := pipelineTask(pl, scen[0].Task); err != nil {
			p.ds.add(at, "pipelines", "%v", err)
			ok = false
		}
	}
	return ok
}

// pipelineTask returns why pipeline pl cannot run task, or nil: a
// classification needs a learner with a classification mode (built in,
// or an external method that declares it; learn.Classifies), a
// regression an external learner that does not declare classification
// alone (learn.Regresses).
func pipelineTask(pl Pipeline, task string) error {
	var err error
	if sim.IsClassification(task) {
		err = learn.Classifies(pl.spec, pl.resolved)
	} else {
		err = learn.Regresses(pl.spec)
	}
	if err != nil {
		return fmt.Errorf("%s cannot run task %q: %w", pl.Name(), cmp.Or(task, sim.Regression), err)
	}
	return nil
}
