package report

import (
	"fmt"
	"image/color"
	"image/png"
	"io"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/misslab/misslab/internal/atomicfile"
)

// Rendering constants. Figures are laid out in points (1/72 inch) and
// rasterised at dpi, so a PNG is (points·dpi/72) pixels wide; index.html
// shows it at its size in CSS pixels (points·4/3), i.e. sharp on screens
// up to 1.5 device pixels per CSS pixel. Text uses the Liberation Sans
// face embedded in gonum/plot, never a system font, so output bytes do
// not depend on the machine's fonts.
const (
	dpi        = 144
	fontTitle  = 10 // panel titles
	fontLabel  = 9  // axis labels
	fontTick   = 8  // tick labels and strategy names
	fontSmall  = 6.5
	figPadding = 6 // points around every figure
)

var sansFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// textStyle returns a Liberation Sans style of size pt points.
func textStyle(pt float64, xa text.XAlignment, ya text.YAlignment) text.Style {
	return text.Style{Color: color.Black, Font: font.From(sansFont, vg.Length(pt)),
		XAlign: xa, YAlign: ya, Handler: plot.DefaultTextHandler}
}

// newPlot returns a plot with this package's fonts and sizes: sans
// titles, labels and ticks, no background (the figure paints white).
func newPlot() *plot.Plot {
	p := plot.New()
	p.BackgroundColor = nil
	p.Title.TextStyle = textStyle(fontTitle, draw.XCenter, draw.YTop)
	p.Title.Padding = 3
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sansFont, fontLabel)
		a.Tick.Label.Font = font.From(sansFont, fontTick)
		a.Tick.Length = 4
		a.Padding = 2
	}
	p.X.Label.Padding = 2
	p.Y.Label.Padding = 2
	p.Legend.TextStyle = textStyle(fontTick, draw.XLeft, draw.YBottom)
	return p
}

// figure is one image of the report, drawn once per output format.
type figure struct {
	Name    string // file base name without extension, e.g. "box-r2-1"
	Section string // index.html section key
	Title   string // heading shown above the image
	Caption string // plain text; escaped by html/template
	W, H    vg.Length
	Draw    func(c draw.Canvas)
}

// render writes dir/Name.png and dir/Name.svg atomically.
func (f figure) render(dir string) error {
	ic := vgimg.NewWith(vgimg.UseWH(f.W, f.H), vgimg.UseDPI(dpi),
		vgimg.UseBackgroundColor(color.White))
	f.Draw(draw.New(ic))
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	err := atomicfile.WriteFile(filepath.Join(dir, f.Name+".png"), 0o644, func(w io.Writer) error {
		return enc.Encode(w, ic.Image())
	})
	if err != nil {
		return fmt.Errorf("report: figure %s: %w", f.Name, err)
	}
	sc := vgsvg.New(f.W, f.H)
	dc := draw.New(sc)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	f.Draw(dc)
	err = atomicfile.WriteFile(filepath.Join(dir, f.Name+".svg"), 0o644, func(w io.Writer) error {
		_, err := sc.WriteTo(w)
		return err
	})
	if err != nil {
		return fmt.Errorf("report: figure %s: %w", f.Name, err)
	}
	return nil
}

// pixels returns the CSS size at which index.html shows a figure.
func (f figure) pixels() (w, h int) {
	return int(math.Round(float64(f.W) * 4 / 3)), int(math.Round(float64(f.H) * 4 / 3))
}

// Colours: pairs of a dark and a light shade (Tableau 20 and 20b). A
// strategy and its "+mask" variant share a pair: dark without the mask,
// light with it, so related pipelines read as related.
var colourPairs = [][2]color.RGBA{
	{rgb(0x1f77b4), rgb(0xaec7e8)}, {rgb(0xff7f0e), rgb(0xffbb78)},
	{rgb(0x2ca02c), rgb(0x98df8a)}, {rgb(0xd62728), rgb(0xff9896)},
	{rgb(0x9467bd), rgb(0xc5b0d5)}, {rgb(0x8c564b), rgb(0xc49c94)},
	{rgb(0xe377c2), rgb(0xf7b6d2)}, {rgb(0x7f7f7f), rgb(0xc7c7c7)},
	{rgb(0xbcbd22), rgb(0xdbdb8d)}, {rgb(0x17becf), rgb(0x9edae5)},
	{rgb(0x393b79), rgb(0x9c9ede)}, {rgb(0x637939), rgb(0xcedb9c)},
}

func rgb(v uint32) color.RGBA {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 255}
}

// knownStrategies fixes the colour of misslab's strategy names across
// reports; other names follow in sorted order.
var knownStrategies = []string{"mean", "median", "constant", "oor", "gaussian",
	"mia", "mia-inf", "surrogate", "block", "prob", "majority", "oracle"}

const maskSuffix = "+mask"

// palette assigns colours to strategy labels.
type palette map[string]int

// newPalette numbers the base strategies (label without "+mask") of
// labels: known names first in knownStrategies order, then the rest sorted.
func newPalette(labels []string) palette {
	p := palette{}
	for i, k := range knownStrategies {
		p[k] = i
	}
	next := len(knownStrategies)
	for _, l := range sortedUnique(labels) {
		base := strings.TrimSuffix(l, maskSuffix)
		if _, ok := p[base]; !ok {
			p[base] = next
			next++
		}
	}
	return p
}

// colour returns the strategy's colour and whether it is the masked
// (light) shade.
func (p palette) colour(label string) (color.RGBA, bool) {
	base, masked := strings.CutSuffix(label, maskSuffix)
	pair := colourPairs[p[base]%len(colourPairs)]
	if masked {
		return pair[1], true
	}
	return pair[0], false
}

// dashes returns a line dash pattern for a strategy: solid without the
// mask, dashed with it; strategies sharing a colour (more than twelve)
// get a dotted variant.
func (p palette) dashes(label string) []vg.Length {
	base, masked := strings.CutSuffix(label, maskSuffix)
	cycle := p[base] / len(colourPairs)
	switch {
	case masked:
		return []vg.Length{4, 2}
	case cycle%2 == 1:
		return []vg.Length{1, 1.5}
	}
	return nil
}

// fileSlug turns a label into a short file-name part: lower-case ASCII
// letters, digits and '-', at most 24 characters.
func fileSlug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9'
		switch {
		case ok:
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
		if b.Len() >= 24 {
			break
		}
	}
	out := strings.TrimSuffix(b.String(), "-")
	if out == "" {
		return "x"
	}
	return out
}
