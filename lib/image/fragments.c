// SPDX-License-Identifier: MIT
/*
 * Reads of fragments, and the cache of decoded packed-inode extents that
 * images with fragments share between threads.
 *
 * An entry is one extent of the packed inode, keyed by where it starts.
 * The first reader to miss inserts it as pending and decodes it without
 * the lock; readers of the same extent meanwhile wait for it rather than
 * decoding it again. Readers hold a reference while they copy out, so the
 * lock is only held to find, pin and unpin entries. Entries that nobody
 * holds are evicted, least recently used first, to stay within the
 * budget, those with bytes readers have not copied out yet after all
 * others (files are handed out in the order of their fragments, so the
 * readers of those bytes are still to come); pinned ones may take it
 * over by what the readers in flight use.
 *
 * An extent that is corrupt or cannot be read stays in the table as
 * failed, with its error and without data, charged like a decoded one:
 * otherwise every file with a fragment in it would decode it again to
 * fail the same way. Only a decode that ran out of memory is forgotten.
 *
 * Read-ahead (erofs_frag_prefetch) inserts and decodes an extent before
 * any file asks for it, so that threads decode different extents at once
 * ahead of the readers; it never waits for nor repeats a decode that is
 * pending or done, and never evicts an extent not used up for it. A
 * bitmap that outlives eviction (one bit per lcluster of the packed
 * inode, where each extent starts in its own lcluster) marks the extents
 * decoded soundly and the corrupt ones a reader was told of: a checker of
 * the packed inode then need decode and report only the others.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "erofs/data.h"
#include "erofs/fragments.h"
#include "erofs/image.h"
#include "erofs/testing.h"
#include "image/image_internal.h"

#define FRAG_BUCKETS 1024

/*
 * Spans of an extent readers copied out, apart and in order: enough for
 * the few places where readers in walk order, not the fragments' order,
 * start into one extent (frag_note_read()).
 */
#define FRAG_SPANS 8

struct frag_span {
	uint64_t start, end;
};

struct frag_entry {
	uint64_t la;			/* extent of the packed inode */
	uint64_t llen;
	uint8_t *data;
	size_t mapped; /* charged: the mapping's length */
	unsigned int refs;		/* the table's own, plus readers' */
	bool ready;
	bool failed;
	bool corrupt; /* failed to decode: err says why, data is gone */
	unsigned int nspans;
	struct frag_span spans[FRAG_SPANS]; /* what readers copied out */
	struct erofs_err err; /* why it failed, if corrupt */
	struct frag_entry *hnext;	/* hash chain */
	struct frag_entry *prev, *next;	/* LRU, most recent first */
};

struct erofs_frag_cache {
	const struct erofs_inode *inode; /* whose extents: packed, metabox */
	bool may_defer; /* erofs_extent_read_nowait() applies (packed only) */
	pthread_mutex_t lock;
	pthread_cond_t decoded;		/* an entry became ready or failed */
	size_t budget;
	uint64_t *seen;			/* decoded extents, by lcluster */
	uint64_t seen_bits;		/* 0: no bitmap (encoded extents) */
	unsigned int lclusterbits;
	struct frag_entry *buckets[FRAG_BUCKETS];
	struct frag_entry lru;		/* list head */
	struct erofs_frag_stats st;
};

/*
 * Decoded extents are mapped, not malloc'ed: they are large, and threads
 * free what others allocated, so malloc's arenas would keep their memory
 * after eviction (at -j2 on 1 MiB pclusters, peak RSS stood up to 35 MiB
 * above the cache's budget and the threads' buffers).
 *
 * An extent evicted to make room for another hands its mapping on,
 * resized: a fresh mapping faults in every page of it, and unmapping one
 * interrupts every core the process runs on; on live media that was a
 * fault per 4 KiB decoded, 5% of the kernel's and the decoders' time at
 * -j2.
 */
