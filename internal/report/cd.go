package report

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/misslab/misslab/internal/stats"
)

// Geometry of the critical-difference diagram, in points.
const (
	cdAxisStep = 56  // axis length per unit of rank (clamped to cdAxisMin…cdAxisMax)
	cdAxisMin  = 200 // shortest axis
	cdAxisMax  = 460 // longest axis
	cdRowH     = 13  // distance between label rows
	cdStub     = 12  // line beyond the axis ends before a label
	cdBarGap   = 6   // distance between clique bars
	cdBarWidth = 3.2 // clique bars' line width
	cdLineW    = 0.8 // method lines, axis and ticks
)

// CDDiagram draws the critical-difference diagram of r (Demšar 2006,
// JMLR 7:1–30, Figure 1) to path+".png" and path+".svg" and returns those
// two names. The axis runs over average ranks 1 … K, best on the left;
// each method hangs from its average rank to a label giving its name
// and rank (the better half labelled on the left, the rest on the right);
// thick bars join the groups of stats.NemenyiGroups(r.AvgRank, r.CD),
// methods not significantly different at r.Alpha; the CD interval is
// drawn above the axis, and the caption under the diagram gives the
// Friedman and Iman–Davenport tests. title, when not empty, is drawn on
// top. The output depends only on the arguments: the same result gives
// the same bytes. Files are written atomically; the directory must exist.
//
// Errors wrap ErrInput (r.K < 2, Methods or AvgRank not of length K, an
// average rank outside [1, K], CD not positive and finite) or the file
// system's.
func CDDiagram(path string, r stats.FriedmanResult, title string) ([]string, error) {
	f, err := cdFigure(filepath.Base(path), r, title)
	if err != nil {
		return nil, err
	}
	if err := f.render(filepath.Dir(path)); err != nil {
		return nil, err
	}
	return []string{path + ".png", path + ".svg"}, nil
}

// cdFigure lays out the diagram as a figure named name.
func cdFigure(name string, r stats.FriedmanResult, title string) (figure, error) {
	if err := checkFriedman(r); err != nil {
		return figure{}, err
	}
	l := newCDLayout(r, title)
	return figure{Name: name, Section: "cd", Title: title, Caption: strings.Join(l.caption, " "),
		W: l.w, H: l.h, Draw: l.draw}, nil
}

func checkFriedman(r stats.FriedmanResult) error {
	if r.K < 2 || len(r.Methods) != r.K || len(r.AvgRank) != r.K {
		return fmt.Errorf("%w: critical-difference diagram of K = %d methods with %d names and %d ranks",
			ErrInput, r.K, len(r.Methods), len(r.AvgRank))
	}
	for i, a := range r.AvgRank {
		if !(a >= 1 && a <= float64(r.K)) {
			return fmt.Errorf("%w: average rank %v of %q outside [1, %d]", ErrInput, a, r.Methods[i], r.K)
		}
	}
	if !(r.CD > 0) || math.IsInf(r.CD, 1) {
		return fmt.Errorf("%w: critical difference %v", ErrInput, r.CD)
	}
	return nil
}

// cdLayout is the measured geometry of one diagram.
type cdLayout struct {
	r       stats.FriedmanResult
	order   []int // method indices by average rank, best first
	nLeft   int   // order[:nLeft] are labelled on the left
	groups  [][]int
	labels  []string // per method
	title   band
	caption []string // wrapped lines

	w, h         vg.Length
	axisL, axisW vg.Length // axis start and length
	xMax         float64   // rank at the axis' right end: max(K, 1 + CD)
	topH, cliqH  vg.Length // above the axis line (title, CD, ticks); clique bars
}

