/* Interprocedural path numbering (corelib/interproc.h) against brute force:
   on thousands of random programs (loops, several call sites per callee,
   recursion and mutual recursion, procedures entered from outside,
   procedures nothing calls), every unbalanced-left path (context) and every
   unbalanced-right-left path (piecewise) of G*_fin from ENTRY_global to
   EXIT_global is enumerated step by step; the numbers Algorithms 5.1 and 6.1
   give them must be exactly 0 .. npaths-1, once each, and decoding each
   number must give back its path.  Every edge of a procedure's
   graph is in G*_fin once, or is a backedge with its two surrogates, or a
   fake leave (a call that may not return, also at a call vertex) or
   re-entry (longjmp) with its one.  */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interproc.h"
#include "ip-notes.h"
#include "unit.h"
#include "gen-program.h"

#define MAXPROCS 4
#define MAXSTEPS 4096
#define MAXPATHS 20000

/* X in BASE, in one of a few static buffers (messages of checks that pass
   are formatted too: no allocation).  */
static const char *
zstr (const mpz_t x, int base)
{
  static char buf[4][1100];
  static int i;
  i = (i + 1) % 4;
  if (mpz_sizeinbase (x, base) + 2 > sizeof buf[i])
    return "(large)";
  return mpz_get_str (buf[i], base, x);
}

struct step
{
  int kind;
  uint32_t a, b;
};

struct walk
{
  const pp_ip_numbering *n;
  struct step steps[MAXSTEPS];
  uint32_t nsteps;
  uint32_t sites[MAXSTEPS];
  uint32_t depth;
  pp_ip_cursor cur;
  bool rooted;			/* the path began at a root's ENTRY */
  /* Per path: its number and its steps (concatenated).  */
  uint64_t *numbers;
  uint32_t npaths;
  bool overflow;
  struct unit_property *decode;
  unsigned long long seed;
};

/* Decoding must report exactly the steps of the path enumerated.  */
struct replay
{
  const struct step *want;
  uint32_t nwant, at;
  bool ok;
};

static void
replay_step (void *ctx, int kind, uint32_t a, uint32_t b)
{
  struct replay *r = ctx;
  if (r->at >= r->nwant || r->want[r->at].kind != kind || r->want[r->at].a != a
      || r->want[r->at].b != b)
    r->ok = false;
  r->at++;
}

static void
record (struct walk *w, int kind, uint32_t a, uint32_t b)
{
  if (w->nsteps == MAXSTEPS)
    {
      w->overflow = true;
      return;
    }
  w->steps[w->nsteps++] = (struct step) { kind, a, b };
}

static void
path_done (struct walk *w)
{
  if (w->npaths == MAXPATHS || !mpz_fits_ulong_p (w->cur.num))
    {
      w->overflow = true;
      return;
    }
  uint64_t num = mpz_get_ui (w->cur.num);
  w->numbers[w->npaths++] = num;
  struct replay r = { w->steps, w->nsteps, 0, true };
  int rc = pp_ip_decode (w->n, w->cur.num, replay_step, &r);
  unit_check (w->decode, rc == 0 && r.ok && r.at == r.nwant,
	      "seed %llx: path number %llu decodes to another path (rc %d, step %u)",
	      w->seed, (unsigned long long) num, rc, r.at);
}

/* Every continuation from vertex v of procedure p.  */
static void
explore (struct walk *w, uint32_t p, uint32_t v)
{
  if (w->overflow)
    return;
  const pp_ip_numbering *n = w->n;
  const pp_ip_proc *ip = &n->procs[p];
  uint32_t mark = w->nsteps, depth = w->depth;
  pp_ip_cursor *c = &w->cur;
  mpz_t num, x;
  mpz_init_set (num, c->num);
  mpz_init_set (x, c->x);
  if (v == ip->gexit || (v == ip->exit && w->depth == 0 && w->rooted))
    {
      record (w, PP_IP_STEP_END, 0, 0);
      if (!w->overflow)
	path_done (w);
    }
  else if (v == ip->exit && w->depth == 0)
    {
      /* Piecewise, no call open: back to any non-recursive site calling p,
	 or out to EXIT_global if p is a root.  */
      for (uint32_t s = 0; s < n->ncalls; s++)
	if (n->calls[s].callee == p && !n->recursive[s])
	  {
	    record (w, PP_IP_STEP_RETURN, s, 0);
	    pp_ip_return (n, c, s);
	    explore (w, n->calls[s].proc, n->calls[s].ret);
	    w->nsteps = mark;
	    mpz_set (c->num, num);
	    mpz_set (c->x, x);
	  }
      bool root = false;
      for (uint32_t r = 0; r < n->nroots; r++)
	root |= n->roots[r] == p && !n->root_gentry[r];
      if (root)
	{
	  record (w, PP_IP_STEP_END, 0, 0);
	  pp_ip_exit_global (n, c, p);
	  if (!w->overflow)
	    path_done (w);
	}
    }
  else if (v == ip->exit)
    {
      uint32_t s = w->sites[--w->depth];
      record (w, PP_IP_STEP_RETURN, s, 0);
      pp_ip_return (n, c, s);
      explore (w, n->calls[s].proc, n->calls[s].ret);
      pp_ip_call_site (n, c, s);	/* back as before the return */
      mpz_set (c->x, x);
      w->sites[depth - 1] = s;	/* a later call may have taken the slot */
    }
  else
    {
      if (ip->call_at[v] != UINT32_MAX)
	{
	  uint32_t s = ip->call_at[v];
	  record (w, PP_IP_STEP_CALL, s, 0);
	  if (w->depth == MAXSTEPS)
	    w->overflow = true;
	  else
	    {
	      w->sites[w->depth++] = s;
	      pp_ip_call_site (n, c, s);
	      explore (w, n->calls[s].callee, n->procs[n->calls[s].callee].entry);
	      pp_ip_return (n, c, s);
	      w->depth = depth;
	      mpz_set (c->x, x);
	    }
	  mpz_set (c->num, num);
	  w->nsteps = mark;
	}
      /* The successors in G*_fin (at a call vertex, a leave's surrogate).  */
      for (uint32_t k = ip->out_start[v]; k < ip->out_start[v + 1]; k++)
	{
	  record (w, PP_IP_STEP_EDGE, p, k);
	  pp_ip_step (n, c, p, k);
	  explore (w, p, ip->edges[k].dst);
	  mpz_set (c->num, num);
	  w->nsteps = mark;
	}
    }
  w->nsteps = mark;
  w->depth = depth;
  mpz_set (c->num, num);
  mpz_set (c->x, x);
  mpz_clears (num, x, NULL);
}

static int
by_value (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return (x > y) - (x < y);
}

/* Pieces (ip-pieces.c): every piece of every procedure enumerated from
   SRC to SINK (an end is the first way out of EXIT, GEXIT and a
   non-recursive site's call vertex; a start is ENTRY, GENTRY or such a
   site's return vertex); the sums of their values must be 0 .. npieces-1,
   once each, each decoding to its own edges, and the first edge out of a
   vertex that is no call vertex must be worth 0 (the planner's zero
   edges).  */
struct pieces_walk
{
  const pp_ip_numbering *n;
  const pp_ip_pieces *pc;
  uint32_t p;
  uint32_t edges[MAXSTEPS], nedges;
  uint64_t *seen;		/* per piece number: times found */
  bool ok, overflow;
  uint64_t found;
};

struct piece_replay
{
  const uint32_t *want;
  uint32_t nwant, at;
  bool ok;
};

static void
piece_step (void *ctx, uint32_t k)
{
  struct piece_replay *r = ctx;
  if (r->at >= r->nwant || r->want[r->at] != k)
    r->ok = false;
  r->at++;
}

static void
pieces_from (struct pieces_walk *w, uint32_t v, uint64_t num)
{
  const pp_ip_proc *ip = &w->n->procs[w->p];
  if (w->overflow)
    return;
  if (v == ip->exit || v == ip->gexit || ip->call_at[v] != UINT32_MAX)
    {
      if (num >= w->pc->npieces || w->found == MAXPATHS)
	{
	  w->ok &= num < w->pc->npieces;
	  w->overflow |= w->found == MAXPATHS;
	  return;
	}
      w->seen[num]++;
      w->found++;
      struct piece_replay r = { w->edges, w->nedges, 0, true };
      w->ok &= pp_ip_piece_decode (w->n, w->p, w->pc, num, piece_step, &r) == 0
	       && r.ok && r.at == r.nwant;
    }
  if (v != ip->exit && v != ip->gexit && ip->call_at[v] == UINT32_MAX
      && ip->out_start[v] < ip->out_start[v + 1])
    w->ok &= w->pc->val[ip->out_start[v]] == 0;
  for (uint32_t k = ip->out_start[v]; k < ip->out_start[v + 1]; k++)
    {
      if (w->nedges == MAXSTEPS)
	{
	  w->overflow = true;
	  return;
	}
      w->edges[w->nedges++] = k;
      pieces_from (w, ip->edges[k].dst, num + w->pc->val[k]);
      w->nedges--;
    }
}

