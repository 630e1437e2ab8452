/* Notes: encoding and bounds-checked decoding (layout in notes.h).  */

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "hash.h"
#include "notes.h"
#include "ip-records.h"
#include "modes.h"

static bool
mode_known (uint32_t mode)
{
  return pp_mode_lookup (mode) != NULL;
}

/* Whether the mode's notes list interesting paths (ppp, residual).  */
static bool
mode_preferential (uint32_t mode)
{
  const pp_mode_info *m = pp_mode_lookup (mode);
  return m && m->preferential;
}

/* Whether the mode's notes give a depth (segments).  */
static bool
mode_segments (uint32_t mode)
{
  const pp_mode_info *m = pp_mode_lookup (mode);
  return m && pp_mode_segments (m);
}

/* Whether the mode's notes list direct calls (the trace mode).  */
static bool
mode_traced (uint32_t mode)
{
  const pp_mode_info *m = pp_mode_lookup (mode);
  return m && m->traced;
}

/* Whether the mode's notes list call sites (the interprocedural modes).  */
static bool
mode_calls (uint32_t mode)
{
  const pp_mode_info *m = pp_mode_lookup (mode);
  return m && m->calls;
}

uint64_t
pp_notes_cfg_checksum (const pp_function_notes *f)
{
  uint64_t sum = pp_hash64 (&f->nblocks, sizeof f->nblocks, PP_HASH_SEED);
  for (uint32_t b = 0; b < f->nblocks; b++)
    {
      const pp_block_notes *bn = &f->blocks[b];
      uint32_t flags = bn->flags & PP_BLOCK_CFG_FLAGS;
      sum = pp_hash64 (&flags, sizeof flags, sum);
      sum = pp_hash64 (&bn->nlines, sizeof bn->nlines, sum);
      sum = pp_hash64 (bn->lines, bn->nlines * sizeof *bn->lines, sum);
    }
  for (uint32_t e = 0; e < f->nedges; e++)
    {
      uint32_t edge[3] = { f->edges[e].src, f->edges[e].dst,
			   f->edges[e].flags & PP_EDGE_CFG_FLAGS };
      sum = pp_hash64 (edge, sizeof edge, sum);
    }
  return sum;
}

/* ------------------------------------------------------------------------- */
/* Encoding.  */

/* A growing output buffer.  A failure sticks: callers check once, at the end.  */
typedef struct writer
{
  unsigned char *buf;
  size_t len, cap;
  bool failed;
} writer;

static void
put_bytes (writer *w, const void *data, size_t n)
{
  if (w->failed)
    return;
  if (n > w->cap - w->len)
    {
      size_t cap = w->cap ? w->cap : 256;
      while (cap - w->len < n)
	{
	  if (cap > SIZE_MAX / 2)
	    {
	      w->failed = true;
	      return;
	    }
	  cap *= 2;
	}
      unsigned char *buf = pp_realloc (w->buf, cap);
      if (!buf)
	{
	  w->failed = true;
	  return;
	}
      w->buf = buf;
      w->cap = cap;
    }
  if (n)
    memcpy (w->buf + w->len, data, n);
  w->len += n;
}

static void
put_u32 (writer *w, uint32_t v)
{
  unsigned char b[4] = { v, v >> 8, v >> 16, v >> 24 };
  put_bytes (w, b, sizeof b);
}

static void
put_u64 (writer *w, uint64_t v)
{
  put_u32 (w, (uint32_t) v);
  put_u32 (w, (uint32_t) (v >> 32));
}

/* A NULL string is encoded as the empty string.  */
static void
put_str (writer *w, const char *s)
{
  size_t n = s ? strlen (s) : 0;
  if (n > UINT32_MAX)
    {
      w->failed = true;
      return;
    }
  put_u32 (w, (uint32_t) n);
  put_bytes (w, s, n);
}

