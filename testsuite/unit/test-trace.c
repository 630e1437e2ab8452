/* Tracing (corelib/trace.h) against brute force and a simulated execution:
   on random CFGs the witnesses have the blocking property and leave a forest
   of unwitnessed edges; random programs of several such functions run with
   calls (direct ones without a record, call sites whose callees change,
   untraced or announced or entered with ENTER, others with ENTER, in any
   order in a block, as a callback before a direct call or a signal handler
   does),
   recursion, returns, longjmp to re-entry blocks and exits inside calls,
   writing records as libprof does, and regeneration gives back exactly the
   sequence of blocks, edges, calls, returns and landings that ran.  Each
   stream is also packed (trace-pack.h): the packed stream regenerates the
   same events and unpacks to the records bit for bit.  */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"
#include "trace-pack.h"
#include "unit.h"
#include "gen-cfg.h"

#define MAXFN 4
#define MAXEV 20000

struct fn
{
  struct gen x;
  bool *calls;
  int32_t *wit;
  uint32_t nwit;
  pp_trace_function tf;
  /* Its direct calls: call i is made in block dblock[i] and enters
     function dcallee[i].  */
  uint32_t ndirect, *dblock, *dcallee;
};

struct ev
{
  int kind;
  size_t depth;
  uint32_t id, x;
};

struct events
{
  struct ev e[MAXEV];
  size_t n;
  bool overflow;
};

static void
record_ev (struct events *evs, int kind, size_t depth, uint32_t id, uint32_t x)
{
  if (evs->n == MAXEV)
    {
      evs->overflow = true;
      return;
    }
  evs->e[evs->n++] = (struct ev) { kind, depth, id, x };
}

/* ---- The writer: a thread's stream, as libprof appends it.  */

struct stream
{
  uint64_t *words;
  uint64_t nbits, cap;
};

static void
append (struct stream *s, const pp_trace_record *r)
{
  for (unsigned i = 0; i < r->nbits; i++)
    {
      if (s->nbits / 64 + 2 > s->cap)
	{
	  s->cap = s->cap ? 2 * s->cap : 64;
	  s->words = realloc (s->words, s->cap * sizeof *s->words);
	  if (!s->words)
	    abort ();
	}
      uint64_t bit = (r->bits[i / 64] >> (i % 64)) & 1;
      uint64_t w = s->nbits / 64, off = s->nbits % 64;
      if (off == 0)
	s->words[w] = 0;
      s->words[w] |= bit << off;
      s->nbits++;
    }
}

/* ---- The reader's side: a stream handed over in windows of random sizes,
   as trace files give it a chunk at a time (pp_trace_bits.more).  */

struct feeder
{
  const struct stream *s;
  uint64_t fed;			/* bits of s handed over */
  uint64_t *win;
  size_t cap;
  unsigned long long rng;
};

static int
feed_more (pp_trace_bits *b)
{
  struct feeder *f = b->ctx;
  if (f->fed == f->s->nbits)
    return 0;
  uint64_t n = 1 + unit_rand (&f->rng) % 300;
  if (n > f->s->nbits - f->fed)
    n = f->s->nbits - f->fed;
  uint64_t drop = b->mark / 64;
  b->base += 64 * drop;
  b->pos -= 64 * drop;
  b->mark -= 64 * drop;
  b->nbits -= 64 * drop;
  /* A new window each time, so that a reader that kept a pointer into the
     old one fails under ASan.  */
  size_t need = (size_t) ((b->nbits + n) / 64 + 2);
  uint64_t *w = calloc (need, sizeof *w);
  if (!w)
    abort ();
  for (uint64_t i = 0; i < b->nbits; i++)
    w[i / 64] |= ((f->win[drop + i / 64] >> (i % 64)) & 1) << (i % 64);
  for (uint64_t i = 0; i < n; i++, f->fed++)
    w[(b->nbits + i) / 64] |= ((f->s->words[f->fed / 64] >> (f->fed % 64)) & 1)
			      << ((b->nbits + i) % 64);
  free (f->win);
  f->win = w;
  b->words = w;
  b->nbits += n;
  return 1;
}

/* ---- Brute-force checks of the placement.  */

static bool
is_call (const struct fn *f, uint32_t v)
{
  const pp_graph *g = &f->x.g;
  if (v == g->entry || v == g->exit)
    return false;
  if (f->calls[v])
    return true;
  for (uint32_t i = g->succ_start[v]; i < g->succ_start[v + 1]; i++)
    if (g->edges[g->succ_edges[i]].flags & PP_EDGE_FAKE)
      return true;
  return false;
}

#define nreal pp_trace_real_out_degree

