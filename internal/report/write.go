package report

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"

	"github.com/misslab/misslab/internal/atomicfile"
	"github.com/misslab/misslab/internal/stats"
)

// Write renders in as a static report in dir (created if missing) and
// returns the names of the files it wrote, sorted. Every file is written
// atomically, so a reader never sees a half-written figure; files of an
// earlier report in dir that this one does not produce are left alone.
// The output depends only on in: the same input gives the same bytes.
//
// Errors wrap ErrInput (invalid records, duplicate scenarios, bad
// Alpha/Conf, stats errors on curves or stump choices), ctx's error
// when cancelled, or the file system's.
func Write(ctx context.Context, dir string, in Input) ([]string, error) {
	return write(ctx, dir, in, true)
}

// write is Write; with figures false it writes the tables and the page
// but draws no figure (tests of the page use it to stay fast).
func write(ctx context.Context, dir string, in Input, figures bool) ([]string, error) {
	p, err := prepare(in)
	if err != nil {
		return nil, err
	}
	res, err := analyse(p)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	lay := assemble(p, res)
	if !figures {
		lay.figures = nil
	}
	if err := renderAll(ctx, dir, lay.figures); err != nil {
		return nil, err
	}
	files, err := writeTables(dir, p, res)
	if err != nil {
		return nil, err
	}
	err = atomicfile.WriteFile(filepath.Join(dir, "index.html"), 0o644, func(w io.Writer) error {
		return writePage(w, lay.page)
	})
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	files = append(files, "index.html")
	for _, f := range lay.figures {
		files = append(files, f.Name+".png", f.Name+".svg")
	}
	slices.Sort(files)
	return files, nil
}

// results are the statistics a report draws.
type results struct {
	sums   []stats.PipelineSummary
	idx    summaryIndex
	tests  []stats.PairTest
	panels []stats.Panel
	sel    []stats.Selection
	pal    palette
	// loss, for a classification report, holds the statistics of the
	// log-loss view (p.lossView): its box plots, tests and learning
	// curves (panels are then computed there, not here).
	loss     *results
	lossView *prepared
}

func analyse(p *prepared) (*results, error) {
	if v := p.lossView(); v != nil {
		primary := *p
		primary.Curves = stats.CurveOptions{} // curves are drawn in log-loss
		r, err := analyseView(&primary)
		if err != nil {
			return nil, err
		}
		if r.loss, err = analyseView(v); err != nil {
			return nil, err
		}
		r.lossView, r.panels = v, r.loss.panels
		r.loss.pal = r.pal
		return r, nil
	}
	return analyseView(p)
}

// analyseView computes the statistics of one view of the records.
func analyseView(p *prepared) (*results, error) {
	r := &results{}
	var err error
	if r.sums, err = stats.Summarize(p.Records, p.family); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	r.idx = indexSummaries(r.sums)
	if r.tests, err = stats.PairwiseTests(p.Records, p.family, p.Conf); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	if p.Curves.Point != nil {
		if r.panels, err = stats.LearningCurves(p.Records, p.Curves); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInput, err)
		}
		orderPanels(p, r.panels)
	}
	if len(p.Choices) > 0 {
		if r.sel, err = stats.SelectionFrequency(p.Choices, p.SelectionTarget, p.Conf); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInput, err)
		}
	}
	var labels []string
	for _, pl := range stats.Pipelines(p.Records) {
		labels = append(labels, p.strategy(pl))
	}
	r.pal = newPalette(labels)
	return r, nil
}

// renderAll draws the figures on up to GOMAXPROCS goroutines and returns
// the first error (or ctx's).
func renderAll(ctx context.Context, dir string, figs []figure) error {
	work := make(chan int)
	errs := make([]error, len(figs))
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(figs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if ctx.Err() == nil {
					errs[i] = figs[i].render(dir)
				}
			}
		}()
	}
	for i := range figs {
		if ctx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// writeTables writes the CSV files and returns their names.
func writeTables(dir string, p *prepared, r *results) ([]string, error) {
	type table struct {
		name  string
		write func(io.Writer) error
	}
	scoreNames := p.Task.names()
	ts := []table{
		{"results.csv", func(w io.Writer) error { return stats.WriteResultsCSVNamed(w, p.Records, scoreNames) }},
		{"summary.csv", func(w io.Writer) error { return stats.WriteSummaryCSVNamed(w, r.sums, scoreNames) }},
		{"ttests.csv", func(w io.Writer) error { return stats.WriteTTestsCSV(w, r.tests) }},
	}
	if r.loss != nil { // one file, a metric column for the two scores
		ts[2].write = func(w io.Writer) error {
			return stats.WriteMetricTTestsCSV(w, []stats.MetricTests{{Metric: scoreNames.Score, Tests: r.tests},
				{Metric: scoreNames.Loss, Tests: r.loss.tests}})
		}
	}
	if len(p.Calibration) > 0 {
		ts = append(ts, table{"calibration.csv", func(w io.Writer) error { return writeCalibrationCSV(w, p.Calibration) }})
	}
	if len(r.panels) > 0 {
		ts = append(ts, table{"curves.csv", func(w io.Writer) error { return stats.WriteCurvesCSV(w, r.panels) }})
	}
	if len(r.sel) > 0 {
		ts = append(ts, table{"selection.csv", func(w io.Writer) error { return stats.WriteSelectionCSV(w, r.sel) }})
	}
	if p.Theory != nil {
		ts = append(ts, table{"theory.csv", func(w io.Writer) error { return writeTheoryCSV(w, p.Theory) }})
	}
	var names []string
	for _, t := range ts {
		if err := atomicfile.WriteFile(filepath.Join(dir, t.name), 0o644, t.write); err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		names = append(names, t.name)
	}
	return names, nil
}
