/* libprof, the interprocedural modes' program (ip-program.h): the units'
   program, numbered once, and what runtime.c asks of the mode's runtime
   (ip-runtime.h's hooks, through the kind's table).

   The numbering.  It needs the whole program, which no compiler run sees:
   at the first ENTER of the process, the units registered then (every unit
   of the program and of the libraries loaded with it; one loaded later by
   dlopen is not numbered, and its activations are not tracked) are sorted
   by (name, checksum) and the program of ip-notes.h is laid out, once,
   under ip_lock: taken from the numbering cache (numbering-cache.h) when an
   earlier run of the same program saved it there, else from the units'
   notes, decoded then.  Context and piecewise paths number it there
   (corelib/interproc.h, with GMP), or take that numbering from the cache
   too, and make each procedure's table of edge values for the code.  The
   segments modes set up from the units' records alone (each unit's
   functions and the names it imports and exports: whether it calls another
   unit's function, which its compiled roots ask) and hand the program to
   kseg-runtime.c, which numbers each root when it first runs (or takes it
   from the cache); the layout, and the notes it is made from, wait for the
   first root libprof numbers, so that a run whose roots all ran compiled
   decodes no notes, and then only the notes' outline and the graphs of the
   procedures the roots that run reach (segments_proc).  A program whose units want different kinds is not
   counted (one message).  */

#define _GNU_SOURCE 1

#include <gmp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "ctx-runtime.h"
#include "file-names.h"
#include "hash.h"
#include "interproc.h"
#include "ip-notes.h"
#include "ip-program.h"
#include "ip-runtime.h"
#include "ip-tables.h"
#include "kseg-runtime.h"
#include "modes.h"
#include "notes.h"
#include "numbering-cache.h"
#include "pathprof-abi.h"
#include "profile.h"

#define NONE UINT32_MAX

/* ---- The program (under ip_lock until ready).  */

/* What runtime.c's hooks do, by the program's kind (context and piecewise
   paths in ctx-runtime.c, segments in kseg-runtime.c), chosen once when the
   program is set up (context_kind, segments_kind below).  */
struct pp_ip_kind_ops
{
  void (*end_thread_paths) (void);
  void (*before_snapshot) (void);
  pp_ipt_number_fn *number;	/* the count tables' keys as numbers */
  void (*reset_slots) (void);	/* counts kept outside the tables */
};
static const struct pp_ip_kind_ops context_kind, segments_kind;

static pthread_mutex_t ip_lock = PTHREAD_MUTEX_INITIALIZER;
struct pp_ip_prog ip_prog;

static int
unit_order (const void *a, const void *b)
{
  const struct __pathprof_unit *x = *(struct __pathprof_unit *const *) a;
  const struct __pathprof_unit *y = *(struct __pathprof_unit *const *) b;
  int c = strcmp (x->name, y->name);
  return c ? c : (x->checksum > y->checksum) - (x->checksum < y->checksum);
}

/* The manifest, the program record's notes (ip-notes.h).  */
static int
make_manifest (void)
{
  pp_ip_manifest m = { .kind = ip_prog.kind, .depth = ip_prog.depth,
		       .nunits = ip_prog.nunits };
  m.names = pp_malloc ((ip_prog.nunits + 1) * sizeof *m.names);
  m.checksums = pp_malloc ((ip_prog.nunits + 1) * sizeof *m.checksums);
  int ret = -1;
  if (m.names && m.checksums)
    {
      for (uint32_t u = 0; u < ip_prog.nunits; u++)
	{
	  m.names[u] = (char *) ip_prog.units[u]->name;
	  m.checksums[u] = ip_prog.units[u]->checksum;
	}
      ret = pp_ip_manifest_encode (&m, &ip_prog.manifest, &ip_prog.manifest_len);
    }
  pp_free (m.names);
  pp_free (m.checksums);
  if (ret == 0)
    {
      ip_prog.checksum = pp_hash64 (ip_prog.manifest, ip_prog.manifest_len, PP_HASH_SEED);
      pp_ip_record_name (ip_prog.name, sizeof ip_prog.name, ip_prog.checksum);
    }
  return ret;
}

/* The mode of unit U if it is one of the interprocedural modes (the mode is
   its notes' third word, notes.h), else NULL.  */
