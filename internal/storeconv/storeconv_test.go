package storeconv

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/methodid"
	"github.com/misslab/misslab/internal/sim"
	"github.com/misslab/misslab/internal/store"
)

// gridFiles are the shipped grids and the grid parser's good test grids:
// every model, mechanism, table split and pipeline form users write.
func gridFiles(t *testing.T) []*grid.Sweep {
	t.Helper()
	var paths []string
	for _, pat := range []string{"../../examples/*.hcl", "../grid/testdata/*.good.hcl"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, m...)
	}
	var out []*grid.Sweep
	for _, p := range paths {
		f, err := grid.ParseFile(p, grid.ParseOptions{})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out = append(out, f.Sweeps...)
	}
	if len(out) < 20 {
		t.Fatalf("only %d sweeps in %d files", len(out), len(paths))
	}
	return out
}

// TestStoreKeysAreTheIdentities: the store derives its keys from its own
// canonical encodings; for every sweep users write they equal the
// identities the coordinator uses for seeds and sweep ids (scenario and
// pipeline Canonical), so results keep their keys, and the store's job
// numbering is the grid's.
func TestStoreKeysAreTheIdentities(t *testing.T) {
	for _, sw := range gridFiles(t) {
		st := ToStore(sw)
		for i, sc := range sw.Scenarios {
			if got, want := st.Scenarios[i].Canonical(), sc.Canonical(); got != want {
				t.Fatalf("sweep %s scenario %d: store encodes %q, the coordinator %q", sw.Name, i, got, want)
			}
		}
		for i, p := range sw.Pipelines {
			if got, want := st.Pipelines[i].Canonical(), p.Canonical(); got != want {
				t.Fatalf("sweep %s pipeline %d: store encodes %q, the coordinator %q", sw.Name, i, got, want)
			}
		}
		if st.Jobs() != sw.Jobs() || st.Units() != sw.Units() || st.UnitCount() != sw.UnitCount() {
			t.Fatalf("sweep %s: store counts %d jobs of %d units, the grid %d of %d", sw.Name, st.Jobs(), st.Units(), sw.Jobs(), sw.Units())
		}
		for _, j := range []int{0, 1, sw.Jobs() / 2, sw.Jobs() - 1} {
			a, b := st.Job(j)
			c, d := sw.Job(j)
			r1, f1 := st.Fold(b)
			r2, f2 := sw.Fold(d)
			if a != c || b != d || r1 != r2 || f1 != f2 {
				t.Fatalf("sweep %s job %d: store (%d, %d, %d, %d), grid (%d, %d, %d, %d)", sw.Name, j, a, b, r1, f1, c, d, r2, f2)
			}
		}
	}
}

// TestRoundTripThroughAStore: every sweep users write is stored and read
// back as it was (the same id, scenarios, pipelines and settings).
func TestRoundTripThroughAStore(t *testing.T) {
	st, err := store.Open(t.TempDir(), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i, sw := range gridFiles(t) {
		rec := New(sw, time.Unix(int64(1000+i), 0))
		if err := st.PutSweep(rec.StoreRecord()); err != nil {
			t.Fatal(err)
		}
		got, err := Sweep(st, rec.ID)
		if err != nil {
			t.Fatalf("sweep %s: %v", sw.Name, err)
		}
		want := *sw
		want.TableFile = nil // a local file's facts are not stored
		if got.Spec.Hash() != rec.ID || !reflect.DeepEqual(*got.Spec, want) || !got.Submitted.Equal(rec.Submitted) {
			t.Errorf("sweep %s read back as\n%+v\nwant\n%+v", sw.Name, *got.Spec, want)
		}
	}
}

// TestEveryDomainFieldIsStored sets each field of the domain types the
// store keeps (a scenario, a table reference, a method) on its own and
// converts it to the store's form and back: a field added to one of them
// without a place in the store fails here, naming it, instead of being
// silently dropped on disk.
func TestEveryDomainFieldIsStored(t *testing.T) {
	roundTrips := []struct {
		zero any
		back func(v any) any
	}{
		{sim.Scenario{}, func(v any) any { return scenarioFromStore(scenarioToStore(v.(sim.Scenario))) }},
		{sim.TableRef{}, func(v any) any {
			ref := v.(sim.TableRef)
			return *scenarioFromStore(scenarioToStore(sim.Scenario{Table: &ref})).Table
		}},
		{methodid.Method{}, func(v any) any { return methodFromStore(methodToStore(v.(methodid.Method))) }},
	}
	for _, c := range roundTrips {
		typ := reflect.TypeOf(c.zero)
		for i := range typ.NumField() {
			f := typ.Field(i)
			v := reflect.New(typ).Elem()
			if !setDistinct(v.Field(i)) {
				t.Errorf("%s.%s: the test cannot set a %s; extend setDistinct", typ, f.Name, f.Type)
				continue
			}
			if got := c.back(v.Interface()); !reflect.DeepEqual(got, v.Interface()) {
				t.Errorf("%s.%s is lost on its way to the store and back: %+v, want %+v", typ, f.Name, got, v.Interface())
			}
		}
	}
}

// setDistinct sets v to a non-zero value of its type; false for a type it
// does not know.
func setDistinct(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x\xff")
	case reflect.Int, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint64:
		v.SetUint(7)
	case reflect.Float64:
		v.SetFloat(0.375)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		if !setDistinct(s.Index(0)) {
			return false
		}
		v.Set(s)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		if p.Elem().Kind() == reflect.Struct {
			p.Elem().Field(0).SetString("ab") // a table reference: its hash
		}
		v.Set(p)
	default:
		return false
	}
	return true
}

// TestFromStoreValidates: a stored sweep is validated like any sweep
// entering the coordinator; an unknown pipeline is an error naming the
// sweep.
func TestFromStoreValidates(t *testing.T) {
	sw := gridFiles(t)[0]
	rec := New(sw, time.Now()).StoreRecord()
	rec.Spec.Pipelines = append(rec.Spec.Pipelines, store.Pipeline{Name: "nosuch/mean"})
	_, err := FromStore(rec)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", sw.Name)) || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("FromStore of an unknown pipeline: %v", err)
	}
	rec = New(sw, time.Now()).StoreRecord()
	rec.Spec.Scenarios[0].Rate = 2
	if _, err := FromStore(rec); err == nil {
		t.Error("FromStore accepted a scenario with rate 2")
	}
}
