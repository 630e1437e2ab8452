/* Trace files: reading, regeneration and edge counts (trace-file.h).  Every
   length and index of the file is checked before use: a truncated or damaged
   trace is refused with the byte or bit where it goes wrong.  */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "hash.h"
#include "modes.h"
#include "trace-file.h"
#include "trace-pack.h"

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

/* Appends a segment of nbits bits at byte offset of file to the thread.  */
static int
add_segment (trace_thread *th, uint32_t file, uint64_t offset, uint64_t nbits)
{
  if (nbits == 0)
    return 0;
  if (PP_RESERVE (th->segs, th->segcap, (size_t) th->nsegs + 1, 16))
    return -1;
  th->segs[th->nsegs++] = (trace_segment) { file, offset, nbits };
  th->nbits += nbits;
  return 0;
}

/* The number of path in t->files, added if new; UINT32_MAX when out of
   memory.  */
static uint32_t
file_number (trace_file *t, const char *path)
{
  for (uint32_t i = 0; i < t->nfiles; i++)
    if (strcmp (t->files[i], path) == 0)
      return i;
  char **f = realloc (t->files, (t->nfiles + 1) * sizeof *f);
  if (!f)
    return UINT32_MAX;
  t->files = f;
  if (!(f[t->nfiles] = strdup (path)))
    return UINT32_MAX;
  return t->nfiles++;
}

/* Reads len bytes at offset of fd into buf; 0, or -1 (short or failed).  */
static int
read_at (int fd, void *buf, size_t len, uint64_t offset)
{
  for (size_t done = 0; done < len;)
    {
      ssize_t n = pread (fd, (char *) buf + done, len - done, (off_t) (offset + done));
      if (n < 0 && errno == EINTR)
	continue;
      if (n <= 0)
	return -1;
      done += (size_t) n;
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
  const pp_mode_info *mode = pp_mode_lookup (u->notes.mode);
  if (!mode || !mode->traced)
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
      u->functions[f].unit = t->nunits - 1;
      if (rc == -2)
	return snprintf (err, errlen, "unit %s, function %s: its witnesses do not "
			 "trace its graph", u->name, fn->name), -1;
      if (rc)
	return snprintf (err, errlen, "out of memory"), -1;
    }
  /* The direct calls, once every callee is there.  The unit numbers its
     call sites 0, 1, ... (regeneration keeps a slot per number: a larger
     one, in damaged notes, would take memory for nothing).  */
  uint64_t nsites = 0;
  for (uint32_t f = 0; f < n; f++)
    for (uint32_t k = 0; k < u->notes.functions[f].ndirect; k++)
      nsites += (u->notes.functions[f].direct[k].callee & PP_TRACE_SITE) != 0;
  for (uint32_t f = 0; f < n; f++)
    {
      const pp_function_notes *fn = &u->notes.functions[f];
      for (uint32_t k = 0; k < fn->ndirect; k++)
	if (fn->direct[k].callee & PP_TRACE_SITE
	    && (fn->direct[k].callee & PP_TRACE_SITE_NUMBER) >= nsites)
	  return snprintf (err, errlen, "unit %s, function %s: call site %u of %llu",
			   u->name, fn->name, fn->direct[k].callee & PP_TRACE_SITE_NUMBER,
			   (unsigned long long) nsites), -1;
    }
  for (uint32_t f = 0; f < n; f++)
    {
      const pp_function_notes *fn = &u->notes.functions[f];
      uint32_t *block = malloc ((fn->ndirect + 1) * sizeof *block);
      pp_trace_callee *callee = malloc ((fn->ndirect + 1) * sizeof *callee);
      int rc = -1;
      if (block && callee)
	{
	  for (uint32_t k = 0; k < fn->ndirect; k++)
	    {
	      block[k] = fn->direct[k].block;
	      uint32_t c = fn->direct[k].callee;
	      callee[k] = c & PP_TRACE_SITE ? (pp_trace_callee) { NULL, c }
			  : (pp_trace_callee) { &u->functions[c], u->first + c };
	    }
	  rc = pp_trace_function_direct (&u->functions[f], fn->ndirect, block, callee);
	}
      free (block);
      free (callee);
      if (rc == -2)
	return snprintf (err, errlen, "unit %s, function %s: its direct calls do not "
			 "fit its graph (a block without calls, or a callee "
			 "wider than %u bits)", u->name, fn->name, PP_TRACE_DIRECT_WIDTH), -1;
      if (rc)
	return snprintf (err, errlen, "out of memory"), -1;
    }
  return 0;
}