int
pp_notes_encode (const pp_unit_notes *n, unsigned char **buf, size_t *len)
{
  writer w = { 0 };
  put_u32 (&w, PP_NOTES_MAGIC);
  put_u32 (&w, PP_NOTES_VERSION);
  put_u32 (&w, n->mode);
  put_u32 (&w, n->weighting);
  if (mode_segments (n->mode))
    put_u32 (&w, n->depth);
  put_str (&w, n->unit_name);
  put_u32 (&w, n->nfiles);
  for (uint32_t i = 0; i < n->nfiles; i++)
    put_str (&w, n->files[i]);
  put_u32 (&w, n->nfunctions);
  for (uint32_t i = 0; i < n->nfunctions; i++)
    {
      const pp_function_notes *f = &n->functions[i];
      put_str (&w, f->asm_name);
      put_str (&w, f->name);
      put_u32 (&w, f->decl_file);
      put_u32 (&w, f->decl_line);
      put_u64 (&w, pp_notes_cfg_checksum (f));
      put_u32 (&w, f->value_offset);
      put_u32 (&w, f->nvalues);
      put_u32 (&w, f->nblocks);
      for (uint32_t b = 0; b < f->nblocks; b++)
	{
	  const pp_block_notes *bn = &f->blocks[b];
	  put_u32 (&w, bn->flags);
	  put_u32 (&w, (uint32_t) bn->value);
	  put_u32 (&w, bn->nlines);
	  for (uint32_t l = 0; l < bn->nlines; l++)
	    {
	      put_u32 (&w, bn->lines[l].file);
	      put_u32 (&w, bn->lines[l].line);
	    }
	}
      put_u32 (&w, f->nedges);
      for (uint32_t e = 0; e < f->nedges; e++)
	{
	  const pp_edge_notes *en = &f->edges[e];
	  put_u32 (&w, en->src);
	  put_u32 (&w, en->dst);
	  put_u32 (&w, en->flags);
	  put_u32 (&w, (uint32_t) en->value);
	}
      if (mode_preferential (n->mode))
	{
	  put_u32 (&w, f->ninteresting);
	  for (uint32_t k = 0; k < f->ninteresting; k++)
	    put_u64 (&w, f->interesting[k]);
	  put_u32 (&w, f->nkeys);
	  for (uint32_t k = 0; k < f->nkeys; k++)
	    put_u64 (&w, f->keys[k]);
	  put_u64 (&w, f->ppp_span);
	  if (mode_segments (n->mode))
	    put_u64 (&w, f->seg_checksum);
	}
      if (mode_calls (n->mode))
	{
	  put_u32 (&w, f->function_flags);
	  put_u32 (&w, f->ncalls);
	  for (uint32_t k = 0; k < f->ncalls; k++)
	    {
	      put_u32 (&w, f->calls[k].block);
	      put_u32 (&w, f->calls[k].flags);
	      put_str (&w, f->calls[k].callee);
	    }
	}
      if (mode_traced (n->mode))
	{
	  put_u32 (&w, f->ndirect);
	  for (uint32_t k = 0; k < f->ndirect; k++)
	    {
	      put_u32 (&w, f->direct[k].block);
	      put_u32 (&w, f->direct[k].callee);
	    }
	}
    }
  if (w.failed)
    {
      pp_free (w.buf);
      return -1;
    }
  *buf = w.buf;
  *len = w.len;
  return 0;
}

/* ------------------------------------------------------------------------- */
/* Decoding.  */

/* Smallest encodings, used to refuse counts the remaining bytes cannot hold
   before anything is allocated for them.  */
enum
{
  MIN_STR_BYTES = 4,
  MIN_LINE_BYTES = 8,
  MIN_BLOCK_BYTES = 12,
  MIN_EDGE_BYTES = 16,
  MIN_CALL_BYTES = 8 + MIN_STR_BYTES,
  MIN_FUNCTION_BYTES = 2 * MIN_STR_BYTES + 4 + 4 + 8 + 4 + 4 + 4 + 4,
};

