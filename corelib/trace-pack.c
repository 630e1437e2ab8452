/* Packed traces: the model and the range coder (trace-pack.h).  */

#include <string.h>

#include "alloc.h"
#include "hash.h"
#include "trace-pack.h"
#include "trace.h"

#define TOP ((uint32_t) 1 << 24)

uint32_t
pp_pack_model_word (uint64_t nbits)
{
  /* About one entry a coded bit for short streams, at most 2^MAX_LOG2.  */
  unsigned log2 = PP_PACK_MIN_LOG2;
  while (log2 < PP_PACK_MAX_LOG2 && ((uint64_t) 1 << log2) < nbits)
    log2++;
  return PP_PACK_MODEL_VERSION << 8 | log2;
}

int
pp_pack_model_init (pp_pack_model *m, uint32_t word)
{
  m->p = NULL;
  m->log2 = word & 0xff;
  if (!pp_pack_model_known (word))
    return -1;
  /* An entry holds P(1) xor one half, so that zeros are the first state.  */
  m->p = pp_calloc ((size_t) 1 << m->log2, sizeof *m->p);
  return m->p ? 0 : -1;
}

void
pp_pack_model_free (pp_pack_model *m)
{
  pp_free (m->p);
  m->p = NULL;
}

/* 65536 / (n + 1.5): the adaptation rate of an entry used n times.  */
static const uint16_t rate[PP_PACK_RATE_LIMIT + 1] = {
  43690, 26214, 18724, 14563, 11915, 10082, 8738, 7710, 6898, 6241, 5698,
  5242, 4854, 4519, 4228, 3971, 3744, 3542, 3360, 3196, 3048, 2912, 2788,
  2674, 2570, 2473, 2383, 2299, 2221, 2148, 2080
};

/* Where the entries of a request of hash h begin, and the table's mask:
   the entry for bit i of a request whose bits so far make node is
   p[(base + node) & mask], a request's entries together (a witness's tree
   in a few cache lines).  The coders keep both, and their own state, in
   locals: every entry they store is a uint32_t, which could alias the
   model's and the coder's fields, and the compiler would read those again
   for every bit (82 instructions a decoded bit; 65 in locals).  */
static inline size_t
entries_base (const pp_pack_model *m, uint64_t h)
{
  return (size_t) (h >> (64 - m->log2));
}

static inline size_t
entries_mask (const pp_pack_model *m)
{
  return ((size_t) 1 << m->log2) - 1;
}

/* P(1) in 16 bits, kept off both ends so that both outcomes stay codable.  */
static inline uint32_t
prob (uint32_t e)
{
  uint32_t p = (e >> 16) ^ 0x8000;
  return p < 32 ? 32 : p > 65504 ? 65504 : p;
}

static inline void
update (uint32_t *e, unsigned bit)
{
  uint32_t p = (*e >> 16) ^ 0x8000, n = *e & 0xffff;
  uint32_t r = rate[n];
  if (bit)
    p += ((65536 - p) * r) >> 16;	/* stays below 65536, as r does */
  else
    p -= (p * r) >> 16;
  if (n < PP_PACK_RATE_LIMIT)
    n++;
  *e = (p ^ 0x8000) << 16 | n;
}

/* The node of bit i of a request, from NODE, which is 1 for bit 0 and
   after each bit b twice the node before plus b: that tree for the first
   16 bits, then a node of its own per bit.  */
static inline uint32_t
node_of (uint32_t node, unsigned i)
{
  return i < 16 ? node : (uint32_t) 1 << 17 | i;
}

/* ---- Encoding.  */

void
pp_pack_encoder_init (pp_pack_encoder *e,
		      int (*put) (void *ctx, const unsigned char *bytes, size_t n),
		      void *ctx)
{
  memset (e, 0, sizeof *e);
  e->range = UINT32_MAX;
  e->pending = 1;
  e->put = put;
  e->ctx = ctx;
}

