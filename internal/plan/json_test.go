package plan

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanJSON: the JSON document carries the plan's own numbers, with
// snake_case keys, columns 1-based, and a table's file, rows and columns
// (null for what has no value), and decodes back to the same document.
func TestPlanJSON(t *testing.T) {
	p := Of(mustParse(t, planSrc), testCost)
	doc := p.JSON()
	jobs, fits, cpu := p.Totals()
	if doc.SchemaVersion != 1 || doc.Grid != "test.hcl" || doc.Cores != 4 || doc.Jobs != jobs || doc.Fits != sum(fits) ||
		doc.CPUSeconds != cpu || doc.WallSeconds != p.WallSeconds() || len(doc.Sweeps) != 2 {
		t.Fatalf("totals: %+v", doc)
	}
	for i, s := range doc.Sweeps {
		want := p.Sweeps[i]
		if s.Name != want.Name || s.Hash != want.Hash || s.Jobs != want.Jobs || s.Scenarios != want.Scenarios ||
			s.Repetitions != want.Repetitions || s.CPUSeconds != want.CPUSeconds || s.Fits != sum(want.Fits) ||
			s.WallSeconds != want.CPUSeconds/4 || s.LongestJobSeconds != want.LongestJob || s.Table != nil {
			t.Errorf("sweep %d: %+v, plan %+v", i, s, want)
		}
	}
	var b strings.Builder
	if err := WriteJSON(&b, doc); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"schema_version": 1`, `"fits_per_learner": {`, `"cpu_seconds": `, `"wall_seconds": `,
		`"longest_job_seconds": `, `"max_train_cells": `, `"table": null`, `"external_methods": []`} {
		if !strings.Contains(b.String(), key) {
			t.Errorf("JSON lacks %s:\n%s", key, b.String())
		}
	}
	var back JSON
	if err := json.Unmarshal([]byte(b.String()), &back); err != nil {
		t.Fatal(err)
	}
	if back.Jobs != doc.Jobs || back.CPUSeconds != doc.CPUSeconds || back.Sweeps[1].FitsPerLearner["tree"] != 6 {
		t.Errorf("decoded back: %+v", back)
	}

	src := `sweep "air" {
  seed        = 1
  repetitions = 2
  table {
    file        = "` + filepath.Join("..", "..", "examples", "data", "airquality.csv") + `"
    target      = "Ozone"
    categorical = ["Month"]
  }
  split { folds = 5 }
  missingness {
    mechanism = ["none", "mcar"]
    rate      = 0.2
    columns   = ["Wind", "Temp"]
  }
  pipelines { names = ["tree/mia"] }
}`
	tp := Of(mustParse(t, src), DefaultCostModel()).JSON().Sweeps[0]
	tab := tp.Table
	if tab == nil || tab.Target != "Ozone" || tab.Folds != 5 || tab.TestFraction != 0 || tab.Rows != 153 ||
		tab.RowsWithTarget != 116 || tab.RowsDroppedNATarget != 37 || tab.FileBytes == 0 || len(tab.Columns) == 0 {
		t.Fatalf("table: %+v", tab)
	}
	for _, c := range tab.Columns {
		if (c.Kind == "categorical") != (c.Mean == nil) || c.NAFraction < 0 || c.NAFraction > 1 {
			t.Errorf("column %+v", c)
		}
	}
	if tp.Jobs != 2*2*5 {
		t.Errorf("jobs %d, want 20 (2 scenarios × 2 repetitions × 5 folds)", tp.Jobs)
	}
}
