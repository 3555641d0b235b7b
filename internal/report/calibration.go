package report

import (
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/misslab/misslab/internal/stats"
)

// CalibrationCell is one pipeline's reliability bins on one scenario,
// summed over its completed repetitions (stats.ClassScores.Reliability).
type CalibrationCell struct {
	Scenario, Pipeline string
	Bins               []stats.CalibrationBin // bin b: top probabilities in (b/B, (b+1)/B]
	Reps               int                    // repetitions summed
}

const calPanelW, calPanelH = 150, 150

// checkCalibration validates the cells: known bins, counts that can be
// a test set's, one cell per (scenario, pipeline).
func checkCalibration(cells []CalibrationCell) error {
	seen := map[[2]string]bool{}
	for _, c := range cells {
		k := [2]string{c.Scenario, c.Pipeline}
		if seen[k] {
			return fmt.Errorf("%w: calibration of %s on %s listed twice", ErrInput, c.Pipeline, c.Scenario)
		}
		seen[k] = true
		for i, b := range c.Bins {
			if b.Count < 0 || b.Correct < 0 || b.Correct > b.Count || !(b.Confidence >= 0 && b.Confidence <= float64(b.Count)) {
				return fmt.Errorf("%w: calibration of %s on %s: bin %d has %d rows, %d correct, confidence %v",
					ErrInput, c.Pipeline, c.Scenario, i, b.Count, b.Correct, b.Confidence)
			}
		}
	}
	return nil
}

// calibrationFigures draws reliability diagrams: one row per learner
// family, one column per scenario (at most scenariosPerFigure per
// figure), one line per strategy through its bins' (mean top
// probability, accuracy), over the diagonal of perfect calibration.
func calibrationFigures(p *prepared, pal palette) []figure {
	cells := map[[2]string]CalibrationCell{}
	var cols []Scenario
	for _, c := range p.Calibration {
		cells[[2]string{c.Scenario, c.Pipeline}] = c
	}
	for _, sc := range p.scen {
		for _, pl := range p.pipes[sc.Key] {
			if _, ok := cells[[2]string{sc.Key, pl}]; ok {
				cols = append(cols, sc)
				break
			}
		}
	}
	lo := calibrationFloor(p.Calibration)
	var figs []figure
	nfig := (len(cols) + scenariosPerFigure - 1) / scenariosPerFigure
	for c0 := 0; c0 < len(cols); c0 += scenariosPerFigure {
		part := cols[c0:min(c0+scenariosPerFigure, len(cols))]
		fams, pls := p.lineup(part...)
		g := &grid{Gap: 12, Top: titleBand("Reliability: accuracy against confidence of the predicted class"),
			Bottom: labelBand("mean top class probability in the bin")}
		legends := make([][]legendEntry, len(fams))
		for i, f := range fams {
			var row []*plot.Plot
			for j, sc := range part {
				pl, ents := calibrationPanel(p, pal, cells, pls[f], sc, f, lo, i == 0, j == 0)
				row = append(row, pl)
				if len(ents) > len(legends[i]) {
					legends[i] = ents
				}
			}
			g.Plots, g.DataH = append(g.Plots, row), append(g.DataH, calPanelH)
		}
		for range part {
			g.DataW = append(g.DataW, calPanelW)
		}
		for _, l := range legends {
			w, _ := legendSize("", l)
			g.RowRightW = max(g.RowRightW, w)
		}
		g.RowRight = func(row int, c draw.Canvas) { drawLegend(c, "", legends[row]) }
		w, h := g.size()
		n := c0/scenariosPerFigure + 1
		figs = append(figs, figure{Name: fmt.Sprintf("calibration-%d", n), Section: "calibration",
			Title:   fmt.Sprintf("Reliability diagrams (%d of %d)", n, nfig),
			Caption: calibrationCaption(p, part, cells), W: w, H: h, Draw: g.draw})
	}
	return figs
}

// calibrationFloor is the lower end of both axes: the smallest bin
// holding rows, rounded down to a tenth (1/k is the least a top class
// probability can be, so two-class panels start at 0.5).
func calibrationFloor(cells []CalibrationCell) float64 {
	lo := 1.0
	for _, c := range cells {
		for i, b := range c.Bins {
			if b.Count > 0 {
				lo = min(lo, float64(i)/float64(len(c.Bins)))
			}
		}
	}
	return math.Floor(lo*10) / 10
}

