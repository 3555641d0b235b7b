package tree

import (
	"cmp"
	"math"
	"slices"
	"testing"
)

// TestSortColumn checks the bucket sort against the library's stable
// sort (NaN last, ties in entry order) on smooth, tied, heavy-tailed,
// extreme, constant and mostly-NA columns.
func TestSortColumn(t *testing.T) {
	rng := newRNG(15)
	gens := map[string]func() float64{
		"gauss":   rng.NormFloat64,
		"ties":    func() float64 { return float64(rng.IntN(4)) },
		"heavy":   func() float64 { return math.Exp(20 * rng.NormFloat64()) },
		"extreme": func() float64 { return []float64{-math.MaxFloat64, math.MaxFloat64, 0, -0.0, 1e-310}[rng.IntN(5)] },
		"const":   func() float64 { return 2.5 },
		"mostNA": func() float64 {
			if rng.IntN(10) > 0 {
				return math.NaN()
			}
			return rng.Float64()
		},
	}
	for name, gen := range gens {
		for _, n := range []int{1, 2, 17, 500} {
			v := make([]float64, n)
			for i := range v {
				v[i] = gen()
				if name != "mostNA" && rng.IntN(8) == 0 {
					v[i] = math.NaN()
				}
			}
			want := make([]int32, n)
			for i := range want {
				want[i] = int32(i)
			}
			slices.SortStableFunc(want, func(a, b int32) int {
				an, bn := math.IsNaN(v[a]), math.IsNaN(v[b])
				switch {
				case an || bn:
					return cmp.Compare(btoi(an), btoi(bn))
				case v[a] < v[b]:
					return -1
				case v[a] > v[b]:
					return 1
				}
				return 0
			})
			got := make([]int32, n)
			sortColumn(v, got, make([]int32, n+1))
			for i := range got {
				if got[i] != want[i] && !(v[got[i]] == v[want[i]] && got[i] == want[i]) {
					t.Errorf("%s n=%d: position %d holds entry %d (%v), want %d (%v)", name, n, i, got[i], v[got[i]], want[i], v[want[i]])
					break
				}
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestPartition: after a random three-way assignment every column's range
// holds group 0, then group 1, then the dropped entries, each still
// sorted with NA last.
func TestPartition(t *testing.T) {
	X, y := randomData(200, 4, 0.3, newRNG(16))
	raw := X.RawMatrix()
	rows := make([]int32, 200)
	for i := range rows {
		rows[i] = int32(i)
	}
	s := newSample(raw.Data, raw.Stride, raw.Cols, y, rows, sortColumn)
	rng := newRNG(17)
	lo, hi := 0, s.n
	for e := range s.dest {
		s.dest[e] = int8([]int{0, 0, 1, 1, 2}[rng.IntN(5)])
	}
	n0, n1 := s.partition(lo, hi)
	for j := range s.d {
		for g, r := range [][2]int{{lo, lo + n0}, {lo + n0, lo + n0 + n1}, {lo + n0 + n1, hi}} {
			for p := r[0]; p < r[1]; p++ {
				e := s.idx[j][p]
				if int(s.dest[e]) != g {
					t.Fatalf("column %d position %d: entry of group %d in group %d's range", j, p, s.dest[e], g)
				}
				if v := s.val[j][p]; !sameFloat(v, s.at(e, j)) {
					t.Fatalf("column %d: value %v stored for an entry whose value is %v", j, v, s.at(e, j))
				}
				if p > r[0] && !ordered(s.val[j][p-1], s.val[j][p]) {
					t.Fatalf("column %d group %d: %v before %v", j, g, s.val[j][p-1], s.val[j][p])
				}
			}
		}
	}
}

func sameFloat(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

// ordered reports whether a may precede b: ascending, NaN last.
func ordered(a, b float64) bool { return math.IsNaN(b) || !math.IsNaN(a) && a <= b }

// TestMidpoint: rpart's (a+b)/2, except where it would misroute.
func TestMidpoint(t *testing.T) {
	big := math.MaxFloat64
	next := math.Nextafter(1, 2)
	cases := []struct{ a, b, want float64 }{
		{1, 2, 1.5},
		{-3, 5, 1},
		{0.9 * big, big, 0.9*big/2 + big/2},
		{1, next, next}, // (1 + next)/2 rounds to 1
	}
	for _, c := range cases {
		got := midpoint(c.a, c.b)
		if got != c.want || !(c.a < got && got <= c.b) {
			t.Errorf("midpoint(%v, %v) = %v, want %v in (a, b]", c.a, c.b, got, c.want)
		}
	}
}
