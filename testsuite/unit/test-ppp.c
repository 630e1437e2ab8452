/* Oracle tests for corelib/ppp (preferential path profiling) and the two-register
   placement of pp_paths_plan, and the ppp mode's plan.

   On thousands of random graphs (with loops, early leaves, re-entries, caller
   path ends) and structured ones, a random set of interesting paths is numbered
   and the numbering is checked against its definition: interesting paths get
   distinct numbers from 0 to span-1, the weights along each interesting path sum
   to its number, and the placed actions (both registers, the initialisation
   pushed down, counts pulled up), simulated along every path of a small graph
   from every way of arriving at its start, leave the Ball-Larus register at the
   path's number and the second register at the interesting path's number, so
   that the runtime's check (slot in range and its recorded Ball-Larus number
   equal) counts exactly the interesting paths in their slots: an uninteresting
   path is never counted in a slot.  The same for the ppp mode's plan (the
   probes the plugin emits): every path, simulated through the probes, is counted once, an interesting path
   with a slot in its slot, any other in the table by its Ball-Larus number.  Plus the paper's figure 3.  */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "edgeprof.h"
#include "front.h"
#include "modes.h"
#include "paths.h"
#include "plan.h"
#include "ppp.h"
#include "unit.h"
#include "gen-cfg.h"

#define BASE_SEED 0x9999a0b1c2ull
#define NRANDOM 3000
#define NSTRUCTURED 1000
#define ENUMERATION_CAP 4096

static struct unit_property
  prop_unique = { .name = "ppp: interesting paths get distinct numbers 0..span-1, span >= |I|" },
  prop_sums = { .name = "ppp: the weights along each interesting path sum to its number" },
  prop_simulate = { .name = "ppp: simulated two-register actions give every path its Ball-Larus number and every interesting path its slot" },
  prop_detect = { .name = "ppp: the slot check counts interesting paths in their slots and never an uninteresting one" },
  prop_all = { .name = "ppp: with every path interesting, delta is 1" },
  prop_same_bl = { .name = "ppp: the Ball-Larus register's actions are those of the paths mode where the second register is idle" },
  prop_figure3 = { .name = "ppp: the paper's figure 3 numbers sacdt, sact, sbct 0, 1, 2" },
  prop_invalid = { .name = "ppp: numbers >= npaths are refused" },
  prop_bounds = { .name = "ppp: every path's number, interesting or not, lies in lowest..highest, and both are reached" },
  prop_figure10 = { .name = "ppp: the weights are figure 10's, computed naively (each prefix's join found by search, nothing sorted)" },
  prop_plan = { .name = "ppp plan: simulated probes (both registers) count every path once, interesting ones in their slots, the others in the table by Ball-Larus number; where the slots cover every number, no path indexes outside them" },
  prop_front = { .name = "front: every slot holds a hole or a key that hashes there, each key at most once; a key without a slot hashes to a slot that holds an earlier key; no multiplier tried leaves fewer keys out" };

/* Statistics for the log.  */
static double delta_sum;
static unsigned long delta_n;
static unsigned long plans_covering, plans_packed, plans_checking;

struct regs
{
  uint64_t r, q;
  unsigned ncounts;
  bool constant;
  uint64_t number, slot;
};

static void
apply_count (const pp_path_action *a, struct regs *s)
{
  if (a->count == PP_PATH_COUNT_REG)
    s->number = s->r + a->count_offset, s->slot = s->q + a->count_offset2,
      s->ncounts++;
  else if (a->count == PP_PATH_COUNT_CONST)
    s->number = a->count_offset, s->slot = a->count_offset2, s->ncounts++;
}

static void
apply_reg (const pp_path_action *a, struct regs *s)
{
  if (a->reg == PP_PATH_REG_ADD)
    s->r += a->reg_value, s->q += a->reg_value2;
  else if (a->reg == PP_PATH_REG_SET)
    s->r = a->reg_value, s->q = a->reg_value2;
}

