# The methods file of the compose methods test (deploy/compose/methods_test.go):
# the test adds it and the stdlib-only fake method
# (internal/embedded/testdata/methods/fake.py) to /methods of the Python
# image, beside the shipped adapters, and runs worker-py with
# --methods=/methods/test.hcl. The host's reference run loads the same
# file from a copy of examples/methods (Debian's /usr/bin/python3 has
# scikit-learn on both), so hgb and sk_iterative have the same identities
# as the image's own /methods/methods.hcl gives them.

method "hgb" {
  kind            = "learner"
  command         = ["/usr/bin/python3", "sklearn_hgb.py"]
  files           = ["sklearn_hgb.py", "misslab_method.py"]
  version         = "sklearn-1.2"
  accepts_missing = true
  timeout         = "10m"
}

method "sk_iterative" {
  kind    = "imputer"
  command = ["/usr/bin/python3", "sklearn_iterative.py"]
  files   = ["sklearn_iterative.py", "misslab_method.py"]
  version = "sklearn-1.2"
  timeout = "10m"
}

# Faults (fake.py's behaviour is its env FAKE). The extra argument names
# the process in `docker top`; fake.py ignores it.
method "junk" { # prints a line that is not JSON instead of a reply
  kind            = "learner"
  command         = ["/usr/bin/python3", "fake.py", "junk"]
  files           = ["fake.py"]
  accepts_missing = true
  env             = { FAKE = "garbage" }
}

method "slow" { # sleeps past its timeout
  kind            = "learner"
  command         = ["/usr/bin/python3", "fake.py", "slow"]
  files           = ["fake.py"]
  accepts_missing = true
  timeout         = "3s"
  env             = { FAKE = "sleep" }
}

method "flaky" { # exits mid-call the first time in the container's life
  kind            = "learner"
  command         = ["/usr/bin/python3", "fake.py", "flaky"]
  files           = ["fake.py"]
  accepts_missing = true
  env             = { FAKE = "crashonce", FAKE_MARKER = "/tmp/flaky.crashed" }
}

method "victim" { # writes its pid, then waits for /tmp/victim.go (the test kills it first)
  kind            = "learner"
  command         = ["/usr/bin/python3", "fake.py", "victim"]
  files           = ["fake.py"]
  accepts_missing = true
  timeout         = "2m"
  env             = { FAKE = "pidfile", FAKE_PIDFILE = "/tmp/victim.pid", FAKE_GO = "/tmp/victim.go" }
}

method "gate" { # predicts the mean once /tmp/gate.go exists (the test holds a sweep with it)
  kind            = "learner"
  command         = ["/usr/bin/python3", "fake.py", "gate"]
  files           = ["fake.py"]
  accepts_missing = true
  timeout         = "5m"
  env             = { FAKE = "pidfile", FAKE_PIDFILE = "/tmp/gate.pid", FAKE_GO = "/tmp/gate.go" }
}