static const pp_mode_info *
ip_mode (const struct __pathprof_unit *u)
{
  if (u->notes_len < 12)
    return NULL;
  const unsigned char *m = u->notes + 8;
  const pp_mode_info *mode = pp_mode_lookup (m[0] | (uint32_t) m[1] << 8
					     | (uint32_t) m[2] << 16
					     | (uint32_t) m[3] << 24);
  return mode && mode->calls ? mode : NULL;
}

/* Whether v fits the u64 sums (and GMP's _ui calls, which take unsigned
   long).  */
static bool
fits_u64 (const mpz_t v)
{
  return mpz_sgn (v) >= 0 && mpz_fits_ulong_p (v);
}

/* Row r's calls (pathprof-abi.h __pathprof_ip_return_step), two words per
   call: what a return adds where the callee did not continue the path (the
   leaf edge c -> r of a call of no numbered procedure, the summary edge of
   a recursive or cut site), where the procedure's edges are in place
   (FITS); UINT64_MAX first where RETURN must see (a site whose callee
   should have continued).  And which calls the callee continues.  */
static int
make_calls (uint32_t p, bool fits, struct pp_ip_row *r)
{
  const pp_ip_proc *ip = &ip_prog.nb.procs[p];
  uint32_t ncalls = ip_prog.layout.ncalls_of[p];
  uint64_t *row = pp_calloc (2 * (size_t) ncalls + 1, sizeof *row);
  uint32_t *cont = pp_malloc ((ncalls + 1) * sizeof *cont);
  uint32_t *edge = pp_malloc ((ncalls + 1) * sizeof *edge);
  uint64_t *ret_start = pp_malloc ((ncalls + 1) * sizeof *ret_start);
  r->calls = row;
  r->cont = cont;
  r->call_edge = edge;
  r->ret_start = ret_start;
  if (!row || !cont || !edge || !ret_start)
    return -1;
  for (uint32_t call = 0; call < ncalls; call++)
    {
      uint32_t s = ip_prog.layout.site_of_call[p][call], k = NONE;
      cont[call] = s != NONE && !ip_prog.nb.recursive[s] ? s : NONE;
      if (s == NONE)
	k = ip->fin_of_edge[ip_prog.layout.leaf_edge[p][call]];
      else if (cont[call] == NONE)
	{
	  uint32_t c = ip_prog.layout.call_vertex[p][call];
	  for (uint32_t j = ip->out_start[c]; j < ip->out_start[c + 1]; j++)
	    if (ip->edges[j].kind == PP_IP_SUMMARY)
	      k = j;
	}
      edge[call] = k;
      ret_start[call] = pp_ip_piece_start (p, ip_prog.layout.return_vertex[p][call]);
      bool adds = fits && cont[call] == NONE;
      row[2 * call] = !adds ? UINT64_MAX : k == NONE ? 0 : r->ab[2 * k];
      row[2 * call + 1] = !adds || k == NONE ? 0 : r->ab[2 * k + 1];
    }
  return 0;
}

/* Row r's edges in place (values), two words per edge of the procedure's
   graph (pathprof-abi.h __pathprof_ip_step, width 1): its code adds an
   edge's piece value to the activation's sum A without the overflow check
   add_value makes, which needs the procedure's pieces numbered (a sum is
   then a prefix of a piece number, below 2^62, and B stays 0).  Elsewhere
   EDGE takes every edge (add_value), as it does a backedge, where a path
   ends.  A backedge's next path starts on its surrogate from ENTRY (GENTRY
   when piecewise), whose pieces start there.  */
static int
make_in_place (uint32_t p, struct pp_ip_row *r)
{
  const pp_ip_proc *ip = &ip_prog.nb.procs[p];
  const uint64_t *ab = r->ab;
  uint32_t nedges = ip_prog.layout.prog.procs[p].nedges;
  bool fits = ip_prog.pieces[p].npieces != 0;
  r->restart = pp_ip_piece_start (p, ip_prog.piecewise ? ip->gentry : ip->entry);
  uint64_t *row = pp_calloc (2 * (size_t) nedges + 1, sizeof *row);
  r->values = row;
  if (!row)
    return -1;
  for (uint32_t e = 0; e < nedges; e++)
    {
      uint32_t k = ip->fin_of_edge[e];
      uint32_t out = ip->exit_of_edge[e], in = ip->entry_of_edge[e];
      if (k == NONE && ip->back_of_edge[e] == 1 && fits && out != NONE && in != NONE)
	{
	  r->keyed = true;
	  row[2 * e] = ab[2 * out] | (uint64_t) 1 << 63;
	  row[2 * e + 1] = r->restart + ab[2 * in];
	}
      else if (k == NONE ? ip->back_of_edge[e] == 1 : !fits)
	row[2 * e] = UINT64_MAX;
      else if (k != NONE)
	row[2 * e] = ab[2 * k];
    }
  return make_calls (p, fits, r);
}