/* Runs the path from state s; the count it makes, in *out.  */
static bool
run (const pp_paths *p, const pp_path *path, struct regs s, struct regs *out)
{
  for (uint32_t i = 0; i <= path->nedges && !s.ncounts; i++)
    {
      uint32_t e = i < path->nedges ? path->edges[i] : path->end_edge;
      if (e == PP_PATH_NONE)
	break;
      apply_count (&p->action[e], &s);
      if (!s.ncounts && i < path->nedges)
	apply_reg (&p->action[e], &s);
    }
  *out = s;
  return s.ncounts == 1;
}

/* The runtime's decision: slot in range and recording this Ball-Larus number.  */
static bool
slot_hit (const pp_ppp *ppp, const uint64_t *keys, const struct regs *s)
{
  return s->slot < ppp->span && keys[s->slot] == s->number;
}

/* Every path of p (npaths <= ENUMERATION_CAP), every way of arriving at it.  */
static void
simulate_all (const pp_graph *g, const pp_paths *p, const uint64_t *keys,
	      unsigned long long seed, unsigned long long *rng)
{
  const pp_ppp *ppp = p->ppp;
  uint32_t *edges = malloc ((p->max_path_edges + 1) * sizeof *edges);
  int64_t lowest = INT64_MAX, highest = INT64_MIN;
  for (uint64_t n = 0; n < p->npaths; n++)
    {
      pp_path path = { .edges = edges };
      if (pp_paths_decode (p, n, &path) != PP_PATHS_OK)
	abort ();
      int64_t number = (int64_t) pp_ppp_path_sum (p, ppp, &path);
      lowest = number < lowest ? number : lowest;
      highest = number > highest ? number : highest;
      uint64_t want_slot = pp_ppp_slot (ppp, n);
      struct regs garbage = { .r = unit_rand (rng), .q = unit_rand (rng) };
      for (uint32_t k = g->pred_start[path.start_node];
	   k <= g->pred_start[path.start_node + 1]; k++)
	{
	  struct regs s = garbage, out;
	  if (path.start_node != g->entry)
	    {
	      if (k == g->pred_start[path.start_node + 1])
		break;
	      uint32_t e = g->pred_edges[k];
	      uint8_t role = p->role[e];
	      if (role != PP_PATH_ROLE_BACK && role != PP_PATH_ROLE_CUT
		  && role != PP_PATH_ROLE_START)
		continue;
	      apply_reg (&p->action[e], &s);
	    }
	  bool ok = run (p, &path, s, &out) && out.number == n
		    && (want_slot == UINT64_MAX || out.slot == want_slot);
	  unit_check (&prop_simulate, ok, "seed %#llx: path %llu: %u counts, "
		      "number %llu, slot %llu (want %llu)", seed,
		      (unsigned long long) n, out.ncounts,
		      (unsigned long long) out.number, (unsigned long long) out.slot,
		      (unsigned long long) want_slot);
	  unit_check (&prop_detect, slot_hit (ppp, keys, &out)
				    == (want_slot != UINT64_MAX),
		      "seed %#llx: path %llu %s interesting, slot check says %d",
		      seed, (unsigned long long) n,
		      want_slot != UINT64_MAX ? "is" : "is not",
		      slot_hit (ppp, keys, &out));
	  if (path.start_node == g->entry)
	    break;
	}
    }
  free (edges);
  unit_check (&prop_bounds, ppp->bounded && ppp->lowest == lowest
			    && ppp->highest == highest,
	      "seed %#llx: numbers %lld..%lld, bounds %s %lld..%lld", seed,
	      (long long) lowest, (long long) highest,
	      ppp->bounded ? "" : "(unbounded)", (long long) ppp->lowest,
	      (long long) ppp->highest);
}

/* What the probes of a plan did along one path: where they counted it.  */
struct plan_run
{
  uint64_t r, q;
  unsigned ncounts;
  bool in_slot;			/* counted in a slot (else by number) */
  uint64_t at;			/* the slot, or the number */
  bool outside;			/* a slot past nkeys where the plan says none is */
};

/* Applies the probes of edge E (all of them, or only its register updates),
   as probes.h defines them.  */