/* Indexes the chunks of the trace at path: its units (unless prefix_only)
   and where each thread's records are, or with prefix_only only the first
   want_bits bits of thread want_thread, into `into` (a forked child's
   records begin with those of its parent).  */
static int
read_into (const char *path, trace_file *t, bool prefix_only, uint32_t want_thread,
	   uint64_t want_bits, trace_thread *into, unsigned depth, char *err,
	   size_t errlen)
{
  if (depth > 64)
    return snprintf (err, errlen, "%s: too many forks deep", path), -1;
  uint32_t file = file_number (t, path);
  if (file == UINT32_MAX)
    return snprintf (err, errlen, "out of memory"), -1;
  int fd = open (path, O_RDONLY);
  if (fd < 0)
    return snprintf (err, errlen, "%s: %s", path, strerror (errno)), -1;
  struct stat st;
  unsigned char head[HEADER_BYTES];
  int status = -1;
  char why[400] = "";
  uint64_t len = 0;
  if (fstat (fd, &st) != 0)
    snprintf (why, sizeof why, "cannot read it");
  else if ((len = (uint64_t) st.st_size) < HEADER_BYTES
	   || read_at (fd, head, HEADER_BYTES, 0) || memcmp (head, "PPTRACE", 8) != 0)
    snprintf (why, sizeof why, "not a pathprof trace");
  else if (get32 (head + 8) != PP_TRACE_FILE_VERSION)
    snprintf (why, sizeof why, "trace format version %u (this pathprof reads %u)",
	      get32 (head + 8), PP_TRACE_FILE_VERSION);
  else
    {
      uint64_t at = HEADER_BYTES;
      status = 0;
      if (!prefix_only)
	t->pid = get64 (head + 16);
      while (at < len && status == 0)
	{
	  unsigned char ch[32];
	  uint64_t avail = len - at < 32 ? len - at : 32;
	  if (avail < 16 || read_at (fd, ch, (size_t) avail, at)
	      || get64 (ch + 8) > len - at - 16)
	    {
	      snprintf (why, sizeof why, "truncated chunk at byte %llu",
			(unsigned long long) at);
	      status = -1;
	      break;
	    }
	  uint32_t kind = get32 (ch);
	  uint64_t clen = get64 (ch + 8);
	  if (kind == PP_TRACE_CHUNK_RECORDS)
	    {
	      uint64_t nbits = clen >= 16 ? get64 (ch + 24) : UINT64_MAX;
	      uint32_t id = clen >= 16 ? get32 (ch + 16) : 0;
	      trace_thread *th = prefix_only ? (id == want_thread ? into : NULL)
					     : find_thread (t, id);
	      if (nbits == UINT64_MAX || (nbits + 63) / 64 * 8 > clen - 16)
		{
		  snprintf (why, sizeof why, "records beyond their chunk at byte %llu",
			    (unsigned long long) at);
		  status = -1;
		}
	      else if (th)
		{
		  if (prefix_only && into->nbits + nbits > want_bits)
		    nbits = want_bits - into->nbits;
		  if (add_segment (th, file, at + 32, nbits))
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
	  else if (kind == PP_TRACE_CHUNK_PACKED)
	    {
	      uint32_t id = clen >= 16 ? get32 (ch + 16) : 0;
	      trace_thread *th = prefix_only ? (id == want_thread ? into : NULL)
					     : find_thread (t, id);
	      if (clen < 16)
		snprintf (why, sizeof why, "a damaged packed chunk at byte %llu",
			  (unsigned long long) at);
	      else if (prefix_only && !th)
		;		/* another thread's, in a fork's parent */
	      else if (prefix_only)
		snprintf (why, sizeof why, "thread %u is packed: a forked child's "
			  "trace reads its parent's records raw (pack the child's "
			  "trace first, or unpack this one)", id);
	      else if (!th)
		snprintf (why, sizeof why, "out of memory");
	      else if (th->nsegs || th->packed)
		snprintf (why, sizeof why, "thread %u has records in two chunks, "
			  "one of them packed", id);
	      else
		{
		  th->packed = true;
		  th->packed_file = file;
		  th->packed_model = get32 (ch + 20);
		  th->nbits = get64 (ch + 24);
		  th->packed_offset = at + 32;
		  th->packed_bytes = clen - 16;
		  t->packed_bytes += clen - 16;
		  if (!pp_pack_model_known (th->packed_model))
		    snprintf (why, sizeof why, "thread %u is packed in model %u.%u "
			      "(this pathprof reads %u)", id, th->packed_model >> 8,
			      th->packed_model & 0xff, PP_PACK_MODEL_VERSION);
		}
	      if (why[0])
		status = -1;
	    }
	  else if (kind == PP_TRACE_CHUNK_UNIT && prefix_only)
	    ;
	  else if (kind == PP_TRACE_CHUNK_UNIT || kind == PP_TRACE_CHUNK_FORK)
	    {
	      unsigned char *p = malloc (clen ? (size_t) clen : 1);
	      if (!p || clen > SIZE_MAX || read_at (fd, p, (size_t) clen, at + 16))
		{
		  snprintf (why, sizeof why, p ? "cannot read the chunk at byte %llu"
			    : "out of memory", (unsigned long long) at);
		  status = -1;
		}
	      else if (kind == PP_TRACE_CHUNK_UNIT)
		status = add_unit (t, p, clen, why, sizeof why);
	      else if (clen < 24 || get32 (p + 4) > clen - 24)
		{
		  snprintf (why, sizeof why, "a damaged fork chunk at byte %llu",
			    (unsigned long long) at);
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
	      free (p);
	    }
	  else
	    {
	      snprintf (why, sizeof why, "unknown chunk kind %u at byte %llu", kind,
			(unsigned long long) at);
	      status = -1;
	    }
	  if (prefix_only && into->nbits >= want_bits)
	    break;
	  at += 16 + clen;
	}
    }
  close (fd);
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
    free (t->threads[i].segs);
  free (t->threads);
  for (uint32_t i = 0; i < t->nfiles; i++)
    free (t->files[i]);
  free (t->files);
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

static pp_trace_function *
lookup (void *ctx, uint64_t unit, uint64_t function, uint32_t *id)
{
  trace_file *t = ctx;
  if (unit >= t->nunits || function >= t->units[unit].notes.nfunctions)
    return NULL;
  *id = t->units[unit].first + (uint32_t) function;
  return &t->units[unit].functions[function];
}

/* A thread's records, a segment at a time (pp_trace_bits.more).  */
struct stream
{
  trace_file *t;
  trace_thread *th;
  uint32_t next;		/* segment */
  int fd;
  uint32_t fd_file;
  uint64_t *words;
  size_t cap;			/* words */
  unsigned char *raw;
  size_t raw_cap;
  char err[300];
};

static int
more_records (pp_trace_bits *b)
{
  struct stream *s = b->ctx;
  if (s->next == s->th->nsegs)
    return 0;
  const trace_segment *seg = &s->th->segs[s->next];
  if (s->fd < 0 || s->fd_file != seg->file)
    {
      if (s->fd >= 0)
	close (s->fd);
      s->fd_file = seg->file;
      s->fd = open (s->t->files[seg->file], O_RDONLY);
      if (s->fd < 0)
	{
	  snprintf (s->err, sizeof s->err, "%s: %s", s->t->files[seg->file],
		    strerror (errno));
	  return -1;
	}
    }
  /* Keep the words from the one holding mark on, at the front.  */
  uint64_t drop = b->mark / 64, kept = (b->nbits + 63) / 64 - drop;
  uint64_t nbytes = (seg->nbits + 63) / 64 * 8;
  uint64_t need = kept + nbytes / 8 + 2;
  if (need > s->cap || nbytes > s->raw_cap)
    {
      uint64_t *w = need > s->cap ? realloc (s->words, need * sizeof *w) : s->words;
      unsigned char *r = nbytes > s->raw_cap ? realloc (s->raw, nbytes) : s->raw;
      if (w)
	s->words = w, s->cap = need > s->cap ? need : s->cap;
      if (r)
	s->raw = r, s->raw_cap = nbytes > s->raw_cap ? nbytes : s->raw_cap;
      if (!w || !r)
	{
	  snprintf (s->err, sizeof s->err, "out of memory");
	  return -1;
	}
      b->words = s->words;
    }
  if (read_at (s->fd, s->raw, nbytes, seg->offset))
    {
      snprintf (s->err, sizeof s->err, "%s: cannot read the records at byte %llu",
		s->t->files[seg->file], (unsigned long long) seg->offset);
      return -1;
    }
  memmove (s->words, s->words + drop, kept * sizeof *s->words);
  b->base += drop * 64;
  b->pos -= drop * 64;
  b->mark -= drop * 64;
  b->nbits -= drop * 64;
  memset (s->words + kept, 0, (s->cap - kept) * sizeof *s->words);
  if (kept)
    s->words[kept - 1] &= b->nbits % 64 ? ((uint64_t) 1 << (b->nbits % 64)) - 1
			  : ~(uint64_t) 0;
  unsigned off = (unsigned) (b->nbits % 64);
  uint64_t at = b->nbits / 64;
  for (uint64_t i = 0; i < nbytes / 8; i++)
    {
      uint64_t v = get64 (s->raw + 8 * i);
      uint64_t n = seg->nbits - 64 * i;
      if (n < 64)
	v &= ((uint64_t) 1 << n) - 1;
      s->words[at + i] |= v << off;
      if (off)
	s->words[at + i + 1] |= v >> (64 - off);
    }
  b->nbits += seg->nbits;
  s->next++;
  return 1;
}

/* ---- Packed threads (corelib/trace-pack.h).  A thread's records come
   lazily, as many bits as regeneration asks for at a time, from the raw
   records (to pack them) or from the coded bytes (to read or unpack them),
   and go to an encoder (packing), to a writer of raw records (unpacking),
   or only to regeneration.  */

struct coded_in			/* the coded bytes of a packed thread */
{
  int fd;
  uint64_t at, end;
  char *err;
  size_t errlen;
  const char *path;
};

static int
get_coded (void *ctx, unsigned char *buf, size_t cap)
{
  struct coded_in *c = ctx;
  size_t n = c->end - c->at < cap ? (size_t) (c->end - c->at) : cap;
  if (n && read_at (c->fd, buf, n, c->at))
    {
      snprintf (c->err, c->errlen, "%s: cannot read the packed records at byte %llu",
		c->path, (unsigned long long) c->at);
      return -1;
    }
  c->at += n;
  return (int) n;
}

static void
put_le (FILE *f, uint64_t v, int n)
{
  for (int i = 0; i < n; i++)
    putc ((int) (v >> 8 * i) & 0xff, f);
}

struct raw_out			/* a RECORDS chunk's words, as they come */
{
  FILE *f;
  uint64_t word;
  unsigned nbits;
};

static void
put_raw (void *ctx, uint64_t v, unsigned n)
{
  struct raw_out *o = ctx;
  o->word |= v << o->nbits;
  if (o->nbits + n < 64)
    {
      o->nbits += n;
      return;
    }
  put_le (o->f, o->word, 8);
  unsigned used = 64 - o->nbits;
  o->word = used < 64 ? v >> used : 0;
  o->nbits = n - used;
}

/* Sets z up to decode packed thread th (in's err gets what is wrong).  */
static int
open_packed (trace_file *t, trace_thread *th, pp_pack_stream *z, pp_pack_decoder *dec,
	     struct coded_in *in)
{
  in->path = t->files[th->packed_file];
  in->at = th->packed_offset;
  in->end = th->packed_offset + th->packed_bytes;
  in->fd = open (in->path, O_RDONLY);
  if (in->fd < 0)
    return snprintf (in->err, in->errlen, "%s: %s", in->path, strerror (errno)), -1;
  if (pp_pack_model_init (&z->in, th->packed_model))
    return snprintf (in->err, in->errlen, "out of memory"), -1;
  pp_pack_decoder_init (dec, get_coded, in);
  z->dec = dec;
  return 0;
}

static void
close_streams (struct stream *s, pp_pack_stream *z, struct coded_in *in)
{
  if (s->fd >= 0)
    close (s->fd);
  if (in->fd >= 0)
    close (in->fd);
  pp_pack_stream_free (z);
  free (s->words);
  free (s->raw);
}

static int
regen (trace_file *t, uint32_t i,
       void (*event) (void *, enum pp_trace_ev, size_t, uint32_t, uint32_t),
       pp_trace_run_fn *run,
       void *ctx, bool no_blocks, char *err, size_t errlen)
{
  pp_trace_regen_ops ops = { ctx, lookup, event, t, no_blocks, &t->stats, run };
  trace_thread *th = &t->threads[i];
  struct stream s = { .t = t, .th = th, .fd = -1 };
  pp_trace_bits b = { .more = more_records, .ctx = &s };
  pp_pack_stream z = { .left = th->nbits };
  pp_pack_decoder dec;
  struct coded_in in = { .fd = -1, .err = s.err, .errlen = sizeof s.err };
  char why[200];
  int status = -1;
  if (th->packed && open_packed (t, th, &z, &dec, &in) == 0)
    b = (pp_trace_bits) { .more = pp_pack_more, .ctx = &z, .lazy = true };
  if (!s.err[0])
    status = pp_trace_regen (&b, &ops, why, sizeof why);
  /* Regeneration that fails once the decoder has read past the coded bytes
     (a valid stream's last bits read one byte past them) read zeros: the
     records claimed more bits than the bytes hold.  */
  if (status && (z.failed || (z.dec && z.dec->past)) && !s.err[0])
    snprintf (why, sizeof why, "its packed records end before their %llu bits "
	      "(a damaged file)", (unsigned long long) th->nbits);
  if (status)
    snprintf (err, errlen, "thread %u: %s", th->id, s.err[0] ? s.err : why);
  close_streams (&s, &z, &in);
  return status ? -1 : 0;
}

int
trace_file_regen (trace_file *t, uint32_t i,
		  void (*event) (void *, enum pp_trace_ev, size_t, uint32_t, uint32_t),
		  void *ctx, char *err, size_t errlen)
{
  return regen (t, i, event, NULL, ctx, false, err, errlen);
}

int
trace_file_regen_edges (trace_file *t, uint32_t i,
			void (*event) (void *, enum pp_trace_ev, size_t, uint32_t,
				       uint32_t),
			pp_trace_run_fn *run,
			void *ctx, char *err, size_t errlen)
{
  return regen (t, i, event, run, ctx, true, err, errlen);
}

/* ---- Packing and unpacking.  */

static int
put_file (void *ctx, const unsigned char *bytes, size_t n)
{
  return fwrite (bytes, 1, n, ctx) == n ? 0 : -1;
}

static void
no_event (void *ctx, enum pp_trace_ev ev, size_t depth, uint32_t id, uint32_t x)
{
  (void) ctx, (void) ev, (void) depth, (void) id, (void) x;
}

/* Writes thread i to f, packed or as raw records; *bytes gets the coded or
   raw bytes written.  Returns 0, or -1 with err.  */
static int
pack_thread (trace_file *t, uint32_t i, FILE *f, bool unpack, uint64_t *bytes,
	     char *err, size_t errlen)
{
  trace_thread *th = &t->threads[i];
  struct stream s = { .t = t, .th = th, .fd = -1 };
  pp_trace_bits raw = { .more = more_records, .ctx = &s };
  pp_pack_stream z = { .left = th->nbits };
  pp_pack_decoder dec;
  pp_pack_encoder enc;
  struct raw_out out = { .f = f };
  struct coded_in in = { .fd = -1, .err = s.err, .errlen = sizeof s.err };
  uint32_t word = pp_pack_model_word (th->nbits);
  uint64_t words = (th->nbits + 63) / 64;
  off_t chunk = ftello (f);
  put_le (f, unpack ? PP_TRACE_CHUNK_RECORDS : PP_TRACE_CHUNK_PACKED, 4);
  put_le (f, 0, 4);
  put_le (f, unpack ? 16 + 8 * words : 0, 8);	/* packed: known at the end */
  put_le (f, th->id, 4);
  put_le (f, unpack ? 0 : word, 4);
  put_le (f, th->nbits, 8);
  if (th->packed ? open_packed (t, th, &z, &dec, &in) == 0 : (z.raw = &raw, 1))
    {
      if (unpack)
	{
	  z.put = put_raw;
	  z.put_ctx = &out;
	}
      else if (pp_pack_model_init (&z.out, word))
	snprintf (s.err, sizeof s.err, "out of memory");
      else
	{
	  pp_pack_encoder_init (&enc, put_file, f);
	  z.enc = &enc;
	}
    }
  pp_trace_regen_ops ops = { NULL, lookup, no_event, t, true, NULL, NULL };
  if (!s.err[0] && pp_pack_transcode (&z, &ops) && !s.err[0])
    snprintf (s.err, sizeof s.err, "thread %u: its records end before their "
	      "length", th->id);
  if (!s.err[0] && z.enc)
    {
      if (pp_pack_encoder_finish (&enc) == 0)
	{
	  off_t end = ftello (f);
	  fseeko (f, chunk + 8, SEEK_SET);
	  put_le (f, 16 + enc.bytes, 8);
	  fseeko (f, end, SEEK_SET);
	}
      *bytes += enc.bytes;
    }
  if (!s.err[0] && z.put)
    {
      if (out.nbits)
	put_le (f, out.word, 8);
      *bytes += 8 * words;
    }
  if (s.err[0])
    snprintf (err, errlen, "%s", s.err);
  close_streams (&s, &z, &in);
  return s.err[0] ? -1 : 0;
}

int
trace_file_pack (trace_file *t, const char *path, bool unpack, uint64_t *bytes,
		 char *err, size_t errlen)
{
  *bytes = 0;
  /* Not over a file the records are read from as they are written.  */
  struct stat out;
  for (uint32_t i = 0; i < t->nfiles && stat (path, &out) == 0; i++)
    {
      struct stat in;
      if (stat (t->files[i], &in) == 0 && in.st_dev == out.st_dev
	  && in.st_ino == out.st_ino)
	return snprintf (err, errlen, "%s: is a trace being read (%s): write "
			 "elsewhere", path, t->files[i]), -1;
    }
  FILE *f = fopen (path, "wb");
  if (!f)
    return snprintf (err, errlen, "%s: %s", path, strerror (errno)), -1;
  fwrite ("PPTRACE", 1, 8, f);
  put_le (f, PP_TRACE_FILE_VERSION, 4);
  put_le (f, 0, 4);
  put_le (f, t->pid, 8);
  put_le (f, 0, 8);
  for (uint32_t u = 0; u < t->nunits; u++)
    {
      const trace_unit *tu = &t->units[u];
      size_t name_len = strlen (tu->name);
      put_le (f, PP_TRACE_CHUNK_UNIT, 4);
      put_le (f, 0, 4);
      put_le (f, 12 + name_len + tu->raw_len, 8);
      put_le (f, u, 4);
      put_le (f, name_len, 4);
      fwrite (tu->name, 1, name_len, f);
      put_le (f, tu->raw_len, 4);
      fwrite (tu->raw_notes, 1, tu->raw_len, f);
    }
  int status = 0;
  for (uint32_t i = 0; i < t->nthreads && status == 0; i++)
    status = pack_thread (t, i, f, unpack, bytes, err, errlen);
  bool bad = ferror (f);
  if ((fclose (f) != 0 || bad) && status == 0)
    {
      snprintf (err, errlen, "%s: %s", path, bad ? "cannot write it" : strerror (errno));
      status = -1;
    }
  if (status)
    unlink (path);
  return status;
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
