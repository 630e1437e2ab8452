/* A numbering (interproc.h pp_ip_pack, pp_ip_adopt) and a program's layout
   (ip-notes.h pp_ip_layout_pack, pp_ip_layout_adopt) as blocks of words, so
   that libprof can keep them in its numbering cache and the next run adopt
   them instead of making them again.

   A block is a sequence of 64-bit words in host order, read only on the
   machine that wrote it.  Counts go two to a word; u32 arrays two to a word,
   the last word padded; a bool array eight to a word; a number is a word
   holding its signed size in limbs, then its limbs as GMP keeps them
   (padded to a word).  The numbering's, in order: the program's counts (procedures, calls,
   roots, piecewise), its calls, exit_of_site, recursive, roots, root_gentry,
   root_value and npaths; then each procedure: its counts and vertices, psi
   per vertex, its G*_fin edges (src, dst, kind, arg; then rho), out_start,
   call_at, back_of_edge, fin_of_edge, exit_of_edge, entry_of_edge,
   leave_of, reentry_of, unbal, exit_site and exit_value.  The layout's:
   pack_layout below.

   Adoption makes no copy of the arrays or the numbers: the arrays point
   into the block, the numbers are read-only views of the block's limbs
   (MPZ_ROINIT_N); only the structures that hold numbers (psi, the edges,
   the exits' and roots' values) and the per-procedure tables of pointers
   are allocated.  It checks every count against the program and every
   index the users follow, so that a numbering that passes is one
   pp_ip_number could have made for this program, and a layout one whose
   every index stays in range.  */

#include <string.h>

#include "format/alloc.h"
#include "interproc.h"
#include "ip-notes.h"

#define NONE UINT32_MAX

/* ---- Writing.  */

/* The block is written twice: counting its words (W NULL), then into a
   buffer of that size.  */
typedef struct packer
{
  uint64_t *w;
  size_t n, cap;
  bool failed;
} packer;

/* WORDS more words at the end, the last one zero (the padding); NULL
   when counting.  */
static inline uint64_t *
room (packer *k, size_t words)
{
  if (!k->w || k->n + words > k->cap)
    {
      k->failed |= k->w != NULL;	/* more than counted: never */
      k->n += words;
      return NULL;
    }
  uint64_t *at = k->w + k->n;
  if (words)
    at[words - 1] = 0;
  k->n += words;
  return at;
}

static void
put_pair (packer *k, uint32_t lo, uint32_t hi)
{
  uint64_t *at = room (k, 1);
  if (at)
    *at = lo | (uint64_t) hi << 32;
}

static void
put_u32s (packer *k, const uint32_t *a, size_t n)
{
  uint64_t *at = room (k, (n + 1) / 2);
  if (at && n)
    memcpy (at, a, n * sizeof *a);
}

/* N bytes (bools, roles), eight to a word.  */
static void
put_bytes (packer *k, const void *a, size_t n)
{
  uint64_t *at = room (k, (n + 7) / 8);
  if (at && n)
    memcpy (at, a, n);
}

#define LIMB_WORDS(n) (((size_t) (n) * sizeof (mp_limb_t) + 7) / 8)

static inline void
put_num (packer *k, const mpz_t x)
{
  size_t n = mpz_size (x);
  uint64_t *at = room (k, 1 + LIMB_WORDS (n));
  if (!at)
    return;
  at[0] = (uint64_t) (mpz_sgn (x) < 0 ? -(int64_t) n : (int64_t) n);
  if (n == 1 && sizeof (mp_limb_t) == 8)
    at[1] = mpz_getlimbn (x, 0);
  else if (n)
    memcpy (at + 1, mpz_limbs_read (x), n * sizeof (mp_limb_t));
}

static void
put_lins (packer *k, const pp_ip_lin *f, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      put_num (k, f[i].a);
      put_num (k, f[i].b);
    }
}

