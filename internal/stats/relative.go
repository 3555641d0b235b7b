package stats

import (
	"cmp"
	"slices"
	"strings"
)

// Relative is one record's R² relative to its family in the same
// repetition, as the paper's "relative explained variance" figures show:
// Rel = R2 − FamilyMean, where FamilyMean is the mean R² of the family's
// pipelines that did not fail in that (scenario, repetition).
type Relative struct {
	Scenario string
	Rep      int
	Pipeline string
	Family   string  // GroupFunc(Pipeline); "" for a nil GroupFunc
	R2       float64 // the record's R²
	Rel      float64 // R2 − FamilyMean
	// FamilyMean is the mean R² over the family's available pipelines.
	FamilyMean float64
	// FamilySize is how many pipelines that mean covers. When a pipeline
	// failed in this repetition it is smaller than in the others, and the
	// mean is over the remaining pipelines (as pandas' groupby().mean(),
	// which drew the paper's figures, skips NaN). Keep only records whose
	// FamilySize equals the family's full size for a complete-case view.
	FamilySize int
}

// RelativeR2 computes Relative for every non-failed record, returned in
// CompareRecords order (Scenario, Pipeline, Rep). Failed records get no
// entry and do not enter any family mean. It returns Validate's errors.
func RelativeR2(recs []Record, family GroupFunc) ([]Relative, error) {
	if err := Validate(recs); err != nil {
		return nil, err
	}
	type key struct {
		scenario, family string
		rep              int
	}
	var sums = map[key][]float64{}
	for _, r := range recs {
		if !r.Failed {
			k := key{r.Scenario, family.of(r.Pipeline), r.Rep}
			sums[k] = append(sums[k], r.R2)
		}
	}
	out := make([]Relative, 0, len(recs))
	for _, r := range recs {
		if r.Failed {
			continue
		}
		f := family.of(r.Pipeline)
		vals := sums[key{r.Scenario, f, r.Rep}]
		m := mean(vals)
		out = append(out, Relative{Scenario: r.Scenario, Rep: r.Rep, Pipeline: r.Pipeline,
			Family: f, R2: r.R2, Rel: r.R2 - m, FamilyMean: m, FamilySize: len(vals)})
	}
	slices.SortFunc(out, func(a, b Relative) int {
		return cmp.Or(strings.Compare(a.Scenario, b.Scenario),
			strings.Compare(a.Pipeline, b.Pipeline), cmp.Compare(a.Rep, b.Rep))
	})
	return out, nil
}
