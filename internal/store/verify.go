package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// This file checks the B+tree structure of a bbolt file by reading it
// directly, before bbolt walks it. bbolt trusts its pages: a damaged page
// header or element makes it panic, and when it rebuilds its free list at
// open (the store runs with NoFreelistSync) that walk happens on a
// goroutine of its own, where no recover can catch the panic and the
// whole process dies; and a cycle of pages sends its cursors into an
// endless descent, even on a read-only file. So every open of an existing
// file (Open, OpenReadOnly, Check) first runs walkFile once, under
// bbolt's read-only lock (openChecked), which reads pages with ReadAt,
// validates every offset before using it and reports problems as text;
// bbolt only sees a file whose reachable pages are sound.
//
// The layout below is bbolt's file format version 2 (native byte order):
//
//	page header (16)    id u64 | flags u16 | count u16 | overflow u32
//	meta (at 16)        magic u32 | version u32 | page size u32 | flags u32 |
//	                    root u64 | sequence u64 | freelist u64 | pgid u64 |
//	                    txid u64 | checksum u64 (FNV-64a of the 56 bytes before)
//	branch element (16) pos u32 | ksize u32 | pgid u64   (key at element+pos)
//	leaf element (16)   flags u32 | pos u32 | ksize u32 | vsize u32
//	                    (key at element+pos, value right after it)
//	bucket value        root u64 | sequence u64, then, when root is 0, an
//	                    inline leaf page holding the bucket's keys
const (
	boltMagic      = 0xED0CDAED
	boltVersion    = 2
	pageHeaderSize = 16
	elementSize    = 16
	bucketHdrSize  = 16
	metaSumLen     = 56
	noFreelist     = ^uint64(0)

	flagBranch   = 0x01
	flagLeaf     = 0x02
	flagMeta     = 0x04
	flagFreelist = 0x10
	flagBucket   = 0x01 // on a leaf element: the value is a bucket

	maxTreeDepth = 64   // far beyond any real tree; stops runaway recursion
	maxProblems  = 1000 // problems kept in a report; more are only counted
	minPageSize  = 512  // bbolt's smallest page size is 1 KiB
)

var native = binary.NativeEndian

// boltMeta is one decoded meta page.
type boltMeta struct {
	pageSize       uint32
	root, freelist uint64
	pgid, txid     uint64
	err            string // why the page is invalid, or ""
}

// fileWalk is one walk of a file; what it finds goes into its Report
// (size, page size, high-water mark, transaction, pages reached and
// problems).
type fileWalk struct {
	*Report
	seen []uint64 // bitmap of the pages reached
	f    io.ReaderAt
	recs recordWalk // the records met, checked once the walk is over (walkrecords.go)
}

