package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"testing"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/sim"
	"github.com/misslab/misslab/internal/table"
)

// classScoreFile records the hash of every classification score of
// classScoreJobs, per score version and platform, as scoreFile does for
// regression (kept apart so that regression's recorded hashes stand).
const classScoreFile = "testdata/class_score_fingerprints.txt"

// TestClassScoreFingerprint ties fpclass.ScoreVersion to the scores of
// classification as TestScoreFingerprint does to regression's: every
// learner's classifier on a binary draw of Figure 3's MCAR scenario and
// on a three-class table with natural NA, every score and reliability
// bin in every bit.
func TestClassScoreFingerprint(t *testing.T) {
	checkFingerprint(t, classScoreFile, classScoreHash(t))
}

// classScoreJobs are a binary draw with every Figure 3 pipeline and the
// oracle, and folds 0 and 3 of a three-class table with every learner.
func classScoreJobs(t *testing.T) []Job {
	t.Helper()
	quad, err := sim.Defaults(sim.Quadratic)
	if err != nil {
		t.Fatal(err)
	}
	quad.NTrain, quad.NTest, quad.Noise, quad.Task, quad.Scale = 200, 100, 0, sim.Binary, sim.DefaultScale(sim.Quadratic)
	if quad.Threshold, err = sim.MedianThreshold(quad.Model, quad.D, quad.Rho); err != nil {
		t.Fatal(err)
	}
	pipes := append(Figure3Pipelines(), grid.MustPipeline("bayes/oracle", nil))
	jobs := []Job{{Seed: 7, Scenario: quad, Rep: 3, Pipelines: pipes}}
	d := threeClassDesign(150, 5)
	for _, fold := range []int{0, 3} {
		job := tableJob(d, sim.MCAR, 0.2, 1, fold, "tree/surrogate", "tree/mia", "ctree/surrogate", "forest/mean",
			"boost/mia", "svm/mean+mask", "knn/mean", "linear/mean", "linear/gaussian+mask")
		job.Scenario.Task = sim.Multiclass
		jobs = append(jobs, job)
	}
	return jobs
}

// threeClassDesign is synthDesign with its target cut into three classes
// (y below −1, between, above 1).
func threeClassDesign(n int, seed uint64) *table.Design {
	d := synthDesign(n, seed)
	for i, y := range d.Y {
		switch {
		case y < -1:
			d.Y[i] = 0
		case y > 1:
			d.Y[i] = 2
		default:
			d.Y[i] = 1
		}
	}
	d.Classes = []string{"low", "mid", "high"}
	return d
}

// classScoreHash is scoreHash for classification: pipeline, error kind
// and the bits of every class score and reliability bin.
func classScoreHash(t *testing.T) string {
	t.Helper()
	h := sha256.New()
	for _, job := range classScoreJobs(t) {
		for _, r := range Run(context.Background(), job, learn.Env{Threads: 1}) {
			if r.Failed() && r.ErrKind != KindUnavailable {
				t.Fatalf("%s failed: %s: %s", r.Pipeline, r.ErrKind, r.ErrMsg)
			}
			fmt.Fprintf(h, "%s\x00%s\x00", r.Pipeline, r.ErrKind)
			if r.Failed() {
				continue
			}
			if r.Class == nil {
				t.Fatalf("%s: a classification result without class scores", r.Pipeline)
			}
			c := r.Class
			for _, v := range []float64{c.LogLoss, c.Brier, c.AUC, c.AUCHandTill, c.Accuracy, c.BalancedAccuracy, c.ECE,
				r.ImputeRMSETrain, r.ImputeRMSETest} {
				h.Write(binary.LittleEndian.AppendUint64(nil, math.Float64bits(v)))
			}
			for _, b := range c.Reliability {
				fmt.Fprintf(h, "%d %d %x;", b.Count, b.Correct, math.Float64bits(b.Confidence))
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