typedef struct reader
{
  const unsigned char *buf;
  size_t len, pos;
  char *err;
  size_t errlen;
  /* What is being read, for messages, put into words only by fail (decoding
     passes every block and edge): a part of the notes, or function NAME
     (number INDEX before its name is read), and ITEM number ITEM_INDEX of
     it.  */
  const char *part, *name, *item;
  uint32_t index, item_index;
  bool own;			/* the program's own notes: CFG checksums not
				   checked, no lines (pp_notes_decode_own) */
  bool outline;			/* own, and no blocks, edges or preferential
				   section either (pp_notes_decode_outline) */
  char *strings;		/* an outline's: where the next string goes */
} reader;

static void
at_part (reader *r, const char *part)
{
  r->part = part;
}

static void
at_function (reader *r, const char *name, uint32_t index)
{
  r->part = NULL;
  r->name = name;
  r->index = index;
  r->item = NULL;
}

static void
at_item (reader *r, const char *item, uint32_t index)
{
  r->item = item;
  r->item_index = index;
}

static int
fail (reader *r, const char *fmt, ...)
{
  char what[256], where[192], item[64] = "";
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (what, sizeof what, fmt, ap);
  va_end (ap);
  if (r->item)
    snprintf (item, sizeof item, ", %s %u", r->item, r->item_index);
  if (r->part)
    snprintf (where, sizeof where, "%s", r->part);
  else if (r->name)
    snprintf (where, sizeof where, "function '%s'%s", r->name, item);
  else
    snprintf (where, sizeof where, "function %u%s", r->index, item);
  snprintf (r->err, r->errlen, "notes %s (%s)", what, where);
  return -1;
}

static __attribute__ ((noinline, cold)) int
truncated (reader *r, size_t n)
{
  return fail (r, "truncated at byte %zu: %zu more bytes needed at byte %zu",
	       r->len, n, r->pos);
}

static inline int
need (reader *r, size_t n)
{
  return __builtin_expect (r->len - r->pos < n, 0) ? truncated (r, n) : 0;
}

/* In line: decoding reads every word of a unit's notes through it (an
   empty SQLite session's start decoded 8 MB of notes).  */
static inline int
get_u32 (reader *r, uint32_t *v)
{
  if (need (r, 4))
    return -1;
  const unsigned char *p = r->buf + r->pos;
  *v = p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
  r->pos += 4;
  return 0;
}

static int
get_u64 (reader *r, uint64_t *v)
{
  uint32_t lo, hi;
  if (get_u32 (r, &lo) || get_u32 (r, &hi))
    return -1;
  *v = (uint64_t) hi << 32 | lo;
  return 0;
}

/* Reads a count of items that take at least min_bytes each.  */
static int
get_count (reader *r, uint32_t *n, size_t min_bytes, const char *items)
{
  size_t at = r->pos;
  if (get_u32 (r, n))
    return -1;
  if (*n > (r->len - r->pos) / min_bytes)
    return fail (r, "truncated or corrupted at byte %zu: %u %s cannot fit in the "
		 "remaining %zu bytes", at, *n, items, r->len - r->pos);
  return 0;
}

static int
get_str (reader *r, char **s)
{
  uint32_t n;
  size_t at = r->pos;
  if (get_u32 (r, &n) || need (r, n))
    return -1;
  if (memchr (r->buf + r->pos, 0, n))
    return fail (r, "corrupted at byte %zu: string contains a NUL byte", at);
  if (r->strings)
    {
      /* An outline's strings share one block (n + 1 <= the 4 + n bytes
	 each takes in the notes).  */
      *s = r->strings;
      r->strings += (size_t) n + 1;
    }
  else if (!(*s = pp_malloc ((size_t) n + 1)))
    return fail (r, "out of memory");
  memcpy (*s, r->buf + r->pos, n);
  (*s)[n] = 0;
  r->pos += n;
  return 0;
}