// walkFile checks the bbolt file at r.Path, whose page size bbolt found
// when it opened it (pageSize), and fills r with what it saw. An error
// means the file could not be read at all.
func walkFile(r *Report, pageSize int) error {
	f, err := os.Open(r.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	r.Size, r.PageSize = fi.Size(), pageSize
	w := &fileWalk{Report: r, f: f}
	if pageSize < minPageSize || int64(2*pageSize) > w.Size {
		w.problem("file of %d bytes is too short for two meta pages of %d bytes", w.Size, pageSize)
		return nil
	}
	m, ok := w.chooseMeta()
	if !ok {
		return nil
	}
	w.Pages, w.TxID = m.pgid, m.txid
	w.seen = make([]uint64, (m.pgid+63)/64)
	w.mark(0, 0)
	w.mark(1, 0)
	if m.freelist != noFreelist {
		w.freelistPage(m.freelist)
	}
	w.tree(m.root, nil, nil, nil, 0)
	w.checkRecords()
	return nil
}

// chooseMeta decodes both meta pages and returns the one bbolt uses (the
// valid one with the higher transaction id). Any invalid meta page is a
// problem even though bbolt would fall back to the other one: that may
// silently drop the last commit, and a healthy file never has one.
func (w *fileWalk) chooseMeta() (boltMeta, bool) {
	var metas [2]boltMeta
	for i := range metas {
		metas[i] = w.readMeta(uint64(i))
		if metas[i].err != "" {
			w.problem("meta page %d: %s", i, metas[i].err)
		}
	}
	m := metas[0]
	if metas[0].err != "" || (metas[1].err == "" && metas[1].txid > metas[0].txid) {
		m = metas[1]
	}
	if m.err != "" {
		return m, false
	}
	switch {
	case int(m.pageSize) != w.PageSize:
		w.problem("meta page: page size %d, but bbolt opened the file with %d", m.pageSize, w.PageSize)
	case m.pgid < 3 || m.pgid > uint64(w.Size)/uint64(w.PageSize):
		w.problem("meta page: high-water mark of %d pages, but the file holds %d (truncated?)", m.pgid, w.Size/int64(w.PageSize))
	case m.root < 2 || m.root >= m.pgid:
		w.problem("meta page: root page %d outside [2, %d)", m.root, m.pgid)
	case m.freelist != noFreelist && (m.freelist < 2 || m.freelist >= m.pgid):
		w.problem("meta page: free-list page %d outside [2, %d)", m.freelist, m.pgid)
	default:
		return m, true
	}
	return m, false
}

func (w *fileWalk) readMeta(id uint64) boltMeta {
	b := make([]byte, pageHeaderSize+metaSumLen+8)
	if _, err := w.f.ReadAt(b, int64(id)*int64(w.PageSize)); err != nil {
		return boltMeta{err: "unreadable: " + err.Error()}
	}
	m, body := boltMeta{}, b[pageHeaderSize:]
	sum := fnv.New64a()
	sum.Write(body[:metaSumLen])
	switch {
	case native.Uint16(b[8:]) != flagMeta:
		m.err = fmt.Sprintf("flags %#x, not a meta page", native.Uint16(b[8:]))
	case native.Uint32(body) != boltMagic:
		m.err = "bad magic number (not a bbolt file, or overwritten)"
	case native.Uint32(body[4:]) != boltVersion:
		m.err = fmt.Sprintf("bbolt format version %d, want %d", native.Uint32(body[4:]), boltVersion)
	case native.Uint64(body[56:]) != sum.Sum64():
		m.err = "checksum mismatch"
	}
	m.pageSize = native.Uint32(body[8:])
	m.root, m.freelist = native.Uint64(body[16:]), native.Uint64(body[32:])
	m.pgid, m.txid = native.Uint64(body[40:]), native.Uint64(body[48:])
	return m
}

// mark records pages id..id+overflow as reached; false if one already was.
func (w *fileWalk) mark(id uint64, overflow uint32) bool {
	fresh := true
	for p := id; p <= id+uint64(overflow); p++ {
		if w.seen[p/64]&(1<<(p%64)) != 0 {
			fresh = false
		}
		w.seen[p/64] |= 1 << (p % 64)
		w.Reached++
	}
	return fresh
}

// page reads page id with its overflow pages after checking its header
// (want: the page types allowed); nil after reporting a problem.
func (w *fileWalk) page(id uint64, want uint16) []byte {
	if id < 2 || id >= w.Pages {
		w.problem("page %d: referenced, but outside [2, %d)", id, w.Pages)
		return nil
	}
	buf := make([]byte, w.PageSize)
	if _, err := w.f.ReadAt(buf, int64(id)*int64(w.PageSize)); err != nil {
		w.problem("page %d: unreadable: %v", id, err)
		return nil
	}
	gotID, flags, overflow := native.Uint64(buf), native.Uint16(buf[8:]), native.Uint32(buf[12:])
	switch {
	case gotID != id:
		w.problem("page %d: header says page %d (overwritten)", id, gotID)
		return nil
	case flags&want == 0 || flags&(flags-1) != 0:
		w.problem("page %d: flags %#x, want a %s page", id, flags, pageKind(want))
		return nil
	case id+uint64(overflow) >= w.Pages:
		w.problem("page %d: %d overflow pages run past the high-water mark %d", id, overflow, w.Pages)
		return nil
	case !w.mark(id, overflow):
		w.problem("page %d: referenced twice", id)
		return nil
	}
	if overflow > 0 {
		buf = append(buf, make([]byte, int(overflow)*w.PageSize)...)
		if _, err := w.f.ReadAt(buf[w.PageSize:], int64(id+1)*int64(w.PageSize)); err != nil {
			w.problem("page %d: overflow unreadable: %v", id, err)
			return nil
		}
	}
	return buf
}

func pageKind(flags uint16) string {
	switch flags {
	case flagFreelist:
		return "free-list"
	case flagLeaf:
		return "leaf"
	}
	return "branch or leaf"
}

// freelistPage checks a synced free list (stores never sync theirs, but a
// file last written by another bbolt program may have one).
func (w *fileWalk) freelistPage(id uint64) {
	p := w.page(id, flagFreelist)
	if p == nil {
		return
	}
	n, ids := uint64(native.Uint16(p[10:])), p[pageHeaderSize:]
	if n == 0xFFFF && len(ids) >= 8 {
		n, ids = native.Uint64(ids), ids[8:]
	}
	if n > uint64(len(ids)/8) {
		w.problem("free-list page %d: %d entries do not fit in %d bytes", id, n, len(ids))
		return
	}
	for i := range n {
		if free := native.Uint64(ids[8*i:]); free < 2 || free >= w.Pages {
			w.problem("free-list page %d: free page %d outside [2, %d)", id, free, w.Pages)
			return
		}
	}
}

// tree checks the subtree rooted at page id, whose keys must lie in
// [lo, hi) (nil: unbounded), and the buckets stored in it; bucket names
// the top-level bucket it belongs to (nil: the root, which holds only
// buckets).
func (w *fileWalk) tree(id uint64, bucket, lo, hi []byte, depth int) {
	if depth > maxTreeDepth {
		w.problem("page %d: tree deeper than %d levels (a cycle?)", id, maxTreeDepth)
		return
	}
	p := w.page(id, flagBranch|flagLeaf)
	if p == nil {
		return
	}
	w.nodes(id, bucket, p, lo, hi, depth)
}

// nodes checks the elements of one page (p holds its header, elements
// and data; for an inline bucket, p is the bucket value after its header).
func (w *fileWalk) nodes(id uint64, bucket, p []byte, lo, hi []byte, depth int) {
	branch, count := native.Uint16(p[8:]) == flagBranch, int(native.Uint16(p[10:]))
	if pageHeaderSize+count*elementSize > len(p) || (branch && count == 0) {
		w.problem("page %d: %d elements do not fit in %d bytes", id, count, len(p))
		return
	}
	keys := make([][]byte, count)
	for i := range count {
		at := pageHeaderSize + i*elementSize
		e := p[at : at+elementSize]
		pos, ksize, vsize := native.Uint32(e[4:]), native.Uint32(e[8:]), native.Uint32(e[12:])
		if branch {
			pos, ksize, vsize = native.Uint32(e), native.Uint32(e[4:]), 0
		}
		start := uint64(at) + uint64(pos)
		if end := start + uint64(ksize) + uint64(vsize); end > uint64(len(p)) {
			w.problem("page %d: element %d (%d+%d bytes at %d) runs past the page", id, i, ksize, vsize, start)
			return
		}
		k := p[start : start+uint64(ksize)]
		if (i == 0 && lo != nil && bytes.Compare(k, lo) < 0) || (i > 0 && bytes.Compare(k, keys[i-1]) <= 0) ||
			(hi != nil && bytes.Compare(k, hi) >= 0) {
			w.problem("page %d: key %d (%x) out of order", id, i, k)
			return
		}
		keys[i] = k
		if !branch {
			w.leaf(id, bucket, k, p[start+uint64(ksize):start+uint64(ksize)+uint64(vsize)], native.Uint32(e)&flagBucket != 0, depth)
		}
	}
	if !branch {
		return
	}
	for i := range count {
		next := hi
		if i+1 < count {
			next = keys[i+1]
		}
		w.tree(native.Uint64(p[pageHeaderSize+i*elementSize+8:]), bucket, keys[i], next, depth+1)
	}
}

// leaf checks one element of a leaf page: a top-level bucket in the root,
// a record in a bucket (nested buckets are damage: the store has none).
func (w *fileWalk) leaf(id uint64, bucket, k, v []byte, isBucket bool, depth int) {
	switch {
	case bucket == nil && isBucket:
		w.bucket(id, k, v, depth)
	case bucket == nil:
		w.problem("page %d: key %q in the root is not a bucket", id, k)
	case isBucket:
		w.problem("page %d: bucket %s holds a nested bucket %x, which the store never makes", id, bucket, k)
	default:
		w.record(bucket, k, v)
	}
}

// bucket checks the top-level bucket named k (a value on page id): its
// own tree, or its inline page.
func (w *fileWalk) bucket(id uint64, k, v []byte, depth int) {
	if len(v) < bucketHdrSize {
		w.problem("page %d: bucket %q: header of %d bytes", id, k, len(v))
		return
	}
	if root := native.Uint64(v); root != 0 {
		w.tree(root, k, nil, nil, depth+1)
		return
	}
	inline := v[bucketHdrSize:]
	if len(inline) < pageHeaderSize || native.Uint16(inline[8:]) != flagLeaf {
		w.problem("page %d: inline bucket %q is not a leaf page", id, k)
		return
	}
	w.nodes(id, k, inline, nil, nil, depth+1)
}
