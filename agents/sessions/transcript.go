package sessions

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"
)

// capped is a session's output file held to at most max bytes: when a
// write would pass max, the file is rewritten with its newest half (from a
// line start), so the tail is what remains. Dropped counts the bytes cut
// from its head; the stream's byte n is the file's byte n-Dropped.
type capped struct {
	mu      sync.Mutex
	path    string
	max     int64
	f       *os.File
	size    int64
	dropped int64
}

// openCapped opens path for appending, held to max bytes.
func openCapped(path string, max int64) (*capped, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return &capped{path: path, max: max, f: f, size: fi.Size()}, nil
}

// Write appends p, cutting the file's head first when p would pass max.
func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	if int64(len(p)) > c.max/2 {
		// One write larger than what is kept: only its tail can stay.
		cut := int64(len(p)) - c.max/2
		c.dropped += cut
		p = p[cut:]
	}
	if c.size+int64(len(p)) > c.max {
		if err := c.compact(); err != nil {
			return 0, err
		}
	}
	w, err := c.f.Write(p)
	c.size += int64(w)
	if err != nil {
		return 0, err
	}
	return n, nil
}

// compact keeps the file's newest half, from the first line start in it.
func (c *capped) compact() error {
	keep := c.max / 2
	if keep > c.size {
		keep = c.size
	}
	tail := make([]byte, keep)
	r, err := os.Open(c.path)
	if err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	_, err = r.ReadAt(tail, c.size-keep)
	_ = r.Close()
	if err != nil && err != io.EOF {
		return fmt.Errorf("transcript: %w", err)
	}
	if i := bytes.IndexByte(tail, '\n'); i >= 0 && i+1 < len(tail) {
		tail = tail[i+1:]
	}
	tmp := c.path + ".cut"
	if err := os.WriteFile(tmp, tail, 0o600); err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	if err := os.Rename(tmp, c.path); err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	f, err := os.OpenFile(c.path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	_ = c.f.Close()
	c.f = f
	c.dropped += c.size - int64(len(tail))
	c.size = int64(len(tail))
	return nil
}

// Dropped is how many bytes were cut from the head so far.
func (c *capped) Dropped() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dropped
}

// readFrom feeds fn the stream from byte off on (as far as the file still
// holds it) and returns the offset after what it read and the bytes lost
// to cutting before off could be read.
func (c *capped) readFrom(off int64, fn func([]byte)) (next, lost int64, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if off < c.dropped {
		lost, off = c.dropped-off, c.dropped
	}
	if off-c.dropped >= c.size {
		return off, lost, nil
	}
	r, err := os.Open(c.path)
	if err != nil {
		return off, lost, err
	}
	defer r.Close()
	buf := make([]byte, min(readChunk, c.size-(off-c.dropped)))
	for off-c.dropped < c.size {
		n, err := r.ReadAt(buf[:min(int64(len(buf)), c.size-(off-c.dropped))], off-c.dropped)
		if n > 0 {
			fn(buf[:n])
			off += int64(n)
		}
		if err == io.EOF || n == 0 {
			break
		}
		if err != nil {
			return off, lost, err
		}
	}
	return off, lost, nil
}

// Close closes the file.
func (c *capped) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.f.Close()
}