static void
pack_numbering (const void *what, const void *with, packer *k)
{
  const pp_ip_numbering *nb = what;
  const pp_ip_program *prog = with;
  put_pair (k, nb->nprocs, nb->ncalls);
  put_pair (k, nb->nroots, nb->piecewise);
  put_u32s (k, (const uint32_t *) nb->calls, 4 * (size_t) nb->ncalls);
  put_u32s (k, nb->exit_of_site, nb->ncalls);
  put_bytes (k, nb->recursive, nb->ncalls);
  put_u32s (k, nb->roots, nb->nroots);
  put_bytes (k, nb->root_gentry, nb->nroots);
  for (uint32_t r = 0; r < nb->nroots; r++)
    put_num (k, nb->root_value[r]);
  put_num (k, nb->npaths);
  for (uint32_t p = 0; p < nb->nprocs; p++)
    {
      const pp_ip_proc *ip = &nb->procs[p];
      uint32_t ge = prog->procs[p].nedges, nv = ip->nnodes;
      put_pair (k, nv, ip->nedges);
      put_pair (k, ip->entry, ip->exit);
      put_pair (k, ip->gexit, ip->gentry);
      put_pair (k, ip->nexits, 0);
      put_lins (k, ip->psi, nv);
      for (uint32_t e = 0; e < ip->nedges; e++)
	{
	  const pp_ip_edge *x = &ip->edges[e];
	  put_pair (k, x->src, x->dst);
	  put_pair (k, x->kind, x->arg);
	}
      for (uint32_t e = 0; e < ip->nedges; e++)
	put_lins (k, &ip->edges[e].rho, 1);
      put_u32s (k, ip->out_start, nv + 1);
      put_u32s (k, ip->call_at, nv);
      put_u32s (k, (const uint32_t *) ip->back_of_edge, ge);
      put_u32s (k, ip->fin_of_edge, ge);
      put_u32s (k, ip->exit_of_edge, ge);
      put_u32s (k, ip->entry_of_edge, ge);
      put_u32s (k, ip->leave_of, nv);
      put_u32s (k, ip->reentry_of, nv);
      put_num (k, ip->unbal);
      put_u32s (k, ip->exit_site, ip->nexits);
      for (uint32_t i = 0; i < ip->nexits; i++)
	put_num (k, ip->exit_value[i]);
    }
}

/* The block FN writes of WHAT (and WITH), counted, then written into one
   buffer of its size.  */
static int
pack_block (void (*fn) (const void *, const void *, packer *), const void *what,
	    const void *with, uint64_t **words, size_t *nwords)
{
  packer k = { 0 };
  fn (what, with, &k);
  k = (packer) { .w = pp_malloc ((k.n + 1) * sizeof *k.w), .cap = k.n };
  if (!k.w)
    return PP_IP_ENOMEM;
  fn (what, with, &k);
  if (k.failed || k.n != k.cap)
    {
      pp_free (k.w);
      return PP_IP_ENOMEM;
    }
  *words = k.w;
  *nwords = k.n;
  return PP_IP_OK;
}

int
pp_ip_pack (const pp_ip_program *prog, const pp_ip_numbering *nb,
	    uint64_t **words, size_t *nwords)
{
  return pack_block (pack_numbering, nb, prog, words, nwords);
}

/* The layout's block: its counts, first_proc, external (if any), the
   calls and call_start (if any); then each procedure's graph (nnodes,
   nedges, entry, exit, the edges, the successor and predecessor lists),
   its calls (site_of_call, leaf_edge, call_vertex, return_vertex,
   call_block) and its edges' roles.  */
static void
pack_layout (const void *what, const void *with, packer *k)
{
  (void) with;
  const pp_ip_layout *l = what;
  const pp_ip_program *pr = &l->prog;
  put_pair (k, l->nunits, pr->nprocs);
  put_pair (k, pr->ncalls, pr->main);
  put_pair (k, pr->max_bits, (pr->call_start != NULL) | (pr->external != NULL) << 1);
  put_u32s (k, l->first_proc, l->nunits);
  if (pr->external)
    put_bytes (k, pr->external, pr->nprocs);
  put_u32s (k, (const uint32_t *) pr->calls, 4 * (size_t) pr->ncalls);
  if (pr->call_start)
    put_u32s (k, pr->call_start, (size_t) pr->nprocs + 1);
  for (uint32_t p = 0; p < pr->nprocs; p++)
    {
      const pp_graph *g = &pr->procs[p];
      uint32_t nc = l->ncalls_of[p];
      put_pair (k, g->nnodes, g->nedges);
      put_pair (k, g->entry, g->exit);
      put_u32s (k, (const uint32_t *) g->edges, 3 * (size_t) g->nedges);
      put_u32s (k, g->succ_start, (size_t) g->nnodes + 1);
      put_u32s (k, g->succ_edges, g->nedges);
      put_u32s (k, g->pred_start, (size_t) g->nnodes + 1);
      put_u32s (k, g->pred_edges, g->nedges);
      put_pair (k, nc, 0);
      put_u32s (k, l->site_of_call[p], nc);
      put_u32s (k, l->leaf_edge[p], nc);
      put_u32s (k, l->call_vertex[p], nc);
      put_u32s (k, l->return_vertex[p], nc);
      put_u32s (k, l->call_block[p], nc);
      put_bytes (k, l->edge_role[p], g->nedges);
    }
}

