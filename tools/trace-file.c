/* Trace files: reading, regeneration and edge counts (trace-file.h).  Every
   length and index of the file is checked before use: a truncated or damaged
   trace is refused with the byte or bit where it goes wrong.  */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hash.h"
#include "trace-file.h"

#define HEADER_BYTES 32

bool
trace_file_is_trace (const char *path)
{
  char head[8] = "";
  int fd = open (path, O_RDONLY);
  if (fd < 0)
    return false;
  ssize_t n = read (fd, head, sizeof head);
  close (fd);
  return n == (ssize_t) sizeof head && memcmp (head, "PPTRACE", 8) == 0;
}

static uint32_t
get32 (const unsigned char *p)
{
  uint32_t v;
  memcpy (&v, p, 4);
  return v;
}

static uint64_t
get64 (const unsigned char *p)
{
  uint64_t v;
  memcpy (&v, p, 8);
  return v;
}

static trace_thread *
find_thread (trace_file *t, uint32_t id)
{
  for (uint32_t i = 0; i < t->nthreads; i++)
    if (t->threads[i].id == id)
      return &t->threads[i];
  trace_thread *s = realloc (t->threads, (t->nthreads + 1) * sizeof *s);
  if (!s)
    return NULL;
  t->threads = s;
  s = &t->threads[t->nthreads++];
  memset (s, 0, sizeof *s);
  s->id = id;
  return s;
}

/* Appends the first nbits bits of words to the thread's stream.  */
static int
append_bits (trace_thread *th, const unsigned char *bytes, uint64_t nbits)
{
  uint64_t need = (th->nbits + nbits + 63) / 64 + 1;
  if (need > th->cap)
    {
      uint64_t cap = th->cap ? th->cap : 64;
      while (cap < need)
	cap *= 2;
      uint64_t *w = realloc (th->words, cap * sizeof *w);
      if (!w)
	return -1;
      memset (w + th->cap, 0, (cap - th->cap) * sizeof *w);
      th->words = w;
      th->cap = cap;
    }
  for (uint64_t i = 0; i < nbits; i += 64)
    {
      uint64_t v = get64 (bytes + i / 8);
      unsigned n = nbits - i < 64 ? (unsigned) (nbits - i) : 64;
      if (n < 64)
	v &= ((uint64_t) 1 << n) - 1;
      uint64_t pos = th->nbits, w = pos / 64, off = pos % 64;
      th->words[w] |= v << off;
      if (off && off + n > 64)
	th->words[w + 1] |= v >> (64 - off);
      th->nbits += n;
    }
  return 0;
}

static int
add_unit (trace_file *t, const unsigned char *p, uint64_t len, char *err,
	  size_t errlen)
{
  if (len < 12)
    return snprintf (err, errlen, "a unit chunk is too short"), -1;
  uint32_t id = get32 (p), name_len = get32 (p + 4);
  if (id != t->nunits)
    return snprintf (err, errlen, "unit %u where unit %u was due", id, t->nunits), -1;
  if (name_len > len - 12 || get32 (p + 8 + name_len) > len - 12 - name_len)
    return snprintf (err, errlen, "unit %u: lengths beyond its chunk", id), -1;
  uint32_t notes_len = get32 (p + 8 + name_len);
  trace_unit *units = realloc (t->units, (t->nunits + 1) * sizeof *units);
  if (!units)
    return snprintf (err, errlen, "out of memory"), -1;
  t->units = units;
  trace_unit *u = &units[t->nunits++];
  memset (u, 0, sizeof *u);
  u->name = strndup ((const char *) p + 8, name_len);
  u->raw_notes = malloc (notes_len ? notes_len : 1);
  if (!u->name || !u->raw_notes)
    return snprintf (err, errlen, "out of memory"), -1;
  memcpy (u->raw_notes, p + 12 + name_len, notes_len);
  u->raw_len = notes_len;
  char why[200];
  if (pp_notes_decode (u->raw_notes, notes_len, &u->notes, why, sizeof why))
    return snprintf (err, errlen, "unit %s: %s", u->name, why), -1;
  if (u->notes.mode != PP_MODE_TRACE)
    return snprintf (err, errlen, "unit %s was not instrumented in trace mode",
		     u->name), -1;
  uint32_t n = u->notes.nfunctions;
  u->graphs = calloc (n ? n : 1, sizeof *u->graphs);
  u->functions = calloc (n ? n : 1, sizeof *u->functions);
  if (!u->graphs || !u->functions)
    return snprintf (err, errlen, "out of memory"), -1;
  u->first = t->nfunctions;
  t->nfunctions += n;
  for (uint32_t f = 0; f < n; f++)
    {
      const pp_function_notes *fn = &u->notes.functions[f];
      int32_t *wit = malloc ((fn->nedges + 1) * sizeof *wit);
      uint32_t *flags = malloc ((fn->nblocks + 1) * sizeof *flags);
      int rc = -1;
      if (wit && flags && pp_notes_function_graph (fn, &u->graphs[f]) == 0)
	{
	  for (uint32_t e = 0; e < fn->nedges; e++)
	    wit[e] = fn->edges[e].value;
	  for (uint32_t v = 0; v < fn->nblocks; v++)
	    flags[v] = fn->blocks[v].flags;
	  rc = pp_trace_function_init (&u->functions[f], &u->graphs[f], wit, flags);
	}
      free (wit);
      free (flags);
      if (rc == -2)
	return snprintf (err, errlen, "unit %s, function %s: its witnesses do not "
			 "trace its graph", u->name, fn->name), -1;
      if (rc)
	return snprintf (err, errlen, "out of memory"), -1;
    }
  return 0;
}