func newCDLayout(r stats.FriedmanResult, title string) *cdLayout {
	l := &cdLayout{r: r, groups: stats.NemenyiGroups(r.AvgRank, r.CD), xMax: max(float64(r.K), 1+r.CD)}
	l.order = make([]int, r.K)
	for i := range l.order {
		l.order[i] = i
	}
	slices.SortStableFunc(l.order, func(a, b int) int { return cmp.Compare(r.AvgRank[a], r.AvgRank[b]) })
	l.nLeft = (r.K + 1) / 2
	sty := textStyle(fontTick, draw.XLeft, draw.YCenter)
	var leftW, rightW vg.Length
	l.labels = make([]string, r.K)
	for pos, m := range l.order {
		rank := strconv.FormatFloat(r.AvgRank[m], 'f', 2, 64)
		if pos < l.nLeft {
			l.labels[m] = r.Methods[m] + " (" + rank + ")"
			leftW = max(leftW, sty.Width(l.labels[m]))
		} else {
			l.labels[m] = "(" + rank + ") " + r.Methods[m]
			rightW = max(rightW, sty.Width(l.labels[m]))
		}
	}
	l.axisW = vg.Length(min(max(cdAxisStep*(l.xMax-1), cdAxisMin), cdAxisMax))
	l.axisL = figPadding + leftW + 3 + cdStub
	l.w = l.axisL + l.axisW + cdStub + 3 + rightW + figPadding
	if title != "" {
		l.title = titleBand(title)
	}
	l.topH = l.title.Size + 2*textStyle(fontTick, draw.XCenter, draw.YBottom).Height("0") + 22
	l.cliqH = cdBarGap*vg.Length(len(l.groups)) + 4
	l.caption = wrapText(cdCaption(r), textStyle(fontSmall+1, draw.XLeft, draw.YTop), l.w-2*figPadding)
	rows := vg.Length(max(l.nLeft, r.K-l.nLeft))
	capH := vg.Length(len(l.caption)) * (textStyle(fontSmall+1, draw.XLeft, draw.YTop).Height("Xg") + 1)
	l.h = figPadding + l.topH + l.cliqH + rows*cdRowH + 8 + capH + figPadding
	return l
}

// x maps an average rank to the horizontal position.
func (l *cdLayout) x(c draw.Canvas, rank float64) vg.Length {
	return c.Min.X + l.axisL + vg.Length((rank-1)/(l.xMax-1))*l.axisW
}

// draw draws the diagram on c, which has the size l.w × l.h.
func (l *cdLayout) draw(c draw.Canvas) {
	top := c.Max.Y - figPadding
	if l.title.Draw != nil {
		l.title.Draw(cropTo(c, c.Min.X, top-l.title.Size, c.Max.X, top))
	}
	axisY := top - l.topH
	l.drawAxis(c, axisY)
	l.drawCD(c, top-l.title.Size-2)
	l.drawMethods(c, axisY)
	line := draw.LineStyle{Color: color.Black, Width: cdBarWidth}
	for g, grp := range l.groups {
		y := axisY - 6 - cdBarGap*vg.Length(g)
		c.StrokeLine2(line, l.x(c, l.r.AvgRank[grp[0]])-2, y, l.x(c, l.r.AvgRank[grp[len(grp)-1]])+2, y)
	}
	sty := textStyle(fontSmall+1, draw.XLeft, draw.YTop)
	y := c.Min.Y + figPadding + vg.Length(len(l.caption))*(sty.Height("Xg")+1)
	for _, s := range l.caption {
		c.FillText(sty, vg.Point{X: c.Min.X + figPadding, Y: y}, s)
		y -= sty.Height("Xg") + 1
	}
}

// drawAxis draws the rank axis 1 … K with labelled whole ranks above it.
func (l *cdLayout) drawAxis(c draw.Canvas, y vg.Length) {
	line := draw.LineStyle{Color: color.Black, Width: cdLineW}
	k := float64(l.r.K)
	c.StrokeLine2(line, l.x(c, 1), y, l.x(c, k), y)
	sty := textStyle(fontTick, draw.XCenter, draw.YBottom)
	for v := 1.0; v <= k; v += 0.5 {
		tick := vg.Length(2.5)
		if v == math.Trunc(v) {
			tick = 5
			c.FillText(sty, vg.Point{X: l.x(c, v), Y: y + tick + 1.5}, strconv.Itoa(int(v)))
		}
		c.StrokeLine2(line, l.x(c, v), y, l.x(c, v), y+tick)
	}
}

