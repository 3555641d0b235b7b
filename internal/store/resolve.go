package store

import (
	"errors"
	"fmt"
	"strings"
)

// Resolve finds the sweep that arg names: a full id, a unique id prefix,
// or a sweep name (the most recently submitted sweep of that name when
// several have it, e.g. the same grid run at two repetition counts;
// others lists the ids passed over, oldest first). With arg empty the
// store must hold exactly one sweep. Every command and RPC that names a
// sweep resolves it here. Errors wrap ErrNotFound (the message lists
// the sweeps the store holds) or ErrAmbiguous (a prefix of several ids,
// or no argument and several sweeps).
func (s *Store) Resolve(arg string) (rec SweepRecord, others []string, err error) {
	if arg != "" {
		rec, err = s.Sweep(arg)
		if err == nil || !errors.Is(err, ErrNotFound) {
			return rec, nil, err
		}
	}
	all, err := s.Sweeps()
	if err != nil {
		return rec, nil, err
	}
	var match []SweepRecord // oldest submission first
	for _, r := range all {
		if arg == "" || r.Spec.Name == arg {
			match = append(match, r)
		}
	}
	switch {
	case len(match) == 0 && arg == "":
		return rec, nil, fmt.Errorf("%w: the store holds no sweep", ErrNotFound)
	case len(match) == 0:
		return rec, nil, fmt.Errorf("%w: no sweep has the id, id prefix or name %q (the store holds: %s)",
			ErrNotFound, arg, listSweeps(all))
	case len(match) > 1 && arg == "":
		return rec, nil, fmt.Errorf("%w: the store holds %d sweeps; name one: %s", ErrAmbiguous, len(match), listSweeps(all))
	}
	for _, r := range match[:len(match)-1] {
		others = append(others, r.ID)
	}
	return match[len(match)-1], others, nil
}

// listSweeps names the sweeps for an error message.
func listSweeps(rs []SweepRecord) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, fmt.Sprintf("%q %.12s", r.Spec.Name, r.ID))
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}