/* No witness-free real path from a decision point to a call block, a re-entry
   block or EXIT.  */
static bool
blocking_holds (const struct fn *f, uint32_t *bad)
{
  const pp_graph *g = &f->x.g;
  bool *seen = malloc (g->nnodes);
  uint32_t *stack = malloc ((g->nedges + 1) * sizeof *stack);
  bool ok = true;
  for (uint32_t p = 0; p < g->nnodes && ok; p++)
    {
      if (!(nreal (g, p) >= 2 || is_call (f, p)))
	continue;
      memset (seen, 0, g->nnodes);
      uint32_t top = 0;
      for (uint32_t i = g->succ_start[p]; i < g->succ_start[p + 1]; i++)
	{
	  uint32_t e = g->succ_edges[i];
	  if (pp_trace_real_edge (g, e) && f->wit[e] < 0)
	    stack[top++] = g->edges[e].dst;
	}
      while (top && ok)
	{
	  uint32_t x = stack[--top];
	  if (seen[x])
	    continue;
	  seen[x] = true;
	  if (x == g->exit || is_call (f, x) || f->tf.reentry[x] || nreal (g, x) == 0)
	    {
	      ok = false;
	      *bad = p;
	    }
	  for (uint32_t i = g->succ_start[x]; i < g->succ_start[x + 1]; i++)
	    {
	      uint32_t e = g->succ_edges[i];
	      if (pp_trace_real_edge (g, e) && f->wit[e] < 0)
		stack[top++] = g->edges[e].dst;
	    }
	}
    }
  free (seen);
  free (stack);
  return ok;
}

static uint32_t
find (uint32_t *parent, uint32_t v)
{
  while (parent[v] != v)
    v = parent[v] = parent[parent[v]];
  return v;
}

/* The real edges without a witness have no undirected cycle.  */
static bool
forest_holds (const struct fn *f)
{
  const pp_graph *g = &f->x.g;
  uint32_t *parent = malloc (g->nnodes * sizeof *parent);
  for (uint32_t v = 0; v < g->nnodes; v++)
    parent[v] = v;
  bool ok = true;
  for (uint32_t e = 0; e < g->nedges && ok; e++)
    if (pp_trace_real_edge (g, e) && f->wit[e] < 0)
      {
	uint32_t a = find (parent, g->edges[e].src), b = find (parent, g->edges[e].dst);
	ok = a != b;
	parent[a] = b;
      }
  free (parent);
  return ok;
}

/* Without the witness of edge `drop` (the others renumbered in edge order),
   does pp_trace_function_init refuse the function exactly when it should: the
   witness was a blocking one, or the edge closes a cycle of unwitnessed real
   edges (its target reaches its source along them, by brute-force search)?  */
static bool
refuses_dropped_witness (const struct fn *f, uint32_t drop)
{
  const pp_graph *g = &f->x.g;
  int32_t *wit = malloc (g->nedges * sizeof *wit);
  bool *decision = malloc (g->nnodes * sizeof *decision);
  bool *blocking = calloc (g->nedges, sizeof *blocking);
  bool *seen = calloc (g->nnodes, sizeof *seen);
  uint32_t *stack = malloc ((g->nnodes + 1) * sizeof *stack);
  int32_t n = 0;
  for (uint32_t e = 0; e < g->nedges; e++)
    wit[e] = f->wit[e] >= 0 && e != drop ? n++ : -1;
  if (pp_trace_blockers (g, f->calls, decision, blocking) != 0)
    abort ();
  uint32_t top = 0;
  stack[top++] = g->edges[drop].dst;
  seen[g->edges[drop].dst] = true;
  while (top)
    {
      uint32_t x = stack[--top];
      for (uint32_t i = g->succ_start[x]; i < g->succ_start[x + 1]; i++)
	{
	  uint32_t e = g->succ_edges[i], y = g->edges[e].dst;
	  if (pp_trace_real_edge (g, e) && wit[e] < 0 && !seen[y])
	    {
	      seen[y] = true;
	      stack[top++] = y;
	    }
	}
    }
  bool should = blocking[drop] || seen[g->edges[drop].src];
  uint32_t *flags = calloc (g->nnodes, sizeof *flags);
  for (uint32_t v = 0; v < g->nnodes; v++)
    flags[v] = f->calls[v] ? PP_BLOCK_CALLS : 0;
  pp_trace_function tf;
  int rc = pp_trace_function_init (&tf, g, wit, flags);
  if (rc == 0)
    pp_trace_function_free (&tf);
  free (flags);
  free (wit);
  free (decision);
  free (blocking);
  free (seen);
  free (stack);
  return (rc == -2) == should;
}