static uint8_t *entry_data_alloc(uint64_t len)
{
	void *p = mmap(NULL, (size_t)len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void entry_data_free(struct frag_entry *e)
{
	if (e->data)
		munmap(e->data, e->mapped);
	e->data = NULL;
}

static void entry_free(struct frag_entry *e)
{
	entry_data_free(e);
	free(e);
}

/*
 * What making room for a new entry let go, handled once the lock is
 * dropped: a mapping call waits for the process's memory map, which the
 * other threads' page faults hold, and under the cache's lock it held up
 * every reader of the cache meanwhile.
 */
struct frag_room {
	uint8_t *spare; /* the first evicted mapping */
	size_t spare_len;
	struct frag_entry *dead; /* evicted entries, by hnext */
};

/* Without the lock: free the evicted entries; the spare resized to len. */
static uint8_t *frag_room_take(struct frag_room *room, uint64_t len)
{
	struct frag_entry *e, *next;
	void *p;

	for (e = room->dead; e; e = next) {
		next = e->hnext;
		entry_free(e);
	}
	if (room->spare && room->spare_len == len)
		return room->spare;
	if (room->spare) {
		p = mremap(room->spare, room->spare_len, (size_t)len,
			   MREMAP_MAYMOVE);
		if (p != MAP_FAILED)
			return p;
		munmap(room->spare, room->spare_len);
	}
	return entry_data_alloc(len);
}

static unsigned int frag_hash(uint64_t la)
{
	return (unsigned int)((la * 0x9e3779b97f4a7c15ULL) >> 54) %
	       FRAG_BUCKETS;
}

static bool frag_cache_useful(const struct erofs_image *img)
{
	return (img->feature_incompat & EROFS_FEATURE_INCOMPAT_FRAGMENTS) &&
	       img->has_packed && erofs_inode_is_compressed(&img->packed);
}

/*
 * Encoded extents may start anywhere, so only index layouts get
 * the bitmap of decoded extents.
 */
static int frag_seen_init(struct erofs_frag_cache *fc,
			  const struct erofs_inode *packed)
{
	uint64_t bits;

	if (packed->z.extents || packed->z.whole_fragment)
		return 0;
	fc->lclusterbits = packed->z.lclusterbits;
	bits = (packed->size >> fc->lclusterbits) + 1;
	if (bits / 64 + 1 > SIZE_MAX / sizeof(uint64_t))
		return -ENOMEM;
	fc->seen = calloc((size_t)(bits / 64 + 1), sizeof(uint64_t));
	if (!fc->seen)
		return -ENOMEM;
	fc->seen_bits = bits;
	return 0;
}

static void frag_cache_free(struct erofs_frag_cache *fc)
{
	struct frag_entry *e, *next;

	for (e = fc->lru.next; e != &fc->lru; e = next) {
		next = e->next;
		entry_free(e);
	}
	free(fc->seen);
	pthread_cond_destroy(&fc->decoded);
	pthread_mutex_destroy(&fc->lock);
	free(fc);
}

size_t erofs_frag_cache_budget(unsigned int threads)
{
	uint64_t want = EROFS_FRAG_CACHE_SHARED +
			(uint64_t)threads * EROFS_FRAG_CACHE_PER_THREAD;

	if (want > SIZE_MAX / 2)
		return SIZE_MAX / 2;
	return want > EROFS_FRAG_CACHE_BUDGET ? (size_t)want
					      : EROFS_FRAG_CACHE_BUDGET;
}

/* A cache of the decoded extents of inode, at most budget bytes. */
static int frag_cache_new(const struct erofs_inode *inode, size_t budget,
			  bool may_defer, struct erofs_frag_cache **out,
			  struct erofs_err *err)
{
	struct erofs_frag_cache *fc = calloc(1, sizeof(*fc));

	if (!fc)
		return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "out of memory for the fragment cache");
	if (pthread_mutex_init(&fc->lock, NULL)) {
		free(fc);
		return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "cannot set up the fragment cache lock");
	}
	if (pthread_cond_init(&fc->decoded, NULL)) {
		pthread_mutex_destroy(&fc->lock);
		free(fc);
		return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "cannot set up the fragment cache lock");
	}
	fc->inode = inode;
	fc->may_defer = may_defer;
	fc->budget = budget;
	fc->st.budget = budget;
	fc->lru.prev = fc->lru.next = &fc->lru;
	if (frag_seen_init(fc, inode)) {
		frag_cache_free(fc);
		return erofs_error(err, -ENOMEM, EROFS_NO_NID, EROFS_NO_OFFSET,
				   "out of memory for the fragment cache");
	}
	*out = fc;
	return 0;
}