int
pp_ip_layout_pack (const pp_ip_layout *l, uint64_t **words, size_t *nwords)
{
  return pack_block (pack_layout, l, NULL, words, nwords);
}

/* ---- Reading.  */

typedef struct reader
{
  const uint64_t *w;
  size_t n, at;
  bool bad, no_memory;
} reader;

static inline const uint64_t *
take (reader *r, size_t words)
{
  if (r->bad || words > r->n - r->at)
    {
      r->bad = true;
      return NULL;
    }
  const uint64_t *at = r->w + r->at;
  r->at += words;
  return at;
}

static void
get_pair (reader *r, uint32_t *lo, uint32_t *hi)
{
  const uint64_t *at = take (r, 1);
  *lo = at ? (uint32_t) *at : 0;
  *hi = at ? (uint32_t) (*at >> 32) : 0;
}

typedef uint32_t u32x4 __attribute__ ((vector_size (16)));

/* N u32s where each is below BOUND (or NONE where NONE_OK).  With NONE_OK
   a value v is bad where v + 1 (NONE's 0) exceeds BOUND: one unsigned
   compare, four values to a vector's (a start of SQLite's run from the
   numbering cache checks 4 M of them).  */
static uint32_t *
get_u32s (reader *r, size_t n, uint32_t bound, bool none_ok)
{
  uint32_t *a = (uint32_t *) take (r, (n + 1) / 2);
  if (!a)
    return NULL;
  if (bound == 0 && !none_ok)
    {
      if (n)
	r->bad = true;
      return r->bad ? NULL : a;
    }
  uint32_t off = none_ok, top = bound - 1 + off;	/* no wrap but at 0 with off 1 */
  u32x4 bad4 = { 0, 0, 0, 0 };
  size_t i = 0;
  for (; i + 4 <= n; i += 4)
    {
      u32x4 v;
      memcpy (&v, a + i, sizeof v);
      bad4 |= (u32x4) ((v + off) > top);
    }
  uint32_t bad = bad4[0] | bad4[1] | bad4[2] | bad4[3];
  for (; i < n; i++)
    bad |= a[i] + off > top;
  if (bad)
    r->bad = true;
  return r->bad ? NULL : a;
}

/* N bytes, each below BOUND.  */
static unsigned char *
get_bools_below (reader *r, size_t n, unsigned bound)
{
  unsigned char *a = (unsigned char *) take (r, (n + 7) / 8);
  for (size_t i = 0; a && i < n; i++)
    if (a[i] >= bound)
      r->bad = true;
  return r->bad ? NULL : a;
}

static bool *
get_bools (reader *r, size_t n)
{
  return (bool *) get_bools_below (r, n, 2);
}

/* A read-only view of the block's limbs (GMP's MPZ_ROINIT_N, which wants
   them normalized: the top limb not zero, as pack wrote them).  */
static inline void
get_num (reader *r, mpz_t x)
{
  const uint64_t *at = take (r, 1);
  int64_t size = at ? (int64_t) *at : 0;
  size_t n = size < 0 ? -(uint64_t) size : (uint64_t) size;
  const mp_limb_t *limbs = n > r->n ? NULL : (const mp_limb_t *) take (r, LIMB_WORDS (n));
  if (!limbs || (n && limbs[n - 1] == 0))
    {
      r->bad = true;
      limbs = NULL;
      size = 0;
    }
  mpz_t view = MPZ_ROINIT_N ((mp_limb_t *) limbs, (mp_size_t) size);
  x[0] = view[0];
}

