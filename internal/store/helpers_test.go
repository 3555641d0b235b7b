package store

import (
	"math"
	"testing"
)

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func nan() float64 { return math.NaN() }