int erofs_frag_cache_create(struct erofs_image *img, size_t budget,
			    struct erofs_err *err)
{
	erofs_frag_cache_destroy(img);
	if (!frag_cache_useful(img))
		return 0;
	return frag_cache_new(&img->packed, budget, true, &img->frag_cache,
			      err);
}

int erofs_meta_cache_create(struct erofs_image *img, struct erofs_err *err)
{
	if (!img->has_metabox || !erofs_inode_is_compressed(&img->metabox))
		return 0;
	return frag_cache_new(&img->metabox, EROFS_META_CACHE_BUDGET, false,
			      &img->meta_cache, err);
}

void erofs_meta_cache_destroy(struct erofs_image *img)
{
	if (!img->meta_cache)
		return;
	frag_cache_free(img->meta_cache);
	img->meta_cache = NULL;
}

void erofs_frag_cache_destroy(struct erofs_image *img)
{
	if (!img->frag_cache)
		return;
	frag_cache_free(img->frag_cache);
	img->frag_cache = NULL;
}

void erofs_frag_cache_stats(struct erofs_image *img,
			    struct erofs_frag_stats *st)
{
	struct erofs_frag_cache *fc = img->frag_cache;

	memset(st, 0, sizeof(*st));
	if (!fc)
		return;
	pthread_mutex_lock(&fc->lock);
	*st = fc->st;
	pthread_mutex_unlock(&fc->lock);
}

/* ---- under the lock ---- */

static struct frag_entry *frag_find(struct erofs_frag_cache *fc, uint64_t la)
{
	struct frag_entry *e;

	for (e = fc->buckets[frag_hash(la)]; e; e = e->hnext)
		if (e->la == la)
			return e;
	return NULL;
}

static void lru_unlink(struct frag_entry *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
}

static void lru_push(struct erofs_frag_cache *fc, struct frag_entry *e)
{
	e->next = fc->lru.next;
	e->prev = &fc->lru;
	fc->lru.next->prev = e;
	fc->lru.next = e;
}

/* Take e out of the table, dropping the table's reference. */
static void frag_unlink(struct erofs_frag_cache *fc, struct frag_entry *e)
{
	struct frag_entry **p = &fc->buckets[frag_hash(e->la)];

	while (*p != e)
		p = &(*p)->hnext;
	*p = e->hnext;
	lru_unlink(e);
	fc->st.bytes -= e->mapped;
	fc->st.entries--;
	e->refs--;
}

/* Take e out of the table; it is freed when its last reader lets go. */
static void frag_remove(struct erofs_frag_cache *fc, struct frag_entry *e)
{
	frag_unlink(fc, e);
	if (!e->refs)
		entry_free(e);
}

static void frag_put(struct erofs_frag_cache *fc, struct frag_entry *e)
{
	if (!--e->refs)
		entry_free(e);
}

/*
 * Have readers copied out all of e? Its end alone does not tell: on live
 * media, the walk reads usr/lib/x86_64-linux-gnu/gconv/, whose fragments
 * begin 1 MB into an extent, long before the files of its parent whose
 * fragments fill that first MB; an extent taken as used up by its end was
 * evicted and decoded again for them (1.6% of the packed inode again, by
 * --tar at -j2).
 */
static bool frag_used_up(const struct frag_entry *e)
{
	return e->nspans == 1 && !e->spans[0].start &&
	       e->spans[0].end >= e->llen;
}

/*
 * Readers copied out [start, end) of e: merge it with the spans it meets.
 * With no slot left for it apart, it joins the nearer span, and the gap
 * between them counts as copied out: at worst, the extent is evicted
 * before a reader of that gap comes, which then decodes it again.
 */
