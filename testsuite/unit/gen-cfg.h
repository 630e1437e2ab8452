/* Random control-flow graphs for the unit tests, following the plugin's
   conventions (corelib/paths.h, coverage.h): ENTRY 0, EXIT 1, the EXIT -> ENTRY
   edge last, fake leaves (sole ones model noreturn calls) and fake re-entries,
   and per edge a caller-chosen path end.  Deterministic from the seed.  */

#ifndef PATHPROF_UNIT_GEN_CFG_H
#define PATHPROF_UNIT_GEN_CFG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "graph.h"
#include "unit.h"

#define ENTRY 0u
#define EXIT 1u

struct gen
{
  pp_graph g;
  bool *path_end;
  uint32_t path_end_cap;
  unsigned long long rng;
};

static inline unsigned
rnd (struct gen *x, unsigned n)
{
  return (unsigned) (unit_rand (&x->rng) % n);
}

static inline void
gen_init (struct gen *x, uint32_t nnodes, unsigned long long seed)
{
  pp_graph_init (&x->g, nnodes, ENTRY, EXIT);
  x->path_end = NULL;
  x->path_end_cap = 0;
  x->rng = seed;
}

static inline uint32_t
new_node (struct gen *x)
{
  return x->g.nnodes++;
}

static inline uint32_t
add (struct gen *x, uint32_t src, uint32_t dst, uint32_t flags)
{
  uint32_t e = pp_graph_add_edge (&x->g, src, dst, flags);
  if (e == UINT32_MAX)
    abort ();
  if (e >= x->path_end_cap)
    {
      x->path_end_cap = x->path_end_cap ? 2 * x->path_end_cap : 64;
      x->path_end = realloc (x->path_end, x->path_end_cap * sizeof *x->path_end);
      if (!x->path_end)
	abort ();
    }
  x->path_end[e] = false;
  return e;
}

static inline void
gen_finish (struct gen *x)
{
  add (x, EXIT, ENTRY, PP_EDGE_EXIT_ENTRY);
  if (pp_graph_finish (&x->g) != 0)
    abort ();
}

static inline void
gen_free (struct gen *x)
{
  pp_graph_free (&x->g);
  free (x->path_end);
}

static inline uint32_t
informational_flags (struct gen *x)
{
  static const uint32_t choice[] = { 0, PP_EDGE_FALLTHRU, PP_EDGE_TRUE, PP_EDGE_FALSE,
				     PP_EDGE_EH };
  return choice[rnd (x, 5)];
}

/* Blocks 2.. with 0-3 random successors (anywhere when loops, else only later
   blocks), real returns, fake leaves (sole ones model noreturn calls), fake
   re-entries and random caller path ends.  */
static inline void
random_cfg (struct gen *x, uint32_t maxblocks, bool loops, bool fake, bool ends)
{
  uint32_t nblocks = 1 + rnd (x, maxblocks);
  x->g.nnodes = 2 + nblocks;
  add (x, ENTRY, 2, 0);
  if (rnd (x, 8) == 0)
    add (x, ENTRY, 2 + rnd (x, nblocks), 0);
  for (uint32_t b = 2; b < 2 + nblocks; b++)
    {
      unsigned nsucc = rnd (x, 4);
      for (unsigned i = 0; i < nsucc; i++)
	{
	  uint32_t dst;
	  if (loops)
	    dst = 1 + rnd (x, nblocks + 1);
	  else
	    {
	      uint32_t later = 2 + nblocks - b - 1;	/* blocks after b */
	      uint32_t k = rnd (x, later + 1);
	      dst = k == 0 ? EXIT : b + k;
	    }
	  add (x, b, dst, informational_flags (x));
	}
      if (nsucc == 0 && rnd (x, 4))
	add (x, b, EXIT, 0);
      if (fake && rnd (x, 6) == 0)
	add (x, b, EXIT, PP_EDGE_FAKE);
    }
  if (fake && rnd (x, 4) == 0)
    for (unsigned i = 1 + rnd (x, 2); i-- > 0;)
      add (x, ENTRY, 2 + rnd (x, nblocks), PP_EDGE_FAKE);
  if (ends)
    for (uint32_t e = 0; e < x->g.nedges; e++)
      x->path_end[e] = rnd (x, 8) == 0;
  gen_finish (x);
}