static void
apply_probes (const pp_plan *plan, uint32_t e, bool counts, struct plan_run *s)
{
  for (uint32_t i = 0; i < plan->nprobes; i++)
    {
      const pp_probe *pr = &plan->probes[i];
      if (pr->site == PP_SITE_BLOCK || pr->where != e)
	continue;
      uint64_t n = s->r + pr->operand, k = s->q + pr->operand2;
      unsigned bits = plan->pack_bits;
      if (bits)
	k = n & (((uint64_t) 1 << bits) - 1);
      bool count = pp_probe_counts_path (pr->action);
      if (count && !counts)
	continue;
      s->ncounts += count;
      switch (pr->action)
	{
	case PP_PROBE_PATH_COUNT:
	  s->in_slot = false, s->at = n >> bits;
	  break;
	case PP_PROBE_PATH_COUNT_CONST:
	  s->in_slot = false, s->at = pr->operand;
	  break;
	case PP_PROBE_PATH_COUNT_SLOT:
	  s->in_slot = true, s->at = pr->index;
	  break;
	case PP_PROBE_PATH_COUNT_KEYED:
	  s->outside |= plan->keys_cover_all && k >= plan->nkeys;
	  s->in_slot = k < plan->nkeys && pp_plan_key_word (plan, k) == n;
	  s->at = s->in_slot ? k : n >> bits;
	  break;
	case PP_PROBE_PATH_SET:
	  s->r = pr->operand;
	  break;
	case PP_PROBE_PATH_ADD:
	  s->r += pr->operand;
	  break;
	case PP_PROBE_PPP_SET:
	  s->q = pr->operand;
	  break;
	case PP_PROBE_PPP_ADD:
	  s->q += pr->operand;
	  break;
	}
    }
}

/* The ppp mode's plan of the graph, with the numbering P's interesting paths
   (P->ppp), simulated along every path of P from every way of arriving.  */
static void
check_plan (const pp_graph *g, const pp_paths *p, const bool *ends,
	    unsigned long long seed, unsigned long long *rng)
{
  const pp_ppp *ppp = p->ppp;
  pp_plan_input in = { .path_array_max = *rng % 2, .prior_path_end = ends,
		       .two_registers = *rng % 3 == 0,
		       .interesting = ppp->interesting,
		       .ninteresting = ppp->ninteresting };
  const pp_mode_info *m = pp_mode_by_name ("ppp");
  pp_plan plan;
  const char *why;
  if (pp_plan_mode (m, g, &in, &plan, &why) != PP_PLAN_OK)
    {
      unit_check (&prop_plan, 0, "seed %#llx: planning failed", seed);
      return;
    }
  if (plan.keys_cover_all)
    plans_covering++;
  else
    plans_checking++;
  if (plan.pack_bits)
    plans_packed++;
  uint32_t *edges = malloc ((p->max_path_edges + 1) * sizeof *edges);
  for (uint64_t n = 0; n < p->npaths; n++)
    {
      pp_path path = { .edges = edges };
      if (pp_paths_decode (p, n, &path) != PP_PATHS_OK)
	abort ();
      uint64_t slot = pp_ppp_slot (ppp, n);
      if (slot != UINT64_MAX)
	slot += plan.slot_shift;
      bool want_slot = plan.nkeys && slot < plan.nkeys;
      for (uint32_t k = g->pred_start[path.start_node];
	   k <= g->pred_start[path.start_node + 1]; k++)
	{
	  struct plan_run s = { .r = unit_rand (rng), .q = unit_rand (rng) };
	  if (path.start_node != g->entry)
	    {
	      if (k == g->pred_start[path.start_node + 1])
		break;
	      uint32_t e = g->pred_edges[k];
	      if (p->role[e] != PP_PATH_ROLE_BACK && p->role[e] != PP_PATH_ROLE_CUT
		  && p->role[e] != PP_PATH_ROLE_START)
		continue;
	      apply_probes (&plan, e, false, &s);
	    }
	  for (uint32_t i = 0; i <= path.nedges && !s.ncounts; i++)
	    {
	      uint32_t e = i < path.nedges ? path.edges[i] : path.end_edge;
	      if (e == PP_PATH_NONE)
		break;
	      apply_probes (&plan, e, true, &s);
	    }
	  unit_check (&prop_plan, s.ncounts == 1 && s.in_slot == want_slot
				  && s.at == (want_slot ? slot : n) && !s.outside,
		      "seed %#llx: path %llu (slot %llu of %u): %u counts, in "
		      "%s %llu%s", seed, (unsigned long long) n,
		      (unsigned long long) slot, plan.nkeys, s.ncounts,
		      s.in_slot ? "slot" : "table", (unsigned long long) s.at,
		      s.outside ? ", indexing past the slots" : "");
	  if (path.start_node == g->entry)
	    break;
	}
    }
  free (edges);
  pp_plan_free (&plan);
}