static int
read_into (const char *path, trace_file *t, bool prefix_only, uint32_t want_thread,
	   uint64_t want_bits, trace_thread *into, unsigned depth, char *err,
	   size_t errlen)
{
  if (depth > 64)
    return snprintf (err, errlen, "%s: too many forks deep", path), -1;
  int fd = open (path, O_RDONLY);
  if (fd < 0)
    return snprintf (err, errlen, "%s: %s", path, strerror (errno)), -1;
  unsigned char *buf;
  size_t len;
  int rc = pp_read_all (fd, &buf, &len);
  close (fd);
  if (rc)
    return snprintf (err, errlen, "%s: cannot read it", path), -1;
  int status = -1;
  char why[400] = "";
  if (len < HEADER_BYTES || memcmp (buf, "PPTRACE", 8) != 0)
    snprintf (why, sizeof why, "not a pathprof trace");
  else if (get32 (buf + 8) != PP_TRACE_FILE_VERSION)
    snprintf (why, sizeof why, "trace format version %u (this pathprof reads %u)",
	      get32 (buf + 8), PP_TRACE_FILE_VERSION);
  else
    {
      size_t at = HEADER_BYTES;
      status = 0;
      while (at < len && status == 0)
	{
	  if (len - at < 16 || get64 (buf + at + 8) > len - at - 16)
	    {
	      snprintf (why, sizeof why, "truncated chunk at byte %zu", at);
	      status = -1;
	      break;
	    }
	  uint32_t kind = get32 (buf + at);
	  uint64_t clen = get64 (buf + at + 8);
	  const unsigned char *p = buf + at + 16;
	  if (kind == PP_TRACE_CHUNK_UNIT)
	    {
	      if (!prefix_only)
		status = add_unit (t, p, clen, why, sizeof why);
	    }
	  else if (kind == PP_TRACE_CHUNK_RECORDS)
	    {
	      uint64_t nbits = clen >= 16 ? get64 (p + 8) : UINT64_MAX;
	      uint32_t id = clen >= 16 ? get32 (p) : 0;
	      trace_thread *th = prefix_only ? (id == want_thread ? into : NULL)
					     : find_thread (t, id);
	      if (nbits == UINT64_MAX || (nbits + 63) / 64 * 8 > clen - 16)
		{
		  snprintf (why, sizeof why, "records beyond their chunk at byte %zu",
			    at);
		  status = -1;
		}
	      else if (th)
		{
		  if (prefix_only && into->nbits + nbits > want_bits)
		    nbits = want_bits - into->nbits;
		  if (append_bits (th, p + 16, nbits))
		    {
		      snprintf (why, sizeof why, "out of memory");
		      status = -1;
		    }
		}
	      else if (!prefix_only)
		{
		  snprintf (why, sizeof why, "out of memory");
		  status = -1;
		}
	    }
	  else if (kind == PP_TRACE_CHUNK_FORK)
	    {
	      if (clen < 24 || get32 (p + 4) > clen - 24)
		{
		  snprintf (why, sizeof why, "a damaged fork chunk at byte %zu", at);
		  status = -1;
		}
	      else
		{
		  uint32_t id = get32 (p), plen = get32 (p + 4);
		  uint64_t bits = get64 (p + 16);
		  char *parent = strndup ((const char *) p + 24, plen);
		  trace_thread *th = prefix_only ? (id == want_thread ? into : NULL)
						 : find_thread (t, id);
		  if (!parent)
		    status = -1;
		  else if (th && th->nbits == 0)
		    {
		      status = read_into (parent, t, true, id, bits, th, depth + 1,
					  why, sizeof why);
		      if (status == 0 && th->nbits != bits)
			{
			  snprintf (why, sizeof why, "the parent's trace %s has %llu "
				    "bits of thread %u, not the %llu the fork "
				    "recorded", parent,
				    (unsigned long long) th->nbits, id,
				    (unsigned long long) bits);
			  status = -1;
			}
		    }
		  free (parent);
		}
	    }
	  else
	    {
	      snprintf (why, sizeof why, "unknown chunk kind %u at byte %zu", kind,
			at);
	      status = -1;
	    }
	  if (prefix_only && into->nbits >= want_bits)
	    break;
	  at += 16 + clen;
	}
    }
  free (buf);
  if (status)
    snprintf (err, errlen, "%s: %s", path, why);
  return status;
}

