/* Packed traces: a thread's records coded with an adaptive binary model whose
   contexts regeneration chooses (pathprof trace --pack; trace.h has the raw
   format, DESIGN.md "Packed traces" the measurements).

   Why regeneration chooses the contexts.  A raw record is a witness in its
   function's fixed width (or a control record); which witness comes next
   depends mostly on where the walk stands: the function and the decision
   point (block or witnessed edge) it waits at, a call's callee for what
   follows a call.  Only regeneration knows that, and it knows it from the
   bits before.  So packing runs regeneration on the raw stream and codes each
   bit the first time regeneration asks for it, in the context regeneration
   set (pp_trace_bits.model); unpacking runs the same regeneration on the
   decoded stream, which asks for the same bits in the same contexts, and
   decodes each as it is asked for.  The two sides agree because regeneration
   is deterministic in the bits it has read; the coder does not need to know
   what a record is.  Bits regeneration never asks for (after an error, or a
   killed process's partial record) are coded last, in a context of their
   own, so that unpacking gives back the stream bit for bit.

   The model.  A request of n bits in context c codes its bits first to last,
   each with the probability kept for (c, n, the bits of the request so far)
   for the first 16 (a binary tree over the request's values), for the bits
   past those (c, n, their index).  Probabilities live in one table of 2^k
   entries (k from the stream's length, at most PP_PACK_MAX_LOG2) indexed by
   a hash of the three, so memory does not grow with the trace; a collision
   costs only compression.  Each entry adapts at 1/(n + 1.5) for its first
   PP_PACK_RATE_LIMIT uses, then at a fixed rate, so rare contexts learn fast
   and frequent ones settle.  The coder is a carry-less binary range coder
   (32-bit range, bytes out at the top, the carry propagated through a cached
   byte and a run of 0xff bytes), 16-bit probabilities.  */

#ifndef PATHPROF_CORE_TRACE_PACK_H
#define PATHPROF_CORE_TRACE_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pp_trace_bits;
struct pp_trace_regen_ops;

/* The model's version and table size, as the packed chunk records them
   (version << 8 | log2 of the table's entries).  Bump the version when the
   contexts regeneration chooses, the hash or the adaptation change.  */
#define PP_PACK_MODEL_VERSION 1u
#define PP_PACK_MIN_LOG2 12u
#define PP_PACK_MAX_LOG2 22u
#define PP_PACK_RATE_LIMIT 30u

typedef struct pp_pack_model
{
  uint32_t *p;			/* per entry: P(1) << 16 | uses */
  unsigned log2;
} pp_pack_model;

/* Is word a model this build reads?  */
static inline bool pp_pack_model_known (uint32_t word)
{
  return word >> 8 == PP_PACK_MODEL_VERSION && (word & 0xff) >= PP_PACK_MIN_LOG2
	 && (word & 0xff) <= PP_PACK_MAX_LOG2;
}
/* The model word for a stream of nbits raw bits.  */
uint32_t pp_pack_model_word (uint64_t nbits);
/* A fresh model for a model word; 0, or -1 (an unknown word, or out of
   memory).  */
int pp_pack_model_init (pp_pack_model *m, uint32_t word);
void pp_pack_model_free (pp_pack_model *m);

/* Bytes out of the encoder go to put (0, or -1 to stop with an error).  */
typedef struct pp_pack_encoder
{
  uint64_t low;
  uint32_t range;
  uint8_t cache;
  uint64_t pending;		/* the cached byte and the 0xff bytes after it */
  int (*put) (void *ctx, const unsigned char *bytes, size_t n);
  void *ctx;
  unsigned char buf[4096];
  size_t nbuf;
  uint64_t bytes;		/* written so far, through put */
  bool failed;
} pp_pack_encoder;

void pp_pack_encoder_init (pp_pack_encoder *e,
			   int (*put) (void *ctx, const unsigned char *bytes,
				       size_t n), void *ctx);
/* Codes the n <= 64 bits of v (bit i of v the request's i-th) in context.  */
void pp_pack_encode (pp_pack_encoder *e, pp_pack_model *m, uint64_t context,
		     uint64_t v, unsigned n);
/* Writes what is left; returns 0, or -1 when a put failed.  */
int pp_pack_encoder_finish (pp_pack_encoder *e);

/* Bytes into the decoder come from get: how many it put in buf (at most
   cap), 0 at the end of the coded bytes, -1 on an error.  Past the end the
   decoder reads zeros, as many as the encoder's last bytes can need; one
   more, or an error, sets failed (pp_pack_more then fails: a damaged or
   hostile stream ends there, whatever length it claims).  */
typedef struct pp_pack_decoder
{
  uint32_t range, code;
  int (*get) (void *ctx, unsigned char *buf, size_t cap);
  void *ctx;
  unsigned char buf[4096];
  size_t nbuf, at;
  unsigned past;		/* zeros read past the end */
  bool failed;
} pp_pack_decoder;

void pp_pack_decoder_init (pp_pack_decoder *d,
			   int (*get) (void *ctx, unsigned char *buf, size_t cap),
			   void *ctx);
/* The n <= 64 bits coded in context.  */
uint64_t pp_pack_decode (pp_pack_decoder *d, pp_pack_model *m, uint64_t context,
			 unsigned n);

/* The context of the bits after a request in context c (so that a record's
   successive reads, a varint's bytes, are told apart).  */
static inline uint64_t pp_pack_next_context (uint64_t c)
{ return c * 0x9e3779b97f4a7c15u + 0x632be59bd9b4e019u; }

/* ---- A thread's records as regeneration asks for them.  The bits come from
   raw records or from coded bytes and go, besides to regeneration's window,
   to an encoder (packing) and/or to put (unpacking).  */
typedef struct pp_pack_stream
{
  uint64_t left;		/* the thread's bits not yet supplied */
  /* The source: raw records (read with pp_trace_get), or coded bytes
     decoded in model `in`.  */
  struct pp_trace_bits *raw;
  pp_pack_decoder *dec;
  pp_pack_model in;
  /* Where the bits go: coded in model `out`, and/or raw.  */
  pp_pack_encoder *enc;
  pp_pack_model out;
  void (*put) (void *ctx, uint64_t v, unsigned n);
  void *put_ctx;
  uint64_t *words;		/* regeneration's window */
  size_t cap;
  bool failed;			/* the raw records ended early, or no memory */
} pp_pack_stream;

/* pp_trace_bits.more of a lazy window over z (ctx = z).  */
int pp_pack_more (struct pp_trace_bits *b);
/* Runs regeneration over z (ops: its events are the caller's), then moves
   the bits it did not ask for (after an error in the records) in a context
   of their own, so that every bit of the thread has gone to z's sinks.
   Returns 0, or -1 when the source failed.  */
int pp_pack_transcode (pp_pack_stream *z, const struct pp_trace_regen_ops *ops);
/* Frees z's models and window.  */
void pp_pack_stream_free (pp_pack_stream *z);

#ifdef __cplusplus
}
#endif

#endif