/* Figure 10 of the paper over P's DAG for P's interesting paths, written
   plainly: per node in postorder, per out-edge, the paths crossing it grouped
   by their prefix at the node by linear search (pp_ppp_number sorts and
   merges them), its weight the largest join of a group less the group's
   lowest number so far.  Every DAG edge's weight must be the numbering's.  */
static void
check_figure10 (const pp_paths *p, unsigned long long seed)
{
  const pp_ppp *ppp = p->ppp;
  const pp_graph *d = &p->dag;
  uint32_t n = ppp->ninteresting, most = p->max_path_edges + 1;
  uint32_t *edge = malloc (((size_t) n * most + 1) * sizeof *edge), *len = calloc (n + 1, sizeof *len);
  uint64_t *prefix = malloc (((size_t) n * most + 1) * sizeof *prefix);
  int64_t *pid = calloc (n + 1, sizeof *pid), *weight = calloc (d->nedges + 1, sizeof *weight);
  uint64_t *q = malloc ((n + 1) * sizeof *q);
  int64_t *cis = malloc ((n + 1) * sizeof *cis);
  if (!edge || !len || !prefix || !pid || !weight || !q || !cis)
    abort ();
  for (uint32_t i = 0; i < n; i++)
    {
      uint64_t number = ppp->interesting[i], sum = 0;
      for (uint32_t v = d->entry; v != d->exit;)
	{
	  uint32_t e = pp_paths_dag_step (p, v, &number);
	  edge[(size_t) i * most + len[i]] = e;
	  prefix[(size_t) i * most + len[i]++] = sum;
	  sum += p->dag_val[e];
	  v = d->edges[e].dst;
	}
    }
  pp_dfs dfs;
  if (pp_dfs_init (&dfs, d, PP_DFS_SUCCS, 0, NULL, NULL))
    abort ();
  pp_dfs_run (&dfs, d->entry);
  for (uint32_t k = 0; k < dfs.npost; k++)
    {
      uint32_t v = dfs.postorder[k], nq = 0;
      for (uint32_t s = d->succ_start[v]; s < d->succ_start[v + 1]; s++)
	{
	  uint32_t e = d->succ_edges[s];
	  /* The prefix of path i at e, or UINT64_MAX where i does not cross e.  */
#define AT(i, out) do { out = UINT64_MAX; \
	    for (uint32_t j_ = 0; j_ < len[i]; j_++) \
	      if (edge[(size_t) (i) * most + j_] == e) out = prefix[(size_t) (i) * most + j_]; \
	  } while (0)
	  bool any = false;
	  for (uint32_t i = 0; i < n; i++)
	    {
	      uint64_t x;
	      AT (i, x);
	      if (x == UINT64_MAX)
		continue;
	      uint32_t j = 0;
	      while (j < nq && q[j] != x)
		j++;
	      if (j == nq)
		q[nq] = x, cis[nq++] = 0;
	      /* The group's lowest number: the least pid of the paths with x.  */
	      int64_t lowest = pid[i];
	      for (uint32_t i2 = 0; i2 < n; i2++)
		{
		  uint64_t y;
		  AT (i2, y);
		  if (y == x && pid[i2] < lowest)
		    lowest = pid[i2];
		}
	      if (!any || cis[j] - lowest > weight[e])
		weight[e] = cis[j] - lowest;
	      any = true;
	    }
	  for (uint32_t i = 0; i < n; i++)
	    {
	      uint64_t x;
	      AT (i, x);
	      if (x != UINT64_MAX)
		pid[i] += weight[e];
	    }
	  for (uint32_t j = 0; j < nq; j++)
	    for (uint32_t i = 0; i < n; i++)
	      {
		uint64_t x;
		AT (i, x);
		if (x == q[j] && pid[i] + 1 > cis[j])
		  cis[j] = pid[i] + 1;
	      }
#undef AT
	}
    }
  pp_dfs_free (&dfs);
  bool same = true;
  for (uint32_t e = 0; e < d->nedges; e++)
    same &= ppp->dag_weight[e] == (uint64_t) weight[e];
  unit_check (&prop_figure10, same, "seed %#llx: %u interesting paths", seed, n);
  free (edge);
  free (len);
  free (prefix);
  free (pid);
  free (weight);
  free (q);
  free (cis);
}

