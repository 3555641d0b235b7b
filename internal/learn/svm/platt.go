package svm

import "math"

// plattFolds is the number of folds of libsvm's internal
// cross-validation for probabilities.
const plattFolds = 5

// minProb bounds the pairwise probabilities away from 0 and 1 (libsvm's
// min_prob in svm_predict_probability).
const minProb = 1e-7

// shuffle returns a permutation of 0..l−1 drawn as e1071's libsvm draws
// it with unif_rand(): for i = 0, …, l−1, swap i and i + (⌊u·(l−i)⌋ mod
// (l−i)) with u = draw().
func shuffle(l int, draw func() float64) []int {
	perm := make([]int, l)
	for i := range perm {
		perm[i] = i
	}
	for i := range l {
		m := l - i
		j := i + int(draw()*float64(m))%m
		perm[i], perm[j] = perm[j], perm[i]
	}
	return perm
}

// platt returns the sigmoid parameters A and B of the pair problem on
// rows (the first npos of label +1): libsvm's svm_binary_svc_probability.
// The rows are shuffled (shuffle) and cut into plattFolds folds; each
// fold's decision values come from a C-SVC trained on the other folds'
// rows (their +1 rows first, libsvm's grouping), or are ±1 when those
// rows hold one label only; sigmoidTrain fits A and B to them. A fold
// without rows is skipped (libsvm trains a model it never uses).
func (t *trainer) platt(rows []int, npos int, draw func() float64) (a, b float64, err error) {
	l := len(rows)
	perm := shuffle(l, draw)
	dec := make([]float64, l)
	for f := range plattFolds {
		begin, end := f*l/plattFolds, (f+1)*l/plattFolds
		if begin == end {
			continue
		}
		var pos, neg []int
		for _, s := range append(perm[:begin:begin], perm[end:]...) {
			if s < npos {
				pos = append(pos, rows[s])
			} else {
				neg = append(neg, rows[s])
			}
		}
		held := perm[begin:end]
		switch {
		case len(pos) == 0 && len(neg) == 0:
			fill(dec, held, 0)
		case len(neg) == 0:
			fill(dec, held, 1)
		case len(pos) == 0:
			fill(dec, held, -1)
		default:
			if err := t.foldDecisions(dec, rows, held, append(pos, neg...), len(pos)); err != nil {
				return 0, 0, err
			}
		}
	}
	labels := make([]bool, l)
	for s := range npos {
		labels[s] = true
	}
	a, b = sigmoidTrain(dec, labels)
	return a, b, nil
}

// fill sets dec[s] = v for s in held.
func fill(dec []float64, held []int, v float64) {
	for _, s := range held {
		dec[s] = v
	}
}

// foldDecisions trains on train (the first npos of label +1) and sets
// dec[s] to the decision value of row rows[s] for s in held.
func (t *trainer) foldDecisions(dec []float64, rows, held, train []int, npos int) error {
	f, err := t.fit(train, npos)
	if err != nil {
		return err
	}
	sub := t.expansion(train, f)
	scratch := make([]float64, len(sub.coef))
	for _, s := range held {
		r := rows[s]
		dec[s] = sub.decision(t.x[r*t.p:(r+1)*t.p], scratch)
	}
	return nil
}

// sigmoidTrain fits P(label +1 | f) = 1/(1 + exp(A·f + B)) to the
// decision values dec and their labels (true = +1) by libsvm's
// sigmoid_train (Lin, Lin and Weng's version of Platt's method): targets
// (N₊+1)/(N₊+2) and 1/(N₋+2), start A = 0, B = log((N₋+1)/(N₊+1)), at
// most 100 Newton steps on the Hessian plus 10⁻¹² I, each halved until
// the loss falls by 10⁻⁴ of the step's directional derivative (giving up
// below a step of 10⁻¹⁰), stopping when both gradient components are
// below 10⁻⁵. Sums and products are formed in libsvm's order.
func sigmoidTrain(dec []float64, labels []bool) (a, b float64) {
	var n1, n0 float64
	for _, pos := range labels {
		if pos {
			n1++
		} else {
			n0++
		}
	}
	hi, lo := (n1+1)/(n1+2), 1/(n0+2)
	target := make([]float64, len(dec))
	for i, pos := range labels {
		target[i] = lo
		if pos {
			target[i] = hi
		}
	}
	b = math.Log((n0 + 1) / (n1 + 1))
	loss := sigmoidLoss(dec, target, a, b)
	for range 100 {
		h11, h22, h21, g1, g2 := sigmoidDerivatives(dec, target, a, b)
		if math.Abs(g1) < 1e-5 && math.Abs(g2) < 1e-5 {
			break
		}
		det := float64(h11*h22) - float64(h21*h21)
		da := -(float64(h22*g1) - float64(h21*g2)) / det
		db := -(float64(-h21*g1) + float64(h11*g2)) / det
		gd := float64(g1*da) + float64(g2*db)
		step := 1.0
		for ; step >= 1e-10; step /= 2 {
			na, nb := a+float64(step*da), b+float64(step*db)
			if nl := sigmoidLoss(dec, target, na, nb); nl < loss+float64(float64(0.0001*step)*gd) {
				a, b, loss = na, nb, nl
				break
			}
		}
		if step < 1e-10 {
			break
		}
	}
	return a, b
}