static void
out_byte (pp_pack_encoder *e, unsigned char c)
{
  e->buf[e->nbuf++] = c;
  if (e->nbuf == sizeof e->buf)
    {
      if (!e->failed && e->put (e->ctx, e->buf, e->nbuf))
	e->failed = true;
      e->bytes += e->nbuf;
      e->nbuf = 0;
    }
}

static void
shift_low (pp_pack_encoder *e)
{
  if ((uint32_t) e->low < 0xff000000u || (e->low >> 32) != 0)
    {
      unsigned char carry = (unsigned char) (e->low >> 32);
      unsigned char c = e->cache;
      do
	{
	  out_byte (e, (unsigned char) (c + carry));
	  c = 0xff;
	}
      while (--e->pending != 0);
      e->cache = (uint8_t) (e->low >> 24);
    }
  e->pending++;
  e->low = (e->low & 0x00ffffffu) << 8;
}

void
pp_pack_encode (pp_pack_encoder *e, pp_pack_model *m, uint64_t context,
		uint64_t v, unsigned n)
{
  uint64_t h = pp_mix64 (context ^ (uint64_t) n << 56);
  uint32_t *tab = m->p, node = 1, range = e->range;
  size_t base = entries_base (m, h), mask = entries_mask (m);
  for (unsigned i = 0; i < n; i++)
    {
      unsigned bit = (unsigned) (v >> i) & 1;
      node = node_of (node, i);
      uint32_t *p = &tab[(base + node) & mask];
      uint32_t bound = (range >> 16) * prob (*p);
      if (bit)
	range = bound;
      else
	{
	  e->low += bound;
	  range -= bound;
	}
      while (range < TOP)
	{
	  range <<= 8;
	  shift_low (e);
	}
      update (p, bit);
      node = node * 2 + bit;
    }
  e->range = range;
}

int
pp_pack_encoder_finish (pp_pack_encoder *e)
{
  for (int i = 0; i < 5; i++)
    shift_low (e);
  if (e->nbuf && !e->failed && e->put (e->ctx, e->buf, e->nbuf))
    e->failed = true;
  e->bytes += e->nbuf;
  e->nbuf = 0;
  return e->failed ? -1 : 0;
}

/* ---- Decoding.  */

/* in_byte's other way: the buffer read again (out of line, so that the
   decoder's loop keeps its registers).  */
static __attribute__ ((noinline)) unsigned char
in_byte_refill (pp_pack_decoder *d)
{
  int n = d->failed ? 0 : d->get (d->ctx, d->buf, sizeof d->buf);
  if (n < 0)
    d->failed = true;
  d->nbuf = n > 0 ? (size_t) n : 0;
  d->at = 0;
  if (d->nbuf == 0)
    {
      if (++d->past > 5)
	d->failed = true;
      return 0;
    }
  return d->buf[d->at++];
}

static inline unsigned char
in_byte (pp_pack_decoder *d)
{
  if (__builtin_expect (d->at == d->nbuf, 0))
    return in_byte_refill (d);
  return d->buf[d->at++];
}

void
pp_pack_decoder_init (pp_pack_decoder *d,
		      int (*get) (void *ctx, unsigned char *buf, size_t cap),
		      void *ctx)
{
  memset (d, 0, sizeof *d);
  d->get = get;
  d->ctx = ctx;
  d->range = UINT32_MAX;
  for (int i = 0; i < 5; i++)
    d->code = d->code << 8 | in_byte (d);
}

uint64_t
pp_pack_decode (pp_pack_decoder *d, pp_pack_model *m, uint64_t context, unsigned n)
{
  uint64_t h = pp_mix64 (context ^ (uint64_t) n << 56), v = 0;
  uint32_t *tab = m->p, node = 1, range = d->range, code = d->code;
  size_t base = entries_base (m, h), mask = entries_mask (m);
  for (unsigned i = 0; i < n; i++)
    {
      node = node_of (node, i);
      uint32_t *p = &tab[(base + node) & mask];
      uint32_t bound = (range >> 16) * prob (*p);
      unsigned bit;
      if (code < bound)
	{
	  range = bound;
	  bit = 1;
	}
      else
	{
	  code -= bound;
	  range -= bound;
	  bit = 0;
	}
      while (range < TOP)
	{
	  range <<= 8;
	  code = code << 8 | in_byte (d);
	}
      update (p, bit);
      v |= (uint64_t) bit << i;
      node = node * 2 + bit;
    }
  d->range = range;
  d->code = code;
  return v;
}

