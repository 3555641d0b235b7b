package sim

import "sync"

// onceCache computes a value at most once per key for the whole process.
// It is safe for concurrent use: concurrent callers asking for the same key
// wait for the single computation and all receive the same value.
type onceCache[V any] struct {
	m sync.Map // string -> *onceEntry[V]
}

type onceEntry[V any] struct {
	once sync.Once
	v    V
}

// get returns the cached value for key, calling compute the first time.
// compute must be a pure function of key for the cache to be sound.
func (c *onceCache[V]) get(key string, compute func() V) V {
	e, ok := c.m.Load(key)
	if !ok {
		e, _ = c.m.LoadOrStore(key, &onceEntry[V]{})
	}
	ent := e.(*onceEntry[V])
	ent.once.Do(func() { ent.v = compute() })
	return ent.v
}