/* ---- Random programs.  */

static bool
make_function (struct fn *f, unsigned long long seed)
{
  gen_init (&f->x, 64, seed);
  if (rnd (&f->x, 3) == 0)
    random_cfg (&f->x, 12, true, true, false);
  else
    structured_cfg (&f->x, 3);
  pp_graph *g = &f->x.g;
  uint32_t entries = 0;
  for (uint32_t e = 0; e < g->nedges; e++)
    {
      g->edges[e].flags &= ~PP_EDGE_EH;	/* exceptions: end to end only */
      entries += g->edges[e].src == g->entry && pp_trace_real_edge (g, e);
    }
  if (entries != 1)
    return false;
  f->calls = calloc (g->nnodes, sizeof *f->calls);
  f->wit = malloc (g->nedges * sizeof *f->wit);
  double *w = malloc (g->nedges * sizeof *w);
  for (uint32_t v = 2; v < g->nnodes; v++)
    f->calls[v] = rnd (&f->x, 4) == 0;
  for (uint32_t e = 0; e < g->nedges; e++)
    w[e] = rnd (&f->x, 100);
  int n = pp_trace_place (g, f->calls, w, f->wit);
  free (w);
  if (n < 0)
    abort ();
  f->nwit = (uint32_t) n;
  uint32_t *flags = calloc (g->nnodes, sizeof *flags);
  for (uint32_t v = 0; v < g->nnodes; v++)
    flags[v] = f->calls[v] ? PP_BLOCK_CALLS : 0;
  int rc = pp_trace_function_init (&f->tf, g, f->wit, flags);
  free (flags);
  if (rc != 0)
    abort ();
  return true;
}

static void
free_function (struct fn *f)
{
  pp_trace_function_free (&f->tf);
  free (f->dblock);
  free (f->dcallee);
  f->dblock = f->dcallee = NULL;
  f->ndirect = 0;
  free (f->calls);
  free (f->wit);
  gen_free (&f->x);
}

#define MAXSITES 256

struct program
{
  struct fn fns[MAXFN];
  unsigned nfns;
  /* The call sites: what each called last in the run (libprof's slots):
     -2 nothing yet, -1 an untraced function, else a function.  */
  unsigned nsites;
  int last[MAXSITES];
};

/* Coded bytes in memory.  */
struct bytes
{
  unsigned char *p;
  size_t n, cap, at;
};

static int
put_bytes (void *ctx, const unsigned char *b, size_t n)
{
  struct bytes *o = ctx;
  if (o->n + n > o->cap)
    {
      o->cap = 2 * (o->n + n);
      o->p = realloc (o->p, o->cap);
      if (!o->p)
	abort ();
    }
  memcpy (o->p + o->n, b, n);
  o->n += n;
  return 0;
}

static int
get_bytes (void *ctx, unsigned char *b, size_t cap)
{
  struct bytes *o = ctx;
  size_t n = o->n - o->at < cap ? o->n - o->at : cap;
  memcpy (b, o->p + o->at, n);
  o->at += n;
  return (int) n;
}

/* Unpacked bits, into words.  */
struct bits_out
{
  uint64_t *words;
  uint64_t n;
};

static void
put_bits (void *ctx, uint64_t v, unsigned n)
{
  struct bits_out *o = ctx;
  for (unsigned i = 0; i < n; i++, o->n++)
    o->words[o->n / 64] |= ((v >> i) & 1) << (o->n % 64);
}

struct regen_ctx
{
  struct program *p;
  struct events *evs;
  /* Runs passed at once (pp_trace_regen_ops.run): the edges of each one
     tagged so far, by tag, and whether a tag came back with other edges.  */
  const uint32_t *tagged[256];
  uint32_t ntagged, runs;
  bool tag_wrong;
};

static pp_trace_function *
lookup (void *ctx, uint64_t unit, uint64_t function, uint32_t *id)
{
  struct program *p = ((struct regen_ctx *) ctx)->p;
  if (unit != 7 || function >= p->nfns)
    return NULL;
  *id = (uint32_t) function;
  return &p->fns[function].tf;
}

static void
regen_event (void *ctx, enum pp_trace_ev ev, size_t depth, uint32_t id, uint32_t x)
{
  record_ev (((struct regen_ctx *) ctx)->evs, (int) ev, depth, id, x);
}

/* A run at once: its edges as EDGE events, and its tag, set the first time,
   must come back with the same edges.  */