static inline int
get_index (reader *r, uint32_t *v, uint32_t limit, const char *what)
{
  size_t at = r->pos;
  if (get_u32 (r, v))
    return -1;
  if (__builtin_expect (*v >= limit, 0))
    return fail (r, "corrupted at byte %zu: %s %u out of range (%u)", at, what, *v,
		 limit);
  return 0;
}

/* A value index: -1 (encoded as UINT32_MAX) or below the function's nvalues.  */
static inline int
get_value_index (reader *r, int32_t *value, uint32_t nvalues)
{
  uint32_t v;
  size_t at = r->pos;
  if (get_u32 (r, &v))
    return -1;
  if (__builtin_expect (v != UINT32_MAX && v >= nvalues, 0))
    return fail (r, "corrupted at byte %zu: value index %u out of range (%u)",
		 at, v, nvalues);
  *value = v == UINT32_MAX ? -1 : (int32_t) v;
  return 0;
}

static int
decode_block (reader *r, pp_block_notes *b, uint32_t nfiles, uint32_t nvalues)
{
  if (get_u32 (r, &b->flags) || get_value_index (r, &b->value, nvalues)
      || get_count (r, &b->nlines, MIN_LINE_BYTES, "lines"))
    return -1;
  if (r->own)
    {
      /* get_count checked that the lines are there, a file index and a
	 line each.  */
      r->pos += (size_t) b->nlines * MIN_LINE_BYTES;
      b->nlines = 0;
      return 0;
    }
  b->lines = pp_calloc (b->nlines ? b->nlines : 1, sizeof *b->lines);
  if (!b->lines)
    return fail (r, "out of memory");
  for (uint32_t l = 0; l < b->nlines; l++)
    if (get_index (r, &b->lines[l].file, nfiles, "file index")
	|| get_u32 (r, &b->lines[l].line))
      return -1;
  return 0;
}

/* Past a block, in an outline: its flags, value and lines (in line, the
   count checked as get_count checks it: an outline passes every block).  */
static inline int
skip_block (reader *r)
{
  if (need (r, MIN_BLOCK_BYTES))
    return -1;
  const unsigned char *p = r->buf + r->pos + 8;
  uint32_t nlines = p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16
		    | (uint32_t) p[3] << 24;
  r->pos += MIN_BLOCK_BYTES;
  if (__builtin_expect (nlines > (r->len - r->pos) / MIN_LINE_BYTES, 0))
    {
      r->pos -= 4;
      uint32_t n;
      return get_count (r, &n, MIN_LINE_BYTES, "lines");
    }
  r->pos += (size_t) nlines * MIN_LINE_BYTES;
  return 0;
}

static int
decode_edge (reader *r, pp_edge_notes *e, const pp_function_notes *f)
{
  if (get_index (r, &e->src, f->nblocks, "edge source")
      || get_index (r, &e->dst, f->nblocks, "edge destination")
      || get_u32 (r, &e->flags))
    return -1;
  return get_value_index (r, &e->value, f->nvalues);
}

static int
by_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return (x > y) - (x < y);
}

bool
pp_notes_interesting (const pp_function_notes *f, uint64_t path)
{
  return bsearch (&path, f->interesting, f->ninteresting, sizeof path, by_u64)
	 != NULL;
}

