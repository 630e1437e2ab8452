/* The program of the interprocedural modes from notes (ip-notes.h).  */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/alloc.h"
#include "format/profile.h"
#include "ip-notes.h"

#define NONE UINT32_MAX

/* The public functions by asm name, for calls between units.  */
struct name
{
  const char *asm_name;
  uint32_t proc;
  bool weak;			/* a weak definition (PP_FUNCTION_WEAK) */
};

/* A set of functions by asm name, one a name: the one the linker takes
   for every call of it (a strong definition before weak ones, then the
   first procedure), found by the name's hash (open addressing: slot[k] is
   1 + its index in v, 0 where empty) with mostly one strcmp.  A binary
   search of sorted names cost SQLite's first run 9 M of its 67 M
   instructions resolving its 20,000 calls.  */
struct names
{
  struct name *v;
  uint32_t n, mask;
  uint32_t *slot;
};

/* libc's strlen, not a loop (DESIGN.md, "The cost of a short run"): the
   layout hashes every call's callee (SQLite: 12,600 names, 0.7 M
   instructions less the first run), against one symbol binding.  */
static uint64_t
hash_of (const char *asm_name)
{
  return pp_hash64 (asm_name, strlen (asm_name), PP_HASH_SEED);
}

/* N for at most MOST names, empty.  Returns 0, or -1 when out of memory.  */
static int
names_init (struct names *N, uint32_t most)
{
  uint64_t cap = 2;
  while (cap < 2 * (uint64_t) most)
    cap *= 2;
  N->v = NULL;
  N->slot = NULL;
  N->n = 0;
  N->mask = (uint32_t) cap - 1;
  if (cap > UINT32_MAX)
    return -1;
  N->v = pp_malloc (((size_t) most + 1) * sizeof *N->v);
  N->slot = pp_calloc (cap, sizeof *N->slot);
  return N->v && N->slot ? 0 : -1;
}

static void
names_clear (struct names *N)
{
  memset (N->slot, 0, (N->mask + 1) * sizeof *N->slot);
  N->n = 0;
}

static void
names_free (struct names *N)
{
  pp_free (N->v);
  pp_free (N->slot);
}

/* The slot of the name whose hash is H: its own, or the empty one where
   it would go.  */
static uint32_t
names_slot (const struct names *N, const char *asm_name, uint64_t h)
{
  uint32_t k = h & N->mask;
  while (N->slot[k] && strcmp (N->v[N->slot[k] - 1].asm_name, asm_name) != 0)
    k = (k + 1) & N->mask;
  return k;
}

/* Adds X, whose procedure comes after those of the names in N.  */
static void
names_add (struct names *N, struct name x)
{
  uint32_t k = names_slot (N, x.asm_name, hash_of (x.asm_name));
  if (!N->slot[k])
    {
      N->v[N->n++] = x;
      N->slot[k] = N->n;
    }
  else if (N->v[N->slot[k] - 1].weak && !x.weak)
    N->v[N->slot[k] - 1] = x;
}

/* The function named ASM_NAME, whose hash is H, or NULL.  */
static const struct name *
find (const struct names *N, const char *asm_name, uint64_t h)
{
  uint32_t k = names_slot (N, asm_name, h);
  return N->slot[k] ? &N->v[N->slot[k] - 1] : NULL;
}

/* Procedure p's calls (function fn of a unit whose procedures start at
   first): their blocks, call and return vertices, and the program's call
   sites of those whose callee the program defines (appended to calls).  */
