package forest

import (
	"flag"
	"fmt"
	"os"
	"testing"
)

// -dump DIR writes the data sets the ranger fixtures are computed on
// (testdata/make_golden.R, testdata/bench_ranger.R,
// testdata/make_class_golden.R) into DIR and exits without running the
// tests:
//
//	go test ./internal/learn/forest -args -dump /tmp/forestdata
var dumpDir = flag.String("dump", "", "write the golden and benchmark data sets as CSV into this directory, then exit")

func TestMain(m *testing.M) {
	flag.Parse()
	if *dumpDir != "" {
		err := os.MkdirAll(*dumpDir, 0o755)
		if err == nil {
			err = dumpQuad(*dumpDir, goldenSeeds(), goldenNTrain, goldenNTest)
		}
		if err == nil {
			err = dumpQuad(*dumpDir, []uint64{benchSeed}, 1000, 1000)
		}
		if err == nil {
			err = dumpClass(*dumpDir, []uint64{classProbSeed}, classProbNTrain, classProbNTest)
		}
		if err == nil {
			err = dumpClass(*dumpDir, classScoreSeeds(), classScoreNTrain, classScoreNTest)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