/* Structured programs: sequences, if/else, while and do-while loops, self loops,
   irreducible two-entry loops, early returns, noreturn calls, calls that may not
   return, setjmp receivers, switch cases sharing a target.  Returns the block
   where control continues.  */
static inline uint32_t
structured_region (struct gen *x, uint32_t from, unsigned depth)
{
  unsigned nstatements = 1 + rnd (x, 3);
  for (unsigned s = 0; s < nstatements; s++)
    {
      unsigned kind = depth == 0 ? 0 : rnd (x, 11);
      uint32_t n, m, h, j;
      switch (kind)
	{
	case 0:		/* basic block */
	  n = new_node (x);
	  add (x, from, n, PP_EDGE_FALLTHRU);
	  from = n;
	  break;
	case 1:		/* if/else */
	  m = structured_region (x, from, depth - 1);
	  n = structured_region (x, from, depth - 1);
	  j = new_node (x);
	  add (x, m, j, 0);
	  add (x, n, j, 0);
	  from = j;
	  break;
	case 2:		/* while */
	  h = new_node (x);
	  add (x, from, h, 0);
	  n = structured_region (x, h, depth - 1);
	  add (x, n, h, 0);
	  from = new_node (x);
	  add (x, h, from, PP_EDGE_FALSE);
	  break;
	case 3:		/* do-while */
	  h = new_node (x);
	  add (x, from, h, 0);
	  n = structured_region (x, h, depth - 1);
	  add (x, n, h, PP_EDGE_TRUE);
	  from = new_node (x);
	  add (x, n, from, PP_EDGE_FALSE);
	  break;
	case 4:		/* self loop */
	  n = new_node (x);
	  add (x, from, n, 0);
	  add (x, n, n, 0);
	  from = n;
	  break;
	case 5:		/* irreducible loop entered at both blocks */
	  n = new_node (x);
	  m = new_node (x);
	  add (x, from, n, 0);
	  add (x, from, m, 0);
	  add (x, n, m, 0);
	  add (x, m, n, 0);
	  from = new_node (x);
	  add (x, m, from, 0);
	  break;
	case 6:		/* early return */
	  add (x, from, EXIT, 0);
	  n = new_node (x);
	  add (x, from, n, 0);
	  from = n;
	  break;
	case 7:		/* noreturn call on one branch */
	  n = new_node (x);
	  add (x, from, n, 0);
	  add (x, n, EXIT, PP_EDGE_FAKE);
	  m = new_node (x);
	  add (x, from, m, 0);
	  from = m;
	  break;
	case 8:		/* call that may not return */
	  n = new_node (x);
	  add (x, from, n, 0);
	  add (x, n, EXIT, PP_EDGE_FAKE);
	  m = new_node (x);
	  add (x, n, m, 0);
	  from = m;
	  break;
	case 9:		/* setjmp receiver */
	  n = new_node (x);
	  add (x, from, n, 0);
	  add (x, ENTRY, n, PP_EDGE_FAKE);
	  from = n;
	  break;
	default:	/* two switch cases to the same block */
	  n = new_node (x);
	  add (x, from, n, 0);
	  add (x, from, n, 0);
	  from = n;
	  break;
	}
    }
  return from;
}

static inline void
structured_cfg (struct gen *x, unsigned depth)
{
  x->g.nnodes = 2;
  uint32_t first = new_node (x);
  add (x, ENTRY, first, 0);
  add (x, structured_region (x, first, depth), EXIT, 0);
  gen_finish (x);
}


#endif
