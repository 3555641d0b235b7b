package reportgen

import (
	"context"
	"fmt"

	"github.com/misslab/misslab/internal/report"
	"github.com/misslab/misslab/internal/store"
)

// Combined builds one report input from several sweeps (the tables of a
// real-data grid, say): every sweep's scenarios, titled "sweep ·
// scenario", its records, failures and imputation points, so that the
// report's ranks section ranks the pipelines across every table and
// scenario at once (Friedman test, critical-difference diagram).
// Learning curves, stump choices and the theory figures belong to single
// sweeps and are left out.
func Combined(ctx context.Context, st *store.Store, recs []store.SweepRecord) (report.Input, error) {
	in := report.Input{Sweep: "all sweeps"}
	for _, rec := range recs {
		one, err := Build(ctx, st, rec)
		if err != nil {
			return report.Input{}, err
		}
		name := rec.Spec.Name
		key := func(k string) string { return name + ": " + k }
		for _, sc := range one.Scenarios {
			sc.Key, sc.Title = key(sc.Key), name+" · "+sc.Title
			sc.Labels = append([]report.Label{{Name: "sweep", Value: name}}, sc.Labels...)
			in.Scenarios = append(in.Scenarios, sc)
		}
		for _, r := range one.Records {
			r.Scenario = key(r.Scenario)
			in.Records = append(in.Records, r)
		}
		for _, f := range one.Failures {
			f.Scenario = name + " · " + f.Scenario
			in.Failures = append(in.Failures, f)
		}
		for _, pt := range one.Impute {
			pt.Scenario = key(pt.Scenario)
			in.Impute = append(in.Impute, pt)
		}
		in.Jobs.Planned += one.Jobs.Planned
		in.Jobs.Done += one.Jobs.Done
		in.Jobs.Failed += one.Jobs.Failed
		in.SweepID += fmt.Sprintf("%s %.12s; ", name, rec.ID)
	}
	return in, nil
}

// WriteCombined renders Combined into dir.
func WriteCombined(ctx context.Context, st *store.Store, recs []store.SweepRecord, dir string) ([]string, error) {
	in, err := Combined(ctx, st, recs)
	if err != nil {
		return nil, err
	}
	return report.Write(ctx, dir, in)
}
