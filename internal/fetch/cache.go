package fetch

import (
	"container/list"
	"sync"
	"time"
)

// cache keeps recently fetched images, bounded by their total size and
// evicting the least recently used. A nil *cache keeps nothing.
type cache struct {
	mu    sync.Mutex
	limit int64
	ttl   time.Duration
	used  int64
	order *list.List // of *entry, most recently used first
	items map[string]*list.Element
	now   func() time.Time // the clock of expiries (tests set their own)
}

type entry struct {
	key     string
	img     *Image
	expires time.Time
}

func (e *entry) size() int64 { return int64(len(e.key) + len(e.img.Data)) }

func newCache(limit int64, ttl time.Duration) *cache {
	if limit <= 0 {
		return nil
	}
	return &cache{limit: limit, ttl: ttl, order: list.New(), items: map[string]*list.Element{}, now: time.Now}
}

func (c *cache) get(key string) (*Image, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return nil, false
	}
	e := el.Value.(*entry)
	if c.now().After(e.expires) {
		c.remove(el)
		return nil, false
	}
	c.order.MoveToFront(el)
	return e.img, true
}

// put caches img unless it alone is over the limit: it would evict
// everything to be evicted in turn.
func (c *cache) put(key string, img *Image) {
	if c == nil {
		return
	}
	e := &entry{key: key, img: img, expires: c.now().Add(c.ttl)}
	if e.size() > c.limit {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.remove(el)
	}
	for c.used+e.size() > c.limit {
		c.remove(c.order.Back())
	}
	c.items[key] = c.order.PushFront(e)
	c.used += e.size()
}

func (c *cache) remove(el *list.Element) {
	e := c.order.Remove(el).(*entry)
	delete(c.items, e.key)
	c.used -= e.size()
}
