#!/usr/bin/python3
"""Generate the classification fixtures of class_golden_test.go with XGBoost.

Run with Debian's Python (xgboost 1.7.4, numpy):

    cd internal/learn/boost/testdata && /usr/bin/python3 make_golden_class.py

For each data set it writes class_<name>.json holding the training and
test data (NaN written as null), the number of classes k, the XGBoost
parameters, the trees of the fitted booster taken from its JSON model (node
arrays, in XGBoost's order: round by round, class by class), the test-set
probabilities after each round count of "rounds" (iteration_range=(0, r);
binary:logistic gives p per row, multi:softprob k values per row) and the
test-set margins after the last one (output_margin=True). Training uses
tree_method="exact" and nthread=1, the setting the Go package reproduces.

It also writes expf.json: glibc's expf (through ctypes, the libm XGBoost
calls) at a sweep of float32 inputs and at inputs where glibc's result is
not the correctly rounded one, as found by comparing with exp in double.
"""
import ctypes
import ctypes.util
import json

import numpy as np
import xgboost as xgb


def gaussian(rng, n, d, rho=0.5, mu=1.0):
    """Equicorrelated Gaussian covariates, N(mu 1, rho 11' + (1-rho) I)."""
    z0 = rng.standard_normal((n, 1))
    return mu + np.sqrt(rho) * z0 + np.sqrt(1 - rho) * rng.standard_normal((n, d))


def mcar(rng, x, rates):
    """Mask column j with probability rates[j] (MCAR)."""
    x = x.copy()
    for j, p in rates.items():
        x[rng.random(x.shape[0]) < p, j] = np.nan
    return x


def bernoulli(rng, f):
    """Labels 0/1 drawn with P(Y = 1) = sigmoid(f)."""
    return (rng.random(f.shape[0]) < 1 / (1 + np.exp(-f))).astype(np.float64)


def categorical(rng, scores):
    """Labels argmax_c(scores_c + Gumbel noise): softmax probabilities."""
    g = -np.log(-np.log(rng.random(scores.shape)))
    return np.argmax(scores + g, axis=1).astype(np.float64)


def bin_quad(rng):
    """Paper's Model 1 through a logistic link, d = 9, 20% MCAR on X1..X3,
    1000 training rows, the defaults (the long fit of the set)."""
    def draw(n):
        x = gaussian(rng, n, 9)
        y = bernoulli(rng, 2 * ((x[:, :3] ** 2).sum(axis=1) - 6))
        return mcar(rng, x, {0: 0.2, 1: 0.2, 2: 0.2}), y
    return draw(1000), draw(300), {}, 2, [1, 2, 5, 20, 100, 500]


def bin_small(rng):
    """Small (120 rows), heavy NaN, predictive missingness, depth 3."""
    def draw(n):
        x = gaussian(rng, n, 4)
        m = rng.random((n, 2)) < 0.35
        y = bernoulli(rng, x[:, 0] - x[:, 1] + 1.5 * m[:, 0] - 1.0 * m[:, 1] - 0.5)
        x[:, :2][m] = np.nan
        return x, y
    return draw(120), draw(80), dict(max_depth=3), 2, [1, 2, 5, 30]


def bin_grid_params(rng):
    """Grid-valued columns (multiples of 0.5: ties), a constant column with
    NaN, and non-default parameters: L1, pruning, a min_child_weight that
    binds on hessian sums, base_score 0.3."""
    def draw(n):
        x = np.round(gaussian(rng, n, 6) * 2) / 2
        x[:, 5] = 1.0
        y = bernoulli(rng, x[:, 0] * x[:, 1] - x[:, 2] + 0.5 * x[:, 3] ** 2 - 1)
        return mcar(rng, x, {0: 0.25, 2: 0.15, 5: 0.3}), y
    params = dict(eta=0.1, max_depth=4, reg_lambda=2.0, reg_alpha=0.5, gamma=0.3,
                  min_child_weight=3.0, base_score=0.3)
    return draw(600), draw(300), params, 2, [1, 2, 5, 40]


def bin_separable(rng):
    """Separable labels, eta 1, lambda 0.001, min_child_weight 0: margins
    pass 17, where the sigmoid rounds to 1 in float32, the gradient to 0
    and the hessian to its floor 1e-16."""
    def draw(n):
        x = gaussian(rng, n, 3)
        y = (x[:, 0] + 0.5 * x[:, 1] > 1.4).astype(np.float64)
        return mcar(rng, x, {1: 0.2}), y
    params = dict(eta=1.0, reg_lambda=0.001, min_child_weight=0.0, max_depth=4)
    return draw(300), draw(200), params, 2, [1, 3, 10, 60]


def multi3_small(rng):
    """Three classes, 150 rows, NaN on two columns, the defaults."""
    def draw(n):
        x = gaussian(rng, n, 4)
        s = np.stack([x[:, 0], x[:, 1] - x[:, 2], 0.5 * x[:, 3] ** 2], axis=1)
        return mcar(rng, x, {0: 0.3, 1: 0.15}), categorical(rng, 2 * s)
    return draw(150), draw(100), {}, 3, [1, 2, 5, 20]


