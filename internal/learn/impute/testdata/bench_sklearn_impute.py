#!/usr/bin/python3
"""Reference timing for BenchmarkIterative and BenchmarkKNNImpute:
scikit-learn's IterativeImputer() or KNNImputer(), fit on the matrix the
benchmark writes, then transform of the same matrix (misslab's Fit +
Transform). Reports CPU time (user + system, all threads: BLAS may use
several) per fit + transform, median and minimum over the repetitions,
in milliseconds:
    /usr/bin/python3 bench_sklearn_impute.py <iterative|knn> <x.csv> [reps]
x.csv has one row per line, "NA" for missing, no header.
"""
import sys
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.experimental import enable_iterative_imputer  # noqa: F401
from sklearn.impute import IterativeImputer, KNNImputer


def main():
    which, path = sys.argv[1], sys.argv[2]
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    x = np.genfromtxt(path, delimiter=",", missing_values="NA", filling_values=np.nan)
    make = {"iterative": IterativeImputer, "knn": KNNImputer}[which]
    warnings.simplefilter("ignore", ConvergenceWarning)
    times = []
    for _ in range(reps):
        start = time.process_time()
        make().fit(x).transform(x)
        times.append(time.process_time() - start)
    print("n=%d d=%d : %s() fit + transform: median %.3f ms, min %.3f ms"
          % (x.shape[0], x.shape[1], make.__name__, 1000 * np.median(times), 1000 * min(times)))


if __name__ == "__main__":
    main()