static void
index_proc (pp_ip_layout *l, uint32_t p, uint32_t first, const pp_function_notes *fn,
	    const struct names *pub, const struct names *own, pp_ip_call *calls,
	    uint32_t **words)
{
  uint32_t nc = fn->ncalls;
  /* Five arrays of nc + 1 from the layout's block (*words).  */
  uint32_t **arrays[] = { l->site_of_call, l->leaf_edge, l->call_vertex,
			  l->return_vertex, l->call_block };
  for (uint32_t i = 0; i < sizeof arrays / sizeof *arrays; i++)
    {
      arrays[i][p] = *words;
      *words += nc + 1;
    }
  l->ncalls_of[p] = nc;
  l->nblocks_of[p] = fn->nblocks;
  for (uint32_t k = 0; k < nc; k++)
    {
      /* A block's calls are in order (the notes' decoder checks it): the
	 first leaves from the block's vertex, each later one from the
	 return vertex of the one before.  */
      uint32_t b = fn->calls[k].block;
      l->call_block[p][k] = b;
      l->call_vertex[p][k] = k && fn->calls[k - 1].block == b
			     ? l->return_vertex[p][k - 1] : b;
      l->return_vertex[p][k] = fn->nblocks + k;
    }
  for (uint32_t k = 0; k < nc; k++)
    {
      const pp_call_notes *c = &fn->calls[k];
      uint32_t callee = NONE;
      if (!(c->flags & (PP_CALL_INDIRECT | PP_CALL_RETURNS_TWICE)) && c->callee[0])
	{
	  /* The unit's own definition, but where it is weak another unit's
	     strong one, which the linker takes for every call.  */
	  uint64_t h = hash_of (c->callee);
	  const struct name *mine = find (own, c->callee, h);
	  const struct name *theirs = mine && !mine->weak ? NULL : find (pub, c->callee, h);
	  callee = mine && !(mine->weak && theirs && !theirs->weak) ? first + mine->proc
		   : theirs ? theirs->proc : NONE;
	}
      l->site_of_call[p][k] = l->leaf_edge[p][k] = NONE;
      if (callee != NONE)
	{
	  l->site_of_call[p][k] = l->prog.ncalls;
	  calls[l->prog.ncalls++] = (pp_ip_call) { p, l->call_vertex[p][k],
						   l->return_vertex[p][k], callee };
	}
    }
}

int
pp_ip_layout_build_proc (pp_ip_layout *l, uint32_t p, const pp_function_notes *fn)
{
  pp_graph *g = (pp_graph *) &l->prog.procs[p];
  if (g->nnodes)
    return 0;
  uint32_t nc = l->ncalls_of[p];
  if (fn->nblocks != l->nblocks_of[p] || fn->ncalls != nc)
    return -1;
  uint32_t *last = pp_malloc ((fn->nblocks + 1) * sizeof *last);
  int status = -1;
  if (!last || pp_graph_init (g, fn->nblocks + nc, 0, 1)
      || pp_graph_reserve (g, fn->nedges + nc))
    goto out;
  for (uint32_t b = 0; b < fn->nblocks; b++)
    last[b] = b;
  for (uint32_t k = 0; k < nc; k++)
    last[l->call_block[p][k]] = l->return_vertex[p][k];
  for (uint32_t e = 0; e < fn->nedges; e++)
    {
      /* A fake leave of a block that ends with a call is that call's: it
	 leaves from the call vertex, the call under way.  */
      const pp_edge_notes *en = &fn->edges[e];
      uint32_t src = last[en->src];
      if ((en->flags & PP_EDGE_FAKE) && en->dst == 1 && src >= fn->nblocks
	  && (fn->calls[src - fn->nblocks].flags & PP_CALL_ENDS_BLOCK))
	src = l->call_vertex[p][src - fn->nblocks];
      if (pp_graph_add_edge (g, src, en->dst, en->flags) == NONE)
	goto out;
    }
  /* The calls that are not the program's are edges c -> r.  */
  for (uint32_t k = 0; k < nc; k++)
    if (l->site_of_call[p][k] == NONE
	&& (l->leaf_edge[p][k] = pp_graph_add_edge (g, l->call_vertex[p][k],
						    l->return_vertex[p][k], 0)) == NONE)
      goto out;
  if (pp_graph_finish (g))
    goto out;
  /* The roles the notes record (segments; none in the other modes): notes
     edge e is graph edge e, the leaf edges after them have none.  */
  l->edge_role[p] = pp_calloc (g->nedges + 1, sizeof *l->edge_role[p]);
  if (!l->edge_role[p])
    goto out;
  pp_ip_roles_of_notes (fn, l->edge_role[p]);
  status = 0;
out:
  pp_free (last);
  if (status)
    {
      pp_graph_free (g);
      memset (g, 0, sizeof *g);
    }
  return status;
}