/* ip_prog.pieces, and the rows: the edge values as u64 where they fit,
   the code's values and calls.  */
static int
make_value_tables (void)
{
  ip_prog.pieces = pp_calloc (ip_prog.nb.nprocs + 1, sizeof *ip_prog.pieces);
  ip_prog.rows = pp_calloc (ip_prog.nb.nprocs + 1, sizeof *ip_prog.rows);
  if (!ip_prog.pieces || !ip_prog.rows)
    return -1;
  for (uint32_t p = 0; p < ip_prog.nb.nprocs; p++)
    {
      const pp_ip_proc *ip = &ip_prog.nb.procs[p];
      pp_ip_pieces *pc = &ip_prog.pieces[p];
      struct pp_ip_row *r = &ip_prog.rows[p];
      uint64_t *ab = pp_malloc ((2 * (size_t) ip->nedges + 1) * sizeof *ab);
      if (!ab || pp_ip_pieces_number (&ip_prog.nb, p, pc) == PP_IP_ENOMEM)
	return -1;
      for (uint32_t k = 0; k < ip->nedges; k++)
	{
	  const pp_ip_lin *rho = &ip->edges[k].rho;
	  bool fits = fits_u64 (rho->a) && fits_u64 (rho->b) && mpz_cmp_ui (rho->a, PP_IP_WIDE);
	  ab[2 * k] = pc->npieces ? pc->val[k] : fits ? mpz_get_ui (rho->a) : PP_IP_WIDE;
	  ab[2 * k + 1] = pc->npieces || !fits ? 0 : mpz_get_ui (rho->b);
	}
      r->ab = ab;
      r->fin = ip->fin_of_edge;
      r->gentry_key = ip_prog.piecewise && ip_prog.gentry_root_of[p] != NONE
		      ? 2 * (uint64_t) p + 2 : 0;
      if (make_in_place (p, r))
	return -1;
    }
  return 0;
}

static const char *const kind_name[] = { "context", "piecewise", "segments" };

/* The numbering cache's file: PATHPROF_NUMBERING_FILE, else the profile's
   name followed by ".numbering"; NULL when the variable is set empty (no
   cache) or out of memory.  */
static char *
numbering_path (void)
{
  const char *env = getenv ("PATHPROF_NUMBERING_FILE");
  if (env)
    return *env ? pp_path_with_suffix (env, "", false) : NULL;
  char *profile = pp_profile_path ();
  char *path = profile ? pp_path_with_suffix (profile, ".numbering", false) : NULL;
  pp_free (profile);
  return path;
}

/* The units' notes decoded (ip_prog.notes), once: whole for context and
   piecewise paths, which number the whole program; outlined for segments
   (notes.h pp_notes_decode_outline), whose procedures' graphs are made one
   by one (segments_proc).  NULL when they cannot be (said once).  Under
   ip_lock (the set-up, or kseg-runtime.c numbering a root).  */
static const pp_unit_notes *
program_notes (void)
{
  static bool tried, ok;
  if (tried)
    return ok ? ip_prog.notes : NULL;
  tried = true;
  ip_prog.notes = pp_calloc (ip_prog.nunits, sizeof *ip_prog.notes);
  if (!ip_prog.notes)
    {
      pp_report (false, "interprocedural paths are not counted: out of memory");
      return NULL;
    }
  int (*decode) (const unsigned char *, size_t, pp_unit_notes *, char *, size_t)
    = ip_prog.kind == PP_IP_SEGMENTS ? pp_notes_decode_outline : pp_notes_decode_own;
  for (uint32_t u = 0; u < ip_prog.nunits; u++)
    {
      char err[256];
      const struct __pathprof_unit *unit = ip_prog.units[u];
      if (decode (unit->notes, unit->notes_len, &ip_prog.notes[u], err, sizeof err))
	{
	  pp_report (false, "interprocedural paths are not counted: unit '%s': %s",
		     unit->name, err);
	  return NULL;
	}
    }
  ok = true;
  return ip_prog.notes;
}

