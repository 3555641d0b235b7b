package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/misslab/misslab/internal/stats"
)

const (
	scenariosPerFigure = 3  // columns of a boxplot grid
	boxPitch           = 13 // points per box row
	boxPanelW          = 150
)

// summaryIndex finds a (scenario, pipeline) summary.
type summaryIndex map[[2]string]stats.PipelineSummary

func indexSummaries(sums []stats.PipelineSummary) summaryIndex {
	idx := summaryIndex{}
	for _, s := range sums {
		idx[[2]string{s.Scenario, s.Pipeline}] = s
	}
	return idx
}

// boxGridFigures draws the paper's Figures 3–4 layout: one row per
// learner family, one column per scenario (at most scenariosPerFigure
// per figure), one box per strategy. relative selects R² − family mean.
func boxGridFigures(p *prepared, idx summaryIndex, pal palette, relative bool) []figure {
	metric := func(s stats.PipelineSummary) stats.Summary {
		if relative {
			return s.RelR2
		}
		return s.R2
	}
	xr := familyRanges(p, idx, metric, relative)
	sc := p.score
	name, title, xlabel := "box-"+sc.slug(), sc.Title()+" by strategy", sc.name
	if relative {
		name, title = "box-rel-"+sc.slug(), "Relative "+sc.name+" by strategy"
		if sc == scoreR2 {
			name = "box-rel" // the name of regression reports' figure files
		}
		xlabel = sc.name + " − mean " + sc.name + " of the learner family on the same repetition"
	}
	var withResults []Scenario // scenarios without results get no column
	for _, sc := range p.scen {
		if len(p.pipes[sc.Key]) > 0 {
			withResults = append(withResults, sc)
		}
	}
	nfig := (len(withResults) + scenariosPerFigure - 1) / scenariosPerFigure
	var figs []figure
	for c0 := 0; c0 < len(withResults); c0 += scenariosPerFigure {
		cols := withResults[c0:min(c0+scenariosPerFigure, len(withResults))]
		fams, pls := p.lineup(cols...)
		if relative { // a one-pipeline family is identically 0 relative to itself
			fams = slices.DeleteFunc(fams, func(f string) bool { return len(pls[f]) < 2 })
		}
		if len(fams) == 0 {
			continue
		}
		g := &grid{Gap: 12, Top: titleBand(title), Bottom: labelBand(xlabel)}
		for i, f := range fams {
			var row []*plot.Plot
			for j, sc := range cols {
				row = append(row, boxPanel(p, idx, pal, metric, pls[f], sc, f, xr[f],
					i == 0, j == 0, relative))
			}
			g.Plots = append(g.Plots, row)
			g.DataH = append(g.DataH, vg.Length(boxPitch*len(pls[f])))
		}
		for range cols {
			g.DataW = append(g.DataW, boxPanelW)
		}
		w, h := g.size()
		n := c0/scenariosPerFigure + 1
		figs = append(figs, figure{Name: fmt.Sprintf("%s-%d", name, n), Section: name,
			Title:   fmt.Sprintf("%s (%d of %d)", title, n, nfig),
			Caption: boxCaption(p, cols, relative), W: w, H: h, Draw: g.draw})
	}
	return figs
}

// familyRanges is the x range of each family's row: the boxes of every
// scenario of the report, so figures of one report compare; relative
// ranges always include 0, the family mean.
func familyRanges(p *prepared, idx summaryIndex, metric func(stats.PipelineSummary) stats.Summary, relative bool) map[string][2]float64 {
	fams, pls := p.lineup()
	xr := map[string][2]float64{}
	for _, f := range fams {
		var boxes []stats.Box
		for _, sc := range p.scen {
			for _, pl := range pls[f] {
				if s, ok := idx[[2]string{sc.Key, pl}]; ok && metric(s).N > 0 {
					boxes = append(boxes, metric(s).Box)
				}
			}
		}
		lo, hi := boxRange(boxes)
		if relative {
			lo, hi = min(lo, 0), max(hi, 0)
		}
		xr[f] = [2]float64{lo, hi}
	}
	return xr
}