static void
check_pieces (struct unit_property *pieces, const pp_ip_numbering *n,
	      unsigned long long seed, unsigned *numbered)
{
  static struct pieces_walk w;
  for (uint32_t p = 0; p < n->nprocs; p++)
    {
      pp_ip_pieces pc;
      int rc = pp_ip_pieces_number (n, p, &pc);
      unit_check (pieces, rc == PP_IP_OK, "seed %llx: procedure %u: pieces failed (%d)",
		  seed, p, rc);
      if (rc != PP_IP_OK)
	continue;
      const pp_ip_proc *ip = &n->procs[p];
      if (pc.npieces == 0 || pc.npieces > MAXPATHS)
	{
	  unit_check (pieces, pc.npieces > 0, "seed %llx: procedure %u: pieces past 2^62",
		      seed, p);
	  pp_ip_pieces_free (&pc);
	  continue;
	}
      w = (struct pieces_walk) { .n = n, .pc = &pc, .p = p, .ok = true };
      w.seen = calloc (pc.npieces, sizeof *w.seen);
      unit_check (pieces, pc.start[ip->entry] == 0, "seed %llx: procedure %u: ENTRY's "
		  "pieces do not start at 0", seed, p);
      for (uint32_t v = 0; v < ip->nnodes; v++)
	if (pc.start[v] != UINT64_MAX)
	  pieces_from (&w, v, pc.start[v]);
      bool dense = !w.overflow && w.found == pc.npieces;
      for (uint64_t i = 0; dense && i < pc.npieces; i++)
	dense = w.seen[i] == 1;
      unit_check (pieces, w.ok && (dense || w.overflow), "seed %llx: procedure %u: %llu pieces "
		  "found for %llu numbers%s", seed, p, (unsigned long long) w.found,
		  (unsigned long long) pc.npieces, w.ok ? "" : ", or a decoding differs");
      unit_check (pieces, pp_ip_piece_decode (n, p, &pc, pc.npieces, piece_step,
					      &(struct piece_replay) { 0 }) == -1,
		  "seed %llx: procedure %u: npieces decodes", seed, p);
      *numbered += !w.overflow;
      free (w.seen);
      pp_ip_pieces_free (&pc);
    }
}

/* Paths beyond 64 bits: K procedures, each a diamond followed by two calls of
   the next (the last: the diamond alone), so that procedure i has
   2^(2^(K-i) - 1) paths and the program 2^(2^K - 1).  Random numbers below it
   decode to paths whose numbers, computed again, are the same.  */
struct trail
{
  const pp_ip_numbering *n;
  pp_ip_cursor cur;
  bool ok;
};

static void
retrace (void *ctx, int kind, uint32_t a, uint32_t b)
{
  struct trail *t = ctx;
  if (kind == PP_IP_STEP_EDGE)
    pp_ip_step (t->n, &t->cur, a, b);
  else if (kind == PP_IP_STEP_CALL)
    t->ok &= pp_ip_call_site (t->n, &t->cur, a) == 0;
  else if (kind == PP_IP_STEP_RETURN)
    pp_ip_return (t->n, &t->cur, a);
  else if (kind == PP_IP_STEP_ROOT)
    {
      for (uint32_t i = 0; i < t->n->nroots; i++)
	if (t->n->roots[i] == a && t->n->root_gentry[i] == b)
	  pp_ip_start (t->n, &t->cur, i);
    }
  else if (kind == PP_IP_STEP_END)
    t->ok &= t->cur.depth == 0;
}

/* N packed (pp_ip_pack) and adopted into *A (pp_ip_adopt): the block of
   the adopted numbering packed again is the same block, word for word (so
   every field pack writes came back), and the block cut short, made
   longer or taken for a program of one procedure more is refused.
   Returns whether *A holds the adopted numbering (its block in *BLOCK).  */
static bool
check_pack (struct unit_property *packed, const pp_ip_program *prog,
	    const pp_ip_numbering *n, bool piecewise, unsigned long long seed,
	    pp_ip_numbering *a, uint64_t **block)
{
  uint64_t *w = NULL, *again = NULL;
  size_t nw = 0, nagain = 0;
  int rc = pp_ip_pack (prog, n, &w, &nw);
  int adopted = rc ? rc : pp_ip_adopt (prog, piecewise, w, nw, a);
  int repacked = adopted ? adopted : pp_ip_pack (prog, a, &again, &nagain);
  unit_check (packed, repacked == 0 && nagain == nw
		      && memcmp (again, w, nw * sizeof *w) == 0,
	      "seed %llx: packed (%d), adopted (%d), packed again (%d): %zu words, "
	      "then %zu", seed, rc, adopted, repacked, nw, nagain);
  free (again);
  if (rc == 0)
    {
      pp_ip_numbering bad;
      uint64_t *longer = malloc ((nw + 1) * sizeof *longer);
      memcpy (longer, w, nw * sizeof *w);
      longer[nw] = 0;
      size_t cut = (size_t) (seed % nw);
      pp_ip_program more = *prog;
      more.nprocs++;
      unit_check (packed, pp_ip_adopt (prog, piecewise, w, cut, &bad) == PP_IP_EGRAPH
			  && pp_ip_adopt (prog, piecewise, longer, nw + 1, &bad) == PP_IP_EGRAPH
			  && pp_ip_adopt (prog, !piecewise, w, nw, &bad) == PP_IP_EGRAPH
			  && pp_ip_adopt (&more, piecewise, w, nw, &bad) == PP_IP_EGRAPH,
		  "seed %llx: a block cut to %zu of %zu words, made longer, of the "
		  "other kind or of another program is adopted", seed, cut, nw);
      free (longer);
    }
  if (adopted)
    {
      free (w);
      return false;
    }
  *block = w;
  return true;
}

/* PROG as the layout of one unit (every site a call of its procedure, in
   site order), packed (pp_ip_layout_pack) and adopted: the adopted layout
   packed again is the same block, and numbering its program gives the
   numbering N of PROG, word for word; a block of another number of units
   or cut short is refused.  */
