// Package report renders a sweep's stats-level results (records, tests,
// curves, stump choices) into a static directory of PNG/SVG figures,
// CSV tables and one JavaScript-free index.html.
package report
