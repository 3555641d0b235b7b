package sim

import (
	"errors"
	"strings"
	"testing"
)

func tableScenario() Scenario {
	return Scenario{Model: Table, D: 3, Mechanism: MCAR, Rate: 0.2, Columns: []int{0, 2},
		Table: &TableRef{SHA256: strings.Repeat("ab", 32), Format: "csv", Name: "air.csv", Target: "Ozone",
			Drop: []string{"Day"}, Categorical: []string{"Month"}, NA: []string{"", "NA"}, Folds: 5,
			Features: []string{"Solar.R", "Wind", "Month"}}}
}

func TestTableScenarioValidate(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Scenario)
		want string // "" = valid
	}{
		{"ok", func(*Scenario) {}, ""},
		{"holdout", func(s *Scenario) { s.Table.Folds, s.Table.TestFraction = 0, 0.3 }, ""},
		{"none", func(s *Scenario) { s.Mechanism, s.Rate, s.Columns = None, 0, nil }, ""},
		{"both splits", func(s *Scenario) { s.Table.TestFraction = 0.3 }, "not both"},
		{"one fold", func(s *Scenario) { s.Table.Folds = 1 }, "split: folds = 1"},
		{"bad hash", func(s *Scenario) { s.Table.SHA256 = "../../etc/passwd" }, "not 64 lowercase hex"},
		{"upper hash", func(s *Scenario) { s.Table.SHA256 = strings.Repeat("AB", 32) }, "not 64 lowercase hex"},
		{"format", func(s *Scenario) { s.Table.Format = "xlsx" }, `format "xlsx"`},
		{"d", func(s *Scenario) { s.D = 4 }, "d = 4 but the table has 3"},
		{"rho", func(s *Scenario) { s.Rho = 0.5 }, "must be 0"},
		{"mechanism", func(s *Scenario) { s.Mechanism = Predictive }, `mechanism "predictive" is unknown for a table`},
		{"none with rate", func(s *Scenario) { s.Mechanism = None }, "takes no rate"},
		{"zero rate", func(s *Scenario) { s.Rate = 0 }, "must be in (0, 1)"},
		{"column range", func(s *Scenario) { s.Columns = []int{0, 3} }, "columns[1] = 3 outside [0, 3)"},
		{"censor categorical", func(s *Scenario) { s.Mechanism = Censoring }, `"Month" is categorical`},
		{"mar all", func(s *Scenario) { s.Mechanism, s.Columns = MAR, []int{0, 1, 2} }, "never amputed"},
		{"target twice", func(s *Scenario) { s.Table.Drop = []string{"Ozone"} }, `"Ozone" is named in both target and drop`},
		{"categorical not feature", func(s *Scenario) { s.Table.Categorical = []string{"Day"} }, `categorical column "Day"`},
		{"model", func(s *Scenario) { s.Model = Quadratic }, `model "quadratic" with a table`},
		{"no table", func(s *Scenario) { s.Table = nil }, "needs a table"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := tableScenario()
			c.edit(&s)
			err := s.Validate()
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want ErrInvalid containing %q", err, c.want)
			}
		})
	}
}

func TestTableScenarioIdentity(t *testing.T) {
	a, b := tableScenario(), tableScenario()
	b.Table.Name = "renamed.csv"
	if a.Canonical() != b.Canonical() {
		t.Fatalf("renaming the file changed the identity:\n%s\n%s", a.Canonical(), b.Canonical())
	}
	for name, edit := range map[string]func(*Scenario){
		"hash":   func(s *Scenario) { s.Table.SHA256 = strings.Repeat("cd", 32) },
		"folds":  func(s *Scenario) { s.Table.Folds = 10 },
		"na":     func(s *Scenario) { s.Table.NA = []string{"NA", ""} },
		"target": func(s *Scenario) { s.Table.Target = "Wind" },
		// a name holding the separators must not collide with two names
		"quoting": func(s *Scenario) { s.Table.Drop = []string{`Day","x`} },
	} {
		c := tableScenario()
		edit(&c)
		if c.Canonical() == a.Canonical() {
			t.Errorf("%s: identity unchanged: %s", name, a.Canonical())
		}
	}
	if a.Units() != 5 {
		t.Errorf("Units = %d, want 5", a.Units())
	}
	a.Table.Folds, a.Table.TestFraction = 0, 0.25
	if a.Units() != 1 || !strings.Contains(a.Canonical(), "test_fraction=0.25") {
		t.Errorf("hold-out: Units %d, canonical %s", a.Units(), a.Canonical())
	}
	if (Scenario{Model: Quadratic}).Units() != 1 {
		t.Error("a simulated scenario has one unit per repetition")
	}
}

func TestTableScenarioHasNoPopulation(t *testing.T) {
	s := tableScenario()
	if _, err := Generate(s, 1, 0); !errors.Is(err, ErrNoPopulation) {
		t.Errorf("Generate: %v", err)
	}
	if _, _, err := Variance(s); !errors.Is(err, ErrNoPopulation) {
		t.Errorf("Variance: %v", err)
	}
	if HasBayes(s) {
		t.Error("HasBayes(table) = true")
	}
}