static void
check_layout_pack (struct unit_property *packed, const pp_ip_program *prog,
		   const pp_ip_numbering *n, bool piecewise, unsigned long long seed)
{
  uint32_t np = prog->nprocs;
  pp_ip_layout l = { .prog = *prog, .nunits = 1 };
  uint32_t first = 0;
  l.first_proc = &first;
  l.ncalls_of = calloc (np, sizeof *l.ncalls_of);
  l.site_of_call = calloc (np, sizeof *l.site_of_call);
  l.leaf_edge = calloc (np, sizeof *l.leaf_edge);
  l.call_vertex = calloc (np, sizeof *l.call_vertex);
  l.return_vertex = calloc (np, sizeof *l.return_vertex);
  l.call_block = calloc (np, sizeof *l.call_block);
  l.edge_role = calloc (np, sizeof *l.edge_role);
  uint32_t *start = calloc (np + 1, sizeof *start);
  for (uint32_t p = 0; p < np; p++)
    {
      uint32_t k = 0;
      l.site_of_call[p] = calloc (prog->ncalls + 1, sizeof (uint32_t));
      l.leaf_edge[p] = calloc (prog->ncalls + 1, sizeof (uint32_t));
      l.call_vertex[p] = calloc (prog->ncalls + 1, sizeof (uint32_t));
      l.return_vertex[p] = calloc (prog->ncalls + 1, sizeof (uint32_t));
      l.call_block[p] = calloc (prog->ncalls + 1, sizeof (uint32_t));
      l.edge_role[p] = calloc (prog->procs[p].nedges + 1, 1);
      for (uint32_t s = 0; s < prog->ncalls; s++)
	if (prog->calls[s].proc == p)
	  {
	    l.site_of_call[p][k] = s;
	    l.leaf_edge[p][k] = UINT32_MAX;
	    l.call_vertex[p][k] = l.call_block[p][k] = prog->calls[s].call;
	    l.return_vertex[p][k++] = prog->calls[s].ret;
	  }
      l.ncalls_of[p] = k;
      start[p + 1] = start[p] + k;
    }
  l.prog.call_start = start;
  l.prog.edge_role = (const uint8_t *const *) l.edge_role;
  uint64_t *w = NULL, *again = NULL, *nw_words = NULL, *want = NULL;
  size_t nw = 0, nagain = 0, n_nw = 0, nwant = 0;
  pp_ip_layout a;
  pp_ip_numbering an;
  int rc = pp_ip_layout_pack (&l, &w, &nw);
  int adopted = rc ? rc : pp_ip_layout_adopt (1, w, nw, &a);
  int repacked = adopted ? adopted : pp_ip_layout_pack (&a, &again, &nagain);
  int numbered = repacked ? repacked : pp_ip_number (&a.prog, piecewise, &an);
  if (numbered == 0)
    {
      if (pp_ip_pack (&a.prog, &an, &nw_words, &n_nw) || pp_ip_pack (prog, n, &want, &nwant))
	numbered = -9;
      pp_ip_numbering_free (&an);
    }
  unit_check (packed, numbered == 0 && nagain == nw && !memcmp (again, w, nw * sizeof *w)
		      && n_nw == nwant && !memcmp (nw_words, want, nwant * sizeof *want),
	      "seed %llx: layout packed (%d), adopted (%d), packed again (%d), numbered "
	      "(%d): %zu words, then %zu; its numbering %zu words, expected %zu", seed, rc,
	      adopted, repacked, numbered, nw, nagain, n_nw, nwant);
  if (rc == 0)
    {
      pp_ip_layout bad;
      unit_check (packed, pp_ip_layout_adopt (2, w, nw, &bad) == PP_IP_EGRAPH
			  && pp_ip_layout_adopt (1, w, (size_t) (seed % nw), &bad)
			     == PP_IP_EGRAPH,
		  "seed %llx: a layout block of another program or cut short is adopted",
		  seed);
    }
  if (adopted == 0)
    pp_ip_layout_adopted_free (&a);
  free (w);
  free (again);
  free (nw_words);
  free (want);
  for (uint32_t p = 0; p < np; p++)
    {
      free (l.site_of_call[p]);
      free (l.leaf_edge[p]);
      free (l.call_vertex[p]);
      free (l.return_vertex[p]);
      free (l.call_block[p]);
      free (l.edge_role[p]);
    }
  free (l.site_of_call);
  free (l.leaf_edge);
  free (l.call_vertex);
  free (l.return_vertex);
  free (l.call_block);
  free (l.edge_role);
  free (l.ncalls_of);
  free (start);
}

/* 200 random numbers below n's npaths decode to paths whose numbers,
   computed again, are the same.  */
static void
check_round_trips (struct unit_property *big, const pp_ip_numbering *n,
		   unsigned long seed, const char *what)
{
  mpz_t r;
  mpz_init (r);
  gmp_randstate_t st;
  gmp_randinit_default (st);
  gmp_randseed_ui (st, seed);
  for (unsigned i = 0; i < 200; i++)
    {
      mpz_urandomm (r, st, n->npaths);
      struct trail t = { n, .ok = true };
      pp_ip_cursor_init (&t.cur);
      int d = pp_ip_decode (n, r, retrace, &t);
      unit_check (big, d == 0 && t.ok && mpz_cmp (t.cur.num, r) == 0,
		  "%s: number %s decodes (%d) to a path numbered %s", what,
		  zstr (r, 16), d, zstr (t.cur.num, 16));
      pp_ip_cursor_free (&t.cur);
    }
  gmp_randclear (st);
  mpz_clear (r);
}

static void
check_bignums (struct unit_property *big)
{
  enum { K = 9 };
  pp_graph g[K];
  pp_ip_call calls[2 * K];
  uint32_t ncalls = 0;
  for (uint32_t i = 0; i < K; i++)
    {
      bool last = i == K - 1;
      pp_graph_init (&g[i], last ? 6 : 10, 0, 1);
      uint32_t e[][2] = { {0, 2}, {2, 3}, {2, 4}, {3, 5}, {4, 5},
			  {5, 6}, {7, 8}, {9, 1} };
      for (uint32_t k = 0; k < (last ? 5u : 8u); k++)
	pp_graph_add_edge (&g[i], e[k][0], e[k][1], 0);
      if (last)
	pp_graph_add_edge (&g[i], 5, 1, 0);
      else
	{
	  calls[ncalls++] = (pp_ip_call) { i, 6, 7, i + 1 };
	  calls[ncalls++] = (pp_ip_call) { i, 8, 9, i + 1 };
	}
      pp_graph_finish (&g[i]);
    }
  pp_ip_program prog = { K, g, NULL, 0, ncalls, calls, 0, NULL, NULL, false };
  mpz_t want;
  mpz_init (want);
  mpz_ui_pow_ui (want, 2, (1u << K) - 1);
  for (int pw = 0; pw < 2; pw++)
  {
  pp_ip_numbering n;
  int rc = pp_ip_number (&prog, pw, &n);
  /* Context: 2^(2^K - 1); piecewise has more (paths starting inside).  */
  unit_check (big, rc == 0 && mpz_cmp (n.npaths, want) >= 0
		   && (pw || mpz_cmp (n.npaths, want) == 0),
	      "%d levels: %s paths, expected 2^%u", K,
	      rc ? "no" : zstr (n.npaths, 10), (1u << K) - 1);
  if (rc == 0)
    {
      check_round_trips (big, &n, 1998, "uncut");
      pp_ip_numbering a;
      uint64_t *block;
      if (check_pack (big, &prog, &n, pw, 1998, &a, &block))
	{
	  check_round_trips (big, &a, 1998, "uncut, adopted");
	  pp_ip_adopted_free (&a);
	  free (block);
	}
      printf ("note: %d levels of two calls: %zu-bit %s path numbers\n", K,
	      mpz_sizeinbase (n.npaths, 2), pw ? "piecewise" : "context");
      pp_ip_numbering_free (&n);
    }
  /* Bounded to 64 bits a procedure: calls are cut, the numbers fit.  */
  prog.max_bits = 64;
  rc = pp_ip_number (&prog, pw, &n);
  unit_check (big, rc == 0 && mpz_sizeinbase (n.npaths, 2) <= 64 + 8,
	      "%d levels cut to 64 bits a procedure: %s paths", K,
	      rc ? "no" : zstr (n.npaths, 10));
  if (rc == 0)
    {
      check_round_trips (big, &n, 1999, "cut");
      pp_ip_numbering_free (&n);
    }
  prog.max_bits = 0;
  }
  mpz_clear (want);
  for (uint32_t i = 0; i < K; i++)
    pp_graph_free (&g[i]);
}

/* Leaf g: ENTRY -> 2, k diamonds, the last vertex -> EXIT (2^k paths),
   or a fake leave there where it never returns.  */
static void
diamond_leaf (pp_graph *g, uint32_t k, bool returns)
{
  pp_graph_init (g, 3 + 3 * k, 0, 1);
  pp_graph_add_edge (g, 0, 2, 0);
  for (uint32_t d = 0; d < k; d++)
    {
      uint32_t v = 2 + 3 * d;
      pp_graph_add_edge (g, v, v + 1, 0);
      pp_graph_add_edge (g, v, v + 2, 0);
      pp_graph_add_edge (g, v + 1, v + 3, 0);
      pp_graph_add_edge (g, v + 2, v + 3, 0);
    }
  pp_graph_add_edge (g, 2 + 3 * k, 1, returns ? 0 : PP_EDGE_FAKE);
  pp_graph_finish (g);
}

/* Whether PROG numbers (piecewise: PW) with the cuts and path count of
   the reference search; the calls cut into *CUTS.  */
static bool
cuts_as_reference (pp_ip_program *prog, int pw, unsigned *cuts)
{
  pp_ip_numbering fast, ref;
  int rc = pp_ip_number (prog, pw, &fast);
  prog->cut_one_by_one = true;
  int rc2 = pp_ip_number (prog, pw, &ref);
  prog->cut_one_by_one = false;
  bool ok = rc == PP_IP_OK && rc2 == PP_IP_OK
	    && memcmp (fast.recursive, ref.recursive, prog->ncalls * sizeof *ref.recursive) == 0
	    && mpz_cmp (fast.npaths, ref.npaths) == 0;
  for (uint32_t s = 0; rc == PP_IP_OK && s < prog->ncalls; s++)
    *cuts += fast.recursive[s];
  if (rc == PP_IP_OK)
    pp_ip_numbering_free (&fast);
  if (rc2 == PP_IP_OK)
    pp_ip_numbering_free (&ref);
  return ok;
}

/* The cut search against the reference, on procedures of many calls:
   leaves of 2^k paths (some never return: their only way to EXIT is a
   fake leave, so a cut of their call may add paths), and a caller of 8 to
   40 calls in a row, diamonds between them, some call vertices with a
   leave, under bounds that cut none, a few, or all of its calls.  */
