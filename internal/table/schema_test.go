package table

import (
	"context"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// Schema gives the same columns, kinds and row count as a full read,
// without values, and refuses what Read refuses.
func TestSchemaMatchesRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.parquet")
	writeParquet(t, path, pqRows(rand.New(rand.NewPCG(3, 4)), 200))
	opt := Options{Categorical: []string{"s"}, Drop: []string{"u"}}
	full, err := ReadFile(context.Background(), path, opt)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := Schema(context.Background(), path, opt)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Rows != full.Rows || len(sc.Columns) != len(full.Columns) || len(sc.AllNames) != len(full.AllNames) {
		t.Fatalf("schema %d rows %d columns, read %d rows %d columns", sc.Rows, len(sc.Columns), full.Rows, len(full.Columns))
	}
	for i, c := range sc.Columns {
		if c.Name != full.Columns[i].Name || c.Kind != full.Columns[i].Kind || c.Num != nil || c.Codes != nil {
			t.Errorf("column %d: schema %s/%v, read %s/%v", i, c.Name, c.Kind, full.Columns[i].Name, full.Columns[i].Kind)
		}
	}
	if _, err := Schema(context.Background(), path, Options{Drop: []string{"nope"}}); !errors.Is(err, ErrColumn) {
		t.Errorf("unknown drop name: %v", err)
	}
	if _, err := Schema(context.Background(), "testdata/airquality.csv", Options{}); !errors.Is(err, ErrFormat) {
		t.Errorf("a CSV: %v", err)
	}
}