static void frag_note_read(struct frag_entry *e, uint64_t start, uint64_t end)
{
	struct frag_span *s = e->spans;
	unsigned int n = e->nspans, i = 0, j;

	while (i < n && s[i].end < start)
		i++;
	for (j = i; j < n && s[j].start <= end; j++) {
		if (s[j].start < start)
			start = s[j].start;
		if (s[j].end > end)
			end = s[j].end;
	}
	if (j == i && n == FRAG_SPANS) {
		if (i == n || (i && start - s[i - 1].end <= s[i].start - end))
			start = s[--i].start;
		else
			end = s[i].end;
		j = i + 1;
	}
	memmove(&s[i + 1], &s[j], (n - j) * sizeof(*s));
	s[i] = (struct frag_span){ .start = start, .end = end };
	e->nspans = n + 1 - (j - i);
}

/* Nobody holds e; it is used up, unless not_used_up evicts those too. */
static bool frag_evictable(const struct frag_entry *e, bool not_used_up)
{
	return e->refs <= 1 && (e->ready || e->failed) &&
	       (not_used_up || frag_used_up(e));
}

/*
 * Evict what nobody holds, least recently used first, extents not used up
 * too or not, until want more bytes fit in the budget, into room: the
 * first mapping evicted is to be the new extent's (frag_mapping_len())
 * instead of being unmapped.
 */
static void frag_evict_pass(struct erofs_frag_cache *fc, bool not_used_up,
			    uint64_t want, struct frag_room *room)
{
	struct frag_entry *e = fc->lru.prev, *prev;

	for (; e != &fc->lru && fc->st.bytes + want > fc->budget; e = prev) {
		prev = e->prev;
		if (!frag_evictable(e, not_used_up))
			continue;
		if (!room->spare && e->data) {
			room->spare = e->data;
			room->spare_len = e->mapped;
			e->data = NULL;
		}
		frag_unlink(fc, e);
		e->hnext = room->dead;
		room->dead = e;
		fc->st.evictions++;
	}
}

/*
 * Extents not used up go last: read ahead and not read yet, or read in
 * part, as the last piece of a long fragment reads the extent whose rest
 * the next file's fragment is; their readers are on the way. Readers
 * decoding on their own (the pieces of a long fragment) insert extents
 * after them that would push them out first.
 */
static void frag_evict(struct erofs_frag_cache *fc, uint64_t want,
		       struct frag_room *room)
{
	frag_evict_pass(fc, false, want, room);
	frag_evict_pass(fc, true, want, room);
}

/*
 * Is there room for want more bytes once the extents used up are
 * evicted? Read-ahead goes no further: ahead of its readers by more than
 * the budget holds, it would evict what it decoded for them before they
 * came, and they would decode it again (the walker queues files, and so
 * read-ahead, as far ahead of the workers as the pool's queue holds).
 */
static bool frag_room_ahead(const struct erofs_frag_cache *fc, uint64_t want)
{
	const struct frag_entry *e = fc->lru.prev;
	uint64_t bytes = fc->st.bytes;

	for (; e != &fc->lru && bytes + want > fc->budget; e = e->prev)
		if (frag_evictable(e, false))
			bytes -= e->mapped;
	return bytes + want <= fc->budget;
}

/*
 * The length to map for an extent of len bytes, once evictions made room
 * for it: the spare's, as it is, when it holds len, is at most twice as
 * long and fits the budget. Resizing it takes the process's memory map for
 * writing, against every other thread's page faults, and faults in the
 * pages it adds (bench/README.md, "Figures behind the code's constants").
 * The extent is charged the whole mapping, whose pages stay resident.
 */
static size_t frag_mapping_len(const struct erofs_frag_cache *fc,
			       const struct frag_room *room, uint64_t len)
{
	if (room->spare && room->spare_len >= len &&
	    room->spare_len / 2 <= len &&
	    fc->st.bytes + room->spare_len <= fc->budget)
		return room->spare_len;
	return (size_t)len;
}

/*
 * A new pending entry for map, owned by the caller, charged its mapping's
 * length but not mapped yet (frag_map_entry() maps it from room); NULL without
 * memory or for an empty extent.
 */
