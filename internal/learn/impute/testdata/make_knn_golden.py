#!/usr/bin/python3
"""Golden values for impute's KNN imputer: scikit-learn 1.2.1's
KNNImputer() (weights "uniform", metric "nan_euclidean").

Run from this directory with Debian's python (python3-sklearn 1.2.1,
numpy 1.24):
    /usr/bin/python3 make_knn_golden.py
It writes knn_<set>.csv for every data set below (the format of
make_iterative_golden.py: part,x1..xd,imp1..impd, imp = sklearn's value
where x is NA: fit_transform for the training rows, transform for the
test rows) and knn_golden.json (n_neighbors per set). The Go tests read
these files; they never run Python.

misslab breaks ties between equal distances by training row index and
sklearn by np.argpartition's (unspecified) order, so the script checks
every imputed value against its own implementation of misslab's rule,
with directly summed distances, and redraws a set until the two agree to
1e-12 and no imputation depends on a tie (or a near tie, 1e-9) at the
k-th donor. A training column with no observed entry, which
sklearn drops, is written with imputed value 0 (misslab's convention).
"""
import json

import numpy as np
import sklearn
from sklearn.impute import KNNImputer


def gaussian(rng, n, d):
    mu = rng.normal(scale=2, size=d)
    a = rng.normal(size=(d, d))
    return rng.multivariate_normal(mu, a @ a.T / d + 0.5 * np.eye(d), size=n)


def amputate(rng, x, rate):
    x = x.copy()
    x[rng.random(x.shape) < rate] = np.nan
    return x


def small(rng):
    x = gaussian(rng, 30, 3)
    return amputate(rng, x[:20], 0.25), amputate(rng, x[20:], 0.25), 5


def small_k3(rng):
    x = gaussian(rng, 45, 4)
    return amputate(rng, x[:35], 0.2), amputate(rng, x[35:], 0.2), 3


def d5(rng):
    x = gaussian(rng, 250, 5)
    tr, te = amputate(rng, x[:200], 0.2), amputate(rng, x[200:], 0.2)
    te[0, :] = np.nan  # no defined distance: column means
    return tr, te, 5


def n1000(rng):
    x = gaussian(rng, 1100, 6)
    return amputate(rng, x[:1000], 0.2), amputate(rng, x[1000:], 0.3), 5


def d20(rng):
    x = gaussian(rng, 160, 20)
    return amputate(rng, x[:120], 0.1), amputate(rng, x[120:], 0.1), 5


def sparse(rng):
    """Most entries missing: receivers with fewer than k donors at a
    defined distance, completed with donors at an undefined one, and
    receivers with none (column mean). Which undefined donors complete
    the k is a tie that sklearn breaks by argpartition's order, not by
    row (the script saw them differ), so the set is redrawn until every
    such receiver has at most k donors in all: it then takes them all,
    where a rule ignoring undefined donors would not (see main)."""
    x = gaussian(rng, 16, 3)
    tr, te = amputate(rng, x[:10], 0.45), amputate(rng, x[10:], 0.4)
    te[0] = [x[10, 0], np.nan, np.nan]
    return tr, te, 5


def empty(rng):
    x = gaussian(rng, 90, 5)
    tr, te = amputate(rng, x[:70], 0.2), amputate(rng, x[70:], 0.2)
    tr[:, 3] = np.nan
    return tr, te, 5


# Sets that must have imputations completed by donors at an undefined
# distance (counted in knn_golden.json as undefined_donors).
NEEDS_UNDEFINED = {"sparse"}

SETS = {"small": small, "small_k3": small_k3, "d5": d5, "n1000": n1000, "d20": d20,
        "sparse": sparse, "empty": empty}


def reference(train, x, k):
    """misslab's rule: directly summed nan-Euclidean distances, donors by
    (distance, undefined last, training row), column mean when no donor
    is at a defined distance; also returns how many imputations depend on
    a tie (or a near tie, 1e-9) at the k-th donor and how many take
    donors at an undefined distance."""
    n, d = train.shape
    means = np.array([np.mean(c[~np.isnan(c)]) if (~np.isnan(c)).any() else 0.0 for c in train.T])
    out = x.copy()
    tied = filled = 0
    for i, row in enumerate(x):
        both = ~np.isnan(row) & ~np.isnan(train)
        cnt = both.sum(axis=1)
        sq = np.where(both, (row - np.nan_to_num(train)) ** 2, 0).sum(axis=1)
        dist = np.where(cnt > 0, sq * d / np.maximum(cnt, 1), np.inf)
        for j in np.flatnonzero(np.isnan(row)):
            donors = np.flatnonzero(~np.isnan(train[:, j]))
            if donors.size == 0:
                out[i, j] = 0.0
                continue
            dd = dist[donors]
            if np.isinf(dd).all():
                out[i, j] = means[j]
                continue
            order = donors[np.lexsort((donors, dd))]
            kk = min(k, donors.size)
            a, b = dist[order[kk - 1]], dist[order[kk]] if kk < donors.size else np.inf
            if kk < donors.size and (a == b or abs(a - b) < 1e-9 * b):
                tied += 1
            if np.isinf(a):
                filled += 1
            out[i, j] = train[order[:kk], j].mean()
    return out, tied, filled


def fit(train, test, k):
    valid = ~np.all(np.isnan(train), axis=0)
    imp = KNNImputer(n_neighbors=k).fit(train)
    outs = []
    for x in (train, test):
        o = np.zeros(x.shape)
        o[:, valid] = imp.transform(x)
        outs.append(o)
    return outs


def write_set(path, train, test, out_tr, out_te):
    d = train.shape[1]
    with open(path, "w") as f:
        f.write(",".join(["part"] + ["x%d" % (j + 1) for j in range(d)] + ["imp%d" % (j + 1) for j in range(d)]) + "\n")
        for part, x, out in (("train", train, out_tr), ("test", test, out_te)):
            for row, imp in zip(x, out):
                xs = ["NA" if np.isnan(v) else repr(float(v)) for v in row]
                ims = [repr(float(w)) if np.isnan(v) else "" for v, w in zip(row, imp)]
                f.write(",".join([part] + xs + ims) + "\n")


def check(train, test, outs, k):
    """Tied and undefined-distance imputations if sklearn agrees with the
    reference to 1e-12 on every imputed value, else None."""
    ties = filled = 0
    for x, o in zip((train, test), outs):
        ref, t, f = reference(train, x, k)
        ties, filled = ties + t, filled + f
        m = np.isnan(x)
        if not np.allclose(o[m], ref[m], rtol=1e-12, atol=1e-12):
            return None
    return ties, filled


def main():
    assert sklearn.__version__ == "1.2.1", sklearn.__version__
    rng = np.random.default_rng(20260127)
    summary = {"source": "make_knn_golden.py (scikit-learn %s, numpy %s)" % (sklearn.__version__, np.__version__),
               "sets": []}
    for name, make in SETS.items():
        for attempt in range(50):
            train, test, k = make(rng)
            outs = fit(train, test, k)
            c = check(train, test, outs, k)
            if c is not None and c[0] == 0 and (c[1] > 0 or name not in NEEDS_UNDEFINED):
                break
        else:
            raise SystemExit("%s: every draw depends on a tie" % name)
        write_set("knn_%s.csv" % name, train, test, *outs)
        summary["sets"].append({"name": name, "k": k, "draws": attempt + 1,
                                "ties": c[0], "undefined_donors": c[1]})
    with open("knn_golden.json", "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
