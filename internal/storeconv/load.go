package storeconv

import "github.com/misslab/misslab/internal/store"

// Sweeps returns every stored sweep, oldest submission first, converted
// and validated (FromStore).
func Sweeps(st *store.Store) ([]Record, error) {
	recs, err := st.Sweeps()
	if err != nil {
		return nil, err
	}
	out := make([]Record, 0, len(recs))
	for _, r := range recs {
		rec, err := FromStore(r)
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	return out, nil
}

// Sweep returns the stored sweep whose id is id or starts with id,
// converted (see store.Store.Sweep for its errors, and FromStore).
func Sweep(st *store.Store, id string) (Record, error) {
	r, err := st.Sweep(id)
	if err != nil {
		return Record{}, err
	}
	return FromStore(r)
}

// Resolve finds the sweep arg names (see store.Store.Resolve), converted.
func Resolve(st *store.Store, arg string) (rec Record, others []string, err error) {
	r, others, err := st.Resolve(arg)
	if err != nil {
		return Record{}, nil, err
	}
	rec, err = FromStore(r)
	return rec, others, err
}