int
trace_file_read (const char *path, trace_file *t, char *err, size_t errlen)
{
  memset (t, 0, sizeof *t);
  if (read_into (path, t, false, 0, 0, NULL, 0, err, errlen))
    {
      trace_file_free (t);
      return -1;
    }
  return 0;
}

void
trace_file_free (trace_file *t)
{
  for (uint32_t i = 0; i < t->nunits; i++)
    {
      trace_unit *u = &t->units[i];
      for (uint32_t f = 0; u->functions && f < u->notes.nfunctions; f++)
	{
	  pp_trace_function_free (&u->functions[f]);
	  pp_graph_free (&u->graphs[f]);
	}
      free (u->functions);
      free (u->graphs);
      pp_notes_free (&u->notes);
      free (u->raw_notes);
      free (u->name);
    }
  free (t->units);
  for (uint32_t i = 0; i < t->nthreads; i++)
    free (t->threads[i].words);
  free (t->threads);
  memset (t, 0, sizeof *t);
}

void
trace_file_function (const trace_file *t, uint32_t id, uint32_t *unit,
		     uint32_t *function)
{
  uint32_t u = 0;
  while (u + 1 < t->nunits && t->units[u + 1].first <= id)
    u++;
  *unit = u;
  *function = id - t->units[u].first;
}

struct regen_ctx
{
  trace_file *t;
  void (*event) (void *, enum pp_trace_ev, size_t, uint32_t, uint32_t);
  void *ctx;
};

static pp_trace_function *
lookup (void *ctx, uint64_t unit, uint64_t function, uint32_t *id)
{
  trace_file *t = ((struct regen_ctx *) ctx)->t;
  if (unit >= t->nunits || function >= t->units[unit].notes.nfunctions)
    return NULL;
  *id = t->units[unit].first + (uint32_t) function;
  return &t->units[unit].functions[function];
}

static void
forward (void *ctx, enum pp_trace_ev ev, size_t depth, uint32_t id, uint32_t x)
{
  struct regen_ctx *c = ctx;
  c->event (c->ctx, ev, depth, id, x);
}

int
trace_file_regen (trace_file *t, uint32_t i,
		  void (*event) (void *, enum pp_trace_ev, size_t, uint32_t, uint32_t),
		  void *ctx, char *err, size_t errlen)
{
  struct regen_ctx c = { t, event, ctx };
  pp_trace_regen_ops ops = { &c, lookup, forward };
  trace_thread *th = &t->threads[i];
  pp_trace_bits b = { th->words, th->nbits, 0 };
  char why[200];
  if (pp_trace_regen (&b, &ops, why, sizeof why))
    {
      snprintf (err, errlen, "thread %u: %s", th->id, why);
      return -1;
    }
  return 0;
}

