package svm

// svrQ is the 2n × 2n matrix of the epsilon-SVR dual,
// Q_st = sign_s·sign_t·K(index_s, index_t), where variable t < n is α_t
// (sign +1) and t ≥ n is α*_{t−n} (sign −1). The solver permutes the
// variables while shrinking; sign, index and qd follow the permutation
// while the kernel cache stays keyed by training row.
type svrQ struct {
	kern  *rbf
	cache *rowCache
	sign  []int8
	fsign []float64 // sign as ±1.0
	index []int
	qd    []float64
	buf   [2][]float32
	next  int
}

func newSVRQ(kern *rbf, cacheBytes float64) *svrQ {
	n := kern.n
	q := &svrQ{
		kern:  kern,
		cache: newRowCache(n, cacheBytes),
		sign:  make([]int8, 2*n),
		fsign: make([]float64, 2*n),
		index: make([]int, 2*n),
		qd:    make([]float64, 2*n),
		buf:   [2][]float32{make([]float32, 2*n), make([]float32, 2*n)},
	}
	for k := range n {
		q.sign[k], q.sign[k+n] = 1, -1
		q.fsign[k], q.fsign[k+n] = 1, -1
		q.index[k], q.index[k+n] = k, k
		q.qd[k] = kern.diag(k)
		q.qd[k+n] = q.qd[k]
	}
	return q
}

// kernelRow returns K(index_i, ·) over the training rows, so that
// Q_{i,t} = sign_i·sign_t·row[index_t]. It stays valid until two other
// rows have been requested (the cache holds at least two rows).
func (q *svrQ) kernelRow(i int) []float32 {
	return q.cache.get(q.index[i], q.kern.row)
}

// column returns Q_{i,t} for t < length in one of two alternating
// buffers, so the two columns of a working pair can be held at once.
func (q *svrQ) column(i, length int) []float32 {
	row := q.cache.get(q.index[i], q.kern.row)
	buf := q.buf[q.next][:length]
	q.next ^= 1
	idx, sg := q.index[:length], q.sign[:length]
	if q.sign[i] > 0 {
		for t, r := range idx {
			if sg[t] > 0 {
				buf[t] = row[r]
			} else {
				buf[t] = -row[r]
			}
		}
	} else {
		for t, r := range idx {
			if sg[t] > 0 {
				buf[t] = -row[r]
			} else {
				buf[t] = row[r]
			}
		}
	}
	return buf
}

func (q *svrQ) swap(i, j int) {
	q.sign[i], q.sign[j] = q.sign[j], q.sign[i]
	q.fsign[i], q.fsign[j] = q.fsign[j], q.fsign[i]
	q.index[i], q.index[j] = q.index[j], q.index[i]
	q.qd[i], q.qd[j] = q.qd[j], q.qd[i]
}
