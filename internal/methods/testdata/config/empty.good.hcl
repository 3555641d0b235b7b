# A worker may offer no method.