def multi4_grid(rng):
    """Four classes, 1000 rows, grid values (multiples of 0.25), NaN on
    three columns with class-dependent missingness, non-default
    parameters (depth 5, eta 0.2, lambda 0.5, gamma 0.2,
    min_child_weight 0.5)."""
    def draw(n):
        x = np.round(gaussian(rng, n, 6) * 4) / 4
        s = np.stack([x[:, 0] + x[:, 1], x[:, 2] ** 2 - 1, -x[:, 0] + x[:, 3],
                      0.5 * x[:, 4] * x[:, 5]], axis=1)
        y = categorical(rng, 1.5 * s)
        x = mcar(rng, x, {0: 0.2, 3: 0.3})
        x[(y == 2) & (rng.random(n) < 0.3), 4] = np.nan
        return x, y
    params = dict(eta=0.2, max_depth=5, reg_lambda=0.5, gamma=0.2, min_child_weight=0.5)
    return draw(1000), draw(300), params, 4, [1, 2, 5, 50]


def multi3_dense_train(rng):
    """Three classes, no NaN in training (only default-left splits), 30%
    NaN at test, depth 2 and min_child_weight 2."""
    def draw(n, rate):
        x = gaussian(rng, n, 5)
        s = np.stack([x[:, 0] - x[:, 1], x[:, 2], x[:, 3] * x[:, 4]], axis=1)
        return mcar(rng, x, {j: rate for j in range(5)}), categorical(rng, 2 * s)
    params = dict(max_depth=2, min_child_weight=2.0, eta=0.5)
    return draw(400, 0.0), draw(200, 0.3), params, 3, [1, 2, 5, 25]


DATASETS = [("bin_quad", bin_quad, 11), ("bin_small", bin_small, 12),
            ("bin_grid_params", bin_grid_params, 13), ("bin_separable", bin_separable, 14),
            ("multi3_small", multi3_small, 15), ("multi4_grid", multi4_grid, 16),
            ("multi3_dense_train", multi3_dense_train, 17)]


def nulls(a):
    return [[None if np.isnan(v) else float(v) for v in row] for row in a]


def trees_of(bst):
    model = json.loads(bst.save_raw("json"))
    out = []
    for t in model["learner"]["gradient_booster"]["model"]["trees"]:
        out.append({k: t[k] for k in ("left_children", "right_children", "split_indices",
                                      "split_conditions", "default_left", "base_weights",
                                      "loss_changes", "sum_hessian")})
    return out


def floats(a):
    """float32 predictions as exact float64 values, nested like a."""
    return np.asarray(a, dtype=np.float32).astype(np.float64).tolist()


def main():
    for name, make, seed in DATASETS:
        rng = np.random.default_rng(seed)
        (xtr, ytr), (xte, _), extra, k, rounds = make(rng)
        params = dict(tree_method="exact", nthread=1, eta=0.3, max_depth=6,
                      reg_lambda=1.0, reg_alpha=0.0, gamma=0.0, min_child_weight=1.0,
                      base_score=0.5, seed=0)
        if k == 2:
            params["objective"] = "binary:logistic"
        else:
            params.update(objective="multi:softprob", num_class=k)
        params.update(extra)
        dtr = xgb.DMatrix(xtr, label=ytr, missing=np.nan, nthread=1)
        dte = xgb.DMatrix(xte, missing=np.nan, nthread=1)
        bst = xgb.train(params, dtr, num_boost_round=max(rounds))
        preds = {str(r): floats(bst.predict(dte, iteration_range=(0, r))) for r in rounds}
        margins = floats(bst.predict(dte, output_margin=True))
        doc = dict(name=name, xgboost=xgb.__version__, k=k, params=params,
                   x_train=nulls(xtr), y_train=[float(v) for v in ytr],
                   x_test=nulls(xte), rounds=rounds, predictions=preds,
                   margins=margins, trees=trees_of(bst))
        with open("class_%s.json" % name, "w") as f:
            json.dump(doc, f, separators=(",", ":"))
        print("wrote class_%s.json (%d trees, class counts %s)"
              % (name, len(doc["trees"]), np.bincount(ytr.astype(int)).tolist()))
    write_expf()


def write_expf():
    """glibc expf at 4000 inputs spread over [-110, 90] and at every input of
    a random sample of 2·10^6 in [-30, 30] where it differs from exp in
    double rounded to float32."""
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    libm.expf.restype = ctypes.c_float
    libm.expf.argtypes = [ctypes.c_float]
    rng = np.random.default_rng(2025)
    sweep = np.concatenate([np.linspace(-110, 90, 4000, dtype=np.float32),
                            np.float32([88.7, 88.72, 88.73, -103.9, -104.0, 0.0, -0.0])])
    sample = rng.uniform(-30, 30, 2_000_000).astype(np.float32)
    ref = np.exp(sample.astype(np.float64)).astype(np.float32)
    hard = [x for x, r in zip(sample.tolist(), ref.tolist())
            if np.float32(libm.expf(x)) != np.float32(r)]
    xs = np.concatenate([sweep, np.float32(hard)])
    pairs = [[int(np.float32(x).view(np.uint32)), int(np.float32(libm.expf(float(x))).view(np.uint32))]
             for x in xs]
    with open("expf.json", "w") as f:
        json.dump(dict(libm=ctypes.util.find_library("m"), hard=len(hard), pairs=pairs), f,
                  separators=(",", ":"))
    print("wrote expf.json (%d inputs, %d not correctly rounded)" % (len(pairs), len(hard)))


if __name__ == "__main__":
    main()