static void
get_lins (reader *r, pp_ip_lin *f, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      get_num (r, f[i].a);
      get_num (r, f[i].b);
    }
}

/* Procedure P of the block, checked against its graph G.  */
static void
get_proc (reader *r, const pp_graph *g, uint32_t ncalls, bool piecewise,
	  pp_ip_proc *ip)
{
  uint32_t nv, zero;
  get_pair (r, &nv, &ip->nedges);
  get_pair (r, &ip->entry, &ip->exit);
  get_pair (r, &ip->gexit, &ip->gentry);
  get_pair (r, &ip->nexits, &zero);
  uint32_t n = g->nnodes, ge = g->nedges;
  if (r->bad || nv != n + 1 + piecewise || ip->entry != g->entry || ip->exit != g->exit
      || ip->gexit != n || ip->gentry != (piecewise ? n + 1 : NONE)
      || ip->nexits > ncalls + 1 || zero
      || ip->nedges > r->n - r->at)	/* two words an edge at least */
    {
      r->bad = true;
      return;
    }
  ip->nnodes = nv;
  ip->psi = pp_calloc ((size_t) nv + 1, sizeof *ip->psi);
  ip->edges = pp_calloc ((size_t) ip->nedges + 1, sizeof *ip->edges);
  ip->exit_value = pp_calloc ((size_t) ip->nexits + 1, sizeof *ip->exit_value);
  if (!ip->psi || !ip->edges || !ip->exit_value)
    {
      r->bad = r->no_memory = true;
      return;
    }
  get_lins (r, ip->psi, nv);
  for (uint32_t e = 0; e < ip->nedges && !r->bad; e++)
    {
      pp_ip_edge *x = &ip->edges[e];
      uint32_t kind;
      get_pair (r, &x->src, &x->dst);
      get_pair (r, &kind, &x->arg);
      x->kind = (uint8_t) kind;
      if (x->src >= nv || x->dst >= nv || kind > PP_IP_SUMMARY
	  || x->arg >= (kind == PP_IP_SUMMARY ? ncalls : ge))
	r->bad = true;
    }
  for (uint32_t e = 0; e < ip->nedges && !r->bad; e++)
    get_lins (r, &ip->edges[e].rho, 1);
  ip->out_start = get_u32s (r, nv + 1, ip->nedges + 1, false);
  for (uint32_t v = 0; ip->out_start && v < nv; v++)
    if (ip->out_start[v] > ip->out_start[v + 1])
      r->bad = true;
  if (ip->out_start && (ip->out_start[0] != 0 || ip->out_start[nv] != ip->nedges))
    r->bad = true;
  ip->call_at = get_u32s (r, nv, ncalls, true);
  ip->back_of_edge = (int32_t *) get_u32s (r, ge, 3, false);
  ip->fin_of_edge = get_u32s (r, ge, ip->nedges, true);
  ip->exit_of_edge = get_u32s (r, ge, ip->nedges, true);
  ip->entry_of_edge = get_u32s (r, ge, ip->nedges, true);
  ip->leave_of = get_u32s (r, nv, ip->nedges, true);
  ip->reentry_of = get_u32s (r, nv, ip->nedges, true);
  get_num (r, ip->unbal);
  ip->exit_site = get_u32s (r, ip->nexits, ncalls, true);
  for (uint32_t i = 0; i < ip->nexits && !r->bad; i++)
    get_num (r, ip->exit_value[i]);
}