/* ---- Edge counts.  */

struct count_ctx
{
  trace_file *t;
  uint64_t **counts;		/* per function number: per edge */
};

static void
count_edge (void *ctx, enum pp_trace_ev ev, size_t depth, uint32_t id, uint32_t x)
{
  (void) depth;
  struct count_ctx *c = ctx;
  if (ev == PP_TRACE_EV_EDGE)
    c->counts[id][x]++;
}

int
trace_file_to_profile (trace_file *t, pp_profile *p, char *err, size_t errlen)
{
  memset (p, 0, sizeof *p);
  struct count_ctx c = { t, calloc (t->nfunctions + 1, sizeof *c.counts) };
  int status = c.counts ? 0 : -1;
  for (uint32_t u = 0; u < t->nunits && status == 0; u++)
    for (uint32_t f = 0; f < t->units[u].notes.nfunctions && status == 0; f++)
      {
	uint32_t n = t->units[u].notes.functions[f].nedges;
	c.counts[t->units[u].first + f] = calloc (n + 1, sizeof **c.counts);
	if (!c.counts[t->units[u].first + f])
	  status = -1;
      }
  if (status)
    snprintf (err, errlen, "out of memory");
  for (uint32_t i = 0; i < t->nthreads && status == 0; i++)
    status = trace_file_regen (t, i, count_edge, &c, err, errlen);
  /* Each unit as edge-counts: a counter on every edge that can carry one.  */
  for (uint32_t u = 0; u < t->nunits && status == 0; u++)
    {
      trace_unit *tu = &t->units[u];
      pp_unit_notes n;
      char why[200];
      if (pp_notes_decode (tu->raw_notes, tu->raw_len, &n, why, sizeof why))
	{
	  snprintf (err, errlen, "unit %s: %s", tu->name, why);
	  status = -1;
	  break;
	}
      n.mode = PP_MODE_EDGE_COUNTS;
      uint32_t nvalues = 0;
      for (uint32_t f = 0; f < n.nfunctions; f++)
	{
	  pp_function_notes *fn = &n.functions[f];
	  fn->value_offset = nvalues;
	  fn->nvalues = 0;
	  for (uint32_t e = 0; e < fn->nedges; e++)
	    fn->edges[e].value = fn->edges[e].flags & PP_EDGE_PINNED
				 ? -1 : (int32_t) fn->nvalues++;
	  nvalues += fn->nvalues;
	}
      uint64_t *values = calloc (nvalues + 1, sizeof *values);
      unsigned char *raw = NULL;
      size_t raw_len = 0;
      if (!values || pp_notes_encode (&n, &raw, &raw_len))
	{
	  snprintf (err, errlen, "out of memory");
	  status = -1;
	}
      for (uint32_t f = 0; status == 0 && f < n.nfunctions; f++)
	{
	  const pp_function_notes *fn = &n.functions[f];
	  for (uint32_t e = 0; e < fn->nedges; e++)
	    if (fn->edges[e].value >= 0)
	      values[fn->value_offset + (uint32_t) fn->edges[e].value]
		= c.counts[tu->first + f][e];
	}
      if (status == 0)
	{
	  pp_unit_data d = { .name = tu->name, .runs = 1, .notes_len = (uint32_t) raw_len,
			     .notes = raw, .value_kind = PP_VALUES_U64,
			     .nvalues = nvalues, .values = values };
	  d.checksum = pp_hash64 (raw, raw_len, PP_HASH_SEED);
	  if (pp_profile_add_unit (p, &d, why, sizeof why))
	    {
	      snprintf (err, errlen, "unit %s: %s", tu->name, why);
	      status = -1;
	    }
	}
      free (raw);
      free (values);
      pp_notes_free (&n);
    }
  for (uint32_t i = 0; c.counts && i < t->nfunctions; i++)
    free (c.counts[i]);
  free (c.counts);
  if (status)
    pp_profile_free (p);
  return status;
}
