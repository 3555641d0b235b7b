package experiment

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/fpclass"
	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/sim"
)

// scoreFile records, per score version and platform, the hash of every
// score of scoreJobs (TestScoreFingerprint).
const scoreFile = "testdata/score_fingerprints.txt"

var updateScores = flag.Bool("update-scores", false,
	"record this platform's score fingerprint for fpclass.ScoreVersion in "+scoreFile)

// TestScoreFingerprint ties fpclass.ScoreVersion to the scores: it hashes
// every number of every result (fit times aside) of scoreJobs, and the
// hash must be the one recorded for the current score version on this
// platform. A change that alters any score in any bit fails here until
// fpclass.ScoreVersion is bumped and the new hash recorded (-update-scores,
// which appends a line and never replaces one: a version's hash cannot be
// re-recorded). A platform without a line (another architecture, a new Go
// release) passes if its hash is the version's on another platform, and
// fails otherwise until its hash is recorded.
func TestScoreFingerprint(t *testing.T) {
	checkFingerprint(t, scoreFile, scoreHash(t))
}

// checkFingerprint checks got against the hash file records for the
// current score version on this platform (see TestScoreFingerprint).
func checkFingerprint(t *testing.T, file, got string) {
	t.Helper()
	version, platform := "scores/"+strconv.Itoa(fpclass.ScoreVersion), fpclass.Platform()
	recorded, err := readScoreFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want, ok := recorded[version+" "+platform]
	switch {
	case ok && want == got:
	case !ok && !*updateScores && sameVersionHash(recorded, version, got):
		t.Logf("%s on %s is not recorded, but its hash is that of %s on another platform", version, platform, version)
	case ok:
		t.Fatalf("scores changed under %s on %s (hash %s, recorded %s in %s): bump fpclass.ScoreVersion, "+
			"then record the new hashes with go test ./internal/experiment -run Fingerprint -update-scores",
			version, platform, got, want, file)
	case *updateScores:
		line := fmt.Sprintf("%s %s %s\n", version, platform, got)
		f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(line); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		t.Logf("recorded %s in %s", strings.TrimSpace(line), file)
	default:
		t.Fatalf("no score fingerprint for %s on %s in %s (this build's hash is %s): "+
			"record it with go test ./internal/experiment -run Fingerprint -update-scores",
			version, platform, file, got)
	}
}

// sameVersionHash reports whether hash is recorded for version on some
// platform: the scores are then those of that version, and a platform
// that computes them alike (a Go release that changed no score) need not
// be recorded.
func sameVersionHash(recorded map[string]string, version, hash string) bool {
	for k, h := range recorded {
		if strings.HasPrefix(k, version+" ") && h == hash {
			return true
		}
	}
	return false
}

// readScoreFile reads the "scores/N PLATFORM HASH" lines of path by
// "scores/N PLATFORM"; # starts a comment.
func readScoreFile(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		i := strings.LastIndexByte(text, ' ')
		if i < 0 || !strings.HasPrefix(text, "scores/") || len(text[i+1:]) != 64 {
			return nil, fmt.Errorf("%s:%d: want \"scores/N PLATFORM SHA256\", got %q", path, line, text)
		}
		out[text[:i]] = text[i+1:]
	}
	return out, sc.Err()
}

// scoreJobs are the jobs TestScoreFingerprint hashes: every Figure 3
// pipeline and the Bayes oracle, on small draws of Figure 3's MCAR
// scenario and of Figure 5's Friedman design (40% MCAR on all ten
// columns), so that every learner, imputer and simulator path the paper
// uses runs.
func scoreJobs(t *testing.T) []Job {
	t.Helper()
	quad, err := sim.Defaults(sim.Quadratic)
	if err != nil {
		t.Fatal(err)
	}
	fried, err := sim.Defaults(sim.Friedman)
	if err != nil {
		t.Fatal(err)
	}
	quad.NTrain, quad.NTest = 200, 100
	fried.NTrain, fried.NTest, fried.Rate = 200, 100, 0.4
	pipes := append(Figure3Pipelines(), grid.MustPipeline("bayes/oracle", nil))
	return []Job{{Seed: 7, Scenario: quad, Rep: 3, Pipelines: pipes}, {Seed: 7, Scenario: fried, Rep: 1, Pipelines: pipes}}
}

// scoreHash returns the SHA-256 of every result of scoreJobs: pipeline,
// error kind, root split and the bits of every score, in order.
func scoreHash(t *testing.T) string {
	t.Helper()
	h := sha256.New()
	for _, job := range scoreJobs(t) {
		for _, r := range Run(context.Background(), job, learn.Env{Threads: 1}) {
			if r.Failed() && r.ErrKind != KindUnavailable {
				t.Fatalf("%s failed: %s: %s", r.Pipeline, r.ErrKind, r.ErrMsg)
			}
			fmt.Fprintf(h, "%s\x00%s\x00%s\x00", r.Pipeline, r.ErrKind, r.Root)
			for _, v := range []float64{r.R2, r.MSE, r.MAE, r.ImputeRMSETrain, r.ImputeRMSETest, r.RootThreshold} {
				h.Write(binary.LittleEndian.AppendUint64(nil, math.Float64bits(v)))
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