/* ip_prog.layout from the numbering cache C (NULL: none), else from the
   units' notes (program_notes): whole for context and piecewise paths;
   for segments its index alone, from the notes' outline (segments_proc
   makes the graphs).  Returns 0, or -1 (said).  */
static int
lay_out (const pp_ncache *c)
{
  if (c && pp_ncache_adopt_layout (c, ip_prog.nunits, &ip_prog.layout))
    return 0;
  const pp_unit_notes *notes = program_notes ();
  const pp_unit_notes **list = notes ? pp_calloc (ip_prog.nunits, sizeof *list) : NULL;
  for (uint32_t u = 0; list && u < ip_prog.nunits; u++)
    list[u] = &notes[u];
  int (*make) (const pp_unit_notes *const *, uint32_t, pp_ip_layout *)
    = ip_prog.kind == PP_IP_SEGMENTS ? pp_ip_layout_index : pp_ip_layout_build;
  int rc = list ? make (list, ip_prog.nunits, &ip_prog.layout) : -1;
  if (rc && notes)
    pp_report (false, "interprocedural paths are not counted: out of memory");
  pp_free (list);
  return rc;
}

/* Word I of unit U's notes' header (notes.h: magic, version, mode,
   weighting, then a segments mode's depth), read in place; 0 when the
   notes are shorter.  */
static uint32_t
notes_word (const struct __pathprof_unit *u, uint32_t i)
{
  if (u->notes_len < 4 * (i + 1))
    return 0;
  const unsigned char *m = u->notes + 4 * i;
  return m[0] | (uint32_t) m[1] << 8 | (uint32_t) m[2] << 16 | (uint32_t) m[3] << 24;
}

/* The program is not counted after all (the reason said): NULL.  */
static const pp_ip_layout *
not_counted (void)
{
  __atomic_store_n (&ip_prog.ready, false, __ATOMIC_RELEASE);
  return NULL;
}

/* Segments: the layout, when kseg-runtime.c first needs it (a root libprof
   numbers or takes from the cache runs; under ip_lock), made from the
   units' notes outlined, which are decoded only then: every procedure's
   calls, but no graph (segments_proc makes those a root's supergraph
   holds), and found to have the procedures the set-up gave the units; NULL
   when it cannot be made (said, and the program is not counted).  */
static const pp_ip_layout *
segments_layout (void)
{
  const pp_ip_layout *l = &ip_prog.layout;
  if (lay_out (NULL))
    return not_counted ();
  bool same = l->nunits == ip_prog.nunits && l->prog.nprocs == ip_prog.nprocs;
  for (uint32_t u = 0; same && u < l->nunits; u++)
    same = l->first_proc[u] == ip_prog.first_proc[u];
  /* A site's call slot is its index among its procedure's sites, which the
     layout gives grouped by procedure (S lists them the same way).  */
  if (!same || !l->prog.call_start)
    {
      pp_report (false, "interprocedural paths are not counted: the program breaks "
		 "the numbering's conventions");
      return not_counted ();
    }
  ip_prog.whole = pp_calloc (ip_prog.nprocs + 1, sizeof *ip_prog.whole);
  if (!ip_prog.whole)
    {
      pp_report (false, "interprocedural paths are not counted: out of memory");
      return not_counted ();
    }
  return l;
}

/* Segments: procedure p's function notes whole, decoded when first asked,
   and its graph in the layout (kseg-runtime.c asks for every procedure of
   a root's supergraph before it numbers the root or takes it from the
   cache; under ip_lock, after segments_layout).  NULL when its notes
   cannot be decoded (said) or out of memory.  */
static const pp_function_notes *
segments_proc (uint32_t p)
{
  if (p >= ip_prog.nprocs)
    return NULL;
  if (ip_prog.whole[p])
    return ip_prog.whole[p];
  uint32_t u = pp_ip_layout_unit_of (&ip_prog.layout, p);
  const struct __pathprof_unit *unit = ip_prog.units[u];
  pp_function_notes *fn = pp_calloc (1, sizeof *fn);
  char err[256] = "out of memory";
  if (!fn
      || pp_notes_decode_function (unit->notes, unit->notes_len, &ip_prog.notes[u],
				   p - ip_prog.first_proc[u], fn, err, sizeof err)
      || pp_ip_layout_build_proc (&ip_prog.layout, p, fn))
    {
      pp_report (false, "the segments through function '%s' of unit '%s' are not "
		 "counted: %s", ip_prog.notes[u].functions[p - ip_prog.first_proc[u]].name,
		 unit->name, err);
      if (fn)
	pp_notes_function_free (fn);
      pp_free (fn);
      return NULL;
    }
  return ip_prog.whole[p] = fn;
}

