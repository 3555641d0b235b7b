package grid

import (
	"slices"
	"testing"

	"github.com/misslab/misslab/internal/sim"
)

// TestTableSweep checks what a table block expands to: one table
// reference shared by every scenario, features in file order without
// the target and the dropped column, "all" meaning every feature (every
// numeric one under censoring), K folds as units, the file's summary.
func TestTableSweep(t *testing.T) {
	f, err := ParseFile("testdata/table.good.hcl", testOpts)
	if err != nil {
		t.Fatal(err)
	}
	sw := f.Sweeps[0]
	if !sw.IsTable() || sw.Units() != 3 || sw.Jobs() != len(sw.Scenarios)*2*3 {
		t.Fatalf("IsTable %v, Units %d, Jobs %d", sw.IsTable(), sw.Units(), sw.Jobs())
	}
	if len(sw.Scenarios) != 1+3*2 {
		t.Fatalf("%d scenarios, want none + 3 mechanisms × 2 rates", len(sw.Scenarios))
	}
	ref := sw.Scenarios[0].Table
	if !slices.Equal(ref.Features, []string{"a", "b", "c"}) || ref.Target != "y" || ref.Folds != 3 ||
		ref.Format != "csv" || ref.Name != "small.csv" || !sim.IsTableHash(ref.SHA256) {
		t.Fatalf("table reference %+v", *ref)
	}
	for _, sc := range sw.Scenarios {
		if sc.Table != ref {
			t.Fatal("scenarios do not share one table reference")
		}
		want := []int{0, 1, 2}
		switch sc.Mechanism {
		case sim.None:
			want = nil
		case sim.Censoring:
			want = []int{0, 1} // c is categorical
		}
		if !slices.Equal(sc.Columns, want) {
			t.Errorf("%s: columns %v, want %v", sc.Mechanism, sc.Columns, want)
		}
	}
	tf := sw.TableFile
	if tf == nil || tf.Rows != 12 || tf.Used != 12 || tf.Size == 0 || len(tf.Columns) != 4 {
		t.Fatalf("table file %+v", tf)
	}
	if err := sw.Check(); err != nil {
		t.Fatal(err)
	}
	u, fold := sw.Fold(5)
	if u != 1 || fold != 2 {
		t.Errorf("unit 5 = repetition %d fold %d, want 1 and 2", u, fold)
	}
}
