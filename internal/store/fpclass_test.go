package store

import "testing"

// TestFPClassIsKept checks the floating-point class record: none in a new
// store, whatever SetFPClass wrote after, across a reopen and in Check's
// report, with hasResults following the results bucket (a failed job
// alone is no result).
func TestFPClassIsKept(t *testing.T) {
	s, dir := openTest(t, Options{})
	check := func(wantClass string, wantResults bool) {
		t.Helper()
		class, has, err := s.FPClass()
		if err != nil || class != wantClass || has != wantResults {
			t.Fatalf("FPClass() = %q, %v, %v; want %q, %v", class, has, err, wantClass, wantResults)
		}
	}
	check("", false)
	must(t, s.SetFPClass("arm64+fma go1.26.8"))
	check("arm64+fma go1.26.8", false)
	sw := testSweep(t, []float64{0.1}, 2, "tree/mean")
	id := put(t, s, sw)
	must(t, s.Commit([]Record{{SweepID: id, Job: 1, Failure: "boom"}}))
	check("arm64+fma go1.26.8", false)
	must(t, s.Commit([]Record{record(id, sw, 0, 0)}))
	check("arm64+fma go1.26.8", true)
	must(t, s.SetFPClass("amd64 go1.26.8"))
	must(t, s.Close())

	r, err := Check(dir)
	if err != nil || r.FPClass != "amd64 go1.26.8" {
		t.Fatalf("Check: class %q, %v; want %q", r.FPClass, err, "amd64 go1.26.8")
	}
	if s, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	check("amd64 go1.26.8", true)
	must(t, s.Close())
}