// calibrationPanel is one (family, scenario) reliability diagram.
func calibrationPanel(p *prepared, pal palette, cells map[[2]string]CalibrationCell, pls []string,
	sc Scenario, fam string, lo float64, top, left bool) (*plot.Plot, []legendEntry) {
	pl := newPlot()
	pl.X.Min, pl.X.Max, pl.Y.Min, pl.Y.Max = lo, 1, lo, 1
	pl.X.Padding, pl.Y.Padding = 0, 0
	pl.X.LineStyle.Width, pl.Y.LineStyle.Width = 0, 0
	pl.X.Tick.Marker, pl.Y.Tick.Marker = niceTicks{N: 4, Horiz: true}, niceTicks{N: 4}
	if top {
		pl.Title.Text = sc.Title
	}
	if left {
		pl.Y.Label.Text = fam + ": accuracy"
	}
	diag := bandLine{X: []float64{lo, 1}, Mid: []float64{lo, 1},
		Line: draw.LineStyle{Color: color.Gray{Y: 110}, Width: 0.8, Dashes: []vg.Length{3, 2}}}
	pl.Add(frame{Grid: true}, diag)
	ents := []legendEntry{{"perfect calibration", diag}}
	for _, name := range pls {
		c, ok := cells[[2]string{sc.Key, name}]
		if !ok {
			continue
		}
		label := p.strategy(name)
		col, _ := pal.colour(label)
		bl := bandLine{Line: draw.LineStyle{Color: col, Width: 1.2, Dashes: pal.dashes(label)}, Glyph: true}
		for _, b := range c.Bins {
			if b.Count > 0 {
				n := float64(b.Count)
				bl.X, bl.Mid = append(bl.X, b.Confidence/n), append(bl.Mid, float64(b.Correct)/n)
			}
		}
		pl.Add(bl)
		ents = append(ents, legendEntry{label, bl})
	}
	return pl, ents
}

// calibrationCaption says what the diagrams show and for which runs.
func calibrationCaption(p *prepared, cols []Scenario, cells map[[2]string]CalibrationCell) string {
	var b strings.Builder
	b.WriteString("Each pipeline's test rows binned by the probability of their predicted class into ten intervals of width 0.1, pooled over its completed repetitions: per bin, the share of rows whose predicted class is the true one (vertical) against their mean predicted probability (horizontal); bins without rows are skipped. Points on the dashed diagonal are perfectly calibrated, points below it over-confident. The expected calibration error (ECE) is the rows-weighted mean vertical distance to the diagonal. Scenarios: ")
	for i, sc := range cols {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s (%s; %s)", sc.Title, describe(sc), p.repsText(sc))
	}
	b.WriteString(".")
	return b.String()
}

// calibrationHeader is the header of calibration.csv.
var calibrationHeader = []string{"scenario", "pipeline", "reps", "bin", "lo", "hi", "rows", "correct",
	"mean_confidence", "accuracy"}

// writeCalibrationCSV writes one row per (scenario, pipeline, bin).
func writeCalibrationCSV(w io.Writer, cells []CalibrationCell) error {
	rows := [][]string{calibrationHeader}
	for _, c := range cells {
		k := float64(len(c.Bins))
		for i, b := range c.Bins {
			conf, acc := "NA", "NA"
			if b.Count > 0 {
				conf = strconv.FormatFloat(b.Confidence/float64(b.Count), 'g', -1, 64)
				acc = strconv.FormatFloat(float64(b.Correct)/float64(b.Count), 'g', -1, 64)
			}
			rows = append(rows, []string{c.Scenario, c.Pipeline, strconv.Itoa(c.Reps), strconv.Itoa(i + 1),
				strconv.FormatFloat(float64(i)/k, 'g', -1, 64), strconv.FormatFloat(float64(i+1)/k, 'g', -1, 64),
				strconv.Itoa(b.Count), strconv.Itoa(b.Correct), conf, acc})
		}
	}
	cw := csv.NewWriter(w)
	if err := cw.WriteAll(rows); err != nil {
		return fmt.Errorf("report: calibration.csv: %w", err)
	}
	return nil
}
