// Command reportcheck verifies a rendered report for
// scripts/browser-check.sh: every <img> of a DOM dump is a decodable
// PNG/SVG file of the report directory, every local link resolves, and
// a screenshot is not blank.
//
// Usage: reportcheck -dir REPORT_DIR -dom DOM.html [-screenshot SHOT.png]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/misslab/misslab/internal/report"
)

func main() {
	dir := flag.String("dir", "", "report directory (holds index.html and the figures)")
	dom := flag.String("dom", "", "HTML document to check, e.g. chromium --dump-dom output")
	shot := flag.String("screenshot", "", "optional PNG screenshot that must not be blank")
	minInk := flag.Float64("min-ink", 0.01, "fraction of screenshot pixels that must differ from the background")
	flag.Parse()
	if *dir == "" || *dom == "" {
		flag.Usage()
		os.Exit(2)
	}
	f, err := os.Open(*dom)
	if err != nil {
		fmt.Fprintln(os.Stderr, "reportcheck:", err)
		os.Exit(1)
	}
	pc, err := report.CheckPage(*dir, f)
	f.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "reportcheck:", err)
		os.Exit(1)
	}
	fmt.Printf("reportcheck: %s: %d images decode, %d local links resolve\n", *dom, pc.Images, pc.Links)
	if *shot != "" {
		if err := report.CheckScreenshot(*shot, *minInk); err != nil {
			fmt.Fprintln(os.Stderr, "reportcheck:", err)
			os.Exit(1)
		}
		fmt.Printf("reportcheck: screenshot %s is not blank\n", *shot)
	}
}