/* Segments: sets the program up for kseg-runtime.c, every unit of the same
   depth, from what the units' records give (no notes decoded, no layout:
   segments_layout makes it if a root libprof numbers runs): each unit's
   procedures, which compiled roots' assumptions hold, the numbering
   cache opened.  Returns 0, or -1 with the reason reported.  */
static int
set_up_segments (void)
{
  uint32_t mode = notes_word (ip_prog.units[0], 2);
  ip_prog.depth = notes_word (ip_prog.units[0], 4);
  for (uint32_t u = 0; u < ip_prog.nunits; u++)
    {
      uint32_t depth = notes_word (ip_prog.units[u], 4);
      if (depth < 1 || depth > PP_SEGMENTS_MAX_DEPTH)
	{
	  pp_report (false, "interprocedural paths are not counted: unit '%s': "
		     "its notes give a depth of %u (1 to %u)", ip_prog.units[u]->name,
		     depth, PP_SEGMENTS_MAX_DEPTH);
	  return -1;
	}
      if (depth != ip_prog.depth)
	{
	  pp_report (false, "interprocedural paths are not counted: unit '%s' is "
		     "built for segments of depth %u, unit '%s' of depth %u "
		     "(-fplugin-arg-pathprof-depth)", ip_prog.units[0]->name,
		     ip_prog.depth, ip_prog.units[u]->name, depth);
	  return -1;
	}
    }
  uint32_t n = ip_prog.nunits;
  uint32_t *first = pp_malloc ((n + 1) * sizeof *first);
  const uint64_t **names = pp_malloc ((n + 1) * sizeof *names);
  uint32_t *nimports = pp_malloc ((n + 1) * sizeof *nimports);
  uint32_t *nexports = pp_malloc ((n + 1) * sizeof *nexports);
  bool **resolved = pp_calloc (n + 1, sizeof *resolved);
  uint64_t nprocs = 0;
  int rc = first && names && nimports && nexports && resolved ? 0 : -1;
  for (uint32_t u = 0; rc == 0 && u < n; u++)
    {
      const struct __pathprof_unit *U = ip_prog.units[u];
      first[u] = (uint32_t) nprocs;
      nprocs += U->ip_nfunctions;
      names[u] = U->ip_names;
      nimports[u] = U->ip_nimports;
      nexports[u] = U->ip_nexports;
      if (!(resolved[u] = pp_calloc (nimports[u] + 1, sizeof **resolved)))
	rc = -1;
    }
  if (rc || nprocs >= UINT32_MAX)
    goto done;
  /* Which compiled roots' assumptions hold (out of memory for the names,
     none): their callees taken for code not instrumented are none of the
     units', and those compiled across units find their clones and the
     program they were planned in.  */
  ip_prog.ok = pp_calloc (nprocs + 1, sizeof *ip_prog.ok);
  const char **unit_names = pp_malloc ((n + 1) * sizeof *unit_names);
  for (uint32_t u = 0; unit_names && u < n; u++)
    unit_names[u] = ip_prog.units[u]->name;
  uint64_t signature = unit_names ? pp_ip_program_signature (unit_names, names, nimports,
							    nexports, n) : 0;
  pp_free (unit_names);
  if (ip_prog.ok && pp_ip_imports_resolved (names, nimports, nexports, n, resolved) == 0)
    for (uint32_t u = 0; u < n; u++)
      {
	const struct __pathprof_unit *U = ip_prog.units[u];
	for (uint32_t k = 0; U->ip_assumed && k < U->ncompiled; k++)
	  {
	    const struct __pathprof_compiled_root *c = &U->compiled[k];
	    if (!c->assumed || c->function >= U->ip_nfunctions)
	      continue;
	    const uint32_t *list = &U->ip_assumed[c->assumed - 1];
	    bool ok = true;
	    for (uint32_t i = 1; i <= list[0]; i++)
	      ok &= list[i] < nimports[u] && !resolved[u][list[i]];
	    const uint32_t *clones = list + list[0] + 1;
	    ok &= clones[0] == 0 || (U->ip_clones && signature == U->ip_program);
	    for (uint32_t i = 1; ok && i <= clones[0]; i++)
	      ok = U->ip_clones[clones[i]] != NULL;
	    ip_prog.ok[first[u] + c->function] = ok;
	  }
      }
done:
  for (uint32_t u = 0; resolved && u < n; u++)
    pp_free (resolved[u]);
  pp_free (resolved);
  pp_free (names);
  pp_free (nimports);
  pp_free (nexports);
  ip_prog.first_proc = first;
  ip_prog.nprocs = (uint32_t) nprocs;
  if (nprocs >= UINT32_MAX)
    {
      pp_report (false, "interprocedural paths are not counted: too many functions");
      return -1;
    }
  if (rc || make_manifest ())
    {
      pp_report (false, "interprocedural paths are not counted: out of memory");
      return -1;
    }
  pp_kseg_open_cache (numbering_path (),
		      pp_kseg_cache_key (ip_prog.checksum, mode, ip_prog.depth,
					 PP_KSEG_DENSE_MAX));
  pp_kseg_program program = {
    .nunits = n, .nprocs = ip_prog.nprocs, .first_proc = first, .units = ip_prog.units,
    .layout = segments_layout, .notes = program_notes, .proc = segments_proc,
    .mode = mode,
    .depth = ip_prog.depth, .dense_max = PP_KSEG_DENSE_MAX, .hashed = PP_KSEG_HASHED,
    .lock = &ip_lock };
  if (pp_kseg_init (&program))
    {
      pp_report (false, "interprocedural paths are not counted: out of memory");
      return -1;
    }
  ip_prog.words = 2;		/* (number, root procedure) */
  return 0;
}

