package knn_test

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// table is a numeric CSV fixture: a header and rows of float64.
type table struct {
	header []string
	rows   [][]float64
}

func readTable(t *testing.T, name string) table {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	tb := table{header: recs[0]}
	for _, r := range recs[1:] {
		row := make([]float64, len(r))
		for j, s := range r {
			if row[j], err = strconv.ParseFloat(s, 64); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		tb.rows = append(tb.rows, row)
	}
	return tb
}

// cols returns the columns whose header starts with prefix as a matrix.
func (tb table) cols(prefix string) *mat.Dense {
	var idx []int
	for j, h := range tb.header {
		if strings.HasPrefix(h, prefix) {
			idx = append(idx, j)
		}
	}
	m := mat.NewDense(len(tb.rows), len(idx), nil)
	for i, r := range tb.rows {
		for c, j := range idx {
			m.Set(i, c, r[j])
		}
	}
	return m
}

// col returns the column named name, or nil.
func (tb table) col(name string) []float64 {
	for j, h := range tb.header {
		if h == name {
			out := make([]float64, len(tb.rows))
			for i, r := range tb.rows {
				out[i] = r[j]
			}
			return out
		}
	}
	return nil
}
