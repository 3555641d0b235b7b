package report

import (
	"errors"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writePNG(t *testing.T, path string, img image.Image) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}

// filled returns a w×h white image with the top-left fraction ink of
// its rows painted black.
func filled(w, h int, ink float64) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{255, 255, 255, 255}
			if float64(y) >= float64(h)*(1-ink) {
				c = color.RGBA{0, 0, 0, 255}
			}
			img.Set(x, y, c)
		}
	}
	return img
}

func TestCheckPage(t *testing.T) {
	dir := t.TempDir()
	writePNG(t, filepath.Join(dir, "a.png"), filled(8, 8, 0.5))
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b.svg", `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="5" height="5"/></svg>`)
	write("broken.png", "\x89PNG\r\n\x1a\nnot really")
	write("notsvg.svg", `<html><body/></html>`)
	write("badxml.svg", `<svg><g></svg>`)
	write("data.csv", "a,b\n")
	write("c&d.png", "") // replaced below by a real PNG
	writePNG(t, filepath.Join(dir, "c&d.png"), filled(4, 4, 1))

	ok := `<p><img src="a.png" alt="x"><img alt='y' src='b.svg'><img src="c&amp;d.png">
<a href="#top">t</a><a href="data.csv">d</a><a href="b.svg">s</a><a href="https://example.org/">e</a></p>`
	pc, err := CheckPage(dir, strings.NewReader(ok))
	if err != nil || pc.Images != 3 || pc.Links != 2 {
		t.Fatalf("CheckPage(good) = %+v, %v; want 3 images, 2 local links", pc, err)
	}
	for name, doc := range map[string]string{
		"no images":     `<p>nothing</p>`,
		"missing file":  `<img src="gone.png">`,
		"corrupt png":   `<img src="broken.png">`,
		"not svg root":  `<img src="notsvg.svg">`,
		"bad svg xml":   `<img src="badxml.svg">`,
		"not an image":  `<img src="data.csv">`,
		"absolute path": `<img src="/etc/passwd.png">`,
		"parent dir":    `<img src="../a.png">`,
		"remote":        `<img src="http://example.org/a.png">`,
		"no src":        `<img alt="x">`,
		"dead link":     `<img src="a.png"><a href="nowhere.csv">x</a>`,
	} {
		if _, err := CheckPage(dir, strings.NewReader(doc)); !errors.Is(err, ErrCheck) {
			t.Errorf("%s: error %v, want ErrCheck", name, err)
		}
	}
}

func TestCheckScreenshot(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		ink  float64
		pass bool
	}{{0, false}, {0.005, false}, {0.05, true}, {0.5, true}} {
		path := filepath.Join(dir, "shot.png")
		writePNG(t, path, filled(100, 200, c.ink))
		err := CheckScreenshot(path, 0.01)
		if c.pass && err != nil || !c.pass && !errors.Is(err, ErrCheck) {
			t.Errorf("ink %v: error %v, pass %v", c.ink, err, c.pass)
		}
	}
	if err := CheckScreenshot(filepath.Join(dir, "none.png"), 0.01); !errors.Is(err, ErrCheck) {
		t.Errorf("missing screenshot: %v", err)
	}
}