static void
check_cut_search (struct unit_property *same)
{
  enum { LEAVES = 6, MOST = 40 };
  unsigned long long rng = 0x5ea7c4;
  unsigned cuts = 0, searches = 0;
  for (unsigned t = 0; t < 400; t++)
    {
      pp_graph g[LEAVES + 1];
      pp_ip_call calls[MOST];
      uint32_t ncalls = 0;
      for (uint32_t i = 0; i < LEAVES; i++)
	{
	  uint32_t k = (uint32_t) (unit_rand (&rng) % 7);
	  bool returns = unit_rand (&rng) % 4 != 0;
	  diamond_leaf (&g[i], k, returns);
	}
      /* The caller: ENTRY -> c0; r_i -> x_i, y_i (a diamond, or r_i -> x_i)
	 -> c_{i+1}; the last r -> EXIT.  */
      uint32_t n = 8 + (uint32_t) (unit_rand (&rng) % (MOST - 7));
      pp_graph *big = &g[LEAVES];
      pp_graph_init (big, 2 + 4 * n, 0, 1);
      pp_graph_add_edge (big, 0, 2, 0);
      for (uint32_t i = 0; i < n; i++)
	{
	  uint32_t c = 2 + 4 * i, r = c + 1, x = c + 2, y = c + 3;
	  uint32_t next = i + 1 < n ? c + 4 : 1;
	  calls[ncalls++] = (pp_ip_call) { LEAVES, c, r,
					   (uint32_t) (unit_rand (&rng) % LEAVES) };
	  pp_graph_add_edge (big, r, x, 0);
	  pp_graph_add_edge (big, x, next, 0);
	  if (unit_rand (&rng) % 2)
	    {
	      pp_graph_add_edge (big, r, y, 0);
	      pp_graph_add_edge (big, y, next, 0);
	    }
	  if (unit_rand (&rng) % 5 == 0)
	    pp_graph_add_edge (big, c, 1, PP_EDGE_FAKE);
	}
      pp_graph_finish (big);
      pp_ip_program prog = { LEAVES + 1, g, NULL, LEAVES, ncalls, calls,
			     4 + (uint32_t) (unit_rand (&rng) % (4 * n)), NULL, NULL,
			     false };
      searches++;
      unit_check (same, cuts_as_reference (&prog, (int) (t % 2), &cuts),
		  "case %u: %u calls under %u bits: the cuts differ from the "
		  "reference search's", t, n, prog.max_bits);
      for (uint32_t i = 0; i <= LEAVES; i++)
	pp_graph_free (&g[i]);
    }
  printf ("note: %u callers of 8 to 40 calls, %u calls cut\n", searches, cuts);
}

/* The cut search where a try's psi is within a unit of 2^bound, past the
   53 bits a double holds (interproc.c approx_try cannot tell, and the
   search asks GMP): a caller of three leaves of 2^60 paths each, then
   EXIT (psi 2^180, 2^120 with one call cut, ...), or also ENTRY -> EXIT
   (2^180 + 1, ...), or a tail of 2^61 - 1 paths (2^241 - 2^180, ...),
   under every bound within two bits of each psi.  */
static void
check_cut_margin (struct unit_property *same)
{
  enum { LEAVES = 3, K = 60 };
  unsigned tries = 0;
  for (int tail = 0; tail < 3; tail++)
    for (int pw = 0; pw < 2; pw++)
      for (uint32_t at = 0; at <= LEAVES; at++)
	for (int d = -2; d <= 2; d++)
	  {
	    pp_graph g[LEAVES + 1];
	    pp_ip_call calls[LEAVES];
	    for (uint32_t i = 0; i < LEAVES; i++)
	      diamond_leaf (&g[i], K, true);
	    /* The caller: ENTRY -> c0, r_i -> c_{i+1}, r_2 -> w_0; the tail
	       w_j -> x_j, y_j -> w_{j+1} and w_j -> EXIT (j < K), w_K -> EXIT.  */
	    pp_graph *big = &g[LEAVES];
	    uint32_t w = 2 + 2 * LEAVES;
	    pp_graph_init (big, w + 3 * K + 1, 0, 1);
	    pp_graph_add_edge (big, 0, 2, 0);
	    if (tail == 1)
	      pp_graph_add_edge (big, 0, 1, 0);
	    for (uint32_t i = 0; i < LEAVES; i++)
	      {
		calls[i] = (pp_ip_call) { LEAVES, 2 + 2 * i, 3 + 2 * i, i };
		pp_graph_add_edge (big, 3 + 2 * i, i + 1 < LEAVES ? 4 + 2 * i : w, 0);
	      }
	    uint32_t tail_bits = 0;
	    if (tail == 2)
	      {
		for (uint32_t j = 0; j < K; j++)
		  {
		    uint32_t v = w + 3 * j;
		    pp_graph_add_edge (big, v, v + 1, 0);
		    pp_graph_add_edge (big, v, v + 2, 0);
		    pp_graph_add_edge (big, v, 1, 0);
		    pp_graph_add_edge (big, v + 1, v + 3, 0);
		    pp_graph_add_edge (big, v + 2, v + 3, 0);
		  }
		tail_bits = K + 1;
		w += 3 * K;
	      }
	    pp_graph_add_edge (big, w, 1, 0);
	    pp_graph_finish (big);
	    /* psi with the first `at` calls cut: about 2^(K (LEAVES - at) + tail_bits).  */
	    uint32_t bound = (uint32_t) ((int) (K * (LEAVES - at) + tail_bits) + d);
	    if (bound < 2)
	      bound = 2;
	    pp_ip_program prog = { LEAVES + 1, g, NULL, LEAVES, LEAVES, calls, bound,
				   NULL, NULL, false };
	    unsigned cuts = 0;
	    unit_check (same, cuts_as_reference (&prog, pw, &cuts),
			"tail %d (%s), %u bits: the cuts differ from the reference "
			"search's", tail, pw ? "piecewise" : "context", bound);
	    tries++;
	    for (uint32_t i = 0; i <= LEAVES; i++)
	      pp_graph_free (&g[i]);
	  }
  printf ("note: %u cut searches with a psi within a unit of 2^bound\n", tries);
}

