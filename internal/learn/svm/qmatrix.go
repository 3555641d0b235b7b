package svm

// svrQ is the 2n × 2n matrix of the epsilon-SVR dual,
// Q_st = sign_s·sign_t·K(index_s, index_t), where variable t < n is α_t
// (sign +1) and t ≥ n is α*_{t−n} (sign −1). The solver permutes the
// variables while shrinking; fsign, index and qd follow the permutation
// while the kernel cache stays keyed by training row.
type svrQ struct {
	kern  *rbf
	cache *rowCache
	fsign []float64 // sign as ±1.0
	index []int
	qd    []float64
}

func newSVRQ(kern *rbf, cacheBytes float64) *svrQ {
	n := kern.n
	q := &svrQ{
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

// kernelRow returns K(index_i, ·) over the training rows, so that
// Q_{i,t} = sign_i·sign_t·row[index_t]. It stays valid until two other
// rows have been requested (the cache holds at least two rows). The sign
// products are exact, so a product c·Q_{i,t} that libsvm rounds once is
// sign_i·sign_t·(c·row[index_t]) with the same rounding.
func (q *svrQ) kernelRow(i int) []float32 {
	return q.cache.get(q.index[i], q.kern.row)
}

func (q *svrQ) swap(i, j int) {
	q.fsign[i], q.fsign[j] = q.fsign[j], q.fsign[i]
	q.index[i], q.index[j] = q.index[j], q.index[i]
	q.qd[i], q.qd[j] = q.qd[j], q.qd[i]
}
