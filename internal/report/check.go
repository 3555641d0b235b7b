package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// ErrCheck is wrapped by the errors of CheckImages and CheckScreenshot:
// the rendered report is broken.
var ErrCheck = errors.New("report: check failed")

var (
	imgTag   = regexp.MustCompile(`(?is)<img\b[^>]*>`)
	srcAttr  = regexp.MustCompile(`(?is)\ssrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))`)
	aTag     = regexp.MustCompile(`(?is)<a\b[^>]*>`)
	hrefAttr = regexp.MustCompile(`(?is)\shref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))`)
)

// PageCheck counts what CheckPage verified.
type PageCheck struct {
	Images int // <img> elements, each a decodable PNG or SVG
	Links  int // <a href> to local files, each present (and decodable if PNG/SVG)
}

// CheckPage reads an HTML document (index.html, or the DOM a browser
// dumped after loading it) and checks that it has at least one <img>,
// that every img src is a relative path, inside dir, to a file that
// fully decodes as PNG or parses as an SVG document, and that every
// link to a local file (href without a scheme or '#') names an existing
// file, decodable when it is a PNG or SVG. Errors wrap ErrCheck and
// name the file.
func CheckPage(dir string, doc io.Reader) (PageCheck, error) {
	var pc PageCheck
	b, err := io.ReadAll(doc)
	if err != nil {
		return pc, fmt.Errorf("report: read document: %w", err)
	}
	imgs := imgTag.FindAll(b, -1)
	if len(imgs) == 0 {
		return pc, fmt.Errorf("%w: the document has no <img>", ErrCheck)
	}
	for _, t := range imgs {
		src, ok := attr(srcAttr, t)
		if !ok {
			return pc, fmt.Errorf("%w: <img> without src: %s", ErrCheck, t)
		}
		if err := checkFile(dir, src, true); err != nil {
			return pc, err
		}
		pc.Images++
	}
	for _, t := range aTag.FindAll(b, -1) {
		href, ok := attr(hrefAttr, t)
		if !ok || strings.HasPrefix(href, "#") || strings.Contains(href, ":") {
			continue
		}
		if err := checkFile(dir, href, false); err != nil {
			return pc, err
		}
		pc.Links++
	}
	return pc, nil
}

// attr extracts an attribute value from a tag, unescaping entities.
func attr(re *regexp.Regexp, tag []byte) (string, bool) {
	m := re.FindSubmatch(tag)
	if m == nil {
		return "", false
	}
	return html.UnescapeString(string(bytes.Join(m[1:], nil))), true
}

// checkFile verifies one relative file reference; an image must be a
// PNG or SVG that decodes, another file must merely exist.
func checkFile(dir, src string, isImage bool) error {
	if src == "" || strings.Contains(src, ":") || strings.HasPrefix(src, "/") || strings.ContainsAny(src, "?#") {
		return fmt.Errorf("%w: file %q is not a plain relative file name", ErrCheck, src)
	}
	path := filepath.Join(dir, filepath.FromSlash(src))
	if rel, err := filepath.Rel(dir, path); err != nil || strings.HasPrefix(rel, "..") {
		return fmt.Errorf("%w: file %q lies outside the report directory", ErrCheck, src)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%w: file %q: %w", ErrCheck, src, err)
	}
	switch strings.ToLower(filepath.Ext(src)) {
	case ".png":
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("%w: file %q does not decode: %w", ErrCheck, src, err)
		}
		if img.Bounds().Dx() < 2 || img.Bounds().Dy() < 2 {
			return fmt.Errorf("%w: file %q is %v", ErrCheck, src, img.Bounds())
		}
	case ".svg":
		if err := checkSVG(data); err != nil {
			return fmt.Errorf("%w: file %q: %w", ErrCheck, src, err)
		}
	default:
		if isImage {
			return fmt.Errorf("%w: image %q is neither PNG nor SVG", ErrCheck, src)
		}
	}
	return nil
}

// checkSVG parses data as XML to the end and requires an <svg> root.
func checkSVG(data []byte) error {
	d := xml.NewDecoder(bytes.NewReader(data))
	root := ""
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		return fmt.Errorf("root element is %q, not svg", root)
	}
	return nil
}

// CheckScreenshot checks that the PNG at path decodes and is not blank:
// at least minInk (a fraction, e.g. 0.01) of its pixels differ clearly
// from its top-left pixel (the page background). Errors wrap ErrCheck.
func CheckScreenshot(path string, minInk float64) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w: screenshot: %w", ErrCheck, err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return fmt.Errorf("%w: screenshot %s does not decode: %w", ErrCheck, path, err)
	}
	if ink := inkFraction(img); ink < minInk {
		return fmt.Errorf("%w: screenshot %s is blank (%.4f%% of pixels differ from the background, want ≥ %.4f%%)",
			ErrCheck, path, 100*ink, 100*minInk)
	}
	return nil
}

// inkFraction is the share of pixels differing from the top-left one by
// more than 24 (of 255) in some channel.
func inkFraction(img image.Image) float64 {
	b := img.Bounds()
	if b.Empty() {
		return 0
	}
	bg := color.NRGBAModel.Convert(img.At(b.Min.X, b.Min.Y)).(color.NRGBA)
	far := func(x, y uint8) bool { return int(x) > int(y)+24 || int(y) > int(x)+24 }
	n := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			if far(c.R, bg.R) || far(c.G, bg.G) || far(c.B, bg.B) {
				n++
			}
		}
	}
	return float64(n) / float64(b.Dx()*b.Dy())
}