/* ---- Streams.  */

/* The next n <= 64 bits of the thread, coded in context (in line: reading
   a packed trace, most of pathprof-hw's work, is a request at a time).  */
static inline __attribute__ ((always_inline)) uint64_t
supply (pp_pack_stream *z, uint64_t context, unsigned n)
{
  uint64_t v = 0;
  if (z->raw)
    {
      z->raw->mark = z->raw->pos;
      if (pp_trace_get (z->raw, n, &v))
	z->failed = true;
    }
  else
    {
      v = pp_pack_decode (z->dec, &z->in, context, n);
      z->failed |= z->dec->failed;
    }
  if (z->enc)
    pp_pack_encode (z->enc, &z->out, context, v, n);
  if (z->put)
    z->put (z->put_ctx, v, n);
  z->left -= n;
  return v;
}

int
pp_pack_more (pp_trace_bits *b)
{
  pp_pack_stream *z = b->ctx;
  if (z->left == 0 || z->failed)
    return z->failed ? -1 : 0;
  unsigned n = b->want ? b->want : 1;
  if (n > 64)
    n = 64;
  if (n > z->left)
    n = (unsigned) z->left;
  /* Keep the words from the one holding mark on; room for n bits and a
     word after them.  */
  uint64_t need = (b->nbits + n + 63) / 64 + 2;
  if (need > z->cap)
    {
      uint64_t keep = b->mark < b->pos ? b->mark : b->pos;
      uint64_t drop = (keep < b->nbits ? keep : b->nbits) / 64;
      uint64_t kept = (b->nbits + 63) / 64 - drop;
      if (drop)
	{
	  memmove (z->words, z->words + drop, kept * sizeof *z->words);
	  memset (z->words + kept, 0, (z->cap - kept) * sizeof *z->words);
	  b->base += drop * 64;
	  b->pos -= drop * 64;
	  b->mark -= drop * 64;
	  b->nbits -= drop * 64;
	  need -= drop;
	}
      if (need > z->cap)
	{
	  size_t cap = z->cap ? 2 * z->cap : 16;
	  while (cap < need)
	    cap *= 2;
	  uint64_t *w = pp_realloc (z->words, cap * sizeof *w);
	  if (!w)
	    {
	      z->failed = true;
	      return -1;
	    }
	  memset (w + z->cap, 0, (cap - z->cap) * sizeof *w);
	  z->words = w;
	  z->cap = cap;
	}
      b->words = z->words;
    }
  uint64_t v = supply (z, b->model, n);
  if (z->failed)
    return -1;
  b->model = pp_pack_next_context (b->model);
  uint64_t at = b->nbits / 64;
  unsigned off = (unsigned) (b->nbits % 64);
  z->words[at] |= v << off;
  if (off && off + n > 64)
    z->words[at + 1] |= v >> (64 - off);
  b->nbits += n;
  return 1;
}

/* The context of the bits regeneration did not ask for.  */
#define TRAILING_CONTEXT UINT64_MAX

int
pp_pack_transcode (pp_pack_stream *z, const pp_trace_regen_ops *ops)
{
  pp_trace_bits b = { .more = pp_pack_more, .ctx = z, .lazy = true };
  char why[200];
  pp_trace_regen (&b, ops, why, sizeof why);
  while (z->left && !z->failed)
    supply (z, TRAILING_CONTEXT, z->left < 64 ? (unsigned) z->left : 64);
  return z->failed ? -1 : 0;
}

void
pp_pack_stream_free (pp_pack_stream *z)
{
  pp_pack_model_free (&z->in);
  pp_pack_model_free (&z->out);
  pp_free (z->words);
  z->words = NULL;
  z->cap = 0;
}
