package runtime

import "sync"

// EvalCache memoises file reads and values derived from them for one
// read-only evaluation (a `check` of one work item): there, nothing writes,
// so every node may share what an earlier node already read. A walk that can
// write never gets one.
type EvalCache struct {
	mu      sync.Mutex
	memo    map[string]memoEntry
	closers []func()
}

type memoEntry struct {
	val any
	err error
}

// NewEvalCache returns an empty cache.
func NewEvalCache() *EvalCache { return &EvalCache{memo: map[string]memoEntry{}} }

// Do returns the value stored under key, computing it with fn once. A nil
// cache always calls fn.
func (c *EvalCache) Do(key string, fn func() (any, error)) (any, error) {
	if c == nil {
		return fn()
	}
	c.mu.Lock()
	if e, ok := c.memo[key]; ok {
		c.mu.Unlock()
		return e.val, e.err
	}
	c.mu.Unlock()
	v, err := fn()
	c.mu.Lock()
	c.memo[key] = memoEntry{val: v, err: err}
	c.mu.Unlock()
	return v, err
}

// OnClose registers fn to run when the evaluation ends (a nil cache runs
// nothing and the caller keeps ownership).
func (c *EvalCache) OnClose(fn func()) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	c.closers = append(c.closers, fn)
	c.mu.Unlock()
	return true
}

// Close releases what the evaluation kept open.
func (c *EvalCache) Close() {
	if c == nil {
		return
	}
	c.mu.Lock()
	fns := c.closers
	c.closers = nil
	c.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}
