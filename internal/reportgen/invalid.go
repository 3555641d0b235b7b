package reportgen

import "github.com/misslab/misslab/internal/store"

// KindInvalid is store.KindInvalid: the error kind of a pipeline result
// whose numbers cannot be a score.
const KindInvalid = store.KindInvalid

// checked returns r, or, when r is a success with a number that cannot
// be a score (store.Result.BadNumber), a KindInvalid failure naming it.
func checked(r store.Result) store.Result {
	if why := r.BadNumber(); why != "" {
		return store.Result{ErrKind: KindInvalid, ErrMsg: "stored " + why + " (stored before the coordinator checked results)"}
	}
	return r
}
