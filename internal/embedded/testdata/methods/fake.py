#!/usr/bin/env python3
"""A misslab external method for tests, in the Python standard library only
(no numpy): protocol 1 spoken by hand, so that it runs on any python3.

Its behaviour is the environment variable FAKE (set by the methods file's
`env`):
  mean      learner: predicts the training mean of y (a real, if poor, method);
            on a classification request (op fit_predict_proba), the
            training classes' frequencies for every test row
  badsum    as mean, but the probabilities of the first test row sum to 0.9
  fill      imputer: fills NA with the column's training mean
  garbage   prints a line that is not JSON instead of a reply
  sleep     never replies (sleeps past any timeout), after a note on stderr
  crashonce exits mid-call unless the file $FAKE_MARKER exists; creates it
            first, so the retry on a restarted process succeeds
  pidfile   as mean, and writes its pid to $FAKE_PIDFILE, then waits for the
            file $FAKE_GO before replying (so a test can kill it mid-fit)
"""
import array
import json
import os
import sys
import time


def read(path, n):
    a = array.array("d")
    with open(path, "rb") as f:
        a.frombytes(f.read())
    if sys.byteorder != "little":
        a.byteswap()
    if len(a) != n:
        raise ValueError("%s: %d values, want %d" % (path, len(a), n))
    return a


def write(path, values):
    a = array.array("d", values)
    if sys.byteorder != "little":
        a.byteswap()
    with open(path, "wb") as f:
        f.write(a.tobytes())


def mean_learner(req):
    tr = req["train"]
    y = read(tr["y"], tr["rows"])
    m = sum(y) / len(y)
    write(req["out"]["pred"], [m] * req["test"]["rows"])


def prior_classifier(req, spoil):
    tr, k, m = req["train"], req["classes"], req["test"]["rows"]
    y = read(tr["y"], tr["rows"])
    freq = [sum(1 for v in y if v == j) / len(y) for j in range(k)]
    p = [freq[j] for j in range(k) for _ in range(m)]  # column-major
    if spoil:
        for j in range(k):
            p[j * m] *= 0.9
    write(req["out"]["proba"], p)


def fill_imputer(req):
    tr, te = req["train"], req["test"]
    n, d = tr["rows"], tr["cols"]
    x = read(tr["x"], n * d)
    xt = read(te["x"], te["rows"] * d)
    for j in range(d):
        col = [v for v in x[j * n:(j + 1) * n] if v == v]
        m = sum(col) / len(col) if col else 0.0
        for a, rows in ((x, n), (xt, te["rows"])):
            for i in range(j * rows, (j + 1) * rows):
                if a[i] != a[i]:
                    a[i] = m
    write(req["out"]["train"], x)
    write(req["out"]["test"], xt)


def main():
    mode = os.environ.get("FAKE", "mean")
    out = sys.stdout
    out.write(json.dumps({"ready": True, "protocol": 1}) + "\n")
    out.flush()
    for line in sys.stdin:
        req = json.loads(line)
        print("fake %s: request %d" % (mode, req["id"]), file=sys.stderr, flush=True)
        if mode == "garbage":
            out.write("this is not json\n")
            out.flush()
            continue
        if mode == "sleep":
            print("fake sleep: sleeping past the timeout", file=sys.stderr, flush=True)
            time.sleep(3600)
        if mode == "crashonce":
            marker = os.environ["FAKE_MARKER"]
            if not os.path.exists(marker):
                open(marker, "w").close()
                print("fake crashonce: dying mid-fit", file=sys.stderr, flush=True)
                os._exit(3)
        if mode == "pidfile":
            with open(os.environ["FAKE_PIDFILE"], "w") as f:
                f.write(str(os.getpid()))
            while not os.path.exists(os.environ["FAKE_GO"]):
                time.sleep(0.01)
        t0 = time.perf_counter()
        if req["op"] == "impute":
            fill_imputer(req)
        elif req["op"] == "fit_predict_proba":
            prior_classifier(req, mode == "badsum")
        else:
            mean_learner(req)
        out.write(json.dumps({"id": req["id"], "ok": True, "fit_seconds": time.perf_counter() - t0}) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