/* The preferential section: interesting paths and slot keys.  */
static int
decode_preferential (reader *r, pp_function_notes *f)
{
  size_t at = r->pos;
  if (get_count (r, &f->ninteresting, 8, "interesting paths"))
    return -1;
  f->interesting = pp_calloc (f->ninteresting ? f->ninteresting : 1,
			   sizeof *f->interesting);
  if (!f->interesting)
    return fail (r, "out of memory");
  for (uint32_t k = 0; k < f->ninteresting; k++)
    {
      at = r->pos;
      if (get_u64 (r, &f->interesting[k]))
	return -1;
      if (k && f->interesting[k] <= f->interesting[k - 1])
	return fail (r, "corrupted at byte %zu: interesting paths out of order", at);
    }
  at = r->pos;
  if (get_count (r, &f->nkeys, 8, "keys"))
    return -1;
  if (f->nkeys && f->nkeys != f->nvalues)
    return fail (r, "corrupted at byte %zu: %u keys for %u slots", at, f->nkeys,
		 f->nvalues);
  f->keys = pp_calloc (f->nkeys ? f->nkeys : 1, sizeof *f->keys);
  uint64_t *sorted = pp_calloc (f->nkeys ? f->nkeys : 1, sizeof *sorted);
  if (!f->keys || !sorted)
    {
      pp_free (sorted);
      return fail (r, "out of memory");
    }
  uint32_t nsorted = 0;
  for (uint32_t k = 0; k < f->nkeys; k++)
    {
      at = r->pos;
      if (get_u64 (r, &f->keys[k]))
	{
	  pp_free (sorted);
	  return -1;
	}
      if (f->keys[k] == UINT64_MAX)
	continue;
      if (!pp_notes_interesting (f, f->keys[k]))
	{
	  pp_free (sorted);
	  return fail (r, "corrupted at byte %zu: slot %u counts a path that is "
		       "not interesting", at, k);
	}
      sorted[nsorted++] = f->keys[k];
    }
  pp_sort (sorted, nsorted, sizeof *sorted, by_u64);
  for (uint32_t k = 1; k < nsorted; k++)
    if (sorted[k] == sorted[k - 1])
      {
	uint64_t twice = sorted[k];
	pp_free (sorted);
	return fail (r, "corrupted: two slots count path %" PRIu64, twice);
      }
  pp_free (sorted);
  return get_u64 (r, &f->ppp_span);
}

/* Past the preferential section, in an outline (its counts left 0).  */
static int
skip_preferential (reader *r)
{
  uint32_t n;
  if (get_count (r, &n, 8, "interesting paths"))
    return -1;
  r->pos += (size_t) n * 8;
  if (get_count (r, &n, 8, "keys"))
    return -1;
  r->pos += (size_t) n * 8;
  return need (r, 8) ? -1 : (r->pos += 8, 0);
}

/* The interprocedural section: how the function may be entered, its calls.  */
static int
decode_calls (reader *r, pp_function_notes *f)
{
  if (get_u32 (r, &f->function_flags)
      || get_count (r, &f->ncalls, MIN_CALL_BYTES, "calls"))
    return -1;
  f->calls = pp_calloc (f->ncalls ? f->ncalls : 1, sizeof *f->calls);
  if (!f->calls)
    return fail (r, "out of memory");
  for (uint32_t k = 0; k < f->ncalls; k++)
    {
      pp_call_notes *c = &f->calls[k];
      at_item (r, "call", k);
      size_t at = r->pos;
      if (get_index (r, &c->block, f->nblocks, "call block")
	  || get_u32 (r, &c->flags) || get_str (r, &c->callee))
	return -1;
      if (c->block < 2 || (k && c->block < f->calls[k - 1].block))
	return fail (r, "corrupted at byte %zu: call in block %u out of order",
		     at, c->block);
    }
  return 0;
}

/* The trace mode's direct calls.  */
static int
decode_direct (reader *r, pp_function_notes *f, uint32_t nfunctions)
{
  if (get_count (r, &f->ndirect, 8, "direct calls"))
    return -1;
  f->direct = pp_calloc (f->ndirect ? f->ndirect : 1, sizeof *f->direct);
  if (!f->direct)
    return fail (r, "out of memory");
  for (uint32_t k = 0; k < f->ndirect; k++)
    {
      pp_direct_call *c = &f->direct[k];
      at_item (r, "direct call", k);
      size_t at = r->pos;
      if (get_index (r, &c->block, f->nblocks, "call block"))
	return -1;
      /* A callee of the unit, or a call site (PP_DIRECT_SITE).  */
      size_t callee_at = r->pos;
      if (get_u32 (r, &c->callee))
	return -1;
      if (!(c->callee & PP_DIRECT_SITE) && c->callee >= nfunctions)
	return fail (r, "corrupted at byte %zu: callee %u out of range (%u)",
		     callee_at, c->callee, nfunctions);
      if (c->block < 2 || (k && c->block < f->direct[k - 1].block))
	return fail (r, "corrupted at byte %zu: direct call in block %u out of "
		     "order", at, c->block);
    }
  return 0;
}