static void
regen_run (void *ctx, size_t depth, uint32_t id, const uint32_t *edges, uint32_t n,
	   uint32_t *tag)
{
  struct regen_ctx *c = ctx;
  c->runs++;
  if (*tag == 0 && c->ntagged < 256)
    {
      c->tagged[c->ntagged++] = edges;
      *tag = c->ntagged;
    }
  else if (*tag && (*tag > c->ntagged || c->tagged[*tag - 1] != edges))
    c->tag_wrong = true;
  for (uint32_t i = 0; i < n; i++)
    record_ev (c->evs, PP_TRACE_EV_EDGE, depth, id, edges[i]);
}

struct frame
{
  uint32_t fn, block, calls_left, next_direct;
  int phase;			/* 0 arrive, 1 calls, 2 choose */
};

/* Does function i write no record (trace.h "Returns")?  */
static bool
is_leaf (const struct program *p, uint32_t i)
{
  const pp_trace_function *tf = &p->fns[i].tf;
  return tf->witness_of_edge[tf->entry_edge] < 0
	 && pp_trace_quiet_after (tf, tf->entry_edge);
}

/* The block's direct calls not made yet.  */
static uint32_t
direct_left (const struct fn *fn, const struct frame *f)
{
  uint32_t n = 0;
  for (uint32_t i = f->next_direct; i < fn->ndirect && fn->dblock[i] == f->block; i++)
    n++;
  return n;
}

static uint32_t
first_direct (const struct fn *fn, uint32_t block)
{
  uint32_t i = 0;
  while (i < fn->ndirect && fn->dblock[i] < block)
    i++;
  return i;
}

/* Gives function i's call blocks direct calls (of functions narrow
   enough) and call sites, 0 to 2 each.  */
static void
make_direct (struct program *p, unsigned i, unsigned long long *rng)
{
  struct fn *f = &p->fns[i];
  const pp_graph *g = &f->x.g;
  f->dblock = malloc ((2 * g->nnodes + 1) * sizeof *f->dblock);
  f->dcallee = malloc ((2 * g->nnodes + 1) * sizeof *f->dcallee);
  pp_trace_callee *callee = malloc ((2 * g->nnodes + 1) * sizeof *callee);
  f->ndirect = 0;
  for (uint32_t v = 0; v < g->nnodes; v++)
    {
      if (!f->tf.calls[v])
	continue;
      unsigned n = (unsigned) (unit_rand (rng) % 3);
      for (unsigned k = 0; k < n; k++)
	{
	  uint32_t c = (uint32_t) (unit_rand (rng) % p->nfns);
	  if (unit_rand (rng) % 2 && p->nsites < MAXSITES)
	    {
	      uint32_t word = PP_TRACE_SITE | p->nsites++
			      | (unit_rand (rng) % 2 ? PP_TRACE_SITE_ENTER_AFTER : 0);
	      f->dblock[f->ndirect] = v;
	      f->dcallee[f->ndirect] = word;
	      callee[f->ndirect++] = (pp_trace_callee) { NULL, word };
	      continue;
	    }
	  if (p->fns[c].tf.width > PP_TRACE_DIRECT_WIDTH)
	    continue;
	  f->dblock[f->ndirect] = v;
	  f->dcallee[f->ndirect] = c;
	  callee[f->ndirect++] = (pp_trace_callee) { &p->fns[c].tf, c };
	}
    }
  if (pp_trace_function_direct (&f->tf, f->ndirect, f->dblock, callee) != 0)
    abort ();
  free (callee);
}

/* Runs the program from function 0, writing records; returns false when the
   run was killed (at step cut_at, 0: never) anywhere but in a call: then it
   and its regeneration agree as far as both go (the regeneration stops at the
   last record, or goes on as far as the code runs without one).  */