int
pp_ip_layout_index (const pp_unit_notes *const *units, uint32_t nunits, pp_ip_layout *l)
{
  memset (l, 0, sizeof *l);
  uint32_t nprocs = 0, ncalls = 0, most = 0;
  for (uint32_t u = 0; u < nunits; u++)
    {
      nprocs += units[u]->nfunctions;
      if (units[u]->nfunctions > most)
	most = units[u]->nfunctions;
      for (uint32_t f = 0; f < units[u]->nfunctions; f++)
	ncalls += units[u]->functions[f].ncalls;
    }
  l->nunits = nunits;
  l->first_proc = pp_malloc ((nunits + 1) * sizeof *l->first_proc);
  pp_graph *procs = pp_calloc (nprocs + 1, sizeof *procs);
  bool *external = pp_calloc (nprocs + 1, sizeof *external);
  pp_ip_call *calls = pp_malloc ((ncalls + 1) * sizeof *calls);
  l->site_of_call = pp_calloc (nprocs + 1, sizeof *l->site_of_call);
  l->leaf_edge = pp_calloc (nprocs + 1, sizeof *l->leaf_edge);
  l->call_vertex = pp_calloc (nprocs + 1, sizeof *l->call_vertex);
  l->return_vertex = pp_calloc (nprocs + 1, sizeof *l->return_vertex);
  l->call_block = pp_calloc (nprocs + 1, sizeof *l->call_block);
  l->ncalls_of = pp_calloc (nprocs + 1, sizeof *l->ncalls_of);
  l->nblocks_of = pp_calloc (nprocs + 1, sizeof *l->nblocks_of);
  l->edge_role = pp_calloc (nprocs + 1, sizeof *l->edge_role);
  uint32_t *words = l->call_words = pp_malloc ((5 * ((size_t) ncalls + nprocs) + 1)
					       * sizeof *words);
  struct names pub, own;
  int no_pub = names_init (&pub, nprocs), no_own = names_init (&own, most);
  l->prog = (pp_ip_program) { .nprocs = nprocs, .procs = procs, .external = external,
			      .calls = calls,
			      .edge_role = (const uint8_t *const *) l->edge_role };
  int status = -1;
  if (!l->first_proc || !procs || !external || !calls || !l->site_of_call
      || !l->leaf_edge || !l->call_vertex || !l->return_vertex || !l->call_block
      || !l->ncalls_of || !l->nblocks_of || !l->edge_role || !words || no_pub || no_own)
    goto out;
  uint32_t p = 0;
  bool have_main = false;
  for (uint32_t u = 0; u < nunits; u++)
    {
      l->first_proc[u] = p;
      for (uint32_t f = 0; f < units[u]->nfunctions; f++, p++)
	{
	  const pp_function_notes *fn = &units[u]->functions[f];
	  external[p] = fn->function_flags & (PP_FUNCTION_PUBLIC | PP_FUNCTION_ADDRESSED);
	  if (fn->function_flags & PP_FUNCTION_PUBLIC)
	    {
	      names_add (&pub, (struct name) { fn->asm_name, p,
					       fn->function_flags & PP_FUNCTION_WEAK });
	      if (!have_main && strcmp (fn->asm_name, "main") == 0)
		{
		  l->prog.main = p;
		  have_main = true;
		}
	    }
	}
    }
  p = 0;
  for (uint32_t u = 0; u < nunits; u++)
    {
      const pp_unit_notes *un = units[u];
      names_clear (&own);
      for (uint32_t f = 0; f < un->nfunctions; f++)
	names_add (&own, (struct name) { un->functions[f].asm_name, f,
					 un->functions[f].function_flags & PP_FUNCTION_WEAK });
      for (uint32_t f = 0; f < un->nfunctions; f++, p++)
	index_proc (l, p, l->first_proc[u], &un->functions[f], &pub, &own, calls, &words);
    }
  /* index_proc appended the calls procedure by procedure.  */
  uint32_t *start = pp_malloc ((nprocs + 1) * sizeof *start);
  if (!start)
    goto out;
  start[0] = 0;
  for (uint32_t q = 0; q < nprocs; q++)
    {
      start[q + 1] = start[q];
      for (uint32_t k = 0; k < l->ncalls_of[q]; k++)
	start[q + 1] += l->site_of_call[q][k] != UINT32_MAX;
    }
  l->prog.call_start = start;
  status = 0;
out:
  names_free (&pub);
  names_free (&own);
  if (status)
    pp_ip_layout_free (l);
  return status;
}

int
pp_ip_layout_build (const pp_unit_notes *const *units, uint32_t nunits,
		    pp_ip_layout *l)
{
  if (pp_ip_layout_index (units, nunits, l))
    return -1;
  for (uint32_t u = 0, p = 0; u < nunits; u++)
    for (uint32_t f = 0; f < units[u]->nfunctions; f++, p++)
      if (pp_ip_layout_build_proc (l, p, &units[u]->functions[f]))
	{
	  pp_ip_layout_free (l);
	  return -1;
	}
  return 0;
}

uint32_t
pp_ip_layout_unit_of (const pp_ip_layout *l, uint32_t proc)
{
  uint32_t u = l->nunits;
  while (u > 1 && l->first_proc[u - 1] > proc)
    u--;
  return u - 1;
}

uint32_t
pp_ip_layout_last_vertex (const pp_ip_layout *l, uint32_t p, uint32_t block)
{
  uint32_t v = block;
  for (uint32_t k = 0; k < l->ncalls_of[p]; k++)
    if (l->call_block[p][k] == block)
      v = l->return_vertex[p][k];
  return v;
}