static struct frag_entry *frag_insert(struct erofs_frag_cache *fc,
				      const struct erofs_map *map,
				      struct frag_room *room)
{
	struct frag_entry *e;
	unsigned int h = frag_hash(map->la);

	if (!map->llen || !(e = calloc(1, sizeof(*e))))
		return NULL;
	frag_evict(fc, map->llen, room);
	fc->st.recycled += room->spare != NULL;
	e->mapped = frag_mapping_len(fc, room, map->llen);
	e->la = map->la;
	e->llen = map->llen;
	e->refs = 2;
	e->hnext = fc->buckets[h];
	fc->buckets[h] = e;
	lru_push(fc, e);
	fc->st.bytes += e->mapped;
	fc->st.entries++;
	if (fc->st.bytes > fc->st.peak)
		fc->st.peak = fc->st.bytes;
	return e;
}

static void frag_mark_seen(struct erofs_frag_cache *fc, uint64_t la)
{
	uint64_t bit = la >> fc->lclusterbits;

	if (bit < fc->seen_bits)
		fc->seen[bit / 64] |= 1ULL << (bit % 64);
}

static bool frag_seen(const struct erofs_frag_cache *fc, uint64_t la)
{
	uint64_t bit = la >> fc->lclusterbits;

	return bit < fc->seen_bits && (fc->seen[bit / 64] >> (bit % 64) & 1);
}

/* Extents kept in the cache: decoded pclusters, not too large. */
static bool frag_cacheable(const struct erofs_frag_cache *fc,
			   const struct erofs_map *map)
{
	return erofs_extent_encoded(map) && map->llen <= fc->budget / 4;
}

/* ---- reading ---- */

/*
 * Without the lock: map e, just inserted, from the room its insertion
 * made. Without memory for it, e leaves the table with the caller's
 * reference too: its waiters and the caller decode on their own.
 */
static bool frag_map_entry(struct erofs_frag_cache *fc, struct frag_entry *e,
			   struct frag_room *room)
{
	uint8_t *data = frag_room_take(room, e->mapped);

	if (data) {
		e->data = data;
		return true;
	}
	pthread_mutex_lock(&fc->lock);
	e->failed = true;
	frag_unlink(fc, e);
	frag_put(fc, e);
	pthread_cond_broadcast(&fc->decoded);
	pthread_mutex_unlock(&fc->lock);
	return false;
}

static int frag_decode(struct erofs_ctx *ctx, struct erofs_ctx *sub,
		       struct erofs_frag_cache *fc, struct frag_entry *e,
		       const struct erofs_map *map)
{
	int ret = erofs_extent_read(sub, fc->inode, map, 0, e->data,
				    (size_t)map->llen);

	pthread_mutex_lock(&fc->lock);
	/* a decode that fails costs as much, and shows a repeated one */
	fc->st.decoded += map->llen;
	if (ret) {
		e->failed = true;
		if (ret != -ENOMEM) {
			e->corrupt = true;
			e->err = sub->err;
			entry_data_free(e);
		} else {
			frag_remove(fc, e);
		}
	} else {
		e->ready = true;
		frag_mark_seen(fc, e->la);
		fc->st.decodes++;
	}
	pthread_cond_broadcast(&fc->decoded);
	pthread_mutex_unlock(&fc->lock);
	return ret;
}

/*
 * The decoded extent map of the packed inode, pinned, or NULL when the
 * caller has to decode it on its own (no memory, or the decode it waited
 * for failed). A non-zero return is the failure of our own decode, or
 * -EAGAIN: another thread decodes it and the reader would rather not wait
 * (erofs_extent_read_nowait()).
 */
static int frag_get(struct erofs_ctx *ctx, struct erofs_ctx *sub,
		    struct erofs_frag_cache *fc, const struct erofs_map *map,
		    struct frag_entry **out)
{
	struct frag_room room = { 0 };
	struct frag_entry *e;
	int ret;

