#!/usr/bin/python3
"""Time XGBoost 1.7.x exact method, one thread, on the benchmark problem of
class_bench_test.go (BenchmarkClassBoost): the paper's Model 1 covariates
(d = 9, rho = 0.5, 20% MCAR on the first 3 columns) with binary labels
Y ~ Bernoulli(sigmoid(2 (X1^2 + X2^2 + X3^2 - 6))), n training rows and
1000 test rows, binary:logistic for 500 rounds at the defaults. Prints the
median of several fit+predict wall-clock and CPU times. Run with Debian's
/usr/bin/python3:

    bench_xgboost_class.py N REPS

The data are drawn with numpy here (the Go benchmark draws its own with the
same distribution); the work of the exact method depends on the data mostly
through n, d, the missing rate and the tree shapes, which the shared
distribution keeps alike.
"""
import statistics
import sys
import time

import numpy as np
import xgboost as xgb


def draw(rng, n, d=9, rho=0.5, rate=0.2, miss_cols=3):
    z0 = rng.standard_normal((n, 1))
    x = 1.0 + np.sqrt(rho) * z0 + np.sqrt(1 - rho) * rng.standard_normal((n, d))
    f = 2 * ((x[:, :3] ** 2).sum(axis=1) - 6)
    y = (rng.random(n) < 1 / (1 + np.exp(-f))).astype(np.float64)
    m = rng.random((n, miss_cols)) < rate
    x[:, :miss_cols][m] = np.nan
    return x, y


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    rng = np.random.default_rng(20250604)
    xtr, ytr = draw(rng, n)
    xte, _ = draw(rng, 1000)
    params = dict(objective="binary:logistic", tree_method="exact", eta=0.3,
                  max_depth=6, nthread=1, base_score=0.5)
    wall, cpu = [], []
    for _ in range(reps):
        t0, c0 = time.perf_counter(), time.process_time()
        dtr = xgb.DMatrix(xtr, label=ytr, nthread=1)
        bst = xgb.train(params, dtr, num_boost_round=500)
        bst.predict(xgb.DMatrix(xte, nthread=1))
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    print("xgboost %s exact nthread=1 binary:logistic n=%d fit+predict 500 rounds, %d runs: "
          "wall median %.3f s (min %.3f, max %.3f), cpu median %.3f s (min %.3f)"
          % (xgb.__version__, n, reps, statistics.median(wall), min(wall), max(wall),
             statistics.median(cpu), min(cpu)))


if __name__ == "__main__":
    main()