static int
decode_function (reader *r, pp_function_notes *f, uint32_t index, uint32_t nfiles,
		 bool preferential, bool segments, bool calls, uint32_t traced_nfunctions)
{
  size_t at;
  at_function (r, NULL, index);
  f->notes_at = r->pos;
  if (get_str (r, &f->asm_name))
    return -1;
  if (r->outline)
    {
      /* An outline names a function by its asm name (C's are the same;
	 libprof names functions only in messages): past the name.  */
      uint32_t n;
      if (get_u32 (r, &n) || need (r, n))
	return -1;
      r->pos += n;
      f->name = f->asm_name;
    }
  else if (get_str (r, &f->name))
    return -1;
  at_function (r, f->name, index);
  if (get_index (r, &f->decl_file, nfiles, "file index")
      || get_u32 (r, &f->decl_line) || get_u64 (r, &f->cfg_checksum)
      || get_u32 (r, &f->value_offset))
    return -1;
  at = r->pos;
  if (get_u32 (r, &f->nvalues))
    return -1;
  if (f->nvalues > UINT32_MAX - f->value_offset)
    return fail (r, "corrupted at byte %zu: values %u + %u overflow", at,
		 f->value_offset, f->nvalues);

  at = r->pos;
  if (get_count (r, &f->nblocks, MIN_BLOCK_BYTES, "blocks"))
    return -1;
  if (f->nblocks < 2)
    return fail (r, "corrupted at byte %zu: %u blocks, ENTRY and EXIT missing",
		 at, f->nblocks);
  if (r->outline)
    {
      for (uint32_t b = 0; b < f->nblocks; b++)
	if (skip_block (r))
	  return -1;
      /* get_count checked that the edges are there.  */
      if (get_count (r, &f->nedges, MIN_EDGE_BYTES, "edges"))
	return -1;
      r->pos += (size_t) f->nedges * MIN_EDGE_BYTES;
      if (preferential && skip_preferential (r))
	return -1;
    }
  else
    {
      f->blocks = pp_calloc (f->nblocks, sizeof *f->blocks);
      if (!f->blocks)
	return fail (r, "out of memory");
      for (uint32_t b = 0; b < f->nblocks; b++)
	{
	  at_item (r, "block", b);
	  if (decode_block (r, &f->blocks[b], nfiles, f->nvalues))
	    return -1;
	}

      at_item (r, NULL, 0);
      if (get_count (r, &f->nedges, MIN_EDGE_BYTES, "edges"))
	return -1;
      f->edges = pp_calloc (f->nedges ? f->nedges : 1, sizeof *f->edges);
      if (!f->edges)
	return fail (r, "out of memory");
      for (uint32_t e = 0; e < f->nedges; e++)
	{
	  at_item (r, "edge", e);
	  if (decode_edge (r, &f->edges[e], f))
	    return -1;
	}
      at_item (r, NULL, 0);
      if (preferential && decode_preferential (r, f))
	return -1;
    }
  if (preferential && segments && get_u64 (r, &f->seg_checksum))
    return -1;
  if (calls && decode_calls (r, f))
    return -1;
  if (traced_nfunctions && decode_direct (r, f, traced_nfunctions))
    return -1;
  at_item (r, NULL, 0);
  uint64_t sum = r->own ? f->cfg_checksum : pp_notes_cfg_checksum (f);
  if (PP_CHECKSUM_DIFFERS (f->cfg_checksum, sum))
    return fail (r, "corrupted: the CFG checksum recorded for function '%s' "
		 "(%016" PRIx64 ") differs from its graph's (%016" PRIx64 ")",
		 f->name, f->cfg_checksum, sum);
  return 0;
}

