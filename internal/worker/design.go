package worker

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/misslab/misslab/internal/sim"
	"github.com/misslab/misslab/internal/table"
)

// maxDesigns bounds the tables a worker keeps read at once; a worker
// serves one or two sweeps at a time, so this is rarely reached.
const maxDesigns = 4

// designCache holds tables read as design matrices, by their identity
// (hash, format, NA strings, target, drop, categorical), so that the jobs
// of a sweep read the table once. Concurrent readers of the same table
// wait for the first.
type designCache struct {
	mu    sync.Mutex
	items map[string]*designItem
	order []string // oldest first
}

type designItem struct {
	once sync.Once
	d    *table.Design
	err  error
}

func newDesignCache() *designCache { return &designCache{items: map[string]*designItem{}} }

// design returns the design matrix of ref's table; classify: its target
// is a class label (the scenario's task is a classification).
func (e Experiment) design(ctx context.Context, ref *sim.TableRef, classify bool) (*table.Design, error) {
	if e.Tables == nil {
		return nil, fmt.Errorf("table %s (%s): this worker has no table store", ref.Name, ref.SHA256)
	}
	path, ok := e.Tables.Path(ref.SHA256)
	if !ok {
		return nil, fmt.Errorf("table %s (%s) is not in this worker's table store", ref.Name, ref.SHA256)
	}
	read := func() (*table.Design, error) { return readDesign(ctx, path, ref, classify) }
	if e.designs == nil {
		return read()
	}
	return e.designs.get(designKey(ref, classify), read)
}

// get returns the cached design under key, reading it once. A failed
// read is not kept, so a later job retries.
func (c *designCache) get(key string, read func() (*table.Design, error)) (*table.Design, error) {
	c.mu.Lock()
	it := c.items[key]
	if it == nil {
		it = &designItem{}
		c.items[key] = it
		c.order = append(c.order, key)
		if len(c.order) > maxDesigns {
			delete(c.items, c.order[0])
			c.order = c.order[1:]
		}
	}
	c.mu.Unlock()
	it.once.Do(func() { it.d, it.err = read() })
	if it.err != nil {
		c.mu.Lock()
		if c.items[key] == it {
			delete(c.items, key)
		}
		c.mu.Unlock()
	}
	return it.d, it.err
}

// readDesign reads a table file as ref says and builds its design.
func readDesign(ctx context.Context, path string, ref *sim.TableRef, classify bool) (*table.Design, error) {
	categorical, spec := table.ReadSpec(ref.Target, ref.Drop, ref.Categorical, classify)
	t, err := table.ReadFile(ctx, path, table.Options{Format: table.Format(ref.Format), NA: ref.NA,
		Drop: ref.Drop, Categorical: categorical})
	if err != nil {
		return nil, fmt.Errorf("reading table %s: %w", ref.Name, err)
	}
	if t.SHA256 != ref.SHA256 {
		return nil, fmt.Errorf("table %s: local copy hashes to %s, want %s", ref.Name, t.SHA256, ref.SHA256)
	}
	d, err := t.Design(spec)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", ref.Name, err)
	}
	if !slices.Equal(d.Features, ref.Features) {
		return nil, fmt.Errorf("table %s: feature columns %v, the sweep expects %v", ref.Name, d.Features, ref.Features)
	}
	return d, nil
}

// designKey identifies what readDesign builds from a reference.
func designKey(ref *sim.TableRef, classify bool) string {
	q := func(v []string) string {
		out := make([]string, len(v))
		for i, s := range v {
			out[i] = strconv.Quote(s)
		}
		return strings.Join(out, ",")
	}
	return ref.SHA256 + ";" + ref.Format + ";" + strconv.Quote(ref.Target) + ";" + q(ref.Drop) + ";" + q(ref.Categorical) + ";" + q(ref.NA) +
		";classify=" + strconv.FormatBool(classify)
}
