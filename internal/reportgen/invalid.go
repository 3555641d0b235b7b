package reportgen

import "github.com/misslab/misslab/internal/store"

// checked returns r, or, when r is a success with a number that cannot
// be a score (store.Result.BadNumber), a store.KindInvalid failure naming it.
func checked(r store.Result) store.Result {
	if why := r.BadNumber(); why != "" {
		return store.Result{ErrKind: store.KindInvalid, ErrMsg: "stored " + why + " (stored before the coordinator checked results)"}
	}
	return r
}