/* The context and piecewise program, kept in the numbering cache
   (numbering-cache.h) as two records: the layout (PP_NCACHE_LAYOUT, as in
   the segments modes) and the numbering (interproc.h pp_ip_pack) under
   procedure 0.  A run that finds them adopts them (corelib/interproc-pack.c:
   their arrays and numbers stay in the cache's memory, which is never
   freed) and decodes no notes; one that does not lays the program out from
   its units' notes and numbers it, and saves what it made at its first
   dump.  What the key covers beyond the program record's checksum (its
   units' names and notes): the kind, the numbering's bound, the limb size
   (and libprof's version); bump CTX_CACHE_LAYOUT when the layout or the
   numbering changes what it gives for the same notes.  */
#define CTX_CACHE_LAYOUT 3u
static pp_ncache ctx_cache;
static bool ctx_to_save;

/* ip_prog.layout and ip_prog.nb from the cache, else made (then saved at
   the first dump).  Returns PP_IP_OK or pp_ip_number's error; -3 when the
   layout cannot be made (said).  */
static int
lay_out_and_number (void)
{
  uint64_t what[] = { ip_prog.checksum, 0xc0e7e47, ip_prog.kind, PP_IP_MAX_BITS,
		      sizeof (mp_limb_t), CTX_CACHE_LAYOUT };
  pp_ncache_open (&ctx_cache, numbering_path (), pp_ncache_key (what, sizeof what / sizeof *what));
  if (lay_out (&ctx_cache))
    return -3;
  size_t len = 0;
  unsigned char *block = pp_ncache_find (&ctx_cache, 0, &len);
  int rc = block ? pp_ip_adopt (&ip_prog.layout.prog, ip_prog.piecewise,
				(uint64_t *) block, len / 8, &ip_prog.nb)
	   : PP_IP_EGRAPH;
  if (rc == PP_IP_OK)
    return PP_IP_OK;
  if (block)
    pp_ncache_damaged (&ctx_cache, rc == PP_IP_ENOMEM ? "out of memory to read it"
		       : "not of this program");
  rc = pp_ip_number (&ip_prog.layout.prog, ip_prog.piecewise, &ip_prog.nb);
  ctx_to_save = rc == PP_IP_OK && ctx_cache.path;
  return rc;
}

/* The program made by this process, to the cache, once (said naming the
   file when it cannot be saved).  */
