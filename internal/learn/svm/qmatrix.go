package svm

// qMatrix is the matrix Q of a dual solved by SMO, in the one form both
// duals here take: Q_st = sign_s·sign_t·K(index_s, index_t) with signs
// ±1 and K the radial kernel between training rows.
//
//   - epsilon-SVR (newSVRQ): 2n × 2n, variable t < n is α_t (sign +1) and
//     t ≥ n is α*_{t−n} (sign −1), both of row t mod n: libsvm's SVR_Q.
//   - C-SVC (newSVCQ): n × n, variable t is α_t of row t with sign y_t,
//     Q_st = y_s·y_t·K_st: libsvm's SVC_Q.
//
// In both the solver's labels equal the signs. The solver permutes the
// variables while shrinking; fsign, index and qd follow the permutation
// while the kernel cache stays keyed by training row.
type qMatrix struct {
	kern  *rbf
	cache *rowCache
	fsign []float64 // sign as ±1.0
	index []int
	qd    []float64
}

// newSVRQ returns the 2n × 2n matrix of the epsilon-SVR dual over the
// kernel's n rows.
func newSVRQ(kern *rbf, cacheBytes float64) *qMatrix {
	n := kern.n
	q := &qMatrix{
		kern:  kern,
		cache: newRowCache(n, cacheBytes),
		fsign: make([]float64, 2*n),
		index: make([]int, 2*n),
		qd:    make([]float64, 2*n),
	}
	for k := range n {
		q.fsign[k], q.fsign[k+n] = 1, -1
		q.index[k], q.index[k+n] = k, k
		q.qd[k] = kern.diag(k)
		q.qd[k+n] = q.qd[k]
	}
	return q
}

// newSVCQ returns the n × n matrix of the C-SVC dual over the kernel's n
// rows with labels y (±1).
func newSVCQ(kern *rbf, y []int8, cacheBytes float64) *qMatrix {
	n := kern.n
	q := &qMatrix{
		kern:  kern,
		cache: newRowCache(n, cacheBytes),
		fsign: make([]float64, n),
		index: make([]int, n),
		qd:    make([]float64, n),
	}
	for k := range n {
		q.fsign[k] = float64(y[k])
		q.index[k] = k
		q.qd[k] = kern.diag(k)
	}
	return q
}

// kernelRow returns K(index_i, ·) over the training rows, so that
// Q_{i,t} = sign_i·sign_t·row[index_t]. It stays valid until two other
// rows have been requested (the cache holds at least two rows). The sign
// products are exact, so a product c·Q_{i,t} that libsvm rounds once is
// sign_i·sign_t·(c·row[index_t]) with the same rounding.
func (q *qMatrix) kernelRow(i int) []float32 {
	return q.cache.get(q.index[i], q.kern.row)
}

func (q *qMatrix) swap(i, j int) {
	q.fsign[i], q.fsign[j] = q.fsign[j], q.fsign[i]
	q.index[i], q.index[j] = q.index[j], q.index[i]
	q.qd[i], q.qd[j] = q.qd[j], q.qd[i]
}