	*out = NULL;
	pthread_mutex_lock(&fc->lock);
	e = frag_find(fc, map->la);
	if (e && e->llen == map->llen) {
		if (!e->ready && !e->failed && ctx->frag_nowait &&
		    fc->may_defer) {
			fc->st.deferred++;
			pthread_mutex_unlock(&fc->lock);
			return -EAGAIN;
		}
		e->refs++;
		if (!e->ready)
			fc->st.waits++;
		while (!e->ready && !e->failed)
			pthread_cond_wait(&fc->decoded, &fc->lock);
		ret = 0;
		if (e->ready) {
			lru_unlink(e);
			lru_push(fc, e);
			fc->st.hits++;
			*out = e;
		} else {
			if (e->corrupt) {
				sub->err = e->err;
				ret = e->err.code;
				frag_mark_seen(fc, e->la);
			}
			frag_put(fc, e);
		}
		pthread_mutex_unlock(&fc->lock);
		return ret;
	}
	e = e ? NULL : frag_insert(fc, map, &room);
	pthread_mutex_unlock(&fc->lock);
	if (!e || !frag_map_entry(fc, e, &room))
		return 0;
	ret = frag_decode(ctx, sub, fc, e, map);
	if (ret) {
		pthread_mutex_lock(&fc->lock);
		if (ret != -ENOMEM)
			frag_mark_seen(fc, e->la);
		frag_put(fc, e);
		pthread_mutex_unlock(&fc->lock);
		return ret;
	}
	*out = e;
	return 0;
}

/* Bytes [skip, skip + len) of extent map of src, through fc if any. */
static int frag_extent_read(struct erofs_ctx *ctx, struct erofs_ctx *sub,
			    struct erofs_frag_cache *fc,
			    const struct erofs_inode *src,
			    const struct erofs_map *map, uint64_t skip,
			    uint8_t *out, size_t len)
{
	struct frag_entry *e = NULL;
	int ret;

	if (fc && frag_cacheable(fc, map)) {
		ret = frag_get(ctx, sub, fc, map, &e);
		if (ret)
			return ret;
	}
	if (!e) {
		uint64_t before = sub->stats.decoded_bytes;

		ret = erofs_extent_read(sub, src, map, skip, out, len);
		if (fc) {
			/* the context's own last extent may have served it */
			pthread_mutex_lock(&fc->lock);
			fc->st.uncached++;
			fc->st.decoded += sub->stats.decoded_bytes - before;
			pthread_mutex_unlock(&fc->lock);
		}
		return ret;
	}
	memcpy(out, e->data + skip, len);
	pthread_mutex_lock(&fc->lock);
	frag_note_read(e, skip, skip + len);
	frag_put(fc, e);
	pthread_mutex_unlock(&fc->lock);
	return 0;
}

/*
 * len bytes at off of src's data, through fc (NULL: none), for a read of
 * inode, named in an error.
 */
static int cached_read(struct erofs_ctx *ctx, struct erofs_frag_cache *fc,
		       const struct erofs_inode *src,
		       const struct erofs_inode *inode, uint64_t off,
		       void *out, size_t len)
{
	struct erofs_ctx *sub = erofs_ctx_nested(ctx);
	uint8_t *dst = out;
	int ret = 0;

	if (!sub)
		return ctx->err.code;
	while (len && !ret) {
		struct erofs_map map;
		uint64_t skip;
		size_t n;

		ret = erofs_map(sub, src, off, &map);
		if (ret)
			break;
		skip = off - map.la;
		n = map.llen - skip < len ? (size_t)(map.llen - skip) : len;
		ret = frag_extent_read(ctx, sub, fc, src, &map, skip, dst, n);
		dst += n;
		off += n;
		len -= n;
	}
	if (ret == -EAGAIN)
		return ret;
	if (ret) {
		erofs_ctx_take_error(ctx, sub);
		if (ctx->err.nid == EROFS_NO_NID && inode)
			ctx->err.nid = inode->nid;
	}
	return ret;
}

int erofs_frag_read(struct erofs_ctx *ctx, const struct erofs_inode *inode,
		    uint64_t off, void *out, size_t len)
{
	return cached_read(ctx, ctx->img->frag_cache, &ctx->img->packed, inode,
			   off, out, len);
}

