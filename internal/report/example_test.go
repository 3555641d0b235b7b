package report_test

import (
	"context"
	"fmt"
	"os"

	"github.com/misslab/misslab/internal/report"
	"github.com/misslab/misslab/internal/stats"
)

// A coordinator converts stored results into an Input and writes the
// report directory.
func ExampleWrite() {
	in := report.Input{
		Sweep: "exp1",
		Scenarios: []report.Scenario{{Key: "quadratic/mcar", Title: "MCAR", RepsPlanned: 2,
			Labels: []report.Label{{Name: "model", Value: "quadratic"}, {Name: "mechanism", Value: "mcar"}}}},
		Jobs: report.Jobs{Planned: 2, Done: 2},
		Records: []stats.Record{
			{Scenario: "quadratic/mcar", Rep: 0, Pipeline: "tree/mia", R2: 0.61, MSE: 1.2, FitSeconds: 0.02, PredictSeconds: 0.001},
			{Scenario: "quadratic/mcar", Rep: 0, Pipeline: "tree/mean", R2: 0.58, MSE: 1.3, FitSeconds: 0.02, PredictSeconds: 0.001},
			{Scenario: "quadratic/mcar", Rep: 1, Pipeline: "tree/mia", R2: 0.64, MSE: 1.1, FitSeconds: 0.02, PredictSeconds: 0.001},
			{Scenario: "quadratic/mcar", Rep: 1, Pipeline: "tree/mean", R2: 0.60, MSE: 1.25, FitSeconds: 0.02, PredictSeconds: 0.001},
		},
	}
	dir, err := os.MkdirTemp("", "report-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	files, err := report.Write(context.Background(), dir, in)
	fmt.Println(files, err)
	// Output:
	// [box-r2-1.png box-r2-1.svg box-rel-1.png box-rel-1.svg index.html pvalues-1-1-tree.png pvalues-1-1-tree.svg results.csv summary.csv timing-1.png timing-1.svg ttests.csv] <nil>
}