/* Programs that break interproc.h's conventions are refused.  */
static void
check_refusals (struct unit_property *refused)
{
  pp_graph g;
  pp_graph_init (&g, 6, 0, 1);
  pp_graph_add_edge (&g, 0, 2, 0);
  pp_graph_add_edge (&g, 2, 3, 0);	/* 3: a call vertex */
  pp_graph_add_edge (&g, 4, 5, 0);
  pp_graph_add_edge (&g, 5, 1, 0);
  pp_graph_finish (&g);
  const struct { pp_ip_call calls[2]; uint32_t ncalls; const char *what; } bad[] = {
    { { { 0, 3, 4, 0 }, { 0, 3, 4, 0 } }, 2, "call and return vertices of two sites" },
    { { { 0, 2, 4, 0 } }, 1, "a call vertex with a successor" },
    { { { 0, 3, 5, 0 } }, 1, "a return vertex with a predecessor" },
    { { { 0, 3, 4, 7 } }, 1, "a callee out of range" },
    { { { 0, 3, 1, 0 } }, 1, "EXIT as a return vertex" },
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    {
      pp_ip_program prog = { 1, &g, NULL, 0, bad[i].ncalls, bad[i].calls, 0, NULL, NULL, false };
      pp_ip_numbering n;
      int rc = pp_ip_number (&prog, i % 2, &n);
      unit_check (refused, rc == PP_IP_EGRAPH, "%s: %d", bad[i].what, rc);
      if (rc == PP_IP_OK)
	pp_ip_numbering_free (&n);
    }
  pp_ip_program good = { 1, &g, NULL, 0, 1, &(pp_ip_call) { 0, 3, 4, 0 }, 0, NULL, NULL, false };
  pp_ip_numbering n;
  int rc = pp_ip_number (&good, false, &n);
  unit_check (refused, rc == PP_IP_OK, "the same graph with one good site: %d", rc);
  if (rc == PP_IP_OK)
    pp_ip_numbering_free (&n);
  pp_graph_free (&g);
}

/* The program of two units' notes (ip-notes.h): calls resolved in their own
   unit first (two static functions named f), then among the public
   functions; indirect calls, library calls and setjmp are edges; a block
   splits after each call; a fake leave of a block ending with a call leaves
   from the call vertex.  */
static void
add_function (pp_unit_notes *u, const char *name, uint32_t flags, uint32_t nblocks,
	      const uint32_t (*edges)[3], uint32_t nedges,
	      const pp_call_notes *calls, uint32_t ncalls)
{
  pp_function_notes *f = &u->functions[u->nfunctions++];
  memset (f, 0, sizeof *f);
  f->asm_name = f->name = (char *) name;
  f->function_flags = flags;
  f->nblocks = nblocks;
  f->nedges = nedges;
  f->edges = calloc (nedges, sizeof *f->edges);
  for (uint32_t e = 0; e < nedges; e++)
    f->edges[e] = (pp_edge_notes) { edges[e][0], edges[e][1], edges[e][2], -1 };
  f->ncalls = ncalls;
  f->calls = (pp_call_notes *) calls;
}

/* Where the layout of UNITS made in two steps (pp_ip_layout_index, then
   pp_ip_layout_build_proc for a random part of its procedures in a random
   order, as libprof's segments modes make it) differs from L, made whole:
   NULL where it does not.  */
static const char *
lazy_layout_differs (const pp_unit_notes *const *units, uint32_t n, const pp_ip_layout *l,
		     unsigned long long *rng, unsigned *built)
{
  pp_ip_layout z;
  if (pp_ip_layout_index (units, n, &z))
    return "out of memory";
  const char *why = NULL;
  uint32_t np = z.prog.nprocs;
  const pp_function_notes **fn = calloc (np + 1, sizeof *fn);
  uint32_t *order = calloc (np + 1, sizeof *order);
  for (uint32_t u = 0, p = 0; u < n; u++)
    for (uint32_t f = 0; f < units[u]->nfunctions; f++, p++)
      fn[p] = &units[u]->functions[f];
  for (uint32_t p = 0; p < np; p++)
    order[p] = p;
  for (uint32_t i = np; i > 1; i--)
    {
      uint32_t j = (uint32_t) (unit_rand (rng) % i), t = order[i - 1];
      order[i - 1] = order[j];
      order[j] = t;
    }
  for (uint32_t i = 0; i < np && !why; i++)
    if (unit_rand (rng) % 3
	&& (pp_ip_layout_build_proc (&z, order[i], fn[order[i]])
	    || pp_ip_layout_build_proc (&z, order[i], fn[order[i]])))
      why = "a procedure's graph not made";
  if (why)
    ;
  else if (np != l->prog.nprocs || z.prog.ncalls != l->prog.ncalls || z.prog.main != l->prog.main
	   || memcmp (z.first_proc, l->first_proc, n * sizeof *z.first_proc)
	   || memcmp (z.prog.call_start, l->prog.call_start, (np + 1) * sizeof (uint32_t))
	   || memcmp (z.prog.external, l->prog.external, np * sizeof (bool)))
    why = "the procedures or call sites differ";
  for (uint32_t i = 0; i < z.prog.ncalls && !why; i++)
    {
      const pp_ip_call *a = &z.prog.calls[i], *b = &l->prog.calls[i];
      if (a->proc != b->proc || a->call != b->call || a->ret != b->ret
	  || a->callee != b->callee)
	why = "a call site differs";
    }
  for (uint32_t p = 0; p < np && !why; p++)
    {
      uint32_t nc = z.ncalls_of[p];
      const pp_graph *a = &z.prog.procs[p], *b = &l->prog.procs[p];
      if (nc != l->ncalls_of[p]
	  || memcmp (z.site_of_call[p], l->site_of_call[p], nc * sizeof (uint32_t))
	  || memcmp (z.call_vertex[p], l->call_vertex[p], nc * sizeof (uint32_t))
	  || memcmp (z.return_vertex[p], l->return_vertex[p], nc * sizeof (uint32_t))
	  || memcmp (z.call_block[p], l->call_block[p], nc * sizeof (uint32_t)))
	why = "a procedure's calls differ";
      else if (!a->nnodes)
	;			/* not asked for */
      else if (a->nnodes != b->nnodes || a->nedges != b->nedges
	       || memcmp (z.edge_role[p], l->edge_role[p], a->nedges))
	why = "a procedure's graph differs";
      else
	{
	  ++*built;
	  for (uint32_t e = 0; e < a->nedges && !why; e++)
	    if (a->edges[e].src != b->edges[e].src || a->edges[e].dst != b->edges[e].dst
		|| a->edges[e].flags != b->edges[e].flags)
	      why = "a procedure's edge differs";
	  for (uint32_t k = 0; k < nc && !why; k++)
	    if (z.site_of_call[p][k] == UINT32_MAX && z.leaf_edge[p][k] != l->leaf_edge[p][k])
	      why = "a leaf edge differs";
	}
    }
  free (fn);
  free (order);
  pp_ip_layout_free (&z);
  return why;
}

/* Which units call another unit's function, from their names alone
   (pp_ip_unit_names, pp_ip_units_alone), against the layout of random
   programs whose units share names: static, public, weak and strong
   definitions, direct, indirect and setjmp calls, library calls.  */
static void
check_alone (struct unit_property *alone, struct unit_property *imports,
	     struct unit_property *signature, struct unit_property *lazily)
{
  enum { F = PP_EDGE_FAKE, X = PP_EDGE_EXIT_ENTRY, UNITS = 5, FNS = 6 };
  static const uint32_t edges[][3] = { {0, 2, 0}, {2, 1, 0}, {1, 0, X} };
  /* With a fake leave of the block of calls (the last's, where it ends
     the block).  */
  static const uint32_t fake_edges[][3] = { {0, 2, 0}, {2, 1, 0}, {2, 1, F}, {1, 0, X} };
  static const char *const pool[] = { "main", "a", "b", "c", "d", "e", "printf" };
  static const uint32_t kinds[] = { 0, PP_FUNCTION_PUBLIC, PP_FUNCTION_PUBLIC,
				    PP_FUNCTION_PUBLIC | PP_FUNCTION_WEAK };
  unsigned long long rng = 0xa10e;
  unsigned mixed = 0, lazy_built = 0, nresolved = 0;
  for (unsigned t = 0; t < 4000; t++)
    {
      pp_function_notes fns[UNITS][FNS];
      pp_call_notes calls[UNITS][FNS][3];
      pp_unit_notes units[UNITS];
      const pp_unit_notes *list[UNITS];
      uint32_t n = 2 + (uint32_t) (unit_rand (&rng) % (UNITS - 1));
      for (uint32_t u = 0; u < n; u++)
	{
	  units[u] = (pp_unit_notes) { .functions = fns[u] };
	  list[u] = &units[u];
	  /* Distinct names in a unit, as C has them.  */
	  uint32_t nf = 1 + (uint32_t) (unit_rand (&rng) % FNS), taken = 0;
	  for (uint32_t f = 0; f < nf; f++)
	    {
	      uint32_t name = (uint32_t) (unit_rand (&rng) % 6);
	      if (taken & 1u << name)
		continue;
	      taken |= 1u << name;
	      uint32_t nc = (uint32_t) (unit_rand (&rng) % 4);
	      for (uint32_t k = 0; k < nc; k++)
		{
		  uint32_t r = (uint32_t) (unit_rand (&rng) % 10);
		  calls[u][f][k] = (pp_call_notes) { 2, r == 0 ? PP_CALL_INDIRECT
						     : r == 1 ? PP_CALL_RETURNS_TWICE : 0,
						     (char *) (r == 0 ? "" : pool[unit_rand (&rng) % 7]) };
		}
	      bool fake = unit_rand (&rng) % 2;
	      if (fake && nc)
		calls[u][f][nc - 1].flags |= PP_CALL_ENDS_BLOCK;
	      add_function (&units[u], pool[name], kinds[unit_rand (&rng) % 4], 3,
			    fake ? fake_edges : edges, fake ? 4 : 3, calls[u][f], nc);
	    }
	}
      pp_ip_layout l;
      uint64_t *names[UNITS] = { 0 };
      uint32_t nimports[UNITS], nexports[UNITS];
      bool got[UNITS];
      bool ok = pp_ip_layout_build (list, n, &l) == 0;
      for (uint32_t u = 0; ok && u < n; u++)
	ok = pp_ip_unit_names (&units[u], &names[u], &nimports[u], &nexports[u]) == 0;
      ok = ok && pp_ip_units_alone ((const uint64_t *const *) names, nimports, nexports, n,
				    got) == 0;
      unit_check (alone, ok, "case %u: out of memory", t);
      const char *lazy = ok ? lazy_layout_differs (list, n, &l, &rng, &lazy_built) : NULL;
      unit_check (lazily, !lazy, "case %u: %s", t, lazy);
      unsigned some = 0;
      for (uint32_t u = 0; ok && u < n; u++)
	{
	  uint32_t end = u + 1 < n ? l.first_proc[u + 1] : l.prog.nprocs;
	  bool want = true;
	  for (uint32_t p = l.first_proc[u]; p < end; p++)
	    for (uint32_t k = 0; k < l.ncalls_of[p]; k++)
	      {
		uint32_t site = l.site_of_call[p][k];
		if (site != UINT32_MAX && (l.prog.calls[site].callee < l.first_proc[u]
					   || l.prog.calls[site].callee >= end))
		  want = false;
	      }
	  some += want;
	  unit_check (alone, got[u] == want, "case %u: unit %u of %u %s alone", t, u, n,
		      want ? "is" : "is not");
	}
      mixed += some > 0 && some < n;
      /* Per import (a compiled root's assumed callees): each call of a
	 name its unit does not define is resolved in another unit exactly
	 where the layout resolves it there.  */
      bool flags[UNITS][FNS * 3 + 1], *resolved[UNITS];
      for (uint32_t u = 0; u < n; u++)
	resolved[u] = flags[u];
      ok = ok && pp_ip_imports_resolved ((const uint64_t *const *) names, nimports,
					 nexports, n, resolved) == 0;
      unit_check (imports, ok, "case %u: out of memory", t);
      for (uint32_t u = 0; ok && u < n; u++)
	for (uint32_t f = 0; f < units[u].nfunctions; f++)
	  {
	    uint32_t p = l.first_proc[u] + f, end = u + 1 < n ? l.first_proc[u + 1]
							    : l.prog.nprocs;
	    const pp_function_notes *fn = &units[u].functions[f];
	    for (uint32_t k = 0; k < fn->ncalls; k++)
	      {
		const char *callee = fn->calls[k].callee;
		if ((fn->calls[k].flags & (PP_CALL_INDIRECT | PP_CALL_RETURNS_TWICE))
		    || !callee[0])
		  continue;
		bool defined = false;
		for (uint32_t g = 0; g < units[u].nfunctions; g++)
		  defined |= strcmp (units[u].functions[g].asm_name, callee) == 0;
		uint32_t i = pp_ip_import_index (names[u], nimports[u], callee);
		unit_check (imports, defined || i != UINT32_MAX,
			    "case %u: unit %u's call of %s is no import", t, u, callee);
		if (defined || i == UINT32_MAX)
		  continue;
		uint32_t site = l.site_of_call[p][k];
		bool want = site != UINT32_MAX && (l.prog.calls[site].callee < l.first_proc[u]
						   || l.prog.calls[site].callee >= end);
		nresolved += want;
		unit_check (imports, resolved[u][i] == want,
			    "case %u: unit %u's import %s %s another unit's", t, u, callee,
			    want ? "is" : "is not");
	      }
	  }
      /* The program's signature: the same whatever the units' order,
	 another where a unit is left out or exports another name.  */
      if (ok)
	{
	  const char *unit_names[UNITS], *shuffled_names[UNITS];
	  const uint64_t *words[UNITS], *shuffled[UNITS];
	  uint32_t si[UNITS], se[UNITS];
	  char label[UNITS][16];
	  for (uint32_t u = 0; u < n; u++)
	    {
	      snprintf (label[u], sizeof label[u], "unit%u.c", u);
	      unit_names[u] = label[u];
	      words[u] = names[u];
	    }
	  uint32_t shift = 1 + (uint32_t) (unit_rand (&rng) % (n - 1));
	  for (uint32_t u = 0; u < n; u++)
	    {
	      uint32_t from = (u + shift) % n;
	      shuffled_names[u] = unit_names[from];
	      shuffled[u] = words[from];
	      si[u] = nimports[from];
	      se[u] = nexports[from];
	    }
	  uint64_t sig = pp_ip_program_signature (unit_names, words, nimports, nexports, n);
	  unit_check (signature, sig == pp_ip_program_signature (shuffled_names, shuffled, si,
								  se, n),
		      "case %u: the units' order changes the signature", t);
	  unit_check (signature, sig != pp_ip_program_signature (unit_names, words, nimports,
								  nexports, n - 1),
		      "case %u: a unit left out keeps the signature", t);
	  if (nexports[0])
	    {
	      names[0][nimports[0]] ^= 2;	/* another name */
	      unit_check (signature,
			  sig != pp_ip_program_signature (unit_names, words, nimports,
							  nexports, n),
			  "case %u: another export keeps the signature", t);
	      names[0][nimports[0]] ^= 2;
	    }
	}
      for (uint32_t u = 0; u < n; u++)
	{
	  free (names[u]);
	  for (uint32_t f = 0; f < units[u].nfunctions; f++)
	    free (units[u].functions[f].edges);
	}
      if (ok)
	pp_ip_layout_free (&l);
    }
  /* The cases must tell the two apart.  */
  unit_check (alone, mixed > 400, "only %u programs with units alone and not", mixed);
  unit_check (imports, nresolved > 1000, "only %u imports another unit's", nresolved);
  unit_check (lazily, lazy_built > 10000, "only %u graphs made lazily", lazy_built);
}

static void
check_layout (struct unit_property *layout)
{
  enum { F = PP_EDGE_FAKE, X = PP_EDGE_EXIT_ENTRY };
  static const uint32_t main_edges[][3] = { {0, 2, 0}, {2, 3, 0}, {3, 1, 0},
					    {2, 1, F}, {1, 0, X} };
  static const uint32_t f_edges[][3] = { {0, 2, 0}, {2, 1, 0}, {1, 0, X} };
  static const uint32_t h_edges[][3] = { {0, 2, 0}, {2, 2, 0}, {2, 1, 0},
					 {0, 2, F}, {1, 0, X} };
  static const pp_call_notes main_calls[] = {
    { 2, PP_CALL_ENDS_BLOCK, "f" }, { 3, 0, "printf" }, { 3, 0, "h" } };
  static const pp_call_notes fa_calls[] = { { 2, 0, "h" } };
  static const pp_call_notes h_calls[] = {
    { 2, PP_CALL_RETURNS_TWICE, "_setjmp" }, { 2, 0, "f" },
    { 2, PP_CALL_INDIRECT, "" } };
  pp_function_notes fa[2], fb[2];
  pp_unit_notes a = { .functions = fa }, b = { .functions = fb };
  add_function (&a, "f", 0, 3, f_edges, 3, fa_calls, 1);
  add_function (&a, "main", PP_FUNCTION_PUBLIC, 4, main_edges, 5, main_calls, 3);
  add_function (&b, "h", PP_FUNCTION_PUBLIC, 3, h_edges, 5, h_calls, 3);
  add_function (&b, "f", PP_FUNCTION_ADDRESSED, 3, f_edges, 3, NULL, 0);
  const pp_unit_notes *units[] = { &a, &b };
  pp_ip_layout l;
  int rc = pp_ip_layout_build (units, 2, &l);
  unit_check (layout, rc == 0, "build: %d", rc);
  if (rc)
    goto out;
  const pp_ip_program *pr = &l.prog;
  /* Procedures: 0 a.f, 1 main, 2 h, 3 b.f.  */
  unit_check (layout, pr->nprocs == 4 && pr->main == 1 && l.first_proc[1] == 2,
	      "procedures %u, main %u", pr->nprocs, pr->main);
  unit_check (layout, !pr->external[0] && pr->external[1] && pr->external[2]
		      && pr->external[3], "external flags");
  unit_check (layout, pr->ncalls == 4, "%u call sites, expected 4", pr->ncalls);
  struct { uint32_t proc, call, callee; } want[] = {
    { 1, 0, 0 }, { 1, 2, 2 }, { 0, 0, 2 }, { 2, 1, 3 } };
  for (unsigned i = 0; i < 4; i++)
    {
      uint32_t s = l.site_of_call[want[i].proc][want[i].call];
      unit_check (layout, s < pr->ncalls && pr->calls[s].callee == want[i].callee
			  && pr->calls[s].proc == want[i].proc,
		  "call %u of procedure %u: site %u", want[i].call, want[i].proc, s);
    }
  unit_check (layout, l.site_of_call[1][1] == UINT32_MAX && l.leaf_edge[1][1] != UINT32_MAX
		      && l.site_of_call[2][0] == UINT32_MAX && l.site_of_call[2][2] == UINT32_MAX,
	      "printf, setjmp and the indirect call are edges");
  /* main: block 2 = call vertex of f, 4 its return vertex, which has
     2 -> 3; block 3 calls printf (5) then h (6), 6 -> EXIT.  */
  const pp_graph *gm = &pr->procs[1];
  unit_check (layout, gm->nnodes == 7 && gm->edges[1].src == 4 && gm->edges[1].dst == 3
		      && gm->edges[2].src == 6 && gm->edges[3].src == 2
		      && l.call_vertex[1][2] == 5 && l.return_vertex[1][2] == 6,
	      "main's vertices: %u, 2->3 from %u, leave from %u", gm->nnodes,
	      gm->edges[1].src, gm->edges[3].src);
  for (int pw = 0; pw < 2; pw++)
    {
      pp_ip_numbering n;
      rc = pp_ip_number (pr, pw, &n);
      unit_check (layout, rc == 0, "numbering (piecewise %d): %d", pw, rc);
      if (rc)
	continue;
      /* The edges a function's notes alone say add 0 add 0 in the program.  */
      const pp_function_notes *fns[] = { &fa[0], &fa[1], &fb[0], &fb[1] };
      for (uint32_t p = 0; p < 4; p++)
	{
	  bool zero[8] = { 0 };
	  unit_check (layout, pp_ip_zero_edges (fns[p], pw, zero) == 0, "zero edges");
	  for (uint32_t e = 0; e < fns[p]->nedges; e++)
	    {
	      uint32_t k = n.procs[p].fin_of_edge[e];
	      if (zero[e])
		unit_check (layout, k != UINT32_MAX && mpz_sgn (n.procs[p].edges[k].rho.a) == 0
				    && mpz_sgn (n.procs[p].edges[k].rho.b) == 0,
			    "procedure %u, edge %u: said 0, rho not", p, e);
	    }
	}
      pp_ip_numbering_free (&n);
    }
  pp_ip_layout_free (&l);
out:
  for (unsigned i = 0; i < 2; i++)
    free (fa[i].edges), free (fb[i].edges);
}

/* A program record opened: its members found by name and checksum among
   the profile's units (the record itself, a unit of the same name and
   another checksum, and units it does not name beside them), or refused
   naming the record and the member the profile lacks.  */
static void
check_record_open (struct unit_property *opened)
{
  pp_ip_manifest m = { .kind = PP_IP_SEGMENTS, .depth = 1, .nunits = 2,
		       .names = (char *[]) { "a.c", "b.c" },
		       .checksums = (uint64_t[]) { 11, 22 } };
  unsigned char *buf;
  uint32_t len;
  if (pp_ip_manifest_encode (&m, &buf, &len))
    {
      unit_check (opened, 0, "encode");
      return;
    }
  pp_unit_data units[] = {
    { .name = "b.c", .checksum = 23 }, { .name = "program", .notes = buf, .notes_len = len },
    { .name = "b.c", .checksum = 22 }, { .name = "c.c", .checksum = 11 },
    { .name = "a.c", .checksum = 11 } };
  pp_profile profile = { .nunits = 5, .units = units };
  pp_ip_manifest got;
  const pp_unit_data **member;
  char err[256] = "";
  int rc = pp_ip_record_open (&profile, &units[1], &got, &member, err, sizeof err);
  unit_check (opened, rc == 0 && got.nunits == 2 && member[0] == &units[4]
	      && member[1] == &units[2] && got.kind == PP_IP_SEGMENTS,
	      "found: %d %s", rc, err);
  if (rc == 0)
    {
      free (member);
      pp_ip_manifest_free (&got);
    }
  profile.nunits = 4;		/* without a.c */
  rc = pp_ip_record_open (&profile, &units[1], &got, &member, err, sizeof err);
  unit_check (opened, rc == -1 && !member && got.nunits == 0
	      && strstr (err, "'program'") && strstr (err, "'a.c'"),
	      "a member missing: %d '%s'", rc, err);
  rc = pp_ip_record_open (&profile, &units[0], &got, &member, err, sizeof err);
  unit_check (opened, rc == -1 && !member && strstr (err, "'b.c'"),
	      "not a record: %d '%s'", rc, err);
  /* Segments numbered before version 4 (region cuts into leaves) are
     refused, saying why; another kind of version 3 still opens.  */
  profile.nunits = 5;
  buf[4] = 3;
  rc = pp_ip_record_open (&profile, &units[1], &got, &member, err, sizeof err);
  unit_check (opened, rc == -1 && !member && strstr (err, "'program'")
	      && strstr (err, "before version 4") && strstr (err, "run the program again"),
	      "version 3 segments: %d '%s'", rc, err);
  /* And before version 5 (the region cuts' threshold bisected).  */
  buf[4] = 4;
  rc = pp_ip_record_open (&profile, &units[1], &got, &member, err, sizeof err);
  unit_check (opened, rc == -1 && !member && strstr (err, "before version 5")
	      && strstr (err, "search of every threshold"),
	      "version 4 segments: %d '%s'", rc, err);
  buf[4] = 3;
  buf[8] = PP_IP_CONTEXT;
  buf[12] = 0;			/* depth 0 */
  rc = pp_ip_record_open (&profile, &units[1], &got, &member, err, sizeof err);
  unit_check (opened, rc == 0 && got.kind == PP_IP_CONTEXT, "version 3 context: %d '%s'",
	      rc, err);
  if (rc == 0)
    {
      free (member);
      pp_ip_manifest_free (&got);
    }
  free (buf);
}

int
main (void)
{
  struct unit_property dense = { .name = "interproc: path numbers are 0 .. npaths-1, once each (brute force)" };
  struct unit_property decode = { .name = "interproc: decoding a number gives back its path" };
  struct unit_property edges = { .name = "interproc: every edge is in G*_fin once, or is cut (backedge, fake edge) with its own surrogates" };
  static struct walk w;
  w.numbers = malloc (MAXPATHS * sizeof *w.numbers);
  w.decode = &decode;
  unsigned long long rng = 0x1998;
  struct unit_property packed = { .name = "interproc: a numbering or a layout packed and adopted is the same; damaged blocks are refused" };
  struct unit_property pieces = { .name = "interproc: each procedure's pieces are numbered 0 .. npieces-1, once each, and decode (brute force)" };
  unsigned pieced = 0;
  struct unit_property same_cuts = { .name = "interproc: a procedure past the bound is cut at the calls the one-at-a-time search cuts" };
  unsigned cases = 0, skipped = 0, recursive = 0, fakes = 0, cut_sites = 0, cut_sites_ref = 0;
  size_t most_bits = 0;
  for (unsigned t = 0; t < 3000; t++)
    {
      unsigned long long seed = rng;
      uint32_t nprocs = 1 + (uint32_t) (unit_rand (&rng) % MAXPROCS);
      pp_graph g[MAXPROCS];
      pp_ip_call calls[3 * MAXPROCS];
      bool external[MAXPROCS];
      uint32_t ncalls = 0;
      for (uint32_t p = 0; p < nprocs; p++)
	{
	  random_proc (&g[p], p, nprocs, &rng, calls, &ncalls);
	  external[p] = unit_rand (&rng) % 8 == 0;
	}
      /* A third of the programs numbered with a bound of 2 to 4 bits per
	 procedure: calls are cut into summary edges.  */
      uint32_t bound = t % 3 == 0 ? 2 + t / 3 % 3 : 0;
      pp_ip_program prog = { nprocs, g, external, 0, ncalls, calls, bound, NULL, NULL,
			     false };
      for (int pw = 0; pw < 2; pw++)
      {
      pp_ip_numbering n;
      int rc = pp_ip_number (&prog, pw, &n);
      unit_check (&dense, rc == PP_IP_OK, "seed %llx: numbering failed (%d)", seed, rc);
      if (rc == PP_IP_OK && bound)
	{
	  /* The cuts are the reference search's, one at a time.  */
	  pp_ip_numbering ref;
	  prog.cut_one_by_one = true;
	  int rc2 = pp_ip_number (&prog, pw, &ref);
	  prog.cut_one_by_one = false;
	  bool same = rc2 == PP_IP_OK && mpz_cmp (ref.npaths, n.npaths) == 0
		      && memcmp (ref.recursive, n.recursive,
				 ncalls * sizeof *n.recursive) == 0;
	  for (uint32_t s = 0; s < ncalls; s++)
	    cut_sites_ref += ref.recursive[s];
	  unit_check (&same_cuts, same, "seed %llx: cuts differ from the reference "
		      "search's (%s paths, reference %s)", seed, zstr (n.npaths, 10),
		      rc2 ? "none" : zstr (ref.npaths, 10));
	  if (rc2 == PP_IP_OK)
	    pp_ip_numbering_free (&ref);
	}
      if (rc == PP_IP_OK)
	{
	  /* Edges.  */
	  bool ok = true;
	  for (uint32_t p = 0; p < nprocs; p++)
	    {
	      const pp_ip_proc *ip = &n.procs[p];
	      for (uint32_t e = 0; e < g[p].nedges; e++)
		{
		  uint32_t copies = 0, sur_in = 0, sur_out = 0;
		  for (uint32_t k = 0; k < ip->nedges; k++)
		    {
		      const pp_ip_edge *x = &ip->edges[k];
		      copies += x->kind == PP_IP_EDGE && x->arg == e
				&& x->src == g[p].edges[e].src && x->dst == g[p].edges[e].dst;
		      sur_in += x->kind == PP_IP_SURROGATE_ENTRY && x->arg == e
				&& x->dst == g[p].edges[e].dst
				&& x->src == (pw ? ip->gentry : g[p].entry);
		      sur_out += x->kind == PP_IP_SURROGATE_GEXIT && x->arg == e
				 && x->src == g[p].edges[e].src && x->dst == ip->gexit;
		    }
		  bool fake = g[p].edges[e].flags & PP_EDGE_FAKE;
		  bool reentry = g[p].edges[e].src == g[p].entry;
		  fakes += fake;
		  ok &= fake ? ip->back_of_edge[e] == 2 && copies == 0
			       && sur_in == reentry && sur_out == !reentry
			: ip->back_of_edge[e] ? copies == 0 && sur_in == 1 && sur_out == 1
			: copies == 1;
		  /* The instrumentation's lookups.  */
		  uint32_t k = ip->fin_of_edge[e], src = g[p].edges[e].src,
			   dst = g[p].edges[e].dst;
		  if (ip->back_of_edge[e] == 0 && !(g[p].edges[e].flags & PP_EDGE_EXIT_ENTRY))
		    ok &= k < ip->nedges && ip->edges[k].kind == PP_IP_EDGE
			  && ip->edges[k].arg == e;
		  else
		    ok &= k == UINT32_MAX;
		  uint32_t out = ip->exit_of_edge[e], in = ip->entry_of_edge[e];
		  if (ip->back_of_edge[e] == 1 || (fake && !reentry))
		    ok &= out < ip->nedges && ip->edges[out].arg == e
			  && ip->edges[out].kind == PP_IP_SURROGATE_GEXIT
			  && (!fake || ip->leave_of[src] == out);
		  if (ip->back_of_edge[e] == 1 || (fake && reentry))
		    ok &= in < ip->nedges && ip->edges[in].arg == e
			  && ip->edges[in].kind == PP_IP_SURROGATE_ENTRY
			  && (!fake || ip->reentry_of[dst] == in);
		}
	    }
	  for (uint32_t s = 0; s < ncalls; s++)
	    {
	      recursive += n.recursive[s];
	      cut_sites += bound && n.recursive[s];
	    }
	  unit_check (&edges, ok, "seed %llx", seed);
	  /* The rest checks the numbering packed and adopted, as a run that
	     finds it in the numbering cache has it.  */
	  pp_ip_numbering a;
	  uint64_t *block = NULL;
	  bool adopted = check_pack (&packed, &prog, &n, pw, seed, &a, &block);
	  check_layout_pack (&packed, &prog, &n, pw, seed);
	  const pp_ip_numbering *use = adopted ? &a : &n;
	  check_pieces (&pieces, use, seed, &pieced);
	  size_t bits = mpz_sizeinbase (n.npaths, 2);
	  if (bits > most_bits)
	    most_bits = bits;
	  if (mpz_cmp_ui (n.npaths, MAXPATHS) > 0)
	    skipped++;
	  else
	    {
	      w.n = use;
	      w.nsteps = w.depth = w.npaths = 0;
	      w.overflow = false;
	      w.seed = seed;
	      pp_ip_cursor_init (&w.cur);
	      for (uint32_t r = 0; r < use->nroots; r++)
		{
		  w.nsteps = 0;
		  record (&w, PP_IP_STEP_ROOT, use->roots[r], use->root_gentry[r]);
		  pp_ip_start (use, &w.cur, r);
		  w.rooted = !use->root_gentry[r];
		  explore (&w, use->roots[r], use->root_gentry[r] ? use->procs[use->roots[r]].gentry
						 : use->procs[use->roots[r]].entry);
		}
	      pp_ip_cursor_free (&w.cur);
	      qsort (w.numbers, w.npaths, sizeof *w.numbers, by_value);
	      bool exact = !w.overflow && mpz_cmp_ui (use->npaths, w.npaths) == 0;
	      for (uint32_t i = 0; exact && i < w.npaths; i++)
		exact = w.numbers[i] == i;
	      if (!exact && getenv ("IP_DEBUG"))
		{
		  for (uint32_t p = 0; p < nprocs; p++)
		    {
		      printf ("proc %u ext %d:", p, external[p]);
		      for (uint32_t e = 0; e < g[p].nedges; e++)
			printf (" %u->%u%s", g[p].edges[e].src, g[p].edges[e].dst,
				use->procs[p].back_of_edge[e] ? "B" : "");
		      printf ("\n");
		    }
		  for (uint32_t s = 0; s < ncalls; s++)
		    printf ("site %u: proc %u %u->%u calls %u%s\n", s, calls[s].proc,
			    calls[s].call, calls[s].ret, calls[s].callee,
			    n.recursive[s] ? " recursive" : "");
		  for (uint32_t r = 0; r < use->nroots; r++)
		    printf ("root %u\n", use->roots[r]);
		  for (uint32_t p = 0; p < nprocs; p++)
		    for (uint32_t v = 0; v < use->procs[p].nnodes; v++)
		      gmp_printf ("proc %u v %u psi <%Zd,%Zd> call_at %d\n", p, v, use->procs[p].psi[v].a,
				  use->procs[p].psi[v].b, (int) use->procs[p].call_at[v]);
		  exit (1);
		}
	      unit_check (&dense, exact, "seed %llx: %u paths enumerated%s, npaths %s",
			  seed, w.npaths, w.overflow ? " (too many)" : "",
			  zstr (n.npaths, 10));
	      /* Beyond the last number: refused.  */
	      unit_check (&decode, pp_ip_decode (use, use->npaths, replay_step,
						 &(struct replay) { 0 }) == -2,
			  "seed %llx: npaths decodes", seed);
	      cases++;
	    }
	  if (adopted)
	    {
	      pp_ip_adopted_free (&a);
	      free (block);
	    }
	  pp_ip_numbering_free (&n);
	}
      }
      for (uint32_t p = 0; p < nprocs; p++)
	pp_graph_free (&g[p]);
    }
  struct unit_property big = { .name = "interproc: numbers beyond 64 bits decode and number back" };
  check_bignums (&big);
  struct unit_property refused = { .name = "interproc: programs breaking the conventions are refused" };
  check_refusals (&refused);
  struct unit_property layout = { .name = "interproc: the program of units' notes (calls resolved, blocks split)" };
  check_layout (&layout);
  struct unit_property alone = { .name = "interproc: which units call another unit's function, from their names alone, as the layout resolves calls (random programs)" };
  struct unit_property lazily = { .name = "interproc: the layout made lazily, each procedure's graph when asked for, is the layout made whole (random programs)" };
  struct unit_property imports = { .name = "interproc: which of a unit's imports (a compiled root's assumed callees) are another unit's functions, from the names alone, as the layout resolves calls (random programs)" };
  struct unit_property signature = { .name = "interproc: a program's signature (compiled roots across units) is its units' names and exports, whatever their order (random programs)" };
  check_alone (&alone, &imports, &signature, &lazily);
  struct unit_property opened = { .name = "interproc: a program record's member units are found in the profile by name and checksum, or it is refused naming the one missing" };
  check_record_open (&opened);
  unit_report (&lazily);
  unit_report (&dense);
  unit_report (&decode);
  unit_report (&edges);
  unit_report (&packed);
  unit_report (&pieces);
  check_cut_search (&same_cuts);
  check_cut_margin (&same_cuts);
  unit_report (&same_cuts);
  unit_report (&big);
  unit_report (&refused);
  unit_report (&layout);
  unit_report (&alone);
  unit_report (&imports);
  unit_report (&signature);
  unit_report (&opened);
  printf ("note: %u numberings (context and piecewise) enumerated, %u with more than %u paths skipped, %u "
	  "recursive call sites (%u of them, recursive or cut, under a bound of 2 to 4 bits; "
	  "%u in the reference search), %u fake edges; the largest path count has %zu bits; "
	  "%u procedures' pieces enumerated\n",
	  cases, skipped, MAXPATHS, recursive, cut_sites, cut_sites_ref, fakes, most_bits, pieced);
  free (w.numbers);
  return unit_exit_status ();
}