int erofs_metabox_read(struct erofs_ctx *ctx, uint64_t off, void *out,
		       size_t len)
{
	return cached_read(ctx, ctx->img->meta_cache, &ctx->img->metabox, NULL,
			   off, out, len);
}

int erofs_frag_map_part(struct erofs_ctx *ctx, const struct erofs_map *map,
			uint64_t pos, struct erofs_map *part,
			struct erofs_map *packed)
{
	uint64_t off, len;
	int ret;

	if (map->loc != EROFS_LOC_FRAGMENT || pos < map->la ||
	    pos - map->la >= map->llen)
		return erofs_error(&ctx->err, -EINVAL, EROFS_NO_NID,
				   EROFS_NO_OFFSET,
				   "part of an extent that is no fragment");
	off = map->pa + (pos - map->la);
	ret = erofs_map(ctx, &ctx->img->packed, off, packed);
	if (ret)
		return ret;
	/* erofs_map() returned the extent that holds off */
	len = packed->la + packed->llen - off;
	if (len > map->la + map->llen - pos)
		len = map->la + map->llen - pos;
	*part = *map;
	part->la = pos;
	part->llen = len;
	part->pa = off;
	part->plen = len;
	return 0;
}

/* A read-ahead entry for map, or NULL: held back for want of room. */
static struct frag_entry *frag_insert_ahead(struct erofs_frag_cache *fc,
					    const struct erofs_map *map,
					    struct frag_room *room)
{
	struct frag_entry *e;

	if (!frag_room_ahead(fc, map->llen)) {
		fc->st.held_back++;
		return NULL;
	}
	e = frag_insert(fc, map, room);
	fc->st.prefetches += e != NULL;
	return e;
}

/* Insert and decode map unless it is cached or pending: 1 if decoded. */
static int frag_prefetch_extent(struct erofs_ctx *ctx, struct erofs_ctx *sub,
				struct erofs_frag_cache *fc,
				const struct erofs_map *map)
{
	struct frag_room room = { 0 };
	struct frag_entry *e = NULL;
	int ret;

	pthread_mutex_lock(&fc->lock);
	if (!frag_find(fc, map->la))
		e = frag_insert_ahead(fc, map, &room);
	pthread_mutex_unlock(&fc->lock);
	if (!e || !frag_map_entry(fc, e, &room))
		return 0;
	ret = frag_decode(ctx, sub, fc, e, map);
	pthread_mutex_lock(&fc->lock);
	frag_put(fc, e);
	pthread_mutex_unlock(&fc->lock);
	return ret == -ENOMEM ? ret : 1;
}

int erofs_frag_prefetch(struct erofs_ctx *ctx, const struct erofs_map *map)
{
	struct erofs_frag_cache *fc = ctx->img->frag_cache;
	struct erofs_ctx *sub;
	int ret;

	if (!fc || !frag_cacheable(fc, map))
		return 0;
	sub = erofs_ctx_nested(ctx);
	if (!sub)
		return ctx->err.code;
	ret = frag_prefetch_extent(ctx, sub, fc, map);
	/* a failed extent is for the reader that needs it to report */
	erofs_err_drop(&sub->err);
	return ret;
}

bool erofs_frag_want(struct erofs_image *img, const struct erofs_map *map)
{
	struct erofs_frag_cache *fc = img->frag_cache;
	struct frag_entry *e;

	if (!fc || !frag_cacheable(fc, map))
		return false;
	pthread_mutex_lock(&fc->lock);
	e = frag_find(fc, map->la);
	if (e) {
		lru_unlink(e);
		lru_push(fc, e);
	}
	pthread_mutex_unlock(&fc->lock);
	return e != NULL;
}

bool erofs_frag_decoded(struct erofs_image *img, const struct erofs_map *map)
{
	struct erofs_frag_cache *fc = img->frag_cache;
	bool seen;

	if (!fc || !fc->seen_bits || !frag_cacheable(fc, map))
		return false;
	pthread_mutex_lock(&fc->lock);
	seen = frag_seen(fc, map->la);
	pthread_mutex_unlock(&fc->lock);
	return seen;
}
