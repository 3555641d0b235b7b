package stats

import (
	"slices"
	"testing"
)

func TestGroupingHelpers(t *testing.T) {
	recs := []Record{
		{Scenario: "b", Rep: 2, Pipeline: "tree/mia"},
		{Scenario: "a", Rep: 1, Pipeline: "svm/mean"},
		{Scenario: "b", Rep: 1, Pipeline: "tree/mia"},
		{Scenario: "a", Rep: 1, Pipeline: "tree/mia"},
	}
	if got := Scenarios(recs); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("Scenarios = %v", got)
	}
	if got := Pipelines(recs); !slices.Equal(got, []string{"svm/mean", "tree/mia"}) {
		t.Errorf("Pipelines = %v", got)
	}
	fam := PrefixGroup("/")
	groups := GroupBy(recs, func(r Record) string { return fam(r.Pipeline) })
	if len(groups) != 2 || groups[0].Key != "svm" || groups[1].Key != "tree" || len(groups[1].Records) != 3 {
		t.Fatalf("GroupBy = %+v", groups)
	}
	// Within a group: CompareRecords order (scenario, pipeline, rep).
	tr := groups[1].Records
	if tr[0].Scenario != "a" || tr[1].Scenario != "b" || tr[1].Rep != 1 || tr[2].Rep != 2 {
		t.Errorf("tree group order = %+v", tr)
	}
	if recs[0].Scenario != "b" || recs[0].Rep != 2 {
		t.Error("GroupBy reordered its input")
	}
	for in, want := range map[string]string{"tree/mia+mask": "tree", "bayes": "bayes", "/x": "", "": ""} {
		if got := fam(in); got != want {
			t.Errorf("PrefixGroup(\"/\")(%q) = %q, want %q", in, got, want)
		}
	}
}
