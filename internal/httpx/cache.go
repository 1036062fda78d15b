package httpx

import (
	"bytes"
	"container/list"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// maxCachedBody bounds one cached page; larger pages pass through uncached.
const maxCachedBody = 8 << 20

// HeaderFromCache is set on a response served from the ETag cache (the
// header go-github already treats as "rate-limit headers are stale").
const HeaderFromCache = "X-From-Cache"

type cachedPage struct {
	key    string
	etag   string
	header http.Header
	body   []byte
}

// response rebuilds the cached 200 for req. Rate-limit headers come from the
// fresh 304 so callers see the current budget.
func (c *cachedPage) response(req *http.Request, fresh http.Header) *http.Response {
	h := c.header.Clone()
	for k, v := range fresh {
		if strings.HasPrefix(http.CanonicalHeaderKey(k), "X-Ratelimit-") {
			h[k] = append([]string(nil), v...)
		}
	}
	h.Set(HeaderFromCache, "1")
	h.Set("Content-Length", strconv.Itoa(len(c.body)))
	return &http.Response{
		Status:        "200 OK",
		StatusCode:    http.StatusOK,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader(c.body)),
		ContentLength: int64(len(c.body)),
		Request:       req,
	}
}

// cacheableHeader is what of a response's headers a cached page keeps:
// everything but cookies, which belong to one exchange and must never be
// stored or replayed.
func cacheableHeader(h http.Header) http.Header {
	out := h.Clone()
	out.Del("Set-Cookie")
	return out
}

// etagCache is a bounded least-recently-used map of cached pages.
type etagCache struct {
	mu    sync.Mutex
	max   int
	order *list.List
	items map[string]*list.Element
}

func newETagCache(max int) *etagCache {
	return &etagCache{max: max, order: list.New(), items: map[string]*list.Element{}}
}

func cacheKey(req *http.Request) string {
	return req.URL.String() + "\x00" + req.Header.Get("Accept")
}

func (c *etagCache) get(key string) (*cachedPage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*cachedPage), true
}

// store reads resp's body, caches it under key, and returns an equivalent
// response whose body can still be read.
func (c *etagCache) store(key string, resp *http.Response) (*http.Response, error) {
	data, cacheable, err := readCacheable(resp)
	if err != nil {
		return nil, err
	}
	if !cacheable {
		return resp, nil
	}
	page := &cachedPage{key: key, etag: resp.Header.Get("ETag"), header: cacheableHeader(resp.Header), body: data}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		el.Value = page
		c.order.MoveToFront(el)
		return resp, nil
	}
	c.items[key] = c.order.PushFront(page)
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*cachedPage).key)
	}
	return resp, nil
}

// readCacheable reads resp's body for the cache and puts back an
// equivalent one that can still be read. A body larger than maxCachedBody
// is not cacheable: what was read is put back in front of the rest.
func readCacheable(resp *http.Response) (data []byte, cacheable bool, err error) {
	data, err = io.ReadAll(io.LimitReader(resp.Body, maxCachedBody+1))
	if err != nil {
		_ = resp.Body.Close()
		return nil, false, fmt.Errorf("read response body: %w", err)
	}
	if len(data) > maxCachedBody {
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(data), resp.Body), resp.Body}
		return nil, false, nil
	}
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(data))
	return data, true, nil
}