int
pp_ip_adopt (const pp_ip_program *prog, bool piecewise, uint64_t *words,
	     size_t nwords, pp_ip_numbering *nb)
{
  memset (nb, 0, sizeof *nb);
  reader r = { .w = words, .n = nwords };
  uint32_t nprocs, ncalls, nroots, pw;
  get_pair (&r, &nprocs, &ncalls);
  get_pair (&r, &nroots, &pw);
  if (r.bad || nprocs != prog->nprocs || ncalls != prog->ncalls
      || nroots > 2 * (uint64_t) nprocs + 1 || pw != piecewise)
    return PP_IP_EGRAPH;
  nb->nprocs = nprocs;
  nb->ncalls = ncalls;
  nb->nroots = nroots;
  nb->piecewise = piecewise;
  nb->calls = (pp_ip_call *) get_u32s (&r, 4 * (size_t) ncalls, UINT32_MAX, true);
  if (nb->calls && ncalls && memcmp (nb->calls, prog->calls, ncalls * sizeof *nb->calls))
    r.bad = true;
  nb->exit_of_site = get_u32s (&r, ncalls, ncalls + 1, true);
  nb->recursive = get_bools (&r, ncalls);
  nb->roots = get_u32s (&r, nroots, nprocs, false);
  nb->root_gentry = get_bools (&r, nroots);
  nb->root_value = pp_calloc ((size_t) nroots + 1, sizeof *nb->root_value);
  nb->procs = pp_calloc ((size_t) nprocs + 1, sizeof *nb->procs);
  if (!nb->root_value || !nb->procs)
    r.bad = r.no_memory = true;
  for (uint32_t i = 0; i < nroots && !r.bad; i++)
    get_num (&r, nb->root_value[i]);
  get_num (&r, nb->npaths);
  for (uint32_t p = 0; p < nprocs && !r.bad; p++)
    get_proc (&r, &prog->procs[p], ncalls, piecewise, &nb->procs[p]);
  /* A non-recursive site's place among its callee's exits.  */
  for (uint32_t s = 0; piecewise && s < ncalls && !r.bad; s++)
    if (!nb->recursive[s] && nb->exit_of_site[s] >= nb->procs[nb->calls[s].callee].nexits)
      r.bad = true;
  if (r.bad || r.at != r.n)
    {
      pp_ip_adopted_free (nb);
      return r.no_memory ? PP_IP_ENOMEM : PP_IP_EGRAPH;
    }
  return PP_IP_OK;
}

void
pp_ip_adopted_free (pp_ip_numbering *nb)
{
  for (uint32_t p = 0; nb->procs && p < nb->nprocs; p++)
    {
      pp_free (nb->procs[p].psi);
      pp_free (nb->procs[p].edges);
      pp_free (nb->procs[p].exit_value);
    }
  pp_free (nb->procs);
  pp_free (nb->root_value);
  memset (nb, 0, sizeof *nb);
}

/* The adjacency lists of graph G in the block, checked.  */
static void
get_lists (reader *r, pp_graph *g)
{
  uint32_t **lists[] = { &g->succ_start, &g->succ_edges, &g->pred_start, &g->pred_edges };
  for (int i = 0; i < 4; i++)
    {
      bool starts = i % 2 == 0;
      *lists[i] = get_u32s (r, starts ? (size_t) g->nnodes + 1 : g->nedges,
			    starts ? g->nedges + 1 : g->nedges, false);
      const uint32_t *a = *lists[i];
      for (uint32_t v = 0; starts && a && v < g->nnodes; v++)
	if (a[v] > a[v + 1])
	  r->bad = true;
      if (starts && a && (a[0] != 0 || a[g->nnodes] != g->nedges))
	r->bad = true;
    }
}

