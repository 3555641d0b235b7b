package impute

import (
	"context"
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// DefaultKNNK is scikit-learn's KNNImputer() n_neighbors.
const DefaultKNNK = 5

// KNN is scikit-learn 1.2.1's KNNImputer() (weights "uniform", metric
// "nan_euclidean"): a missing entry x_ij is the mean of column j over
// the K training rows nearest to row i among the donors, the training
// rows where j is observed. The distance between rows x and y is
// sqrt(d/c · Σ (x_l − y_l)²) over the c coordinates observed in both
// (d the number of columns), undefined when c = 0.
//
// Like sklearn, a donor at undefined distance ranks after every donor at
// a defined one but still counts: a row with fewer than K donors at a
// defined distance is completed with donors at an undefined distance,
// and fewer than K donors in all means all of them. Only when every
// donor is at an undefined distance is x_ij the training mean of column
// j. A column with no observed training entry, which sklearn drops from
// its output, is imputed with 0 as the Mean strategy does.
//
// Donors at equal distances (undefined ones included) are taken by
// increasing training row index. sklearn breaks such ties by
// np.argpartition's order, which is unspecified, so the two agree
// exactly whenever the K-th nearest donor is not tied with the next; its
// distances also come from the expansion ‖x‖² − 2x·y + ‖y‖², whose
// rounding (about 1e-16 of the squared norms) can reorder donors whose
// distances agree to that precision, while KNN sums the squared
// differences directly.
//
// At fit time KNN keeps the training matrix; Transform, which does the
// work, searches it for every row of X with a missing entry. On the
// training matrix itself a row is never its own donor for a column it
// misses, as in sklearn's fit_transform.
type KNN struct {
	// K is the number of neighbours (n_neighbors); ≤ 0 means DefaultKNNK.
	K int
	// Threads is the number of goroutines Transform uses; ≤ 0 means 1.
	// It never changes the result.
	Threads int
}

// KNNFit is a fitted KNN imputer: the training matrix and the column
// means.
type KNNFit struct {
	// K is the number of neighbours.
	K int
	// Means are the training column means over observed entries (0 for
	// the Empty columns), imputed when no donor is at a defined distance.
	Means []float64
	// Empty lists (ascending) the columns with no observed training entry.
	Empty   []int
	n, d    int
	threads int
	val     []float64 // n × d training values, NA as 0
	obs     []float64 // n × d, 1 where observed, 0 where missing
	empty   []bool    // per column: no observed training entry
}

// Fit records the training matrix and its column means.
func (k KNN) Fit(ctx context.Context, X *mat.Dense) (Transformer, error) {
	fill, err := Mean{}.Fit(ctx, X)
	if err != nil {
		return nil, err
	}
	n, d := X.Dims()
	f := &KNNFit{K: k.K, Means: fill.(*Fill).Values, Empty: fill.(*Fill).Empty, n: n, d: d,
		threads: max(k.Threads, 1), val: make([]float64, n*d), obs: make([]float64, n*d)}
	if f.K <= 0 {
		f.K = DefaultKNNK
	}
	f.empty = make([]bool, d)
	for _, j := range f.Empty {
		f.empty[j] = true
	}
	for i := range n {
		for j, v := range X.RawRowView(i) {
			if !math.IsNaN(v) {
				f.val[i*d+j], f.obs[i*d+j] = v, 1
			}
		}
	}
	return f, nil
}

// Transform imputes every NA of X from its nearest training donors.
func (f *KNNFit) Transform(X *mat.Dense) (*mat.Dense, error) {
	if err := checkCols(X, f.d); err != nil {
		return nil, err
	}
	out := mat.DenseCopyOf(X)
	n, _ := out.Dims()
	var rows []int
	for i := range n {
		if hasNaN(out.RawRowView(i)) {
			rows = append(rows, i)
		}
	}
	var wg sync.WaitGroup
	for w := range f.threads {
		wg.Go(func() {
			s := f.newSearch()
			for k := w; k < len(rows); k += f.threads {
				s.impute(out.RawRowView(rows[k]))
			}
		})
	}
	wg.Wait()
	return out, nil
}

// hasNaN reports whether row has a NaN.
func hasNaN(row []float64) bool {
	for _, v := range row {
		if math.IsNaN(v) {
			return true
		}
	}
	return false
}

// knnSearch is one goroutine's scratch space.
type knnSearch struct {
	f       *KNNFit
	dist    []float64 // squared, scaled distance to every training row
	present []int     // the row's observed columns
	missing []int     // the row's missing columns with training data
	best    [][]donor // per missing column, the nearest donors so far
}

// donor is a training row and its distance (NaN: undefined).
type donor struct {
	dist float64
	row  int
}

func (f *KNNFit) newSearch() *knnSearch {
	return &knnSearch{f: f, dist: make([]float64, f.n)}
}

// impute fills the NaN of row in place.
func (s *knnSearch) impute(row []float64) {
	f := s.f
	s.present, s.missing = s.present[:0], s.missing[:0]
	for j, v := range row {
		switch {
		case !math.IsNaN(v):
			s.present = append(s.present, j)
		case f.empty[j]:
			row[j] = 0
		default:
			s.missing = append(s.missing, j)
		}
	}
	if len(s.missing) == 0 {
		return
	}
	s.distances(row)
	s.nearest()
	for m, j := range s.missing {
		best := s.best[m]
		if math.IsNaN(best[0].dist) {
			row[j] = f.Means[j]
			continue
		}
		sum := 0.0
		for _, b := range best {
			sum += f.val[b.row*f.d+j]
		}
		row[j] = sum / float64(len(best))
	}
}

// distances sets s.dist[t] = d/c · Σ (x_l − t_l)² over the c columns
// observed in both row and training row t (NaN when c = 0): the squared
// nan-Euclidean distance, whose order is the distance's.
func (s *knnSearch) distances(row []float64) {
	f := s.f
	scale := float64(f.d)
	for t := range f.n {
		val, obs := f.val[t*f.d:(t+1)*f.d], f.obs[t*f.d:(t+1)*f.d]
		acc, cnt := 0.0, 0.0
		for _, j := range s.present {
			o := obs[j]
			e := (row[j] - val[j]) * o
			acc += e * e
			cnt += o
		}
		if cnt == 0 {
			s.dist[t] = math.NaN()
		} else {
			s.dist[t] = acc * scale / cnt
		}
	}
}

// nearest sets s.best[m] to the (up to) K donors of missing column
// s.missing[m] nearest the row, nearest first, undefined distances last,
// ties by training row.
func (s *knnSearch) nearest() {
	f := s.f
	for len(s.best) < len(s.missing) {
		s.best = append(s.best, make([]donor, 0, f.K))
	}
	s.best = s.best[:len(s.missing)]
	for m := range s.best {
		s.best[m] = s.best[m][:0]
	}
	for t := range f.n {
		obs, dt := f.obs[t*f.d:(t+1)*f.d], s.dist[t]
		for m, j := range s.missing {
			if obs[j] == 0 {
				continue
			}
			b := s.best[m]
			if len(b) == f.K && !closer(dt, b[len(b)-1].dist) {
				continue
			}
			s.best[m] = insertDonor(b, donor{dt, t}, f.K)
		}
	}
}

// closer reports whether distance a ranks before b: a < b, or b undefined
// and a defined.
func closer(a, b float64) bool {
	return a < b || (math.IsNaN(b) && !math.IsNaN(a))
}

// insertDonor inserts x into b, kept sorted by closer with equal ones in
// insertion order, dropping the last beyond k.
func insertDonor(b []donor, x donor, k int) []donor {
	pos := len(b)
	for pos > 0 && closer(x.dist, b[pos-1].dist) {
		pos--
	}
	if len(b) < k {
		b = append(b, donor{})
	}
	copy(b[pos+1:], b[pos:len(b)-1])
	b[pos] = x
	return b
}