// sigmoidLoss is the cross-entropy Σ of the targets against the sigmoid
// with parameters a and b, each term in the form that avoids overflow.
func sigmoidLoss(dec, target []float64, a, b float64) float64 {
	sum := 0.0
	for i, f := range dec {
		z := float64(f*a) + b
		t := target[i]
		if z >= 0 {
			sum += float64(t*z) + math.Log(1+math.Exp(-z))
		} else {
			sum += float64((t-1)*z) + math.Log(1+math.Exp(z))
		}
	}
	return sum
}

// sigmoidDerivatives returns the Hessian of sigmoidLoss (plus 10⁻¹² on
// its diagonal) and its gradient with respect to (a, b).
func sigmoidDerivatives(dec, target []float64, a, b float64) (h11, h22, h21, g1, g2 float64) {
	h11, h22 = 1e-12, 1e-12
	for i, f := range dec {
		z := float64(f*a) + b
		var p, q float64
		if z >= 0 {
			e := math.Exp(-z)
			p, q = e/(1+e), 1/(1+e)
		} else {
			e := math.Exp(z)
			p, q = 1/(1+e), e/(1+e)
		}
		d2 := float64(p * q)
		h11 += float64(float64(f*f) * d2)
		h22 += d2
		h21 += float64(f * d2)
		d1 := target[i] - p
		g1 += float64(f * d1)
		g2 += d1
	}
	return h11, h22, h21, g1, g2
}

// sigmoidPredict is the sigmoid 1/(1 + exp(A·f + B)) at f, computed as
// libsvm's sigmoid_predict does.
func sigmoidPredict(f, a, b float64) float64 {
	z := float64(f*a) + b
	if z >= 0 {
		e := math.Exp(-z)
		return e / (1 + e)
	}
	return 1 / (1 + math.Exp(z))
}

// couple returns the class probabilities p (len k) of pairwise
// probabilities r (k × k row-major, r[i·k+j] ≈ P(i | i or j)): the second
// method of Wu, Lin and Weng (2004) as libsvm's multiclass_probability
// computes it, minimising pᵀQp over the simplex with
// Q_tt = Σ_{j≠t} r_jt² and Q_tj = −r_jt·r_tj by coordinate steps, from
// p = 1/k, until every |(Qp)_t − pᵀQp| < 0.005/k or max(100, k) sweeps.
func couple(r []float64, k int) []float64 {
	q := make([]float64, k*k)
	for t := range k {
		for j := range k {
			if j != t {
				q[t*k+t] += float64(r[j*k+t] * r[j*k+t])
				q[t*k+j] = -float64(r[j*k+t] * r[t*k+j])
			}
		}
	}
	p, qp := make([]float64, k), make([]float64, k)
	for t := range p {
		p[t] = 1 / float64(k)
	}
	eps := 0.005 / float64(k)
	for range max(100, k) {
		pqp := 0.0
		for t := range k {
			qp[t] = 0
			for j := range k {
				qp[t] += float64(q[t*k+j] * p[j])
			}
			pqp += float64(p[t] * qp[t])
		}
		worst := 0.0
		for t := range k {
			worst = max(worst, math.Abs(qp[t]-pqp))
		}
		if worst < eps {
			break
		}
		for t := range k {
			coupleStep(q[t*k:(t+1)*k], p, qp, &pqp, t)
		}
	}
	return p
}

// coupleStep is one coordinate step of couple on p_t (qt is Q's row t),
// keeping Qp and pᵀQp current and p on the simplex, in libsvm's
// arithmetic.
func coupleStep(qt, p, qp []float64, pqp *float64, t int) {
	diff := (-qp[t] + *pqp) / qt[t]
	p[t] += diff
	*pqp = (*pqp + float64(diff*(float64(diff*qt[t])+float64(2*qp[t])))) / (1 + diff) / (1 + diff)
	for j := range p {
		qp[j] = (qp[j] + float64(diff*qt[j])) / (1 + diff)
		p[j] /= 1 + diff
	}
}