/* The numbering's own properties; keys (span entries) receives slot -> number.  */
static uint64_t *
check_numbering (const pp_paths *p, unsigned long long seed)
{
  const pp_ppp *ppp = p->ppp;
  uint64_t *keys = malloc ((ppp->span ? ppp->span : 1) * sizeof *keys);
  bool ok = ppp->span >= ppp->ninteresting;
  uint64_t lowest = UINT64_MAX;
  for (uint64_t k = 0; ok && k < ppp->span; k++)
    keys[k] = UINT64_MAX;
  for (uint32_t i = 0; ok && i < ppp->ninteresting; i++)
    {
      ok = ppp->id[i] < ppp->span && keys[ppp->id[i]] == UINT64_MAX;
      if (ok)
	keys[ppp->id[i]] = ppp->interesting[i];
      lowest = ppp->id[i] < lowest ? ppp->id[i] : lowest;
    }
  ok = ok && (ppp->ninteresting == 0 || lowest == 0);
  unit_check (&prop_unique, ok, "seed %#llx: %u interesting, span %llu", seed,
	      ppp->ninteresting, (unsigned long long) ppp->span);
  uint32_t *edges = malloc ((p->max_path_edges + 1) * sizeof *edges);
  for (uint32_t i = 0; i < ppp->ninteresting; i++)
    {
      pp_path path = { .edges = edges };
      if (pp_paths_decode (p, ppp->interesting[i], &path) != PP_PATHS_OK)
	abort ();
      uint64_t sum = pp_ppp_path_sum (p, ppp, &path);
      unit_check (&prop_sums, sum == ppp->id[i], "seed %#llx: path %llu sums to "
		  "%llu, number %llu", seed,
		  (unsigned long long) ppp->interesting[i], (unsigned long long) sum,
		  (unsigned long long) ppp->id[i]);
    }
  free (edges);
  if (ppp->ninteresting)
    {
      delta_sum += (double) ppp->span / ppp->ninteresting;
      delta_n++;
    }
  check_figure10 (p, seed);
  return keys;
}

/* The paths mode's plan of the same graph: the Ball-Larus half of every action
   must be the same wherever the second register has nothing to do.  */
static void
check_same_bl (const pp_graph *g, const pp_paths_options *opt, const pp_paths *p,
	       unsigned long long seed)
{
  pp_paths_options plain = *opt;
  plain.interesting = NULL;
  plain.ninteresting = 0;
  pp_paths *q;
  if (pp_paths_plan (g, &plain, &q) != PP_PATHS_OK)
    abort ();
  bool idle = true;
  for (uint32_t e = 0; e < p->dag.nedges; e++)
    idle = idle && p->dag_inc2[e] == 0;
  bool same = q->npaths == p->npaths;
  for (uint32_t e = 0; idle && same && e < g->nedges; e++)
    same = p->action[e].count == q->action[e].count
	   && p->action[e].reg == q->action[e].reg
	   && p->action[e].count_offset == q->action[e].count_offset
	   && p->action[e].reg_value == q->action[e].reg_value;
  unit_check (&prop_same_bl, same, "seed %#llx: actions differ", seed);
  pp_paths_free (q);
}