static bool
simulate (struct program *p, unsigned long long *rng, unsigned cut_at,
	  struct stream *s, struct events *truth)
{
  struct frame stack[16];
  size_t depth = 0;
  unsigned width = 0, steps = 0;
  pp_trace_record r;
#define PUT(stmt) do { memset (&r, 0, sizeof r); stmt; append (s, &r); } while (0)
#define RND(n) ((unsigned) (unit_rand (rng) % (n)))
  uint32_t callee = 0;
  bool direct = false;
call:
  if (!direct)
    PUT (pp_trace_enter (&r, width, depth + 1, 7, callee));
  stack[depth++] = (struct frame) { callee, 0, 0, 0, 0 };
  record_ev (truth, PP_TRACE_EV_ENTER, depth, callee, 0);
  width = p->fns[callee].tf.width;
  uint32_t edge = p->fns[callee].tf.entry_edge;
traverse:
  {
    struct frame *f = &stack[depth - 1];
    struct fn *fn = &p->fns[f->fn];
    const pp_graph *g = &fn->x.g;
    if (fn->wit[edge] >= 0)
      PUT (pp_trace_witness (&r, width, (uint32_t) fn->wit[edge]));
    if (g->edges[edge].dst == g->exit)
      {
	record_ev (truth, PP_TRACE_EV_EDGE, depth, f->fn, edge);
	record_ev (truth, PP_TRACE_EV_RETURN, depth, f->fn, 0);
	if (--depth == 0)
	  return true;
	width = p->fns[stack[depth - 1].fn].tf.width;
	goto step;
      }
    record_ev (truth, PP_TRACE_EV_EDGE, depth, f->fn, edge);
    f->block = g->edges[edge].dst;
    f->phase = 0;
  }
step:
  for (;;)
    {
      struct frame *f = &stack[depth - 1];
      struct fn *fn = &p->fns[f->fn];
      const pp_graph *g = &fn->x.g;
      if (++steps == cut_at)
	return false;		/* killed here */
      /* Exit inside a call: not one of the block's direct calls still to
	 come (their blocks end in the call that may not return).  */
      if (steps > 3000 && f->phase >= 1
	  && ((is_call (fn, f->block) && direct_left (fn, f) == 0)
	      || nreal (g, f->block) == 0))
	return true;
      if (steps > 30000)
	return false;
      if (f->phase == 0)
	{
	  record_ev (truth, PP_TRACE_EV_BLOCK, depth, f->fn, f->block);
	  if (fn->tf.reentry[f->block])
	    PUT (pp_trace_land (&r, width, depth, f->block));
	  f->phase = 1;
	  f->calls_left = is_call (fn, f->block) ? RND (3) : 0;
	  f->next_direct = first_direct (fn, f->block);
	}
      if (f->phase == 1)
	{
	  /* The block's direct calls in order, the others (callbacks,
	     handlers) anywhere among them, but not after a direct call of a
	     function without records (the plugin makes no such call
	     direct: plugin.cc, find_direct_calls).  */
	  uint32_t nd = direct_left (fn, f);
	  if (nd && depth >= 12)
	    return false;	/* killed: too deep */
	  if ((f->calls_left > 0 && depth < 12) || nd)
	    {
	      uint32_t next = nd ? fn->dcallee[f->next_direct] : 0;
	      /* A call site may announce a function without records unless
		 the plugin said that a call with ENTER follows it.  */
	      direct = nd && (f->calls_left == 0
			      || (RND (2) && (next & PP_TRACE_SITE
					      ? next & PP_TRACE_SITE_ENTER_AFTER
					      : !is_leaf (p, next))));
	      if (direct && (next & PP_TRACE_SITE))
		{
		  /* The call site's record, as libprof writes it; then its
		     callee: announced, or entered with ENTER, or untraced,
		     whose callbacks come with ENTERs.  */
		  f->next_direct++;
		  int *last = &p->last[next & PP_TRACE_SITE_NUMBER];
		  int to = (int) RND (p->nfns + 1) - 1;
		  if (RND (2) && *last != -2)
		    to = *last;
		  bool traced = to >= 0;
		  bool announced
		    = traced && p->fns[to].tf.width <= PP_TRACE_DIRECT_WIDTH
		      && !(is_leaf (p, (uint32_t) to)
			   && (next & PP_TRACE_SITE_ENTER_AFTER));
		  if (to == *last)
		    PUT (r.nbits = pp_trace_hit_bits (width));
		  else
		    PUT (pp_trace_miss (&r, width, traced, announced, 7,
					traced ? (uint32_t) to : 0));
		  *last = to;
		  if (!traced)
		    {
		      f->calls_left += RND (3);
		      continue;
		    }
		  direct = announced;
		  callee = (uint32_t) to;
		}
	      else if (direct)
		callee = fn->dcallee[f->next_direct++];
	      else
		{
		  f->calls_left--;
		  callee = RND (p->nfns);
		}
	      goto call;
	    }
	  f->phase = 2;
	  if (is_call (fn, f->block) || nreal (g, f->block) == 0)
	    {
	      unsigned what = nreal (g, f->block) == 0 ? 1 + RND (2) : RND (24);
	      if (what == 1)
		return true;	/* exit inside the call */
	      if (what == 2)
		{
		  /* longjmp to a re-entry block of a live activation */
		  size_t d = 1 + RND (depth);
		  struct fn *to = &p->fns[stack[d - 1].fn];
		  uint32_t target = UINT32_MAX;
		  for (uint32_t v = 0; v < to->x.g.nnodes; v++)
		    if (to->tf.reentry[v] && (target == UINT32_MAX || RND (2)))
		      target = v;
		  if (target == UINT32_MAX)
		    return true;
		  PUT (pp_trace_land (&r, width, d, target));
		  for (; depth > d; depth--)
		    record_ev (truth, PP_TRACE_EV_UNWIND, depth, stack[depth - 1].fn, 0);
		  record_ev (truth, PP_TRACE_EV_LAND, depth, stack[d - 1].fn, target);
		  record_ev (truth, PP_TRACE_EV_BLOCK, depth, stack[d - 1].fn, target);
		  stack[d - 1].block = target;
		  stack[d - 1].phase = 1;
		  stack[d - 1].calls_left = is_call (to, target) ? RND (3) : 0;
		  stack[d - 1].next_direct = first_direct (to, target);
		  width = to->tf.width;
		  continue;
		}
	    }
	}
      uint32_t n = nreal (g, f->block);
      if (n == 0)
	return true;		/* the end, where nothing follows */
      uint32_t k = RND (n);
      for (uint32_t i = g->succ_start[f->block]; i < g->succ_start[f->block + 1]; i++)
	if (pp_trace_real_edge (g, g->succ_edges[i]) && k-- == 0)
	  edge = g->succ_edges[i];
      goto traverse;
    }
#undef PUT
#undef RND
}