uint64_t *
pp_ip_layout_cfg_checksums (const pp_ip_layout *l, const pp_unit_notes *units)
{
  uint64_t *sum = pp_malloc ((l->prog.nprocs + 1) * sizeof *sum);
  for (uint32_t u = 0; sum && u < l->nunits; u++)
    for (uint32_t f = 0; f < units[u].nfunctions; f++)
      sum[l->first_proc[u] + f] = units[u].functions[f].cfg_checksum;
  return sum;
}

void
pp_ip_layout_free (pp_ip_layout *l)
{
  uint32_t n = l->prog.nprocs;
  for (uint32_t p = 0; p < n; p++)
    {
      if (l->prog.procs)
	pp_graph_free ((pp_graph *) &l->prog.procs[p]);
      if (l->edge_role)
	pp_free (l->edge_role[p]);
    }
  pp_free ((void *) l->prog.procs);
  pp_free ((void *) l->prog.external);
  pp_free ((void *) l->prog.calls);
  pp_free ((void *) l->prog.call_start);
  pp_free (l->first_proc);
  pp_free (l->site_of_call);
  pp_free (l->leaf_edge);
  pp_free (l->call_vertex);
  pp_free (l->return_vertex);
  pp_free (l->call_block);
  pp_free (l->ncalls_of);
  pp_free (l->nblocks_of);
  pp_free (l->call_words);
  pp_free (l->edge_role);
  memset (l, 0, sizeof *l);
}

/* ---- Which units call another unit's functions (pp_ip_unit_names).  */

/* What the set-up compares for a name hashed to H: H with bit 0 FLAG.  */
static uint64_t
name_hash (uint64_t h, uint64_t flag)
{
  return (h & ~(uint64_t) 1) | flag;
}

static int
by_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return (x > y) - (x < y);
}

/* Sorts A[0 .. N) and drops repeats; the count kept.  */
static uint32_t
sorted_set (uint64_t *a, uint32_t n)
{
  pp_sort (a, n, sizeof *a, by_u64);
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++)
    if (k == 0 || a[k - 1] != a[i])
      a[k++] = a[i];
  return k;
}

int
pp_ip_unit_names (const pp_unit_notes *u, uint64_t **names, uint32_t *nimports,
		  uint32_t *nexports)
{
  uint32_t ncalls = 0;
  for (uint32_t f = 0; f < u->nfunctions; f++)
    ncalls += u->functions[f].ncalls;
  uint64_t *all = pp_malloc (((size_t) ncalls + u->nfunctions + 1) * sizeof *all);
  struct names own = { 0 };
  int status = -1;
  if (!all || names_init (&own, u->nfunctions))
    goto out;
  for (uint32_t f = 0; f < u->nfunctions; f++)
    names_add (&own, (struct name) { u->functions[f].asm_name, f,
				     u->functions[f].function_flags & PP_FUNCTION_WEAK });
  /* As build_proc resolves a call: the unit's own strong definition
     stays in the unit.  */
  uint32_t ni = 0, ne = 0;
  for (uint32_t f = 0; f < u->nfunctions; f++)
    for (uint32_t k = 0; k < u->functions[f].ncalls; k++)
      {
	const pp_call_notes *c = &u->functions[f].calls[k];
	if ((c->flags & (PP_CALL_INDIRECT | PP_CALL_RETURNS_TWICE)) || !c->callee[0])
	  continue;
	uint64_t h = hash_of (c->callee);
	const struct name *mine = find (&own, c->callee, h);
	if (!mine || mine->weak)
	  all[ni++] = name_hash (h, mine != NULL);
      }
  ni = sorted_set (all, ni);
  for (uint32_t f = 0; f < u->nfunctions; f++)
    if (u->functions[f].function_flags & PP_FUNCTION_PUBLIC)
      all[ni + ne++] = name_hash (hash_of (u->functions[f].asm_name),
				  !(u->functions[f].function_flags & PP_FUNCTION_WEAK));
  ne = sorted_set (all + ni, ne);
  *names = all;
  *nimports = ni;
  *nexports = ne;
  all = NULL;
  status = 0;
out:
  pp_free (all);
  names_free (&own);
  return status;
}

struct export
{
  uint64_t name;
  uint32_t unit;
};

static int
by_export (const void *a, const void *b)
{
  const struct export *x = a, *y = b;
  return (x->name > y->name) - (x->name < y->name);
}