/* A random subset of the paths: each with probability 1/k, or a few samples.  */
static uint32_t
pick_interesting (struct gen *x, uint64_t npaths, uint64_t *out, uint32_t cap)
{
  uint32_t n = 0;
  if (npaths <= ENUMERATION_CAP && rnd (x, 4))
    {
      unsigned k = 1 + rnd (x, 4);
      for (uint64_t i = 0; i < npaths && n < cap; i++)
	if (rnd (x, k) == 0)
	  out[n++] = i;
      return n;
    }
  uint32_t want = 1 + rnd (x, cap);
  for (uint32_t i = 0; i < want; i++)
    out[n++] = unit_rand (&x->rng) % npaths;
  return n;
}

static void
check_graph (struct gen *x, unsigned long long seed, bool cuts)
{
  pp_paths_options opt = { .path_end = cuts ? x->path_end : NULL };
  pp_paths *bl;
  if (pp_paths_plan (&x->g, &opt, &bl) != PP_PATHS_OK)
    abort ();
  /* The interesting paths live in the numbering with its region cuts.  */
  bool *ends = malloc (x->g.nedges + 1);
  memcpy (ends, bl->path_end, x->g.nedges);
  uint64_t npaths = bl->npaths;
  pp_paths_free (bl);
  if (npaths == 0)
    {
      free (ends);
      return;
    }
  uint64_t *interesting = malloc (ENUMERATION_CAP * sizeof *interesting);
  opt.path_end = ends;
  opt.interesting = interesting;
  opt.ninteresting = pick_interesting (x, npaths, interesting, ENUMERATION_CAP);
  if (opt.ninteresting == 0)
    interesting[opt.ninteresting++] = unit_rand (&x->rng) % npaths;
  pp_paths *p;
  int status = pp_paths_plan (&x->g, &opt, &p);
  unit_check (&prop_unique, status == PP_PATHS_OK, "seed %#llx: plan: %s", seed,
	      pp_paths_strerror (status));
  if (status == PP_PATHS_OK)
    {
      uint64_t *keys = check_numbering (p, seed);
      if (p->npaths <= ENUMERATION_CAP)
	{
	  simulate_all (&x->g, p, keys, seed, &x->rng);
	  check_plan (&x->g, p, ends, seed, &x->rng);
	}
      check_same_bl (&x->g, &opt, p, seed);
      free (keys);
      pp_paths_free (p);
    }
  /* Every path interesting: Ball-Larus is perfect, so must PPP be.  */
  if (npaths <= ENUMERATION_CAP)
    {
      for (uint64_t i = 0; i < npaths; i++)
	interesting[i] = i;
      opt.ninteresting = (uint32_t) npaths;
      if (pp_paths_plan (&x->g, &opt, &p) == PP_PATHS_OK)
	{
	  unit_check (&prop_all, p->ppp->span == npaths, "seed %#llx: %llu paths, "
		      "span %llu", seed, (unsigned long long) npaths,
		      (unsigned long long) p->ppp->span);
	  pp_paths_free (p);
	}
    }
  free (interesting);
  free (ends);
}

static void
test_random (void)
{
  for (unsigned i = 0; i < NRANDOM; i++)
    {
      unsigned long long seed = BASE_SEED + i;
      struct gen x;
      gen_init (&x, 0, seed);
      random_cfg (&x, 10, i % 3 != 0, i % 2 == 0, i % 5 == 0);
      check_graph (&x, seed, true);
      gen_free (&x);
    }
  for (unsigned i = 0; i < NSTRUCTURED; i++)
    {
      unsigned long long seed = BASE_SEED + 0x10000 + i;
      struct gen x;
      gen_init (&x, 0, seed);
      structured_cfg (&x, 1 + i % 4);
      check_graph (&x, seed, false);
      gen_free (&x);
    }
}