static void
context_before_snapshot (void)
{
  if (!__atomic_exchange_n (&ctx_to_save, false, __ATOMIC_ACQ_REL))
    return;
  uint64_t *numbering = NULL, *layout = NULL;
  size_t n = 0;
  pp_ncache_record rec[2];
  if (pp_ip_pack (&ip_prog.layout.prog, &ip_prog.nb, &numbering, &n) == PP_IP_OK
      && pp_ncache_layout_record (&ctx_cache, &ip_prog.layout, &rec[1], &layout) == 0)
    {
      rec[0] = (pp_ncache_record) { .proc = 0, .bytes = (const unsigned char *) numbering,
				    .len = n * sizeof *numbering };
      pp_ncache_save (&ctx_cache, rec, 2);
    }
  else
    pp_report (false, "cannot save '%s': out of memory; the next run numbers again",
	       ctx_cache.path);
  pp_free (numbering);
  pp_free (layout);
}

/* Numbers the program of the units registered now (runtime.c's list).  */
static void
number_program (void)
{
  ip_prog.tried = true;
  struct __pathprof_unit **all;
  uint32_t n = pp_registered_units (&all);
  uint32_t k = 0;
  const pp_mode_info *kind = NULL;
  for (uint32_t i = 0; i < n; i++)
    if (ip_mode (all[i]))
      {
	if (kind && kind != ip_mode (all[i]))
	  {
	    pp_report (false, "interprocedural paths are not counted: unit '%s' "
		       "is built for %s paths, unit '%s' for %s paths "
		       "(-fplugin-arg-pathprof-interproc)", all[k - 1]->name,
		       kind_name[kind->plan_arg], all[i]->name,
		       kind_name[ip_mode (all[i])->plan_arg]);
	    pp_free (all);
	    return;
	  }
	kind = ip_mode (all[i]);
	all[k++] = all[i];
      }
  if (k == 0)
    {
      pp_free (all);
      return;
    }
  ip_prog.kind = (uint32_t) kind->plan_arg;
  ip_prog.piecewise = kind->plan_arg == PP_IP_PIECEWISE;
  pp_sort (all, k, sizeof *all, unit_order);
  ip_prog.units = all;
  ip_prog.nunits = k;
  ip_prog.kind_of = ip_prog.kind == PP_IP_SEGMENTS ? &segments_kind : &context_kind;
  if (ip_prog.kind == PP_IP_SEGMENTS)
    {
      if (set_up_segments () == 0)
	{
	  pp_ipt_init (ip_prog.words);
	  ip_prog.ready = true;
	}
      return;
    }
  int rc = make_manifest () ? PP_IP_ENOMEM : lay_out_and_number ();
  if (rc == -3)
    return;			/* said */
  if (rc)
    {
      pp_report (false, "interprocedural paths are not counted: %s",
	   rc == PP_IP_ENOMEM ? "out of memory for the numbering"
	   : "the program breaks the numbering's conventions");
      return;
    }
  ip_prog.first_proc = ip_prog.layout.first_proc;
  ip_prog.nprocs = ip_prog.layout.prog.nprocs;
  ip_prog.root_of = pp_malloc ((ip_prog.nb.nprocs + 1) * sizeof *ip_prog.root_of);
  ip_prog.gentry_root_of = pp_malloc ((ip_prog.nb.nprocs + 1) * sizeof *ip_prog.root_of);
  if (!ip_prog.root_of || !ip_prog.gentry_root_of)
    {
      pp_report (false, "interprocedural paths are not counted: out of memory");
      return;
    }
  for (uint32_t p = 0; p < ip_prog.nb.nprocs; p++)
    ip_prog.root_of[p] = ip_prog.gentry_root_of[p] = NONE;
  for (uint32_t r = ip_prog.nb.nroots; r-- > 0;)
    (ip_prog.nb.root_gentry[r] ? ip_prog.gentry_root_of : ip_prog.root_of)[ip_prog.nb.roots[r]] = r;
  size_t bits = mpz_sgn (ip_prog.nb.npaths) ? mpz_sizeinbase (ip_prog.nb.npaths, 2) : 1;
  ip_prog.words = (uint32_t) ((bits + 63) / 64);
  if (ip_prog.words > PP_PROFILE_WIDE_WORDS_MAX)
    {
      pp_report (false, "interprocedural paths are not counted: the program's path "
	   "numbers need %zu bits, more than the %u a profile holds", bits,
	   64 * PP_PROFILE_WIDE_WORDS_MAX);
      return;
    }
  if (make_value_tables ())
    {
      pp_report (false, "interprocedural paths are not counted: out of memory");
      return;
    }
  pp_ipt_init (ip_prog.words);
  ip_prog.ready = true;
}