int
main (void)
{
  struct unit_property blocking = { .name = "trace: blocking property (brute force)" };
  struct unit_property forest = { .name = "trace: unwitnessed real edges form a forest" };
  struct unit_property dropped = { .name = "trace: a numbering without a needed witness is refused" };
  struct unit_property regen = { .name = "trace: regeneration equals the simulated run" };
  struct unit_property whole = { .name = "trace: a killed run and its regeneration agree as far as both go" };
  struct unit_property costs = { .name = "trace: the records counted by kind are the whole stream" };
  struct unit_property edges_tell = { .name = "trace: the edges and LANDs tell every block (no_blocks)" };
  struct unit_property runs_tagged = { .name = "trace: runs passed at once keep their consumer's tags (ops.run)" };
  uint64_t runs_passed = 0;
  struct unit_property windows = { .name = "trace: a stream read a window at a time is read to its end" };
  struct unit_property packed = { .name = "trace: a packed stream regenerates the same and unpacks bit for bit" };
  static struct events truth, got, got_packed;
  unsigned long long packed_bytes = 0;
  unsigned long long witnesses = 0, edges = 0, bits = 0, blocks = 0;
  unsigned long long hits = 0, misses = 0, announced = 0;
  unsigned long long rng = 12345;
  for (unsigned c = 0; c < 3000; c++)
    {
      struct program p = { .nfns = 1 + (unsigned) (unit_rand (&rng) % MAXFN) };
      unsigned made = 0;
      for (unsigned i = 0; i < p.nfns; i++)
	{
	  while (!make_function (&p.fns[i], unit_rand (&rng)))
	    gen_free (&p.fns[i].x);
	  made++;
	  uint32_t bad = 0;
	  unit_check (&blocking, blocking_holds (&p.fns[i], &bad),
		      "case %u function %u: witness-free path from decision %u", c, i,
		      bad);
	  unit_check (&forest, forest_holds (&p.fns[i]), "case %u function %u", c, i);
	  for (uint32_t e = 0; e < p.fns[i].x.g.nedges; e++)
	    if (p.fns[i].wit[e] >= 0)
	      unit_check (&dropped, refuses_dropped_witness (&p.fns[i], e),
			  "case %u function %u: without the witness of edge %u", c, i, e);
	  witnesses += p.fns[i].nwit;
	  for (uint32_t e = 0; e < p.fns[i].x.g.nedges; e++)
	    edges += pp_trace_real_edge (&p.fns[i].x.g, e);
	}
      for (unsigned i = 0; i < p.nfns; i++)
	make_direct (&p, i, &rng);
      for (unsigned i = 0; i < MAXSITES; i++)
	p.last[i] = -2;
      struct stream s = { 0 };
      truth.n = got.n = 0;
      truth.overflow = got.overflow = false;
      unsigned cut_at = unit_rand (&rng) % 8 == 0 ? 1 + unit_rand (&rng) % 200 : 0;
      bool complete = simulate (&p, &rng, cut_at, &s, &truth);
      /* Every other case reads the stream a window at a time.  */
      struct feeder feed = { .s = &s, .rng = rng };
      pp_trace_bits b = c % 2 ? (pp_trace_bits) { .more = feed_more, .ctx = &feed }
			      : (pp_trace_bits) { .words = s.words, .nbits = s.nbits };
      struct regen_ctx ctx = { &p, &got, { NULL }, 0, 0, false };
      pp_trace_regen_stats stats = { 0 };
      /* A third without block events, half of those with runs at once.  */
      pp_trace_regen_ops ops = { &ctx, lookup, regen_event, NULL, c % 3 == 0,
				 &stats, c % 6 == 0 ? regen_run : NULL };
      char err[200] = "";
      int rc = pp_trace_regen (&b, &ops, err, sizeof err);
      /* Without block events: a block runs after every real edge into it
	 but EXIT's and at every LAND (in a whole run: a killed one may stop
	 between the two), so the truth's blocks go.  */
      size_t told = 0, nblocks = 0;
      for (size_t i = 0; i < truth.n; i++)
	{
	  const struct ev *t = &truth.e[i];
	  const pp_graph *tg = &p.fns[t->id].x.g;
	  nblocks += t->kind == PP_TRACE_EV_BLOCK;
	  told += t->kind == PP_TRACE_EV_LAND
		  || (t->kind == PP_TRACE_EV_EDGE && pp_trace_real_edge (tg, t->x)
		      && tg->edges[t->x].dst != tg->exit);
	}
      if (!truth.overflow && complete)
	unit_check (&edges_tell, told == nblocks, "case %u: %zu blocks, %zu told by "
		    "the edges and LANDs", c, nblocks, told);
      if (ops.no_blocks)
	{
	  size_t n = 0;
	  for (size_t i = 0; i < truth.n; i++)
	    if (truth.e[i].kind != PP_TRACE_EV_BLOCK)
	      truth.e[n++] = truth.e[i];
	  truth.n = n;
	}
      if (!truth.overflow && !got.overflow)
	{
	  size_t same = 0;
	  while (same < truth.n && same < got.n
		 && memcmp (&truth.e[same], &got.e[same], sizeof truth.e[same]) == 0)
	    same++;
	  if (getenv ("TRACE_DEBUG") && c == (unsigned) atoi (getenv ("TRACE_DEBUG")))
	    {
	      for (size_t i = 0; i < truth.n || i < got.n; i++)
		printf ("%zu: %d %zu %u %u | %d %zu %u %u\n", i,
			i < truth.n ? truth.e[i].kind : -1, i < truth.n ? truth.e[i].depth : 0,
			i < truth.n ? truth.e[i].id : 0, i < truth.n ? truth.e[i].x : 0,
			i < got.n ? got.e[i].kind : -1, i < got.n ? got.e[i].depth : 0,
			i < got.n ? got.e[i].id : 0, i < got.n ? got.e[i].x : 0);
	      for (unsigned i = 0; i < p.nfns; i++)
		for (uint32_t e = 0; e < p.fns[i].x.g.nedges; e++)
		  printf ("fn %u edge %u: %u->%u flags %x wit %d\n", i, e,
			  p.fns[i].x.g.edges[e].src, p.fns[i].x.g.edges[e].dst,
			  p.fns[i].x.g.edges[e].flags, p.fns[i].wit[e]);
	    }
	  if (complete)
	    unit_check (&regen, rc == 0 && same == truth.n && same == got.n,
			"case %u: rc %d (%s), %zu events, %zu regenerated, first "
			"difference at %zu (kind %d/%d, block %u/%u)", c, rc, err,
			truth.n, got.n, same,
			same < truth.n ? truth.e[same].kind : -9,
			same < got.n ? got.e[same].kind : -9,
			same < truth.n ? truth.e[same].x : 0,
			same < got.n ? got.e[same].x : 0);
	  else
	    unit_check (&whole, rc == 0 && (same == truth.n || same == got.n),
			"case %u: %zu events, %zu regenerated, first difference at %zu",
			c, truth.n, got.n, same);
	}
      if (ops.run)
	unit_check (&runs_tagged, !ctx.tag_wrong, "case %u: a tag came back with "
		    "other edges (%u runs)", c, ctx.runs);
      runs_passed += ctx.runs;
      uint64_t counted = 0;
      for (int k = 0; k < PP_TRACE_NSTATS; k++)
	counted += stats.bits[k];
      if (complete && rc == 0)
	unit_check (&costs, counted == s.nbits, "case %u: %llu bits counted by kind, "
		    "%llu in the stream", c, (unsigned long long) counted,
		    (unsigned long long) s.nbits);
      /* Packed: regeneration asks for the bits in its contexts, the
	 encoder codes them; then the decoder gives them back.  */
      {
	pp_trace_bits raw = { .words = s.words, .nbits = s.nbits };
	struct bytes coded = { 0 };
	pp_pack_encoder enc;
	pp_pack_decoder dec;
	uint32_t word = pp_pack_model_word (s.nbits);
	pp_pack_stream z = { .left = s.nbits, .raw = &raw, .enc = &enc };
	static struct events scratch;
	struct regen_ctx sctx = { .p = &p, .evs = &scratch };
	pp_trace_regen_ops sops = { .ctx = &sctx, .lookup = lookup, .event = regen_event,
				    .no_blocks = true };
	scratch.n = 0;
	if (pp_pack_model_init (&z.out, word))
	  abort ();
	pp_pack_encoder_init (&enc, put_bytes, &coded);
	int packed_rc = pp_pack_transcode (&z, &sops);
	pp_pack_encoder_finish (&enc);
	pp_pack_stream_free (&z);
	/* Regenerated from the packed bytes.  */
	got_packed.n = 0;
	got_packed.overflow = false;
	pp_pack_stream y = { .left = s.nbits, .dec = &dec };
	if (pp_pack_model_init (&y.in, word))
	  abort ();
	pp_pack_decoder_init (&dec, get_bytes, &coded);
	struct regen_ctx pctx = { .p = &p, .evs = &got_packed };
	pp_trace_regen_ops pops = { .ctx = &pctx, .lookup = lookup, .event = regen_event,
				    .no_blocks = c % 3 == 0 };
	pp_trace_bits pb = { .more = pp_pack_more, .ctx = &y, .lazy = true };
	char perr[200] = "";
	int prc = pp_trace_regen (&pb, &pops, perr, sizeof perr);
	pp_pack_stream_free (&y);
	bool same_events = got.overflow || got_packed.overflow
			   || (got.n == got_packed.n
			       && memcmp (got.e, got_packed.e, got.n * sizeof *got.e) == 0);
	/* Unpacked.  */
	struct bits_out out = { calloc ((s.nbits + 63) / 64 + 1, sizeof (uint64_t)), 0 };
	pp_pack_stream x = { .left = s.nbits, .dec = &dec, .put = put_bits,
			     .put_ctx = &out };
	if (!out.words || pp_pack_model_init (&x.in, word))
	  abort ();
	coded.at = 0;
	pp_pack_decoder_init (&dec, get_bytes, &coded);
	scratch.n = 0;
	int urc = pp_pack_transcode (&x, &sops);
	pp_pack_stream_free (&x);
	bool same_bits = urc == 0 && out.n == s.nbits
			 && memcmp (out.words, s.words, (s.nbits + 63) / 64 * 8) == 0;
	unit_check (&packed, packed_rc == 0 && prc == rc && same_events && same_bits,
		    "case %u: packing %d, regeneration %d/%d (%s), events %zu/%zu%s, "
		    "%llu bits unpacked of %llu%s", c, packed_rc, rc, prc, perr, got.n,
		    got_packed.n, same_events ? "" : " (differ)",
		    (unsigned long long) out.n, (unsigned long long) s.nbits,
		    same_bits ? "" : " (differ)");
	packed_bytes += coded.n;
	free (out.words);
	free (coded.p);
      }
      if (c % 2)
	unit_check (&windows, rc != 0 || feed.fed == s.nbits,
		    "case %u: regeneration ended with %llu of %llu bits handed over",
		    c, (unsigned long long) feed.fed, (unsigned long long) s.nbits);
      bits += s.nbits;
      blocks += truth.n + (ops.no_blocks ? nblocks : 0);
      hits += stats.records[PP_TRACE_STAT_HIT];
      misses += stats.records[PP_TRACE_STAT_MISS];
      announced += stats.announced;
      free (feed.win);
      free (s.words);
      for (unsigned i = 0; i < made; i++)
	free_function (&p.fns[i]);
    }
  unit_report (&blocking);
  unit_report (&forest);
  unit_report (&dropped);
  unit_report (&regen);
  unit_report (&whole);
  unit_report (&windows);
  unit_report (&edges_tell);
  /* Not a property that holds by passing no run.  */
  unit_check (&runs_tagged, runs_passed > 1000, "%llu runs passed at once",
	      (unsigned long long) runs_passed);
  unit_report (&runs_tagged);
  unit_report (&costs);
  unit_report (&packed);
  printf ("note: %llu witnesses on %llu real edges (%.1f%%), %.2f trace bits per event\n",
	  witnesses, edges, 100.0 * (double) witnesses / (double) (edges ? edges : 1),
	  (double) bits / (double) (blocks ? blocks : 1));
  printf ("note: packed, the streams take %.1f%% of their bits\n", 800.0 * (double) packed_bytes
	  / (double) (bits ? bits : 1));
  printf ("note: call sites: %llu HIT, %llu MISS, %llu activations announced\n",
	  hits, misses, announced);
  return unit_exit_status ();
}
