package forest

import (
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// The class fixtures' data (testdata/make_class_golden.R): one data set
// per case for the probabilities, 30 for the scores.
const (
	classProbSeed    = 2000
	classProbNTrain  = 500
	classProbNTest   = 250
	classScoreNTrain = 300
	classScoreNTest  = 500
)

// classScoreSeeds are the data seeds of testdata/ranger_class_scores.csv.
func classScoreSeeds() []uint64 {
	s := make([]uint64, 30)
	for i := range s {
		s[i] = uint64(3000 + i)
	}
	return s
}

// classSet is a classification data set: covariates and class codes.
type classSet struct {
	x *mat.Dense
	y []float64
}

// classCuts are the cut points of the latent score for k = 2 and 3
// classes: the classes of the fixtures are about balanced.
var classCuts = map[int][]float64{2: {4.5}, 3: {2.7, 6.9}}

// classData draws the train and test sets of class fixture seed with k
// classes (2 or 3): the quadratic scenario's complete rows (drawQuad),
// labelled by cutting the latent score X1² + X2² + X3² + L, L standard
// logistic, at classCuts[k], so that the classes overlap and a forest's
// probabilities are mostly strictly between 0 and 1.
func classData(seed uint64, k, nTrain, nTest int) (train, test classSet) {
	r := rand.New(rand.NewPCG(seed, 0x636c617373)) // "class"
	return drawClass(r, k, nTrain), drawClass(r, k, nTest)
}

// drawClass draws n labelled rows from r.
func drawClass(r *rand.Rand, k, n int) classSet {
	q := drawQuad(n, r)
	y := make([]float64, n)
	for i := range n {
		row := q.x.RawRowView(i)
		u := r.Float64()
		score := row[0]*row[0] + row[1]*row[1] + row[2]*row[2] + math.Log(u/(1-u))
		for _, c := range classCuts[k] {
			if score > c {
				y[i]++
			}
		}
	}
	return classSet{x: q.x, y: y}
}

// writeClassSetCSV writes s as CSV with header X1..Xd,y, every number
// with full float64 precision, NaN as NA.
func writeClassSetCSV(path string, s classSet) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	n, d := s.x.Dims()
	head := make([]string, 0, d+1)
	for j := range d {
		head = append(head, fmt.Sprintf("X%d", j+1))
	}
	_ = w.Write(append(head, "y"))
	for i := range n {
		rec := make([]string, 0, d+1)
		for _, v := range s.x.RawRowView(i) {
			rec = append(rec, strconv.FormatFloat(v, 'g', 17, 64))
		}
		_ = w.Write(append(rec, strconv.Itoa(int(s.y[i]))))
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// classCase is a case of the ranger class fixtures: k classes, features
// complete or floored to the grid of step 1/2.
type classCase struct {
	name string
	k    int
	grid bool
}

// classCases are the cases of testdata/make_class_golden.R.
var classCases = []classCase{{"binary", 2, false}, {"multi3", 3, false}, {"binary-grid", 2, true}}

// caseData draws seed's train and test sets of case c.
func caseData(c classCase, seed uint64, nTrain, nTest int) (train, test classSet) {
	train, test = classData(seed, c.k, nTrain, nTest)
	if c.grid {
		train.x, test.x = onGrid(train.x), onGrid(test.x)
	}
	return train, test
}

// dumpClass writes the train and test sets of every case and seed to
// dir as <case>_train_<seed>.csv and <case>_test_<seed>.csv.
func dumpClass(dir string, seeds []uint64, nTrain, nTest int) error {
	for _, c := range classCases {
		for _, s := range seeds {
			tr, te := caseData(c, s, nTrain, nTest)
			if err := writeClassSetCSV(filepath.Join(dir, fmt.Sprintf("%s_train_%d.csv", c.name, s)), tr); err != nil {
				return err
			}
			if err := writeClassSetCSV(filepath.Join(dir, fmt.Sprintf("%s_test_%d.csv", c.name, s)), te); err != nil {
				return err
			}
		}
	}
	return nil
}
