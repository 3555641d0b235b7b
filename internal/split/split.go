package split

import (
	"bufio"
	"io"
	"math/rand/v2"
	"strconv"

	"github.com/misslab/misslab/internal/sim"
)

// Train marks a row of a hold-out split's training set in an Assign
// result; K-fold assignments never hold it.
const Train = -1

// Purpose is the sim.Stream purpose of the split's random stream.
const Purpose = "split"

// Key is the stream key of a table's split: its hash and the split, and
// nothing else, so that every scenario of a sweep (mechanism, rate,
// columns) and every pipeline sees the same folds of a repetition, and
// paired comparisons stay paired.
func Key(t *sim.TableRef) string {
	k := "table=" + t.SHA256 + ";target=" + strconv.Quote(t.Target)
	if t.Folds >= 2 {
		return k + ";folds=" + strconv.Itoa(t.Folds)
	}
	return k + ";test_fraction=" + strconv.FormatFloat(t.TestFraction, 'g', -1, 64)
}

// Assign returns, for each of the n rows with a target (in table order),
// its test fold in [0, K) under K-fold cross-validation, or under a
// hold-out split 0 for a test row and Train for a training row. The
// stream is sim.Stream(seed, Key(t), rep, Purpose): a uniformly random
// permutation π of the rows (rand.Perm) puts row π[j] in fold j mod K,
// so fold sizes differ by at most one; a hold-out puts the first
// round(fraction·n) rows of π in the test set. The target is part of the
// key because it decides which rows have one.
func Assign(seed uint64, t *sim.TableRef, rep, n int) []int {
	return assign(sim.Stream(seed, Key(t), rep, Purpose), t, n)
}

// AssignStratified is Assign for a classification target: classes holds
// the class code (0, 1, …) of each of the n rows with a target, in table
// order. The same random permutation π of the rows is walked class by
// class (in code order), each class's rows in π's order: under K-fold
// they take folds in turn, continuing from where the previous class
// stopped, so each fold holds every class's count divided by K, rounded
// up or down, and fold sizes still differ by at most one; a hold-out
// tests the first rows of each class, round(fraction·n) in all, each
// class's share by largest remainder. Every class is thus represented as
// in the whole table, within one row, in every fold.
func AssignStratified(seed uint64, t *sim.TableRef, rep int, classes []int) []int {
	return assignStratified(sim.Stream(seed, Key(t), rep, Purpose), t, classes)
}

func assignStratified(r *rand.Rand, t *sim.TableRef, classes []int) []int {
	n := len(classes)
	perm := r.Perm(n)
	k := 0
	for _, c := range classes {
		k = max(k, c+1)
	}
	byClass := make([][]int, k)
	for _, row := range perm {
		byClass[classes[row]] = append(byClass[classes[row]], row)
	}
	out := make([]int, n)
	if t.Folds >= 2 {
		next := 0
		for _, rows := range byClass {
			for _, row := range rows {
				out[row] = next % t.Folds
				next++
			}
		}
		return out
	}
	quota := stratumQuota(byClass, int(t.TestFraction*float64(n)+0.5))
	for c, rows := range byClass {
		for j, row := range rows {
			out[row] = Train
			if j < quota[c] {
				out[row] = 0
			}
		}
	}
	return out
}

// stratumQuota splits total test rows among the classes in proportion to
// their sizes, by largest remainder (ties to the lower class code).
func stratumQuota(byClass [][]int, total int) []int {
	n := 0
	for _, rows := range byClass {
		n += len(rows)
	}
	quota, rem := make([]int, len(byClass)), make([]float64, len(byClass))
	left := total
	for c, rows := range byClass {
		exact := float64(total) * float64(len(rows)) / float64(n)
		quota[c] = int(exact)
		rem[c] = exact - float64(quota[c])
		left -= quota[c]
	}
	for ; left > 0; left-- {
		best := 0
		for c := range rem {
			if rem[c] > rem[best] {
				best = c
			}
		}
		quota[best]++
		rem[best] = -1
	}
	return quota
}

func assign(r *rand.Rand, t *sim.TableRef, n int) []int {
	perm := r.Perm(n)
	out := make([]int, n)
	if t.Folds >= 2 {
		for j, row := range perm {
			out[row] = j % t.Folds
		}
		return out
	}
	test := int(t.TestFraction*float64(n) + 0.5)
	for j, row := range perm {
		out[row] = Train
		if j < test {
			out[row] = 0
		}
	}
	return out
}

// Rows splits the row indices 0..len(assign)−1 into the training and
// test rows of fold (ascending, so the design's row order is kept).
func Rows(assign []int, fold int) (train, test []int) {
	for i, f := range assign {
		if f == fold {
			test = append(test, i)
		} else {
			train = append(train, i)
		}
	}
	return train, test
}

// WriteCSV writes the test-set membership of every repetition of a
// table's split as CSV with the header "repetition,fold,row": one line
// per (repetition, fold, row) whose row is in that fold's test set, all
// 1-based, where row is the row's data-row number in the table file (its
// line number minus the header, as R's read.csv and pandas' read_csv
// with a default index number them, from 1 and 0 respectively). rows
// maps the design rows (the rows with a target) to their 0-based
// data-row index in the file; classes, for a classification target, holds
// their class codes (the folds are then AssignStratified's), nil
// otherwise. A hold-out split writes fold 1 only.
// Training rows of a fold are the rows of that repetition not listed
// under it, in file order.
func WriteCSV(w io.Writer, seed uint64, t *sim.TableRef, reps int, rows []int, classes []int) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("repetition,fold,row\n")
	for rep := range reps {
		a := Assign(seed, t, rep, len(rows))
		if classes != nil {
			a = AssignStratified(seed, t, rep, classes)
		}
		for fold := range t.Units() {
			for i, f := range a {
				if f == fold {
					bw.WriteString(strconv.Itoa(rep+1) + "," + strconv.Itoa(fold+1) + "," + strconv.Itoa(rows[i]+1) + "\n")
				}
			}
		}
	}
	return bw.Flush()
}
