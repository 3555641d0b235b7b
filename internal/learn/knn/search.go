package knn

import (
	"math"
)

// tieEps is caret's relative tolerance for "equal" distances (EPS in
// caret's src/caret.c). The fuzz factor and the fence are computed in
// float64 arithmetic at run time, as the C code does.
var (
	tieEps = 1e-4
	fuzz   = 1 + tieEps
	fence  = 0.99 * math.MaxFloat64
)

// searcher holds the per-query scratch space: acc for the screening
// filter and the insertion buffer, where dist[0:kn] are squared distances
// in ascending order (equal ones in scan order), pos the matching
// training rows and dist[kn] the fence. Entries past position k-1 are
// kept only while caret's tie rule may need them.
type searcher struct {
	k     int
	acc   []float64
	acc32 []float32
	dist  []float64
	pos   []int
}

func newSearcher(k, n int) *searcher {
	return &searcher{
		k:     k,
		acc:   make([]float64, n),
		acc32: make([]float32, n),
		dist:  make([]float64, k+1, 2*k+2),
		pos:   make([]int, k+1, 2*k+2),
	}
}

// predictRow returns the prediction for query q, or false when fewer than
// k training rows have a finite squared distance to q.
func (s *searcher) predictRow(m *Model, q []float64) (float64, bool) {
	return s.mean(m.y, s.find(m, q))
}

// find fills the buffer with the neighbours of query q (and the rows
// kept as possible ties) and returns its length kn.
//
// The scan follows knn3reg, whose buffer caret's knn3 shares: training
// rows are visited in index order; a row is offered to the buffer iff
// its squared distance d (summed over the columns in order) is
// ≤ dist[k-1]·(1+1e-4); it is inserted before the first strictly larger
// entry; the entry pushed past the end is kept (the buffer grows) iff it
// is ≤ dist[k-1]; the slot after the end is reset to the fence.
//
// To avoid computing every distance exactly, rows are first screened
// with a cheap lower bound (see screener); every row that passes gets its
// exact distance, so the result is the same as scanning every exact
// distance.
func (s *searcher) find(m *Model, q []float64) int {
	k := s.k
	s.dist, s.pos = s.dist[:k+1], s.pos[:k+1]
	for i := range s.dist {
		s.dist[i] = fence
		s.pos[i] = -1
	}
	qq := sqNorm(q)
	var kn int
	switch m.scr.modeFor(qq) {
	case screen32:
		kn = s.scan32(m, q, qq)
	case screen64:
		kn = s.scan64(m, q, qq)
	default:
		kn = s.scanAll(m, q)
	}
	return kn
}

// scanAll offers every row with its exact distance.
func (s *searcher) scanAll(m *Model, q []float64) int {
	kn := s.k
	thr := s.dist[s.k-1] * fuzz
	p := m.p
	for j := range m.n {
		if d := sqDist(q, m.x[j*p:j*p+p]); d <= thr {
			kn = s.insert(d, j, kn)
			thr = s.dist[s.k-1] * fuzz
		}
	}
	return kn
}

// scan64 is scanAll behind the float64 screen: row j is skipped iff
// acc_j > thr·(1+K) − ‖q‖²·(1−K) + abs (see screener).
func (s *searcher) scan64(m *Model, q []float64, qq float64) int {
	kn := s.k
	p, K, abs := m.p, m.scr.slack, m.scr.abs
	acc := s.acc
	m.scr.fill64(acc, m, q)
	thr := s.dist[s.k-1] * fuzz
	cut := thr*(1+K) - qq*(1-K) + abs
	for j, a := range acc {
		if a > cut {
			continue
		}
		if d := sqDist(q, m.x[j*p:j*p+p]); d <= thr {
			kn = s.insert(d, j, kn)
			thr = s.dist[s.k-1] * fuzz
			cut = thr*(1+K) - qq*(1-K) + abs
		}
	}
	return kn
}

// scan32 is scan64 with the float32 screen.
func (s *searcher) scan32(m *Model, q []float64, qq float64) int {
	kn := s.k
	p, K, abs := m.p, m.scr.slack, m.scr.abs
	acc := s.acc32
	m.scr.fill32(acc, q)
	thr := s.dist[s.k-1] * fuzz
	cut := thr*(1+K) - qq*(1-K) + abs
	for j, a := range acc {
		if float64(a) > cut {
			continue
		}
		if d := sqDist(q, m.x[j*p:j*p+p]); d <= thr {
			kn = s.insert(d, j, kn)
			thr = s.dist[s.k-1] * fuzz
			cut = thr*(1+K) - qq*(1-K) + abs
		}
	}
	return kn
}

// sqDist is Σ_c (q_c − x_c)², summed in column order as caret does.
func sqDist(q, x []float64) float64 {
	x = x[:len(q)]
	d := 0.0
	for c, v := range q {
		t := v - x[c]
		d += float64(t * t)
	}
	return d
}

// insert places (d, j) into the buffer of length kn and returns the new
// length.
func (s *searcher) insert(d float64, j, kn int) int {
	dist, pos := s.dist, s.pos
	for at := 0; at <= kn; at++ {
		if d < dist[at] {
			copy(dist[at+1:kn+1], dist[at:kn])
			copy(pos[at+1:kn+1], pos[at:kn])
			dist[at], pos[at] = d, j
			if dist[kn] <= dist[s.k-1] {
				kn++
				if kn == len(dist) {
					s.dist = append(s.dist, fence)
					s.pos = append(s.pos, -1)
				}
			}
			break
		}
	}
	s.dist[kn] = fence
	return kn
}

// mean averages the targets of the first k entries and of every later
// entry within the fuzzy tie tolerance of the k-th, in buffer order.
func (s *searcher) mean(y []float64, kn int) (float64, bool) {
	k := s.k
	if s.dist[k-1] >= fence {
		return 0, false
	}
	sum := 0.0
	for _, j := range s.pos[:k] {
		sum += y[j]
	}
	count := k
	lim := s.dist[k-1] * fuzz
	for e := k; e < kn; e++ {
		if s.dist[e] > lim {
			break
		}
		sum += y[s.pos[e]]
		count++
	}
	return sum / float64(count), true
}

// votes counts, into votes (one slot per class, zeroed here), the
// classes cls of the first k buffer entries and of every later entry
// within the fuzzy tie tolerance of the k-th, and returns how many rows
// voted; false when fewer than k training rows have a finite distance.
func (s *searcher) votes(cls []int32, kn int, votes []int) (int, bool) {
	clear(votes)
	k := s.k
	if s.dist[k-1] >= fence {
		return 0, false
	}
	for _, j := range s.pos[:k] {
		votes[cls[j]]++
	}
	count := k
	lim := s.dist[k-1] * fuzz
	for e := k; e < kn; e++ {
		if s.dist[e] > lim {
			break
		}
		votes[cls[s.pos[e]]]++
		count++
	}
	return count, true
}