/* The first probe's: numbers the program (once, whichever thread comes
   first).  */
__attribute__ ((noinline)) bool
pp_ip_number_once (void)
{
  pthread_mutex_lock (&ip_lock);
  if (!ip_prog.tried)
    {
      pp_gmp_enter ();
      number_program ();
      pp_gmp_leave ();
      /* Each unit's procedures, for its ENTER probes (pp_ip_proc_of), and
	 which of its compiled roots' assumptions hold.  */
      for (uint32_t u = 0; ip_prog.ready && u < ip_prog.nunits; u++)
	{
	  struct __pathprof_unit *U = ip_prog.units[u];
	  __atomic_store_n (&U->ip_first, ip_prog.first_proc[u] + 1,
			    __ATOMIC_RELEASE);	/* after the set-up it gives */
	  for (uint32_t f = 0; U->ip_ok && ip_prog.ok && f < U->ip_nfunctions; f++)
	    if (ip_prog.ok[ip_prog.first_proc[u] + f])
	      __atomic_store_n (&U->ip_ok[f], 1, __ATOMIC_RELEASE);
	}
      __atomic_store_n (&ip_prog.ready, ip_prog.ready, __ATOMIC_RELEASE);
    }
  pthread_mutex_unlock (&ip_lock);
  return ip_prog.ready;
}


/* A segments unit's ENTER before the program is set up (ip-program.h).  */
uint32_t
pp_ip_set_up (struct __pathprof_unit *u, uint32_t f)
{
  return pp_ip_ready () && ip_prog.kind == PP_IP_SEGMENTS ? pp_ip_proc_of (u, f) : NONE;
}

/* ---- What runtime.c asks, through the kind's table (ip_ip_prog.kind_of,
   chosen once, when the program is set up).  */

/* Segments: what the roots' arrays and slots hold goes to the tables, and
   the roots numbered since go to the numbering cache.  */
static void
segments_before_snapshot (void)
{
  pp_kseg_flush_slots ();
  pp_kseg_save_cache ();
}

static void
nothing (void)
{
}

static const struct pp_ip_kind_ops context_kind = { pp_ctx_end_thread_paths,
						 context_before_snapshot,
						 pp_ctx_key, nothing },
  segments_kind = { pp_kseg_end_thread_paths, segments_before_snapshot, pp_kseg_key,
		    pp_kseg_reset_slots };

static void
ip_end_thread_paths (void)
{
  if (ip_prog.ready)
    ip_prog.kind_of->end_thread_paths ();
}

static int
ip_snapshot (pp_unit_data *rec)
{
  memset (rec, 0, sizeof *rec);
  if (!ip_prog.ready)
    return 0;
  ip_prog.kind_of->before_snapshot ();
  pp_gmp_enter ();
  int ret = pp_ipt_snapshot (rec, ip_prog.kind_of->number);
  pp_gmp_leave ();
  rec->name = ip_prog.name;
  rec->checksum = ip_prog.checksum;
  rec->notes = ip_prog.manifest;
  rec->notes_len = ip_prog.manifest_len;
  rec->value_kind = PP_VALUES_U64;
  return ret;
}

static void
ip_subtract (const pp_unit_data *rec)
{
  (void) rec;			/* what the snapshot read, slot by slot */
  pp_ipt_subtract ();
}

static void
ip_reset (void)
{
  pp_ipt_reset ();
  if (ip_prog.ready)
    ip_prog.kind_of->reset_slots ();
}

static void
ip_before_fork (int stage)
{
  if (stage == 0)
    pthread_mutex_lock (&ip_lock);
  else
    pp_ipt_before_fork ();
}

static void
ip_after_fork (bool child)
{
  pp_ipt_after_fork (child);
  if (child && ip_prog.ready)
    ip_prog.kind_of->reset_slots ();
  pthread_mutex_unlock (&ip_lock);
}

static const struct pp_ip_hooks hooks = {
  .snapshot = ip_snapshot,
  .subtract = ip_subtract,
  .reset = ip_reset,
  .before_fork = ip_before_fork,
  .after_fork = ip_after_fork,
  .end_thread_paths = ip_end_thread_paths,
};

__attribute__ ((constructor)) static void
install_hooks (void)
{
  pp_ip = &hooks;
}