static int
decode_unit (reader *r, pp_unit_notes *n)
{
  uint32_t magic, version;
  at_part (r, "header");
  if (get_u32 (r, &magic))
    return -1;
  if (magic != PP_NOTES_MAGIC)
    return fail (r, "have a bad magic number: not pathprof notes");
  if (get_u32 (r, &version))
    return -1;
  if (version != PP_NOTES_VERSION)
    return fail (r, "version %u is not supported (expected %u)", version,
		 PP_NOTES_VERSION);
  if (get_u32 (r, &n->mode))
    return -1;
  if (!mode_known (n->mode))
    return fail (r, "corrupted at byte %zu: unknown mode %u", r->pos - 4, n->mode);
  if (get_u32 (r, &n->weighting))
    return -1;
  if (mode_segments (n->mode))
    {
      if (get_u32 (r, &n->depth))
	return -1;
      if (n->depth < 1 || n->depth > PP_SEGMENTS_MAX_DEPTH)
	return fail (r, "corrupted at byte %zu: depth %u (1 to %u)", r->pos - 4,
		     n->depth, PP_SEGMENTS_MAX_DEPTH);
    }
  if (get_str (r, &n->unit_name))
    return -1;

  at_part (r, "file table");
  if (get_count (r, &n->nfiles, MIN_STR_BYTES, "files"))
    return -1;
  n->files = pp_calloc (n->nfiles ? n->nfiles : 1, sizeof *n->files);
  if (!n->files)
    return fail (r, "out of memory");
  for (uint32_t i = 0; i < n->nfiles; i++)
    if (get_str (r, &n->files[i]))
      return -1;

  at_part (r, "function table");
  if (get_count (r, &n->nfunctions, MIN_FUNCTION_BYTES, "functions"))
    return -1;
  n->functions = pp_calloc (n->nfunctions ? n->nfunctions : 1, sizeof *n->functions);
  if (!n->functions)
    return fail (r, "out of memory");
  bool preferential = mode_preferential (n->mode), segments = mode_segments (n->mode);
  bool calls = mode_calls (n->mode);
  uint32_t traced = mode_traced (n->mode) ? n->nfunctions : 0;
  for (uint32_t i = 0; i < n->nfunctions; i++)
    if (decode_function (r, &n->functions[i], i, n->nfiles, preferential, segments,
			 calls, traced))
      return -1;

  at_part (r, "end");
  if (r->pos != r->len)
    return fail (r, "corrupted: %zu unexpected bytes after byte %zu",
		 r->len - r->pos, r->pos);
  return 0;
}

enum how
{
  WHOLE,			/* pp_notes_decode */
  OWN,				/* pp_notes_decode_own */
  OUTLINE			/* pp_notes_decode_outline */
};

static int
decode (const unsigned char *buf, size_t len, pp_unit_notes *n, char *err,
	size_t errlen, enum how how)
{
  reader r = { .buf = buf, .len = len, .err = err, .errlen = errlen,
	       .part = "header", .own = how != WHOLE, .outline = how == OUTLINE };
  memset (n, 0, sizeof *n);
  if (how == OUTLINE && !(r.strings = n->strings = pp_malloc (len + 1)))
    {
      snprintf (err, errlen, "notes: out of memory");
      return -1;
    }
  if (decode_unit (&r, n) == 0)
    return 0;
  pp_notes_free (n);
  return -1;
}

int
pp_notes_decode (const unsigned char *buf, size_t len, pp_unit_notes *n,
		 char *err, size_t errlen)
{
  return decode (buf, len, n, err, errlen, WHOLE);
}

int
pp_notes_decode_own (const unsigned char *buf, size_t len, pp_unit_notes *n,
		     char *err, size_t errlen)
{
  return decode (buf, len, n, err, errlen, OWN);
}