int
pp_ip_layout_adopt (uint32_t nunits, uint64_t *words, size_t nwords, pp_ip_layout *l)
{
  memset (l, 0, sizeof *l);
  reader r = { .w = words, .n = nwords };
  uint32_t n, nprocs, ncalls, main, max_bits, has;
  get_pair (&r, &n, &nprocs);
  get_pair (&r, &ncalls, &main);
  get_pair (&r, &max_bits, &has);
  bool starts = has & 1;
  if (r.bad || n != nunits || (main >= nprocs && nprocs) || has > 3
      || nprocs > r.n || ncalls > r.n)	/* a word each at least */
    return PP_IP_EGRAPH;
  pp_ip_program *pr = &l->prog;
  *pr = (pp_ip_program) { .nprocs = nprocs, .main = main, .ncalls = ncalls,
			  .max_bits = max_bits };
  l->nunits = nunits;
  l->first_proc = get_u32s (&r, nunits, nprocs + 1, false);
  for (uint32_t u = 0; l->first_proc && u < nunits; u++)
    if ((u == 0 && l->first_proc[0] != 0) || (u && l->first_proc[u] < l->first_proc[u - 1]))
      r.bad = true;
  pr->external = has & 2 ? get_bools (&r, nprocs) : NULL;
  pp_ip_call *calls = (pp_ip_call *) get_u32s (&r, 4 * (size_t) ncalls, UINT32_MAX, false);
  pr->calls = calls;
  uint32_t *call_start = starts ? get_u32s (&r, (size_t) nprocs + 1, ncalls + 1, false) : NULL;
  for (uint32_t p = 0; call_start && p < nprocs; p++)
    if (call_start[p] > call_start[p + 1])
      r.bad = true;
  if (call_start && (call_start[0] != 0 || call_start[nprocs] != ncalls))
    r.bad = true;
  pr->call_start = call_start;
  pp_graph *procs = pp_calloc ((size_t) nprocs + 1, sizeof *procs);
  size_t per_proc = ((size_t) nprocs + 1) * sizeof (uint32_t *);
  l->site_of_call = pp_malloc (per_proc);
  l->leaf_edge = pp_malloc (per_proc);
  l->call_vertex = pp_malloc (per_proc);
  l->return_vertex = pp_malloc (per_proc);
  l->call_block = pp_malloc (per_proc);
  l->edge_role = pp_malloc (per_proc);
  l->ncalls_of = pp_calloc ((size_t) nprocs + 1, sizeof *l->ncalls_of);
  pr->procs = procs;
  pr->edge_role = (const uint8_t *const *) l->edge_role;
  if (!procs || !l->site_of_call || !l->leaf_edge || !l->call_vertex
      || !l->return_vertex || !l->call_block || !l->edge_role || !l->ncalls_of)
    r.bad = r.no_memory = true;
  for (uint32_t p = 0; p < nprocs && !r.bad; p++)
    {
      pp_graph *g = &procs[p];
      uint32_t zero, nc;
      get_pair (&r, &g->nnodes, &g->nedges);
      get_pair (&r, &g->entry, &g->exit);
      if (r.bad || g->entry >= g->nnodes || g->exit >= g->nnodes
	  || g->nnodes > r.n || g->nedges > r.n)
	{
	  r.bad = true;
	  break;
	}
      g->edge_cap = g->nedges;
      g->edges = (pp_edge *) get_u32s (&r, 3 * (size_t) g->nedges, UINT32_MAX, false);
      for (uint32_t e = 0; g->edges && e < g->nedges; e++)
	if (g->edges[e].src >= g->nnodes || g->edges[e].dst >= g->nnodes)
	  r.bad = true;
      get_lists (&r, g);
      get_pair (&r, &nc, &zero);
      if (r.bad || zero || nc > r.n)
	{
	  r.bad = true;
	  break;
	}
      l->ncalls_of[p] = nc;
      l->site_of_call[p] = get_u32s (&r, nc, ncalls, true);
      l->leaf_edge[p] = get_u32s (&r, nc, g->nedges, true);
      l->call_vertex[p] = get_u32s (&r, nc, g->nnodes, false);
      l->return_vertex[p] = get_u32s (&r, nc, g->nnodes, false);
      l->call_block[p] = get_u32s (&r, nc, g->nnodes, false);
      l->edge_role[p] = (uint8_t *) get_bools_below (&r, g->nedges, 4);
    }
  for (uint32_t s = 0; s < ncalls && !r.bad; s++)
    if (calls[s].proc >= nprocs || calls[s].callee >= nprocs
	|| calls[s].call >= procs[calls[s].proc].nnodes
	|| calls[s].ret >= procs[calls[s].proc].nnodes)
      r.bad = true;
  if (r.bad || r.at != r.n)
    {
      pp_ip_layout_adopted_free (l);
      return r.no_memory ? PP_IP_ENOMEM : PP_IP_EGRAPH;
    }
  return PP_IP_OK;
}

void
pp_ip_layout_adopted_free (pp_ip_layout *l)
{
  pp_free ((void *) l->prog.procs);
  pp_free (l->site_of_call);
  pp_free (l->leaf_edge);
  pp_free (l->call_vertex);
  pp_free (l->return_vertex);
  pp_free (l->call_block);
  pp_free (l->edge_role);
  pp_free (l->ncalls_of);
  memset (l, 0, sizeof *l);
}
