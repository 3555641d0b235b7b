package svm_test

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// table is a CSV fixture: a header and rows of strings.
type table struct {
	header []string
	rows   [][]string
}

func readTable(t testing.TB, name string) table {
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
	return table{header: recs[0], rows: recs[1:]}
}

func num(t testing.TB, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// cols returns the columns whose header starts with prefix as a matrix.
func (tb table) cols(t testing.TB, prefix string) *mat.Dense {
	var idx []int
	for j, h := range tb.header {
		if strings.HasPrefix(h, prefix) {
			idx = append(idx, j)
		}
	}
	m := mat.NewDense(len(tb.rows), len(idx), nil)
	for i, r := range tb.rows {
		for c, j := range idx {
			m.Set(i, c, num(t, r[j]))
		}
	}
	return m
}

// col returns the numeric column named name.
func (tb table) col(t testing.TB, name string) []float64 {
	for j, h := range tb.header {
		if h == name {
			out := make([]float64, len(tb.rows))
			for i, r := range tb.rows {
				out[i] = num(t, r[j])
			}
			return out
		}
	}
	t.Fatalf("no column %q", name)
	return nil
}

// records returns the rows as maps from header to cell.
func (tb table) records() []map[string]string {
	out := make([]map[string]string, len(tb.rows))
	for i, r := range tb.rows {
		out[i] = map[string]string{}
		for j, h := range tb.header {
			out[i][h] = r[j]
		}
	}
	return out
}