int
pp_notes_decode_outline (const unsigned char *buf, size_t len, pp_unit_notes *n,
			 char *err, size_t errlen)
{
  return decode (buf, len, n, err, errlen, OUTLINE);
}

int
pp_notes_decode_function (const unsigned char *buf, size_t len,
			  const pp_unit_notes *outline, uint32_t f,
			  pp_function_notes *fn, char *err, size_t errlen)
{
  reader r = { .buf = buf, .len = len, .err = err, .errlen = errlen, .own = true };
  memset (fn, 0, sizeof *fn);
  if (f >= outline->nfunctions || outline->functions[f].notes_at > len)
    {
      snprintf (err, errlen, "notes have no function %u", f);
      return -1;
    }
  r.pos = outline->functions[f].notes_at;
  uint32_t mode = outline->mode;
  if (decode_function (&r, fn, f, outline->nfiles, mode_preferential (mode),
		       mode_segments (mode), mode_calls (mode),
		       mode_traced (mode) ? outline->nfunctions : 0) == 0)
    return 0;
  pp_notes_function_free (fn);
  return -1;
}

/* F's arrays, and its strings unless a block of the unit's holds them.  */
static void
free_function (pp_function_notes *f, bool strings)
{
  if (strings)
    {
      pp_free (f->asm_name);
      pp_free (f->name);
    }
  if (f->blocks)
    for (uint32_t b = 0; b < f->nblocks; b++)
      pp_free (f->blocks[b].lines);
  pp_free (f->blocks);
  pp_free (f->edges);
  pp_free (f->interesting);
  pp_free (f->keys);
  if (f->calls && strings)
    for (uint32_t k = 0; k < f->ncalls; k++)
      pp_free (f->calls[k].callee);
  pp_free (f->calls);
  pp_free (f->direct);
  memset (f, 0, sizeof *f);
}

void
pp_notes_function_free (pp_function_notes *f)
{
  free_function (f, true);
}

/* Frees everything, including a partly decoded unit: arrays are zero-filled when
   allocated, and a count read before its array was allocated is ignored because
   the array pointer is still NULL.  */
void
pp_notes_free (pp_unit_notes *n)
{
  bool strings = !n->strings;	/* else that block holds them all */
  if (n->files && strings)
    for (uint32_t i = 0; i < n->nfiles; i++)
      pp_free (n->files[i]);
  if (n->functions)
    for (uint32_t i = 0; i < n->nfunctions; i++)
      free_function (&n->functions[i], strings);
  if (strings)
    pp_free (n->unit_name);
  pp_free (n->strings);
  pp_free (n->files);
  pp_free (n->functions);
  memset (n, 0, sizeof *n);
}

int
pp_notes_check_values (const pp_unit_notes *n, uint32_t nvalues, char *err,
		       size_t errlen)
{
  for (uint32_t i = 0; i < n->nfunctions; i++)
    {
      const pp_function_notes *f = &n->functions[i];
      if (f->value_offset > nvalues || f->nvalues > nvalues - f->value_offset)
	{
	  snprintf (err, errlen, "function '%s' needs %llu values but the unit "
		    "has only %u", f->name ? f->name : "?",
		    (unsigned long long) f->value_offset + f->nvalues, nvalues);
	  return -1;
	}
    }
  return 0;
}

int
pp_notes_function_graph (const pp_function_notes *f, pp_graph *g)
{
  if (f->nblocks < 2 || pp_graph_init (g, f->nblocks, 0, 1) != 0)
    return -1;
  for (uint32_t e = 0; e < f->nedges; e++)
    if (pp_graph_add_edge (g, f->edges[e].src, f->edges[e].dst, f->edges[e].flags)
	== UINT32_MAX)
      goto fail;
  if (pp_graph_finish (g) != 0)
    goto fail;
  return 0;
fail:
  pp_graph_free (g);
  return -1;
}