// drawCD draws the critical-difference interval [1, 1 + CD] with its
// label below the line at y (the top of the interval's label).
func (l *cdLayout) drawCD(c draw.Canvas, y vg.Length) {
	sty := textStyle(fontTick, draw.XCenter, draw.YTop)
	label := "CD = " + strconv.FormatFloat(l.r.CD, 'f', 2, 64)
	x0, x1 := l.x(c, 1), l.x(c, 1+l.r.CD)
	c.FillText(sty, vg.Point{X: (x0 + x1) / 2, Y: y}, label)
	ly := y - sty.Height(label) - 3
	line := draw.LineStyle{Color: color.Black, Width: cdLineW}
	c.StrokeLine2(line, x0, ly, x1, ly)
	c.StrokeLine2(line, x0, ly-3, x0, ly+3)
	c.StrokeLine2(line, x1, ly-3, x1, ly+3)
}

// drawMethods hangs each method from its rank on the axis at y to its
// label: the better half to the left (best on the top row), the rest to
// the right (worst on the top row), so that no two lines cross.
func (l *cdLayout) drawMethods(c draw.Canvas, y vg.Length) {
	line := draw.LineStyle{Color: color.Black, Width: cdLineW}
	left := textStyle(fontTick, draw.XRight, draw.YCenter)
	right := textStyle(fontTick, draw.XLeft, draw.YCenter)
	rowY := func(row int) vg.Length { return y - l.cliqH - cdRowH*(vg.Length(row)+0.5) }
	for pos, m := range l.order {
		x := l.x(c, l.r.AvgRank[m])
		if pos < l.nLeft {
			ry, end := rowY(pos), c.Min.X+l.axisL-cdStub
			c.StrokeLines(line, []vg.Point{{X: x, Y: y}, {X: x, Y: ry}, {X: end, Y: ry}})
			c.FillText(left, vg.Point{X: end - 3, Y: ry}, l.labels[m])
			continue
		}
		ry, end := rowY(l.r.K-1-pos), c.Min.X+l.axisL+l.axisW+cdStub
		c.StrokeLines(line, []vg.Point{{X: x, Y: y}, {X: x, Y: ry}, {X: end, Y: ry}})
		c.FillText(right, vg.Point{X: end + 3, Y: ry}, l.labels[m])
	}
}

// cdCaption states the tests behind the diagram.
func cdCaption(r stats.FriedmanResult) string {
	return fmt.Sprintf("Friedman χ²(%d) = %s, p = %s; Iman–Davenport F(%d, %d) = %s, p = %s; "+
		"N = %d blocks, K = %d methods. Bars join methods whose average ranks differ by less than "+
		"the Nemenyi critical difference CD = %s (α = %g).",
		r.DF, fmtStat(r.Chi2), fmtPValue(r.P), r.K-1, (r.K-1)*(r.N-1), fmtStat(r.FF), fmtPValue(r.PFF),
		r.N, r.K, strconv.FormatFloat(r.CD, 'f', 3, 64), r.Alpha)
}

func fmtStat(v float64) string {
	if math.IsNaN(v) {
		return "NA"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// fmtPValue prints p with two significant digits, in exponent form below
// 0.001.
func fmtPValue(p float64) string {
	switch {
	case math.IsNaN(p):
		return "NA"
	case p < 1e-3:
		return strconv.FormatFloat(p, 'e', 1, 64)
	}
	return strconv.FormatFloat(p, 'g', 2, 64)
}

// wrapText breaks s into lines no wider than w in style sty (a single
// word wider than w gets a line of its own).
func wrapText(s string, sty text.Style, w vg.Length) []string {
	var lines []string
	cur := ""
	for _, word := range strings.Fields(s) {
		next := word
		if cur != "" {
			next = cur + " " + word
		}
		if cur != "" && sty.Width(next) > w {
			lines = append(lines, cur)
			next = word
		}
		cur = next
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}
