package report

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// grid lays out plots so that their data areas line up: every data area
// of column j is DataW[j] wide and every data area of row i is DataH[i]
// high, whatever the plots' titles, tick labels and axis labels take
// (each column and row gets the largest margin its plots need). A nil
// plot leaves its cell empty. Extra content can be added around the
// plots with the Left/Right/Top/Bottom bands, whose drawing functions
// receive their band's canvas.
type grid struct {
	Plots        [][]*plot.Plot
	DataW, DataH []vg.Length
	Gap          vg.Length // space between cells

	Top    band // e.g. a figure title; drawn above everything
	Right  band // e.g. a legend
	Bottom band
	// RowRight draws extra content right of each row (a per-row legend),
	// RowRightW wide, vertically aligned with the row's data area.
	RowRight  func(row int, c draw.Canvas)
	RowRightW vg.Length

	margins    [][]margin // per plot, filled by measure
	colL, colR []vg.Length
	rowB, rowT []vg.Length
}

// band is a strip of the figure outside the grid.
type band struct {
	Size vg.Length
	Draw func(c draw.Canvas)
}

// margin is how far a plot's canvas extends beyond its data area.
type margin struct{ l, r, b, t vg.Length }

// measure computes each plot's margins on a canvas of the final size:
// a first pass on a guessed size, a second on data size + measured
// margins (gonum/plot's padding depends weakly on the canvas size).
func (g *grid) measure() {
	g.margins = make([][]margin, len(g.Plots))
	g.colL, g.colR = make([]vg.Length, len(g.DataW)), make([]vg.Length, len(g.DataW))
	g.rowB, g.rowT = make([]vg.Length, len(g.DataH)), make([]vg.Length, len(g.DataH))
	for i, row := range g.Plots {
		g.margins[i] = make([]margin, len(row))
		for j, p := range row {
			if p == nil {
				continue
			}
			m := measureOne(p, g.DataW[j], g.DataH[i], margin{80, 20, 40, 20})
			m = measureOne(p, g.DataW[j], g.DataH[i], m)
			g.margins[i][j] = m
			g.colL[j], g.colR[j] = max(g.colL[j], m.l), max(g.colR[j], m.r)
			g.rowB[i], g.rowT[i] = max(g.rowB[i], m.b), max(g.rowT[i], m.t)
		}
	}
}

func measureOne(p *plot.Plot, w, h vg.Length, guess margin) margin {
	c := draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: w + guess.l + guess.r, Y: h + guess.b + guess.t}}}
	d := p.DataCanvas(c)
	return margin{l: d.Min.X - c.Min.X, r: c.Max.X - d.Max.X, b: d.Min.Y - c.Min.Y, t: c.Max.Y - d.Max.Y}
}

// size returns the figure size, measuring the plots first.
func (g *grid) size() (w, h vg.Length) {
	g.measure()
	for j := range g.DataW {
		w += g.colL[j] + g.DataW[j] + g.colR[j]
	}
	for i := range g.DataH {
		h += g.rowT[i] + g.DataH[i] + g.rowB[i]
	}
	w += g.Gap*vg.Length(max(len(g.DataW)-1, 0)) + 2*figPadding + g.Right.Size
	h += g.Gap*vg.Length(max(len(g.DataH)-1, 0)) + 2*figPadding + g.Top.Size + g.Bottom.Size
	if g.RowRight != nil {
		w += g.RowRightW + g.Gap
	}
	return w, h
}

// draw draws the figure on c, which must have the size returned by size.
func (g *grid) draw(c draw.Canvas) {
	inner := draw.Crop(c, figPadding, -figPadding, figPadding, -figPadding)
	if g.Top.Draw != nil {
		g.Top.Draw(cropTo(inner, inner.Min.X, inner.Max.Y-g.Top.Size, inner.Max.X, inner.Max.Y))
	}
	if g.Bottom.Draw != nil {
		g.Bottom.Draw(cropTo(inner, inner.Min.X, inner.Min.Y, inner.Max.X, inner.Min.Y+g.Bottom.Size))
	}
	if g.Right.Draw != nil {
		g.Right.Draw(cropTo(inner, inner.Max.X-g.Right.Size, inner.Min.Y+g.Bottom.Size,
			inner.Max.X, inner.Max.Y-g.Top.Size))
	}
	y := inner.Max.Y - g.Top.Size
	for i, row := range g.Plots {
		dataTop := y - g.rowT[i]
		dataBot := dataTop - g.DataH[i]
		x := inner.Min.X
		for j, p := range row {
			dataL := x + g.colL[j]
			if p != nil {
				m := g.margins[i][j]
				p.Draw(cropTo(c, dataL-m.l, dataBot-m.b, dataL+g.DataW[j]+m.r, dataTop+m.t))
			}
			x = dataL + g.DataW[j] + g.colR[j] + g.Gap
		}
		if g.RowRight != nil {
			g.RowRight(i, cropTo(c, x, dataBot, x+g.RowRightW, dataTop))
		}
		y = dataBot - g.rowB[i] - g.Gap
	}
}

// cropTo returns c restricted to the rectangle (x0, y0)–(x1, y1).
func cropTo(c draw.Canvas, x0, y0, x1, y1 vg.Length) draw.Canvas {
	return draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x1, Y: y1}}}
}

// titleBand is a band holding one line of centred bold-ish title text.
func titleBand(title string) band {
	sty := textStyle(fontTitle+1, draw.XCenter, draw.YTop)
	return band{Size: sty.Height(title) + 6, Draw: func(c draw.Canvas) {
		c.FillText(sty, vg.Point{X: c.Center().X, Y: c.Max.Y}, title)
	}}
}

// labelBand is a band holding a centred axis label under the grid.
func labelBand(label string) band {
	sty := textStyle(fontLabel, draw.XCenter, draw.YBottom)
	return band{Size: sty.Height(label) + 2, Draw: func(c draw.Canvas) {
		c.FillText(sty, vg.Point{X: c.Center().X, Y: c.Min.Y}, label)
	}}
}

// legendEntry is one line of a legend drawn by drawLegend.
type legendEntry struct {
	Label string
	Thumb plot.Thumbnailer
}

// legendSize returns the width and height drawLegend needs.
func legendSize(title string, entries []legendEntry) (w, h vg.Length) {
	sty := textStyle(fontTick, draw.XLeft, draw.YCenter)
	for _, e := range entries {
		w = max(w, sty.Width(e.Label))
	}
	w += legendThumbW + 4
	lh := legendLineH(sty)
	h = lh * vg.Length(len(entries))
	if title != "" {
		ts := textStyle(fontLabel, draw.XLeft, draw.YTop)
		w = max(w, ts.Width(title))
		h += lh + 2
	}
	return w + 4, h
}

const legendThumbW = 18

func legendLineH(sty text.Style) vg.Length { return sty.Height("Xg") + 3 }

// drawLegend draws a vertical legend at the top left of c.
func drawLegend(c draw.Canvas, title string, entries []legendEntry) {
	sty := textStyle(fontTick, draw.XLeft, draw.YCenter)
	lh := legendLineH(sty)
	x, y := c.Min.X+4, c.Max.Y
	if title != "" {
		c.FillText(textStyle(fontLabel, draw.XLeft, draw.YTop), vg.Point{X: x, Y: y}, title)
		y -= lh + 2
	}
	for _, e := range entries {
		th := cropTo(c, x, y-lh+1, x+legendThumbW, y-1)
		e.Thumb.Thumbnail(&th)
		c.FillText(sty, vg.Point{X: x + legendThumbW + 4, Y: y - lh/2}, e.Label)
		y -= lh
	}
}
