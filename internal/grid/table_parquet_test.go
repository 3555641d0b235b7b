package grid

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// smallRow is testdata/tables/small.csv as a Parquet schema: NA numbers
// are null, c is a string (categorical) and d an integer.
type smallRow struct {
	Y float64  `parquet:"y"`
	A *float64 `parquet:"a,optional"`
	B float64  `parquet:"b"`
	C *string  `parquet:"c,optional"`
	D int64    `parquet:"d"`
}

// A table block reads a .parquet file like the same table as CSV: the
// same features, kinds, rows and NA counts, another identity (its own
// bytes) and format.
func TestTableSweepParquet(t *testing.T) {
	dir := t.TempDir()
	rows := smallRows(t)
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[smallRow](&buf)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "small.parquet"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("testdata/table.good.hcl")
	if err != nil {
		t.Fatal(err)
	}
	src = bytes.Replace(src, []byte(`"tables/small.csv"`), []byte(`"small.parquet"`), 1)
	pf, err := Parse(src, filepath.Join(dir, "grid.hcl"), testOpts)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := ParseFile("testdata/table.good.hcl", testOpts)
	if err != nil {
		t.Fatal(err)
	}
	p, c := pf.Sweeps[0], cf.Sweeps[0]
	pr, cr := p.Scenarios[0].Table, c.Scenarios[0].Table
	if pr.Format != "parquet" || !slices.Equal(pr.Features, cr.Features) || pr.SHA256 == cr.SHA256 {
		t.Fatalf("parquet ref %+v, csv ref %+v", *pr, *cr)
	}
	if len(p.Scenarios) != len(c.Scenarios) || p.TableFile.Rows != c.TableFile.Rows || p.TableFile.Used != c.TableFile.Used {
		t.Fatalf("parquet: %d scenarios, %d/%d rows; csv: %d, %d/%d", len(p.Scenarios), p.TableFile.Rows, p.TableFile.Used,
			len(c.Scenarios), c.TableFile.Rows, c.TableFile.Used)
	}
	for i, col := range c.TableFile.Columns {
		q := p.TableFile.Columns[i]
		if q.Name != col.Name || q.Kind != col.Kind || q.NA != col.NA || q.Levels != col.Levels {
			t.Errorf("column %d: parquet %+v, csv %+v", i, q, col)
		}
	}
}

// smallRows reads testdata/tables/small.csv with encoding/csv.
func smallRows(t *testing.T) []smallRow {
	f, err := os.Open("testdata/tables/small.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return math.NaN()
		}
		return v
	}
	var out []smallRow
	for _, r := range recs[1:] {
		row := smallRow{Y: num(r[0]), B: num(r[2])}
		if a := num(r[1]); !math.IsNaN(a) {
			row.A = &a
		}
		if r[3] != "" {
			s := r[3]
			row.C = &s
		}
		row.D, _ = strconv.ParseInt(r[4], 10, 64)
		out = append(out, row)
	}
	return out
}
