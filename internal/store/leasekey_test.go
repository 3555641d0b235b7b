package store

import (
	"bytes"
	"testing"
)

// TestLeaseKeyIsStableAndPrivate: the key is made once per store and
// survives a reopen (a restarted coordinator must verify the proofs of
// its previous life), and two stores never share one.
func TestLeaseKeyIsStableAndPrivate(t *testing.T) {
	s, dir := openTest(t, Options{})
	k1, err := s.LeaseKey()
	must(t, err)
	again, err := s.LeaseKey()
	must(t, err)
	if len(k1) != leaseKeyLen || !bytes.Equal(k1, again) || bytes.Equal(k1, make([]byte, leaseKeyLen)) {
		t.Fatalf("key %x, then %x", k1, again)
	}
	must(t, s.Close())
	s2, err := Open(dir, Options{})
	must(t, err)
	defer s2.Close()
	k2, err := s2.LeaseKey()
	must(t, err)
	if !bytes.Equal(k1, k2) {
		t.Fatal("the lease key changed across a reopen")
	}
	other, _ := openTest(t, Options{})
	k3, err := other.LeaseKey()
	must(t, err)
	if bytes.Equal(k1, k3) {
		t.Fatal("two stores have the same lease key")
	}
}
