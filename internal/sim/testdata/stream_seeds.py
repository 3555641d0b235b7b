#!/usr/bin/python3
"""Independent reference for sim.Stream's seed derivation (stream.go).

Prints, for a few inputs, the two PCG seeds: the first 16 bytes of
SHA-256 over le64(len(domain)) domain le64(seed) le64(len(scenario))
scenario le64(rep as two's complement) le64(len(purpose)) purpose, read
as two little-endian uint64. Output is committed as stream_seeds.golden.
"""
import hashlib
import struct

DOMAIN = b"misslab/sim/stream/v1"


def seeds(seed, scenario, rep, purpose):
    def s(b):
        return struct.pack("<Q", len(b)) + b
    enc = s(DOMAIN) + struct.pack("<Q", seed) + s(scenario.encode()) \
        + struct.pack("<q", rep) + s(purpose.encode())
    h = hashlib.sha256(enc).digest()
    return struct.unpack("<QQ", h[:16])


CASES = [
    (0, "", 0, ""),
    (1, "model=quadratic;d=9;rho=0.5;noise=0.1;n_train=1000;n_test=1000;"
        "mechanism=mcar;rate=0.2;columns=0,1,2;eta=0", 0, "train"),
    (18446744073709551615, "ab", -1, "c"),
    (18446744073709551615, "a", -1, "bc"),
    (42, "scenario", 7, "test"),
]

for c in CASES:
    a, b = seeds(*c)
    print(f"{c[0]}\t{c[1]}\t{c[2]}\t{c[3]}\t{a}\t{b}")