/* Figure 3: s -> a, s -> b, a -> c, b -> a, b -> c, c -> d, c -> t, d -> t;
   interesting sacdt, sact, sbct (Ball-Larus 0, 1, 5) get 0, 1, 2.  */
static void
test_figure3 (void)
{
  enum { S = ENTRY, T = EXIT, A = 2, B, C, D };
  struct gen x;
  gen_init (&x, 6, 0);
  uint32_t sa = add (&x, S, A, 0), sb = add (&x, S, B, 0);
  uint32_t ac = add (&x, A, C, 0);
  add (&x, B, A, 0);
  uint32_t bc = add (&x, B, C, 0);
  uint32_t cd = add (&x, C, D, 0), ct = add (&x, C, T, 0);
  uint32_t dt = add (&x, D, T, 0);
  gen_finish (&x);
  uint32_t paths[3][4] = { { sa, ac, cd, dt }, { sa, ac, ct }, { sb, bc, ct } };
  uint32_t lengths[3] = { 4, 3, 3 };
  pp_paths *p;
  if (pp_paths_number (&x.g, NULL, &p) != PP_PATHS_OK)
    abort ();
  uint64_t bl[3];
  for (int i = 0; i < 3; i++)
    {
      pp_path path = { .start_node = ENTRY, .end_edge = PP_PATH_NONE,
		       .nedges = lengths[i], .edges = paths[i] };
      if (pp_paths_encode (p, &path, &bl[i]) != PP_PATHS_OK)
	abort ();
    }
  pp_paths_free (p);
  pp_paths_options opt = { .interesting = bl, .ninteresting = 3 };
  if (pp_paths_plan (&x.g, &opt, &p) != PP_PATHS_OK)
    abort ();
  unit_check (&prop_figure3, p->npaths == 6 && bl[0] == 0 && bl[1] == 1 && bl[2] == 5,
	      "%llu paths, Ball-Larus %llu %llu %llu", (unsigned long long) p->npaths,
	      (unsigned long long) bl[0], (unsigned long long) bl[1],
	      (unsigned long long) bl[2]);
  unit_check (&prop_figure3, p->ppp->span == 3 && pp_ppp_slot (p->ppp, bl[0]) == 0
	      && pp_ppp_slot (p->ppp, bl[1]) == 1 && pp_ppp_slot (p->ppp, bl[2]) == 2,
	      "span %llu, numbers %llu %llu %llu", (unsigned long long) p->ppp->span,
	      (unsigned long long) pp_ppp_slot (p->ppp, bl[0]),
	      (unsigned long long) pp_ppp_slot (p->ppp, bl[1]),
	      (unsigned long long) pp_ppp_slot (p->ppp, bl[2]));
  pp_paths_free (p);

  uint64_t bad = 6;
  opt = (pp_paths_options) { .interesting = &bad, .ninteresting = 1 };
  unit_check (&prop_invalid, pp_paths_plan (&x.g, &opt, &p) == PP_PATHS_EINVAL,
	      "path 6 of 6 accepted");
  gen_free (&x);
}


/* pp_front_place against its definition, on random key sets (dense, sparse,
   clustered, up to 2^63 - 1): the slots checked one by one, and the keys
   left out counted again for every multiplier the search tries.  */
