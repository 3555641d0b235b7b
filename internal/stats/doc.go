// Package stats turns per-repetition benchmark scores (plain numbers keyed
// by scenario, repetition and pipeline strings) into summaries, relative
// scores, paired t-tests with Holm adjustment, learning curves, stump
// selection frequencies and tidy CSV files, matching R's conventions.
package stats