uint64_t
pp_ip_program_signature (const char *const *unit_names, const uint64_t *const *names,
			 const uint32_t *nimports, const uint32_t *nexports, uint32_t n)
{
  uint64_t sum = pp_mix64 (n);
  for (uint32_t u = 0; u < n; u++)
    sum += pp_mix64 (hash_of (unit_names[u])
		     ^ pp_hash64 (names[u] + nimports[u], nexports[u] * sizeof **names,
				  PP_HASH_SEED));
  return sum;
}

uint32_t
pp_ip_import_index (const uint64_t *names, uint32_t nimports, const char *callee)
{
  uint64_t want = name_hash (hash_of (callee), 0);
  uint32_t i = pp_lower_bound64 (names, nimports, want);
  return i < nimports && names[i] == want ? i : UINT32_MAX;
}

int
pp_ip_imports_resolved (const uint64_t *const *names, const uint32_t *nimports,
			const uint32_t *nexports, uint32_t n, bool *const *resolved)
{
  size_t total = 0;
  for (uint32_t u = 0; u < n; u++)
    total += nexports[u];
  struct export *ex = pp_malloc ((total + 1) * sizeof *ex);
  if (!ex)
    return -1;
  size_t k = 0;
  for (uint32_t u = 0; u < n; u++)
    for (uint32_t i = 0; i < nexports[u]; i++)
      ex[k++] = (struct export) { names[u][nimports[u] + i], u };
  pp_sort (ex, total, sizeof *ex, by_export);
  for (uint32_t u = 0; u < n; u++)
    for (uint32_t i = 0; i < nimports[u]; i++)
      {
	uint64_t name = names[u][i] & ~(uint64_t) 1;
	bool weak_here = names[u][i] & 1;
	size_t lo = 0, hi = total;
	while (lo < hi)		/* the first export of that name */
	  {
	    size_t mid = lo + (hi - lo) / 2;
	    if (ex[mid].name < name)
	      lo = mid + 1;
	    else
	      hi = mid;
	  }
	resolved[u][i] = false;
	for (; lo < total && (ex[lo].name & ~(uint64_t) 1) == name; lo++)
	  if (ex[lo].unit != u && (!weak_here || (ex[lo].name & 1)))
	    resolved[u][i] = true;
      }
  pp_free (ex);
  return 0;
}

int
pp_ip_units_alone (const uint64_t *const *names, const uint32_t *nimports,
		   const uint32_t *nexports, uint32_t n, bool *alone)
{
  size_t total = 0;
  for (uint32_t u = 0; u < n; u++)
    total += nimports[u];
  bool *flags = pp_calloc (total + 1, sizeof *flags);
  bool **resolved = pp_calloc (n + 1, sizeof *resolved);
  int status = flags && resolved ? 0 : -1;
  for (uint32_t u = 0, at = 0; status == 0 && u < n; at += nimports[u++])
    resolved[u] = flags + at;
  if (status == 0)
    status = pp_ip_imports_resolved (names, nimports, nexports, n, resolved);
  for (uint32_t u = 0; status == 0 && u < n; u++)
    {
      alone[u] = true;
      for (uint32_t i = 0; i < nimports[u]; i++)
	alone[u] &= !resolved[u][i];
    }
  pp_free (flags);
  pp_free (resolved);
  return status;
}

int
pp_ip_zero_edges (const pp_function_notes *fn, bool piecewise, bool *zero)
{
  pp_unit_notes unit = { .nfunctions = 1, .functions = (pp_function_notes *) fn };
  const pp_unit_notes *units[] = { &unit };
  pp_ip_layout l;
  pp_ip_numbering nb;
  if (pp_ip_layout_build (units, 1, &l))
    return -1;
  /* Calls of FN to FN itself would be sites: the order is the same.  */
  int status = pp_ip_number (&l.prog, piecewise, &nb) ? -1 : 0;
  for (uint32_t e = 0; status == 0 && e < fn->nedges; e++)
    {
      const pp_ip_proc *ip = &nb.procs[0];
      uint32_t k = ip->fin_of_edge[e];
      zero[e] = k != NONE && ip->call_at[ip->edges[k].src] == NONE
		&& k == ip->out_start[ip->edges[k].src];
    }
  if (status == 0)
    pp_ip_numbering_free (&nb);
  pp_ip_layout_free (&l);
  return status;
}

void
pp_ip_roles_of_notes (const pp_function_notes *fn, uint8_t *role)
{
  for (uint32_t e = 0; e < fn->nedges; e++)
    role[e] = (fn->edges[e].flags & PP_EDGE_PATH_END) ? PP_SEG_ROLE_CUT
	      : (fn->edges[e].flags & PP_EDGE_SEG_TREE) ? PP_SEG_ROLE_TREE : 0;
}