// boxPanel is one (family, scenario) panel of a box grid.
func boxPanel(p *prepared, idx summaryIndex, pal palette, metric func(stats.PipelineSummary) stats.Summary,
	pls []string, sc Scenario, fam string, xr [2]float64, top, left bool, rel bool) *plot.Plot {
	pl := newPlot()
	k := len(pls)
	pl.X.Min, pl.X.Max = xr[0], xr[1]
	pl.Y.Min, pl.Y.Max = -0.5, float64(k)-0.5
	pl.X.Padding, pl.Y.Padding = 0, 0
	pl.X.LineStyle.Width, pl.Y.LineStyle.Width = 0, 0
	pl.Y.Tick.Length = 0
	var ticks []plot.Tick
	hb := hboxes{Width: boxPitch * 0.62}
	for i, name := range pls {
		y := float64(k - 1 - i)
		label := ""
		if left {
			label = p.strategy(name)
		}
		ticks = append(ticks, plot.Tick{Value: y, Label: label})
		s, ok := idx[[2]string{sc.Key, name}]
		if !ok {
			continue // the pipeline did not run in this scenario: blank row
		}
		col, _ := pal.colour(p.strategy(name))
		hb.Boxes = append(hb.Boxes, hbox{Y: y, Box: metric(s).Box, N: metric(s).N, Fill: col})
	}
	pl.Y.Tick.Marker = plot.ConstantTicks(ticks)
	if left {
		pl.Y.Label.Text = fam
	}
	if top {
		pl.Title.Text = sc.Title
	}
	pl.X.Tick.Marker = niceTicks{N: 5, Horiz: true}
	fr := frame{Grid: true}
	if rel {
		fr.VLines = []float64{0}
	}
	pl.Add(fr, hb)
	return pl
}

// boxCaption states what the boxes show and for which scenarios.
func boxCaption(p *prepared, cols []Scenario, rel bool) string {
	var b strings.Builder
	if rel {
		fmt.Fprintf(&b, "%s minus the mean %s of the same learner family's pipelines on the same repetition (", p.score.Title(), p.score.name)
		if p.score == scoreR2 {
			b.WriteString("the paper's relative explained variance; ")
		}
		b.WriteString("dotted line: the family mean). ")
	} else {
		b.WriteString(p.score.definition)
	}
	b.WriteString("One box per pipeline: box = 25–75% quantiles (type 7), thick line = median, whiskers = most extreme runs within 1.5 IQR of the box, dots = runs beyond; a red triangle marks runs beyond the panel's range. ")
	b.WriteString("The x range is shared along each row (one learner family) so a strategy can be compared across scenarios; rows have their own ranges because learners differ in scale. ")
	b.WriteString("Scenarios: ")
	for i, sc := range cols {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s (%s; %s)", sc.Title, describe(sc), p.repsText(sc))
	}
	b.WriteString(". Pipelines: " + p.pipelineText(cols...) + ".")
	return b.String()
}

// pipelineText lists the pipelines of the given scenarios (all when
// none) per family: "tree: mean, mia; svm: …".
func (p *prepared) pipelineText(scen ...Scenario) string {
	fams, pls := p.lineup(scen...)
	var parts []string
	for _, f := range fams {
		var names []string
		for _, pl := range pls[f] {
			names = append(names, p.strategy(pl))
		}
		parts = append(parts, f+": "+strings.Join(names, ", "))
	}
	return strings.Join(parts, "; ")
}

// clampBox returns b with every value raised to at least floor (for a
// log axis).
func clampBox(b stats.Box, floor float64) stats.Box {
	c := func(v float64) float64 { return math.Max(v, floor) }
	out := b
	out.Lower, out.Q1, out.Median, out.Q3, out.Upper = c(b.Lower), c(b.Q1), c(b.Median), c(b.Q3), c(b.Upper)
	out.Outliers = make([]float64, len(b.Outliers))
	for i, v := range b.Outliers {
		out.Outliers[i] = c(v)
	}
	return out
}