static void
test_fronts (void)
{
  unsigned long long rng = BASE_SEED ^ 0xf40f;
  for (unsigned t = 0; t < 2000; t++)
    {
      uint32_t n = 1 + unit_rand (&rng) % (t % 7 == 0 ? 3000 : 60);
      uint64_t *keys = malloc (n * sizeof *keys);
      uint64_t base = unit_rand (&rng) % 4 == 0 ? unit_rand (&rng) >> 1 : 0;
      unsigned spread = unit_rand (&rng) % 3;
      for (uint32_t i = 0; i < n; i++)
	{
	  uint64_t k;
	  bool dup;
	  do
	    {
	      k = spread == 0 ? base + unit_rand (&rng) % (4 * (uint64_t) n)
		  : spread == 1 ? base + (unit_rand (&rng) % (n + 64)) * ((uint64_t) 1 << 40)
				  + unit_rand (&rng) % 16
		  : unit_rand (&rng) >> 1;
	      k &= ~((uint64_t) 1 << 63);
	      dup = false;
	      for (uint32_t j = 0; j < i && !dup; j++)
		dup = keys[j] == k;
	    }
	  while (dup);
	  keys[i] = k;
	}
      uint32_t max_log2 = 1 + unit_rand (&rng) % 16;
      uint64_t mul, *slots;
      uint32_t log2;
      if (pp_front_place (keys, n, max_log2, &mul, &log2, &slots))
	abort ();
      uint64_t size = (uint64_t) 1 << log2;
      bool ok = log2 >= 1 && log2 <= (max_log2 > 1 ? max_log2 : 1) && (mul & 1)
		&& (log2 == max_log2 || log2 == 1 || size >= (uint64_t) n * PP_FRONT_ROOM)
		&& (log2 <= 1 || size / 2 < (uint64_t) n * PP_FRONT_ROOM);
      const char *why = ok ? NULL : "its size or multiplier";
      uint32_t placed = 0;
      for (uint64_t i = 0; ok && i < size; i++)
	if (slots[i] != PP_FRONT_HOLE)
	  {
	    uint32_t j = 0;
	    while (j < n && keys[j] != slots[i])
	      j++;
	    ok = j < n && pp_front_slot (slots[i], mul, log2) == i;
	    why = ok ? NULL : "a slot holds a number that is no key or hashes elsewhere";
	    placed++;
	  }
      for (uint32_t i = 0; ok && i < n; i++)
	{
	  uint64_t held = slots[pp_front_slot (keys[i], mul, log2)];
	  uint32_t j = 0;
	  while (j < n && keys[j] != held)
	    j++;
	  ok = held == keys[i] || (held != PP_FRONT_HOLE && j < i);
	  why = ok ? NULL : "a key lost its slot to a later key or to a hole";
	}
      /* Every multiplier the search tries, counted again: none of them
	 leaves fewer keys out.  */
      uint64_t *seen = calloc (size, sizeof *seen);
      for (uint32_t tr = 0; ok && tr < PP_FRONT_TRIES; tr++)
	{
	  uint64_t z = pp_front_multiplier (tr);
	  memset (seen, 0, size * sizeof *seen);
	  uint32_t in = 0;
	  for (uint32_t i = 0; i < n; i++)
	    {
	      uint64_t h = (keys[i] * z) >> (64 - log2);
	      in += !seen[h];
	      seen[h] = 1;
	    }
	  ok = in <= placed;
	  why = ok ? NULL : "another multiplier places more keys";
	}
      free (seen);
      unit_check (&prop_front, ok, "set %u: %u keys, max_log2 %u: %s", t, n, max_log2,
		  why ? why : "");
      free (slots);
      free (keys);
    }
}

int
main (void)
{
  test_fronts ();
  test_figure3 ();
  test_random ();
  unit_report (&prop_unique);
  unit_report (&prop_sums);
  unit_report (&prop_simulate);
  unit_report (&prop_detect);
  unit_report (&prop_all);
  unit_report (&prop_same_bl);
  unit_report (&prop_figure3);
  unit_report (&prop_invalid);
  unit_report (&prop_bounds);
  unit_report (&prop_figure10);
  unit_report (&prop_plan);
  unit_report (&prop_front);
  printf ("ppp: mean delta %.3f over %lu numberings\n",
	  delta_n ? delta_sum / delta_n : 0.0, delta_n);
  printf ("ppp plans: %lu with slots for every number (no range test; %lu "
	  "of them packed), %lu with the range test\n", plans_covering,
	  plans_packed, plans_checking);
  /* Every kind of plan must have been simulated.  */
  unit_check (&prop_plan, plans_covering > plans_packed && plans_packed
			  && plans_checking,
	      "%lu covering plans (%lu packed), %lu checking", plans_covering,
	      plans_packed, plans_checking);

  return unit_exit_status ();
}
