/* pathprof plugin, compiled roots (the segments modes): the roots the
   plugin numbers itself, so that their activations count their segments as
   the paths mode counts paths, with no call into libprof.

   A root's segments are paths of its supergraph S, which inlines its
   callees k deep; libprof numbers S when the root first runs, because S
   may hold other units' functions.  Where S is the same in every program
   (each call of each copy is a call of a function of the unit, which S
   inlines above depth k and makes a summary edge at k, or a call through
   a pointer, a leaf edge everywhere), the plugin numbers it with corelib,
   as libprof would (the same notes, the same pp_seg_build_numbered and
   pp_seg_actions_make), and gives each copy the paths mode's probes
   (corelib pp_plan_compiled_copy: one register, constants on the chords,
   counts in the unit's compiled counts, or in a path table where S has
   more segments than path-array-max, which libprof moves into the
   program record at a dump, keyed by the root as its own counts are).
   The root's copy is the function itself; each copy below it is a clone
   (FUNCTION.pathprof_copy.N), which its parent's body calls in place of
   the function, the register passing through the thread's word
   __pathprof_seg_pass.  A call S does not inline may not return (the
   process ends in it, a longjmp passes it): where S has one, the root's
   activation keeps a record in libprof's thread stack (pathprof-abi.h),
   pushed before the first such call and popped before the root returns,
   into which the code stores, before each such call, the number the
   segment would end with there; libprof counts it if the call never
   returns.

   The function also runs as a copy in its callers' supergraphs, where it
   continues their segments: only libprof's activations can do that.  So
   the plugin clones it first (FUNCTION.pathprof.N keeps the probes the
   notes record, its ENTER naming the function), and the function starts
   with a test:
       if (__pathprof_ip_caller != 0 || unit.ip_first == 0
           || __pathprof_seg_top >= PATHPROF_SEG_RECORDS)     (with a record)
         {
           if the caller word is marked ASK: the clone asked, and the
             function runs compiled (below);
           if the call under way names the function (its frame's tag):
             at a call the caller's copy inlines, return clone (arguments);
             at another, take the call and run compiled (unless not set up
             or full: ask);
           if it names another (or none: a call through a pointer), run
             compiled, the caller word cleared (unless not set up or full:
             ask);
           ask: mark the caller word ASK, return clone (arguments);
         }
   and the clone starts with the question (insert_asked): where the caller
   word is marked, it takes the mark off and asks
   __pathprof_seg_continues (&unit, index, &function), which answers as
   ENTER would decide between a continuation and a root (and sets the
   program up at its first probe; with the records' stack full, the clone
   runs); where the call does not continue, the clone marks the word
   again and returns function (arguments), which runs compiled.  The
   function itself calls nothing before its body, so its arguments need
   no callee-saved register on its own ways.  A root whose S calls
   functions its unit does not define reads its byte of the unit's ip_ok
   instead of ip_first, and libprof runs its clone where one of them is
   another unit's (the unit record lists them).  A caller
   that is a compiled root itself never names a call, so from it the test
   is three branches (with a record).  See DESIGN.md, "Compiled roots".  */

#include "probes.h"
#include "corelib/ip-notes.h"
#include "corelib/front.h"
#include "corelib/segments.h"
#include "tree-dfa.h"
#include "tree-inline.h"

/* Can REC's body be a copy of a compiled root's supergraph: its probes
   (the notes' plan, its clone's once it is a compiled root itself) all in
   place (no LAND, JUMP or EDGE on every edge), and can it be cloned?  */
static bool
copy_ok (const function_record &rec)
{
  tree decl = rec.node->decl;
  function *f = DECL_STRUCT_FUNCTION (decl);
  const pp_plan &plan = rec.dyn ? rec.dyn->plan : rec.plan;
  if (f->calls_setjmp || f->has_nonlocal_label || !tree_versionable_function_p (decl)
      || TREE_THIS_VOLATILE (decl)	/* noreturn: no return to pass back */
      || DECL_FUNCTION_VERSIONED (decl) || DECL_STATIC_CHAIN (decl)
      || DECL_DISREGARD_INLINE_LIMITS (decl)	/* always_inline: a clone may not be */
      || lookup_attribute ("naked", DECL_ATTRIBUTES (decl))
      || lookup_attribute ("noipa", DECL_ATTRIBUTES (decl)))
    return false;
  for (uint32_t i = 0; i < plan.nprobes; i++)
    if (plan.probes[i].action != PP_PROBE_IP_ENTER
	&& plan.probes[i].action != PP_PROBE_IP_ADD
	&& plan.probes[i].action != PP_PROBE_IP_EXIT)
      return false;		/* LAND, or EDGE on every edge */
  basic_block bb;
  FOR_EACH_BB_FN (bb, f)
    {
      gimple *last = last_stmt (bb);
      if (last && gimple_code (last) == GIMPLE_GOTO
	  && TREE_CODE (gimple_goto_dest (last)) != LABEL_DECL)
	return false;		/* a computed goto: JUMP */
    }
  return true;
}

/* Does every call of REC's body go where its notes say, to the function
   its unit defines (so that the call can go to a clone of it instead):
   no call of a function another definition may replace (a weak one, or
   one a shared object exports, which the program may interpose)?  Calls
   through pointers and of functions the unit does not define stay as
   they are (libprof checks the latter: same_everywhere_p).  */
static bool
calls_bind_locally (const function_record &rec)
{
  push_cfun (DECL_STRUCT_FUNCTION (rec.node->decl));
  auto_vec<gcall *> calls;
  function_calls (calls);
  bool ok = true;
  for (gcall *call : calls)
    {
      tree fndecl = gimple_call_fndecl (call);
      cgraph_node *node = fndecl ? cgraph_node::get (fndecl) : NULL;
      ok &= !fndecl ? !gimple_call_internal_p (call)	/* through a pointer */
	    : (DECL_EXTERNAL (fndecl) && (!node || !node->definition))
	      || decl_binds_to_current_def_p (fndecl);
    }
  pop_cfun ();
  return ok;
}

/* Can REC's function be a compiled root, whose clone for ENTER the test at
   its entry calls with its own arguments, returning its result?  */
static bool
root_ok (const function_record &rec)
{
  tree decl = rec.node->decl;
  tree type = TREE_TYPE (DECL_RESULT (decl));
  return copy_ok (rec) && !DECL_STRUCT_FUNCTION (decl)->stdarg
	 && !stdarg_p (TREE_TYPE (decl))
	 /* Without a prototype, its arguments arrive promoted (a float as a
	    double), which the call of the clone would not do.  */
	 && prototype_p (TREE_TYPE (decl))
	 && !aggregate_value_p (DECL_RESULT (decl), decl)
	 && !DECL_BY_REFERENCE (DECL_RESULT (decl))
	 && (VOID_TYPE_P (type) || is_gimple_reg_type (type));
}

/* A clone of REC's function named FUNCTION.SUFFIX.N, with its record (the
   same index, its edges the clone's, no plan), or NULL when the clone's
   CFG is not the function's block for block.  */
static function_record *
clone_record (const function_record &rec, const char *suffix)
{
  function *f = DECL_STRUCT_FUNCTION (rec.node->decl);
  cgraph_node *clone = rec.node->create_version_clone_with_body (vNULL, NULL, NULL,
								 NULL, NULL, suffix);
  if (!clone)
    return NULL;
  function *c = DECL_STRUCT_FUNCTION (clone->decl);
  /* The copy makes the blocks in the function's order, each edge in its
     source's order, with an empty block of its own after ENTRY (where the
     versioning puts its statements, here none): map them so, and check it.
     The copy of edge K of block A is copied (A, K).  */
  basic_block extra = single_succ (ENTRY_BLOCK_PTR_FOR_FN (c));
  if (n_basic_blocks_for_fn (c) != n_basic_blocks_for_fn (f) + 1
      || !single_succ_p (extra) || phi_nodes (extra)
      || !gsi_end_p (gsi_start_nondebug_bb (extra)))
    extra = NULL;
  auto_vec<basic_block> block_of;
  block_of.safe_grow_cleared (last_basic_block_for_fn (f));
  bool same = n_basic_blocks_for_fn (c) == n_basic_blocks_for_fn (f) + (extra != NULL);
  basic_block a = ENTRY_BLOCK_PTR_FOR_FN (f), b = ENTRY_BLOCK_PTR_FOR_FN (c);
  for (; same && a && b; a = a->next_bb, b = b->next_bb == extra ? extra->next_bb
						: b->next_bb)
    {
      block_of[a->index] = b;
      same = EDGE_COUNT (a->succs) == EDGE_COUNT (b->succs);
    }
  same &= !a && !b;
  auto copied = [&] (basic_block from, unsigned k) {
    edge y = EDGE_SUCC (block_of[from->index], k);
    return y->dest == extra ? single_succ_edge (extra) : y;
  };
  for (a = ENTRY_BLOCK_PTR_FOR_FN (f); same && a; a = a->next_bb)
    for (unsigned k = 0; same && k < EDGE_COUNT (a->succs); k++)
      {
	edge x = EDGE_SUCC (a, k), y = copied (a, k);
	same = block_of[x->dest->index] == y->dest
	       && (x->flags & ~EDGE_EXECUTABLE) == (y->flags & ~EDGE_EXECUTABLE);
      }
  function_record *dyn = new function_record;
  dyn->node = clone;
  dyn->index = rec.index;
  dyn->value_offset = rec.value_offset;
  for (unsigned i = 0; same && i < rec.gcc_edge.length (); i++)
    {
      edge e = rec.gcc_edge[i];
      edge y = NULL;
      if (e)
	for (unsigned k = 0; !y && k < EDGE_COUNT (e->src->succs); k++)
	  if (EDGE_SUCC (e->src, k) == e)
	    y = copied (e->src, k);
      dyn->gcc_edge.safe_push (y);
      dyn->edge_src.safe_push (block_of[rec.edge_src[i]]
			       ? (uint32_t) block_of[rec.edge_src[i]]->index : 0);
    }
  if (!same)
    {
      delete dyn;
      clone->remove ();
      return NULL;
    }
  return dyn;
}

/* How many copies a compiled root's supergraph may have, each a clone of
   a callee: any number up to COMPILED_COPIES_FREE; beyond, up to
   COMPILED_COPIES_MAX while the copies below the root have at most
   COMPILED_COPIES_GROWTH times the edges of the distinct functions the
   supergraph holds, the root's included (an interpreter's loop, or a
   generated main, that calls hundreds of small functions; a small
   function that calls the interpreter), so that the clones at most
   multiply the text of the code the root reaches by a constant, or at
   most COMPILED_EDGES_FREE edges whatever that ratio (a few hundred kB of
   code: csmith's generated main at depth 2, 4,117 copies of 24,711 edges,
   5.0 times its distinct functions', had its supergraph numbered at run
   time, 67 M instructions of a first run of 80.7 M).  Against the root's
   own edges alone, a small caller of a large function was never compiled
   (SQLite's sqlite3Step at depth 2, yy_reduce at depth 1).  */
#define COMPILED_COPIES_FREE 64
#define COMPILED_COPIES_MAX 8192
#define COMPILED_COPIES_GROWTH 4
#define COMPILED_EDGES_FREE 32768

/* The program a root is planned in: LAYOUT over UNITS (NUNITS of them),
   the compiled unit being unit UNIT.  Compiled alone, the unit is the
   whole program; across units (the learning modes), it is the training
   program (compiled.cc "Across units").  */
struct program_view
{
  const pp_ip_layout *layout;
  const pp_unit_notes *units;
  uint32_t nunits, unit;
  bool across;
  /* The unit's own procedures: [first, end).  */
  uint32_t first, end;
  const pp_function_notes &fn (uint32_t p) const
  {
    uint32_t u = nunits;
    while (u > 0 && layout->first_proc[u - 1] > p)
      u--;
    return units[u - 1].functions[p - layout->first_proc[u - 1]];
  }
  bool own (uint32_t p) const { return p >= first && p < end; }
};

/* Is the supergraph of depth K of procedure P of V the same in every
   program, with at most *ROOM more copies (taken from it; their edges
   added to *EDGES, and those of each procedure not yet in SEEN, P's
   included, to *DISTINCT)?  Each call of each copy is a call of a
   function of the unit (inlined above depth K, a summary edge at K) or
   through a pointer (a leaf edge in every program); a call of a function
   the unit does not define is a leaf edge to the unit, which is the
   program's S only where that function is not instrumented: its index
   among the unit's IMPORTS (pp_ip_unit_names, NIMPORTS of them) goes to
   *ASSUMED then, and libprof checks them (the unit's ip_ok).  Across
   units, S is the training program's: a call of another unit's function
   is a copy of it (*FOREIGN counts them), and a call of a function no
   unit defines is a leaf edge where the program is the training program
   (libprof's signature).
   Before numbering it, which costs more.  */
static bool
same_everywhere_p (const program_view &v, uint32_t p, uint32_t k, uint32_t *room,
		   uint64_t *edges, const uint64_t *imports, uint32_t nimports,
		   auto_vec<uint32_t> *assumed, uint32_t *foreign, sbitmap seen,
		   uint64_t *distinct)
{
  const pp_ip_layout &layout = *v.layout;
  if (bitmap_set_bit (seen, p))
    *distinct += layout.prog.procs[p].nedges;
  const pp_function_notes &fn = v.fn (p);
  for (uint32_t j = 0; j < layout.ncalls_of[p]; j++)
    {
      uint32_t site = layout.site_of_call[p][j];
      if (site == UINT32_MAX)
	{
	  if (fn.calls[j].flags & PP_CALL_RETURNS_TWICE)
	    return false;
	  if ((fn.calls[j].flags & PP_CALL_INDIRECT) || v.across)
	    continue;
	  uint32_t i = pp_ip_import_index (imports, nimports, fn.calls[j].callee);
	  if (i == UINT32_MAX)
	    return false;	/* not an import: libprof could not tell */
	  if (!assumed->contains (i))
	    assumed->safe_push (i);
	  continue;
	}
      if (k == 0)
	continue;		/* a summary edge */
      if (*room == 0)
	return false;
      --*room;
      uint32_t callee = layout.prog.calls[site].callee;
      if (!v.own (callee))
	++*foreign;
      *edges += layout.prog.procs[callee].nedges;
      if (!same_everywhere_p (v, callee, k - 1, room, edges, imports, nimports, assumed,
			      foreign, seen, distinct))
	return false;
    }
  return true;
}

/* Fronts.  A compiled root with more segments than fit an array counts
   them in a path table (path-tables.c), whose code finds a number's home
   slot from the table's words at run time: about twelve instructions and
   an atomic add for a number at home (sqlite3VdbeExec's opcode loop, once
   an opcode), a call into libprof for any other.  In the learning modes
   the notes name the root's interesting segments (those of the training
   run), so the plugin places them in slots of its own (corelib/front.h
   pp_front_place), whose keys, size and multiplier the code has as
   constants: a number whose slot holds it counts there, the rest go on
   to the table.  Exact whatever the slots hold (a slot counts only the
   number it names), so the root's interesting segments need only be
   meant for this S (the notes' checksum) to be worth their room.  */
/* A front as the plugin places it: its keys (empty: none), multiplier
   and size.  */
struct front_plan
{
  auto_vec<uint64_t> keys;
  uint64_t mul = 0;
  uint32_t log2 = 0;
};

/* The front of INTERESTING (N segments of S, increasing, no duplicate, as
   the notes have them), where S counts in a path table (PATH_TABLE) and
   CHECKSUM, the training run's pp_seg_checksum of the supergraph they are
   numbers of, is S's over CFG_CHECKSUM.  */
static void
place_front (front_plan &f, const uint64_t *interesting, uint32_t n, uint64_t checksum,
	     const pp_seg_graph &s, bool path_table, const uint64_t *cfg_checksum)
{
  if (!path_table || !cfg_checksum || !n || pp_seg_checksum (&s, cfg_checksum) != checksum)
    return;
  uint64_t *slots;
  if (pp_front_place (interesting, n, PP_FRONT_MAX_LOG2, &f.mul, &f.log2, &slots))
    fatal_error (UNKNOWN_LOCATION, "pathprof: out of memory");
  for (size_t i = 0; i < (size_t) 1 << f.log2; i++)
    f.keys.safe_push (slots[i]);
  free (slots);
}

/* What names a front in the symbols of roots across units (across_name):
   0 for none.  A unit that places another's front otherwise (other
   options, another profile) names its clones otherwise, and the root,
   finding none, runs as libprof's.  */
static uint64_t
front_signature (const front_plan &f)
{
  if (f.keys.is_empty ())
    return 0;
  uint64_t h = pp_hash64 (f.keys.address (), f.keys.length () * sizeof (uint64_t),
			  PP_HASH_SEED);
  return pp_mix64 (h ^ f.mul) + f.log2 + 1;
}

/* Hints.  Behind a front a count still multiplies, shifts and loads a
   key, about eight instructions, where a few segments are most of what
   the count's edge sees: a loop's backedge in a callee S inlines (zlib's
   longest_match in deflate_slow: 31.8 M of its 36.1 M counts are one
   segment in the training run).  So the plugin finds the edge each
   interesting segment ends at (S's cut, or its edge into EXIT), and a
   count compares first with the hottest of those ending at its edge that
   have a slot of their own in the front, up to HINTS_MAX, as many as pay
   for their compares (hint_chain), adding to the slot of the one it
   finds (probes.cc expand_hint).  As exact as the front whatever the run
   does, since a slot counts its number only; a hint that the run belies
   costs its compares.  Another unit's clone of a copy has no front (its
   keys are the root's unit's), but it has the hints: it places the
   root's front as the root's unit does, from the same profile, and adds
   to the slots through the address the root's unit exports
   (across_name's "front"), both units naming the front they placed.  */
#define HINTS_MAX 4
#define HINT_FRONT_COST 8.0	/* a front's lookup (probes.cc expand_front) */
#define HINT_TABLE_COST 16.0	/* the table's, with its locked add */

struct hint_end
{
  uint32_t edge;
  uint64_t number, count;
};

static int
by_end_edge (const void *a, const void *b)
{
  const hint_end *x = (const hint_end *) a, *y = (const hint_end *) b;
  if (x->edge != y->edge)
    return x->edge < y->edge ? -1 : 1;
  return (x->count < y->count) - (x->count > y->count);	/* hottest first */
}

/* The learnt segments NUMBERS (with their training COUNTS) of S (PATHS)
   by the edge each ends at, each edge's hottest first.  */
static void
segment_ends (const auto_vec<uint64_t> &numbers, const auto_vec<uint64_t> &counts,
	      const pp_paths *paths, auto_vec<hint_end> &ends)
{
  auto_vec<uint32_t> edges;
  edges.safe_grow (paths->max_path_edges + 1);
  pp_path path = {};
  path.edges = edges.address ();
  for (unsigned i = 0; i < numbers.length (); i++)
    if (pp_paths_decode (paths, numbers[i], &path) == PP_PATHS_OK
	&& (path.end_edge != PP_PATH_NONE || path.nedges))
      ends.safe_push ({ path.end_edge != PP_PATH_NONE ? path.end_edge
			: path.edges[path.nedges - 1], numbers[i], counts[i] });
  ends.qsort (by_end_edge);
}

/* How many of a count's hottest segments (their shares SHARE[0 .. N) of
   what its edge counted in training, hottest first) to compare with
   before what follows (FALLBACK instructions: the front, or the table
   for another unit's clone): the chain that costs least, a compare and
   a jump each, the add after a hit.  */
static unsigned
hint_chain (const double *share, unsigned n, double fallback)
{
  double best = fallback, rest = 1, cost = 0;
  unsigned length = 0;
  for (unsigned i = 0; i < n && i < HINTS_MAX; i++)
    {
      cost += share[i] * (2 + 2 * (i + 1));
      rest -= share[i];
      double total = cost + rest * (2 * (i + 1) + fallback);
      if (total < best)
	{
	  best = total;
	  length = i + 1;
	}
    }
  return length;
}

/* The hints of BODY, copy C of S, whose probes are PLAN's, behind front F
   (or, where ACROSS, behind the root's table).  */
static void
place_hints (function_record &body, const pp_plan &plan, uint32_t c, const pp_seg_graph &s,
	     const auto_vec<hint_end> &ends, const front_plan &f, bool across)
{
  body.hint_first.safe_grow_cleared (plan.nprobes + 1);
  for (uint32_t i = 0; !f.keys.is_empty () && i < plan.nprobes; i++)
    {
      const pp_probe &pr = plan.probes[i];
      body.hint_first[i] = body.hint_number.length ();
      if (pr.action != PP_PROBE_PATH_COUNT
	  || (pr.site != PP_SITE_EDGE && pr.site != PP_SITE_SOURCE_END))
	continue;
      uint32_t e = pp_seg_edge (&s, c, pr.where);
      unsigned lo = 0, hi = ends.length ();
      while (lo < hi)
	{
	  unsigned mid = (lo + hi) / 2;
	  if (ends[mid].edge < e)
	    lo = mid + 1;
	  else
	    hi = mid;
	}
      double total = 0;
      for (unsigned j = lo; j < ends.length () && ends[j].edge == e; j++)
	total += (double) ends[j].count;
      if (e == UINT32_MAX || total <= 0)
	continue;
      /* The hottest with a slot of their own; the others go on.  */
      double share[HINTS_MAX];
      uint64_t number[HINTS_MAX], slot[HINTS_MAX];
      unsigned n = 0;
      for (unsigned j = lo; n < HINTS_MAX && j < ends.length () && ends[j].edge == e; j++)
	{
	  uint64_t k = ends[j].number, at = pp_front_slot (k, f.mul, f.log2);
	  if (f.keys[at] != k)
	    continue;
	  share[n] = (double) ends[j].count / total;
	  number[n] = k;
	  slot[n++] = at;
	}
      unsigned length = hint_chain (share, n, across ? HINT_TABLE_COST : HINT_FRONT_COST);
      for (unsigned j = 0; j < length; j++)
	{
	  body.hint_number.safe_push (number[j]);
	  body.hint_slot.safe_push ((uint32_t) slot[j]);
	}
    }
  body.hint_first[plan.nprobes] = body.hint_number.length ();
}

/* Root R of unit UNIT_NAME (asm name ROOT), numbered as S (PATHS; its
   copy 0's plan counts in a path table where PATH_TABLE) over CFG_CHECKSUM:
   its front as R's unit places it, from the interesting segments the
   profile gives R, and their ends.  */
static void
learn_front (const char *unit_name, const char *root, const pp_seg_graph &s,
	     const pp_paths *paths, bool path_table, const uint64_t *cfg_checksum,
	     front_plan &f, auto_vec<hint_end> &ends)
{
  if (!path_table || !cfg_checksum)
    return;
  char err[512];
  uint64_t checksum;
  auto_vec<uint64_t> numbers, hot;
  if (learn_root_segments (unit_name, root, numbers, hot, &checksum, err, sizeof err) <= 0)
    return;		/* R's unit says what is wrong with the profile */
  segment_ends (numbers, hot, paths, ends);
  /* The notes' order: increasing, no duplicate.  */
  numbers.qsort (compare_u64);
  unsigned m = 0;
  for (unsigned i = 0; i < numbers.length (); i++)
    if (!m || numbers[i] != numbers[m - 1])
      numbers[m++] = numbers[i];
  numbers.truncate (m);
  place_front (f, numbers.address (), m, checksum, s, path_table, cfg_checksum);
}

static int
compare_u32 (const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
  return (x > y) - (x < y);
}

/* S of root P in V and the plans of its copies (pp_plan_compiled_copy,
   which every unit that makes a copy of S runs alike), where S can be
   compiled: ALLOWED (c, proc) says, once S is numbered, whether copy c
   may be.  Returns S's segments (*S, *PATHS and PLANS made; *ASSUMED and
   *FOREIGN as same_everywhere_p says), or 0.  */
template <typename F>
static uint64_t
plan_root (const program_view &v, uint32_t p, const uint64_t *imports, uint32_t nimports,
	   auto_vec<uint32_t> *assumed, uint32_t *foreign, pp_seg_graph *s, pp_paths **paths,
	   auto_vec<pp_plan> &plans, F allowed)
{
  const pp_ip_layout &layout = *v.layout;
  uint32_t room = COMPILED_COPIES_MAX - 1;
  uint64_t edges = 0, distinct = 0;
  auto_sbitmap seen (layout.prog.nprocs);
  bitmap_clear (seen);
  *foreign = 0;
  if (!same_everywhere_p (v, p, (uint32_t) option_depth, &room, &edges, imports, nimports,
			  assumed, foreign, seen, &distinct)
      || (COMPILED_COPIES_MAX - room > COMPILED_COPIES_FREE	/* S's copies */
	  && edges > COMPILED_COPIES_GROWTH * distinct && edges > COMPILED_EDGES_FREE)
      || (v.across && !*foreign)	/* the unit's own way does it */
      || pp_seg_build_numbered (&layout.prog, p, (uint32_t) option_depth, s, paths)
	 != PP_SEG_OK)
    return 0;
  uint64_t npaths = (*paths)->npaths;
  bool ok = s->ncopies <= COMPILED_COPIES_MAX;
  for (uint32_t c = 0; ok && c < s->ncopies; c++)
    ok = allowed (c, s->copies[c].proc);
  pp_seg_actions a;
  plans.safe_grow_cleared (s->ncopies);
  if (ok && pp_seg_actions_make (s, *paths, NULL, &a) == 0)
    {
      /* The register holds twice the number; where the segments count in
	 an array, no copy keeps a record and the values are small, the
	 number itself, so that a count adds to the array at the number
	 with no shift (plan.h).  */
      for (unsigned pack = 1, again = 1; again; pack = 0)
	{
	  again = 0;
	  for (uint32_t c = 0; ok && c < s->ncopies; c++)
	    {
	      uint32_t q = s->copies[c].proc;
	      pp_plan_free (&plans[c]);
	      int rc = pp_plan_compiled_copy (&layout.prog.procs[q], s, c, &a, npaths,
					      layout.site_of_call[q], layout.leaf_edge[q],
					      layout.ncalls_of[q], option_path_array_max, pack,
					      &plans[c]);
	      if (rc == PP_PLAN_ENOMEM)
		fatal_error (UNKNOWN_LOCATION, "pathprof: out of memory");
	      ok = rc == PP_PLAN_OK;
	    }
	  if (ok && pack && !plans[0].path_table && pp_plan_exact_numbers (s, npaths))
	    {
	      again = 1;
	      for (uint32_t c = 0; again && c < s->ncopies; c++)
		again = !pp_plan_keeps_record (&plans[c]);
	    }
	}
      pp_seg_actions_free (&a);
    }
  else
    ok = false;
  if (!ok)
    {
      for (pp_plan &plan : plans)
	pp_plan_free (&plan);
      pp_paths_free (*paths);
      pp_seg_free (s);
    }
  return ok ? npaths : 0;
}

/* Can PLAN, another unit's function as a copy of a root's S, run in
   that unit: does it only take the register, add to it, store into the
   root's record, count segments and pass it back?  Its counts go where
   the root's do, through the address the root's unit exports
   (probes.cc emit_path_count: the root's array, or its path table, not
   its front, whose slots only the root's unit knows; a dump adds the
   table's count of a number to its front's).  */
static bool
runs_across_p (const pp_plan &plan)
{
  for (uint32_t i = 0; i < plan.nprobes; i++)
    switch (plan.probes[i].action)
      {
      case PP_PROBE_PATH_SET:
      case PP_PROBE_PATH_ADD:
      case PP_PROBE_PATH_PASS:
      case PP_PROBE_PATH_TAKE:
      case PP_PROBE_PATH_LEAVE:
      case PP_PROBE_PATH_COUNT:
      case PP_PROBE_PATH_COUNT_CONST:
	break;
      default:
	return false;
      }
  return true;
}

/* Does PLAN count segments?  */
static bool
counts_p (const pp_plan &plan)
{
  for (uint32_t i = 0; i < plan.nprobes; i++)
    if (pp_probe_counts_path (plan.probes[i].action))
      return true;
  return false;
}

/* The symbol of copy C of root ROOT (asm name) of unit UNIT_NAME, where
   another unit's function is that copy ("__pathprof_xcopy_"), of the
   address of ROOT's counts (C ACROSS_ROOT, "__pathprof_xroot_") or of
   its front's counts (C ACROSS_FRONT, "__pathprof_xfront_"): both units
   make the same name from the training program, and the options that
   shape a plan are in it, and the front each placed (front_signature;
   0 for the root's counts): a unit built with others makes clones the
   root does not find, and the root runs as libprof's.  */
#define ACROSS_ROOT UINT32_MAX
#define ACROSS_FRONT (UINT32_MAX - 1)
static tree
across_name (const char *unit_name, const char *root, uint32_t c, uint64_t front)
{
  uint64_t h = pp_hash64 (unit_name, strlen (unit_name), PP_HASH_SEED);
  h = pp_mix64 (h ^ pp_hash64 (root, strlen (root) + 1, PP_HASH_SEED));
  h = pp_mix64 (h + c);
  h = pp_mix64 (h ^ ((uint64_t) option_mode->mode << 48 ^ (uint64_t) option_depth << 40
		     ^ (uint64_t) option_path_array_max));
  if (front)
    h = pp_mix64 (h ^ front);
  char name[64];
  snprintf (name, sizeof name, "__pathprof_x%s_%016" PRIx64,
	    c == ACROSS_ROOT ? "root" : c == ACROSS_FRONT ? "front" : "copy", h);
  return get_identifier (name);
}

/* A public declaration of NAME with TYPE (a FUNCTION_DECL or a
   VAR_DECL), defined in another unit or nowhere (weak).  */
static tree
weak_extern (enum tree_code code, tree name, tree type)
{
  tree decl = build_decl (BUILTINS_LOCATION, code, name, type);
  TREE_PUBLIC (decl) = 1;
  DECL_EXTERNAL (decl) = 1;
  DECL_ARTIFICIAL (decl) = 1;
  declare_weak (decl);
  return decl;
}

/* The type of BODY's callee NAME (an asm name): its declaration's.  */
static tree
callee_type (const function_record &body, const char *name)
{
  for (cgraph_edge *e = body.node->callees; e; e = e->next_callee)
    if (strcmp (IDENTIFIER_POINTER (DECL_ASSEMBLER_NAME (e->callee->decl)), name) == 0)
      return TREE_TYPE (e->callee->decl);
  return NULL_TREE;
}

/* Makes COPY, a clone another unit's body calls, public as NAME
   (across_name): it writes the pass word, so never const or pure,
   whatever the function was declared (the inliner's view gives the noted
   functions their flags back; this one is not noted).  */
static void
publish (function_record *copy, tree name)
{
  tree decl = copy->node->decl;
  symtab->change_decl_assembler_name (decl, name);
  TREE_PUBLIC (decl) = 1;
  DECL_EXTERNAL (decl) = 0;
  DECL_UNINLINABLE (decl) = 1;
  /* Public after GCC's visibility pass: callers it does not see.  */
  copy->node->externally_visible = true;
  copy->node->force_output = true;
  copy->node->local = false;
  copy->node->set_const_flag (false, false);
  copy->node->set_pure_flag (false, false);
  TREE_TYPE (decl) = build_function_type (TREE_TYPE (TREE_TYPE (decl)),
					  TYPE_ARG_TYPES (TREE_TYPE (decl)));
  copy->node->set_comdat_group (NULL);
}

/* The weak declaration of copy C (a function CALLEE, asm name) of root
   ROOT of unit UNIT_NAME (its front FRONT), which CALLEE's unit makes (across_name), as
   BODY calls it: unqualified, not const or pure.  Without BODY (a copy
   that only another unit's copy calls), a declaration whose address the
   root's guard tests.  NULL_TREE where BODY does not call CALLEE.  */
static tree
across_decl (const char *unit_name, const char *root, uint32_t c, uint64_t front,
	     const char *callee, const function_record *body)
{
  tree type = body ? callee_type (*body, callee) : NULL_TREE;
  if (body && !type)
    return NULL_TREE;
  return weak_extern (FUNCTION_DECL, across_name (unit_name, root, c, front),
		      type ? build_function_type (TREE_TYPE (type), TYPE_ARG_TYPES (type))
		      : build_function_type_list (void_type_node, NULL_TREE));
}

/* Root REC (the unit's procedures are V's, RECORDS its functions, FNS
   their notes) compiled if it can be: its plans, its clone for ENTER and
   its copies' clones, made from the bodies as they are before any is
   instrumented; across units, a call of another unit's function in S
   goes to the clone that unit makes of it (across_name).  Returns its
   segments, or 0.  */
static uint64_t
compile_root (function_record &rec, auto_delete_vec<function_record> &records,
	      const auto_vec<pp_function_notes> &fns, const program_view &v,
	      const uint64_t *imports, uint32_t nimports, const uint64_t *cfg_checksum)
{
  if (!root_ok (rec))
    return 0;
  const pp_ip_layout &layout = *v.layout;
  uint32_t first = v.first, p = first + rec.index;
  pp_seg_graph s;
  pp_paths *paths;
  auto_vec<pp_plan> plans;
  auto_vec<uint32_t> assumed;
  uint32_t foreign;
  uint64_t npaths
    = plan_root (v, p, imports, nimports, &assumed, &foreign, &s, &paths, plans,
		 [&] (uint32_t, uint32_t q) {
		   return !v.own (q) || (q - first < records.length ()
					 && copy_ok (*records[q - first]));
		 });
  if (!npaths)
    return 0;
  /* The notes learnt R's interesting segments (plugin.cc), with the
     checksum of S in the training program, which V's layout is.  */
  const pp_function_notes &fn = fns[rec.index];
  front_plan front;
  place_front (front, fn.interesting, fn.ninteresting, fn.seg_checksum, s, plans[0].path_table,
	       cfg_checksum);
  uint64_t sig = front_signature (front);
  bool ok = true;
  for (uint32_t c = 0; ok && c < s.ncopies; c++)
    ok = v.own (s.copies[c].proc) ? calls_bind_locally (*records[s.copies[c].proc - first])
	 : runs_across_p (plans[c]);
  /* The clones: for ENTER, and one per copy below the root (of the unit's
     functions; of another unit's, the declaration of that unit's).  */
  function_record *dyn = ok ? clone_record (rec, "pathprof") : NULL;
  auto_delete_vec<function_record> copies;
  auto_vec<tree> targets;
  copies.safe_push (NULL);	/* copy 0 is the function itself */
  targets.safe_push (NULL_TREE);
  for (uint32_t c = 1; dyn && c < s.ncopies; c++)
    {
      uint32_t q = s.copies[c].proc;
      function_record *copy = NULL;
      tree target = NULL_TREE;
      /* Its parent's body, where it is the unit's.  */
      uint32_t parent = s.copies[c].parent;
      const function_record *body = !parent ? &rec : copies[parent];
      if (v.own (q))
	{
	  copy = clone_record (*records[q - first], "pathprof_copy");
	  target = copy ? copy->node->decl : NULL_TREE;
	  /* Called from another unit's copy.  */
	  if (copy && !body)
	    publish (copy, across_name (v.units[v.unit].unit_name, v.fn (p).asm_name, c, sig));
	}
      else
	target = across_decl (v.units[v.unit].unit_name, v.fn (p).asm_name, c, sig,
			      v.fn (q).asm_name, body);
      if (!target)
	break;
      copies.safe_push (copy);
      targets.safe_push (target);
    }
  ok = dyn && copies.length () == s.ncopies;
  if (ok)
    {
      /* Each copy calls its children's clones.  */
      for (uint32_t c = 0; c < s.ncopies; c++)
	{
	  uint32_t q = s.copies[c].proc;
	  if (!v.own (q))
	    {
	      rec.foreign_clones.safe_push (targets[c]);
	      rec.foreign_record |= pp_plan_keeps_record (&plans[c]);
	      continue;
	    }
	  function_record &body = c ? *copies[c] : rec;
	  for (uint32_t k = 0; k < layout.ncalls_of[q]; k++)
	    {
	      uint32_t site = layout.site_of_call[q][k];
	      uint32_t j = site == UINT32_MAX ? UINT32_MAX : pp_seg_site_index (&s, c, site);
	      uint32_t child = j == UINT32_MAX ? UINT32_MAX : s.child[s.first_call[c] + j];
	      body.call_target.safe_push (child == UINT32_MAX ? NULL_TREE : targets[child]);
	    }
	  if (c)
	    {
	      copies[c]->plan = plans[c];
	      plans[c] = pp_plan {};
	    }
	}
      dyn->plan = rec.plan;	/* moved: the notes' plan is the clone's */
      rec.plan = pp_plan {};
      rec.compiled = plans[0];
      plans[0] = pp_plan {};
      dyn->self = rec.node->decl;
      rec.compiled_assumes = !assumed.is_empty () || foreign;
      assumed.qsort (compare_u32);
      rec.assumed_imports.safe_splice (assumed);
      if (foreign)
	rec.xroot = across_name (v.units[v.unit].unit_name, v.fn (p).asm_name, ACROSS_ROOT, 0);
      if (foreign && sig)
	rec.xfront = across_name (v.units[v.unit].unit_name, v.fn (p).asm_name, ACROSS_FRONT,
				  sig);
      rec.front_keys.safe_splice (front.keys);
      rec.front_mul = front.mul;
      rec.front_log2 = front.log2;
      auto_vec<hint_end> ends;
      if (sig)
	segment_ends (rec.learnt, rec.learnt_counts, paths, ends);
      for (uint32_t c = 0; c < s.ncopies; c++)
	if (function_record *body = c ? copies[c] : &rec)
	  place_hints (*body, c ? body->plan : rec.compiled, c, s, ends, front, false);
      DECL_UNINLINABLE (dyn->node->decl) = 1;	/* called once, from the test */
      rec.dyn = dyn;
      for (uint32_t c = 1; c < s.ncopies; c++)
	if (copies[c])
	  {
	    rec.copies.safe_push (copies[c]);
	    copies[c] = NULL;
	  }
    }
  else
    {
      if (dyn)
	dyn->node->remove ();
      delete dyn;
      for (function_record *copy : copies)
	if (copy)
	  copy->node->remove ();
    }
  for (pp_plan &plan : plans)
    pp_plan_free (&plan);
  pp_paths_free (paths);
  pp_seg_free (&s);
  return ok ? npaths : 0;
}

/* Can S of depth K of procedure P of R (another unit's root) hold a
   function of unit V: is one called at most K calls down from P?  */
static bool
reaches_p (const program_view &r, const program_view &v, uint32_t p, uint32_t k)
{
  const pp_ip_layout &layout = *r.layout;
  auto_sbitmap seen (layout.prog.nprocs);
  bitmap_clear (seen);
  bitmap_set_bit (seen, p);
  auto_vec<uint32_t> level, next;
  level.safe_push (p);
  for (; k > 0 && !level.is_empty (); k--)
    {
      next.truncate (0);
      for (uint32_t q : level)
	for (uint32_t j = 0; j < layout.ncalls_of[q]; j++)
	  {
	    uint32_t site = layout.site_of_call[q][j];
	    if (site == UINT32_MAX)
	      continue;
	    uint32_t callee = layout.prog.calls[site].callee;
	    if (v.own (callee))
	      return true;
	    if (bitmap_set_bit (seen, callee))
	      next.safe_push (callee);
	  }
      std::swap (level, next);
    }
  return false;
}

/* The clones this unit makes for other units' compiled roots (across
   units): for each root R of another unit of V whose S holds a copy c of
   one of this unit's functions (runs_across_p), a clone of it with copy c's plan under across_name (R's unit, R, c),
   public, which R's code calls.  Each unit plans R as R's own does (the
   same layout, the same corelib), so that the plans agree; what R's unit
   decides not to compile leaves its clones unused.  */
static void
clone_for_other_units (auto_delete_vec<function_record> &records, const program_view &v,
		       const uint64_t *cfg_checksum, auto_delete_vec<function_record> &out)
{
  const pp_ip_layout &layout = *v.layout;
  for (uint32_t u = 0; u < v.nunits; u++)
    {
      if (u == v.unit)
	continue;
      program_view r = v;
      r.unit = u;
      r.first = layout.first_proc[u];
      r.end = u + 1 < v.nunits ? layout.first_proc[u + 1] : layout.prog.nprocs;
      for (uint32_t p = r.first; p < r.end; p++)
	{
	  if (!reaches_p (r, v, p, (uint32_t) option_depth))
	    continue;
	  pp_seg_graph s;
	  pp_paths *paths;
	  auto_vec<pp_plan> plans;
	  auto_vec<uint32_t> assumed;
	  uint32_t foreign;
	  /* Its plan as R's unit makes it: there, this unit's copies are the
	     other unit's.  */
	  if (!plan_root (r, p, NULL, 0, &assumed, &foreign, &s, &paths, plans,
			  [&] (uint32_t, uint32_t q) {
			    return !v.own (q) || (q - v.first < records.length ()
						  && copy_ok (*records[q - v.first]));
			  }))
	    continue;
	  /* R's unit compiles R only where every copy of another unit's
	     function can run in its unit (compile_root).  */
	  bool record = false, usable = true;
	  for (uint32_t c = 0; c < s.ncopies; c++)
	    {
	      record |= pp_plan_keeps_record (&plans[c]);
	      usable &= r.own (s.copies[c].proc) || runs_across_p (plans[c]);
	    }
	  /* R's front, as R's unit places it (the names say which).  */
	  front_plan front;
	  auto_vec<hint_end> ends;
	  if (usable)
	    learn_front (r.units[u].unit_name, r.fn (p).asm_name, s, paths, plans[0].path_table,
			 cfg_checksum, front, ends);
	  uint64_t sig = front_signature (front);
	  auto_vec<function_record *> clones;
	  clones.safe_grow_cleared (s.ncopies);
	  for (uint32_t c = 1; usable && c < s.ncopies; c++)
	    {
	      uint32_t q = s.copies[c].proc;
	      if (!v.own (q) || !runs_across_p (plans[c]))
		continue;
	      function_record &fn = *records[q - v.first];
	      if (!calls_bind_locally (fn) || !decl_binds_to_current_def_p (fn.node->decl))
		continue;
	      function_record *copy = clone_record (fn, "pathprof_across");
	      if (!copy)
		continue;
	      publish (copy, across_name (r.units[u].unit_name, r.fn (p).asm_name, c, sig));
	      clones[c] = copy;
	      copy->plan = plans[c];
	      plans[c] = pp_plan {};
	      place_hints (*copy, copy->plan, c, s, ends, front, true);
	      unsigned hints = copy->hint_number.length ();
	      if (hints)
		copy->xfront = weak_extern (VAR_DECL,
					    across_name (r.units[u].unit_name, r.fn (p).asm_name,
							 ACROSS_FRONT, sig),
					    ptr_type_node);
	      if (dump_file && sig)
		fprintf (dump_file, ";; pathprof: the clone of %s as copy %u of %s (unit %s): "
			 "%u count(s) with a hint\n", v.fn (q).asm_name, c, r.fn (p).asm_name,
			 r.units[u].unit_name, hints);
	      /* The root's counts, for the segments the clone counts and
		 for the record it may push.  */
	      if (record || counts_p (copy->plan))
		{
		  copy->xroot = weak_extern (VAR_DECL,
					     across_name (r.units[u].unit_name,
							  r.fn (p).asm_name, ACROSS_ROOT, 0),
					     ptr_type_node);
		  copy->xnpaths = plans[0].path_table ? 0 : (*paths).npaths;
		  copy->foreign_record = record;
		}
	      out.safe_push (copy);
	    }
	  /* Each clone calls its children's: this unit's clones, or the
	     declarations of other units' (their units make them).  A child
	     not made leaves its name undefined, and R's guard runs R as
	     libprof's.  */
	  for (uint32_t c = 1; c < s.ncopies; c++)
	    {
	      uint32_t q = s.copies[c].proc;
	      for (uint32_t k = 0; clones[c] && k < layout.ncalls_of[q]; k++)
		{
		  uint32_t site = layout.site_of_call[q][k];
		  uint32_t j = site == UINT32_MAX ? UINT32_MAX : pp_seg_site_index (&s, c, site);
		  uint32_t child = j == UINT32_MAX ? UINT32_MAX : s.child[s.first_call[c] + j];
		  tree target = NULL_TREE;
		  if (child != UINT32_MAX && !v.own (s.copies[child].proc))
		    target = across_decl (r.units[u].unit_name, r.fn (p).asm_name, child, sig,
					  v.fn (s.copies[child].proc).asm_name, clones[c]);
		  else if (child != UINT32_MAX && clones[child])
		    target = clones[child]->node->decl;
		  clones[c]->call_target.safe_push (target);
		}
	    }
	  for (pp_plan &plan : plans)
	    pp_plan_free (&plan);
	  pp_paths_free (paths);
	  pp_seg_free (&s);
	}
    }
}

uint64_t compiled_program_signature;

void
plan_compiled_roots (auto_delete_vec<function_record> &records,
		     const auto_vec<pp_function_notes> &fns, uint64_t *ncounts,
		     auto_delete_vec<function_record> &for_others)
{
  *ncounts = 0;
  if (!pp_mode_segments (option_mode) || !option_compiled_roots)
    return;
  pp_unit_notes notes = {};
  notes.mode = option_mode->mode;
  notes.depth = (uint32_t) option_depth;
  notes.nfunctions = fns.length ();
  notes.functions = const_cast<pp_function_notes *> (fns.address ());
  char *unit_name = absolute_unit_name ();
  notes.unit_name = unit_name;
  const pp_unit_notes *units[1] = { &notes };
  pp_ip_layout layout;
  if (pp_ip_layout_build (units, 1, &layout))
    fatal_error (UNKNOWN_LOCATION, "pathprof: out of memory");
  program_view alone = { &layout, &notes, 1, 0, false, layout.first_proc[0],
			 layout.prog.nprocs };
  /* The functions' CFG checksums, which the notes get when they are
     encoded: a front is placed where S is the one the interesting
     segments were learnt for (pp_seg_checksum).  */
  uint64_t *cfg_checksum = NULL, *cfg_across = NULL;
  program_view across = {};
  if (option_mode->preferential)
    {
      cfg_checksum = XNEWVEC (uint64_t, layout.prog.nprocs + 1);
      for (unsigned i = 0; i < fns.length (); i++)
	cfg_checksum[layout.first_proc[0] + i] = pp_notes_cfg_checksum (&fns[i]);
      /* The training program, where it has this unit as it is.  */
      const pp_ip_layout *l;
      const pp_unit_notes *members;
      uint32_t n, u;
      if (pp_seg_prior_program (&seg_prior, unit_name, cfg_checksum + layout.first_proc[0],
				fns.length (), &l, &members, &n, &u) == 1)
	{
	  across = { l, members, n, u, true, l->first_proc[u],
		     u + 1 < n ? l->first_proc[u + 1] : l->prog.nprocs };
	  cfg_across = XNEWVEC (uint64_t, l->prog.nprocs + 1);
	  for (uint32_t q = 0; q < l->prog.nprocs; q++)
	    cfg_across[q] = pp_notes_cfg_checksum (&across.fn (q));
	  /* What libprof checks that the program is (its units' names and
	     exports), from the training program's notes.  */
	  auto_vec<const char *> unit_names;
	  auto_vec<uint64_t *> unit_words;
	  auto_vec<uint32_t> ni, ne;
	  for (uint32_t m = 0; m < n; m++)
	    {
	      uint64_t *w;
	      uint32_t a, b;
	      if (pp_ip_unit_names (&members[m], &w, &a, &b))
		fatal_error (UNKNOWN_LOCATION, "pathprof: out of memory");
	      unit_names.safe_push (members[m].unit_name);
	      unit_words.safe_push (w);
	      ni.safe_push (a);
	      ne.safe_push (b);
	    }
	  compiled_program_signature
	    = pp_ip_program_signature (unit_names.address (),
				       (const uint64_t *const *) unit_words.address (),
				       ni.address (), ne.address (), n);
	  for (uint64_t *w : unit_words)
	    free (w);
	}
    }
  /* The unit's imports, as libprof will have them (unit.cc emit_ip_names),
     so that a compiled root names the callees it assumes.  */
  uint64_t *names;
  uint32_t nimports, nexports;
  if (pp_ip_unit_names (&notes, &names, &nimports, &nexports))
    fatal_error (UNKNOWN_LOCATION, "pathprof: out of memory");
  for (function_record *rec : records)
    {
      uint64_t npaths = across.layout
			? compile_root (*rec, records, fns, across, NULL, 0, cfg_across) : 0;
      if (!npaths)
	npaths = compile_root (*rec, records, fns, alone, names, nimports, cfg_checksum);
      if (!npaths)
	continue;
      /* Its array, or its front's counts.  */
      if (rec->compiled.path_table)
	npaths = rec->front_keys.length ();
      rec->compiled_first = *ncounts;
      *ncounts += npaths;
      for (function_record *copy : rec->copies)
	{
	  copy->value_offset = (uint32_t) rec->compiled_first;
	  copy->front_of = rec;
	}
    }
  if (across.layout)
    clone_for_other_units (records, across, cfg_across, for_others);
  free (names);
  free (unit_name);
  XDELETEVEC (cfg_checksum);
  XDELETEVEC (cfg_across);
  pp_ip_layout_free (&layout);
}

/* The argument list of cfun's parameters, as a call in its first block
   (SEQ) passes them on.  */
static auto_vec<tree>
own_arguments (gimple_seq *seq)
{
  auto_vec<tree> args;
  for (tree parm = DECL_ARGUMENTS (current_function_decl); parm; parm = DECL_CHAIN (parm))
    if (is_gimple_reg (parm))
      args.safe_push (get_or_create_ssa_default_def (cfun, parm));
    else if (is_gimple_reg_type (TREE_TYPE (parm)))
      args.safe_push (emit_value (seq, TREE_TYPE (parm), NOP_EXPR, parm, NULL_TREE,
				  "PP_arg"));
    else
      args.safe_push (parm);
  return args;
}

/* A block after AFTER that runs SEQ, then returns what FN returns when
   called with cfun's own arguments:  SEQ; [r =] FN (arguments); return [r];  */
static basic_block
returning_call (basic_block after, gimple_seq seq, tree fn)
{
  auto_vec<tree> args = own_arguments (&seq);
  gcall *call = gimple_build_call_vec (fn, args);
  tree type = TREE_TYPE (DECL_RESULT (current_function_decl));
  tree result = NULL_TREE;
  if (!VOID_TYPE_P (type))
    {
      result = make_temp_ssa_name (type, NULL, "PP_result");
      gimple_call_set_lhs (call, result);
    }
  gimple_seq_add_stmt (&seq, call);
  gimple_seq_add_stmt (&seq, gimple_build_return (result));
  basic_block bb = new_block (after);
  gimple_stmt_iterator gsi = gsi_start_bb (bb);
  gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);
  make_edge (bb, EXIT_BLOCK_PTR_FOR_FN (cfun), 0);
  return bb;
}

/* The test at cfun's entry (above; RECORD: the root keeps a record):
   where libprof says so, the clone DYN runs instead, with the same
   arguments, and its result is cfun's.  */
static void
insert_dispatch (const function_record &rec, const probe_target &t, bool record)
{
  tree u64 = counter_type ();
  /* ENTRY -> test -> set -> [room ->] rest -> the function's first block
     (or the first probes' block), rest without phi nodes, whatever the
     first block has.  */
  basic_block test = split_edge (single_succ_edge (ENTRY_BLOCK_PTR_FOR_FN (cfun)));
  basic_block set = split_edge (single_succ_edge (test));
  basic_block room = record ? split_edge (single_succ_edge (set)) : NULL;
  basic_block rest = split_edge (single_succ_edge (record ? room : set));

  /* test: c = __pathprof_ip_caller; if (c != 0) goto marked;
     set:  if (unit.ip_first == 0) goto ask;   (ip_ok[index])
     room: if (__pathprof_seg_top >= PATHPROF_SEG_RECORDS) goto ask_full;
     Three branches, two instructions each, where the three conditions
     or'ed into one branch took ten (setcc's); room's goes to a block of
     its own so that GCC does not fold the last two back into one.
     marked: the same conditions again, for the slow ways below.  */
  auto unit_first = [&] (gimple_seq *seq) {
    if (rec.compiled_assumes)
      return emit_value (seq, u64, NOP_EXPR,
			 emit_value (seq, unsigned_char_type_node, NOP_EXPR,
				     build4 (ARRAY_REF, unsigned_char_type_node, t.ip_ok,
					     size_int (rec.index), NULL_TREE, NULL_TREE),
				     NULL_TREE, "PP_ip_ok"),
			 NULL_TREE, "PP_ip_first");
    return emit_value (seq, u64, NOP_EXPR,
		       build3 (COMPONENT_REF, u64, t.unit, t.unit_ip_first, NULL_TREE),
		       NULL_TREE, "PP_ip_first");
  };
  auto records_full = [&] (gimple_seq *seq) {
    tree top = emit_value (seq, unsigned_type_node, NOP_EXPR, t.seg_top, NULL_TREE,
			   "PP_record_top");
    return emit_value (seq, boolean_type_node, GE_EXPR, top,
		       build_int_cst (unsigned_type_node, PATHPROF_SEG_RECORDS),
		       "PP_records_full");
  };
  gimple_seq seq = NULL;
  tree c = emit_value (&seq, u64, NOP_EXPR, t.ip_caller, NULL_TREE, "PP_ip_caller");
  gimple_stmt_iterator gsi = gsi_start_bb (test);
  gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);
  seq = NULL;
  tree first_now = unit_first (&seq);
  gsi = gsi_start_bb (set);
  gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);
  tree full_now = NULL_TREE;
  if (record)
    {
      seq = NULL;
      full_now = records_full (&seq);
      gsi = gsi_start_bb (room);
      gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);
    }
  seq = NULL;
  tree first = unit_first (&seq);
  tree other = emit_value (&seq, u64, NOP_EXPR,
			   emit_value (&seq, boolean_type_node, EQ_EXPR, first,
				       build_int_cst (u64, 0), "PP_ip_unset"),
			   NULL_TREE, "PP_ip_unset");
  tree full = NULL_TREE;
  if (record)
    {
      /* A root that keeps a record asks too where the stack is full.  */
      full = records_full (&seq);
      other = emit_value (&seq, u64, BIT_IOR_EXPR, other,
			  emit_value (&seq, u64, NOP_EXPR, full, NULL_TREE, "PP_records_full"),
			  "PP_ip_other");
    }
  tree asked = emit_value (&seq, u64, BIT_AND_EXPR, c,
			   build_int_cst (u64, PATHPROF_IP_ASK), "PP_ip_asked");
  basic_block marked = new_block_of (test, seq, NULL);

  /* ask: __pathprof_ip_caller = c | ASK; goto call;  (the clone asks
     libprof: insert_asked)  */
  tree u64_ask = build_int_cst (u64, PATHPROF_IP_ASK);
  auto mark = [&] () {
    gimple_seq marking = NULL;
    gimple_seq_add_stmt (&marking, gimple_build_assign (
      t.ip_caller, emit_value (&marking, u64, BIT_IOR_EXPR, c, u64_ask, "PP_ip_ask")));
    return new_block_of (test, marking, NULL);
  };
  basic_block ask = mark ();
  basic_block ask_full = record ? mark () : NULL;

  /* call: [r =] dyn (arguments); return [r];  */
  basic_block run = returning_call (ask, NULL, rec.dyn->node->decl);
  make_single_succ_edge (ask, run, EDGE_FALLTHRU);
  if (ask_full)
    make_single_succ_edge (ask_full, run, EDGE_FALLTHRU);

  /* The clone's answer, run compiled (the caller word as libprof left
     it, marked ASK):
       named:  if (c & ASK) goto back;
       back:   __pathprof_ip_caller = c & ~ASK;
	       if (full) goto ask; goto rest;   (full: with a record)
     (a signal handler's root between a mark and its answer may take it:
     it runs compiled, and the clone, finding no mark, runs ENTER.)  */
  seq = NULL;
  gimple_seq_add_stmt (&seq, gimple_build_assign (
    t.ip_caller, emit_value (&seq, u64, BIT_AND_EXPR, c,
			     build_int_cst (u64, ~(uint64_t) PATHPROF_IP_ASK), "PP_ip_caller")));
  basic_block back = new_block_of (test, seq, NULL);

  /* A call under way that names the function (its caller's frame's tag),
     as libprof would decide it, without asking where the caller's frame
     says enough: at a call its copy inlines (the call's first word SLOW:
     pathprof-abi.h struct __pathprof_ip_frame) the clone runs, whose ENTER
     continues the segment (or takes the call as a root where it does not);
     at another the function is a root, and runs compiled, the call taken
     (the caller word and the frame's tag cleared, as ENTER would), unless
     the unit is not set up or the records are full.
     A tag that names another function (a call through a pointer from
     libprof's code, a callback from code not instrumented) leaves the
     function a root, and it runs compiled where libprof would say so
     (xz's lzma_mf_find calls its match finders through a pointer: 2 M
     questions, 49 M instructions in libprof).
       named:  if (c == 0) goto ask;
       tagged: f = (frame *) c; if (f->tag != &self) goto elsewhere;
	       if (f->calls[2 * f->site] == SLOW) goto call;
       rooted: if (other) goto ask;
	       __pathprof_ip_caller = 0; f->tag = 0; goto rest;
       elsewhere: if (other) goto ask;
	       __pathprof_ip_caller = 0; goto rest;
     The caller word is cleared on both ways, as ENTER clears it for a
     root: left set (an indirect call from libprof's code names no
     function), every test below the root, in the callees GCC inlines
     into it and at the entries of the compiled roots it calls, took its
     slow way (xz's lzma_lzma_optimum_normal, entered from lz_encode's
     call through a pointer, ran 1.3 M of them in its loop).  */
  tree ptr = build_pointer_type (u64);
  seq = NULL;
  tree frame = emit_value (&seq, ptr, NOP_EXPR, c, NULL_TREE, "PP_ip_frame");
  tree tag = emit_load (&seq, u64, frame, offsetof (struct __pathprof_ip_frame, tag),
			"PP_ip_tag");
  tree self = emit_value (&seq, u64, NOP_EXPR, build_fold_addr_expr (rec.node->decl),
			  NULL_TREE, "PP_self");
  basic_block tagged = new_block_of (test, seq, NULL);
  basic_block named = new_block_of (test, NULL, NULL);
  seq = NULL;
  tree site = emit_load (&seq, unsigned_type_node, frame,
			 offsetof (struct __pathprof_ip_frame, site), "PP_ip_site");
  tree calls = emit_value (&seq, ptr, NOP_EXPR,
			   emit_load (&seq, u64, frame,
				      offsetof (struct __pathprof_ip_frame, calls),
				      "PP_ip_calls"),
			   NULL_TREE, "PP_ip_calls");
  tree offset = emit_value (&seq, sizetype, MULT_EXPR,
			    emit_value (&seq, sizetype, NOP_EXPR, site, NULL_TREE, "PP_ip_site"),
			    size_int (16), "PP_ip_offset");
  tree word = emit_value (&seq, u64, NOP_EXPR,
			  build2 (MEM_REF, u64,
				  emit_value (&seq, ptr, POINTER_PLUS_EXPR, calls, offset,
					      "PP_ip_word"),
				  build_int_cst (ptr, 0)),
			  NULL_TREE, "PP_ip_word");
  basic_block inlined = new_block_of (tagged, seq, NULL);
  seq = NULL;
  gimple_seq_add_stmt (&seq, gimple_build_assign (t.ip_caller, build_int_cst (u64, 0)));
  gimple_seq_add_stmt (&seq, gimple_build_assign (
    build2 (MEM_REF, u64, frame,
	    build_int_cst (ptr, offsetof (struct __pathprof_ip_frame, tag))),
    build_int_cst (u64, 0)));
  basic_block taken = new_block_of (inlined, seq, rest);
  basic_block rooted = new_block_of (inlined, NULL, NULL);
  basic_block elsewhere = new_block_of (tagged, NULL, NULL);
  seq = NULL;
  gimple_seq_add_stmt (&seq, gimple_build_assign (t.ip_caller, build_int_cst (u64, 0)));
  basic_block cleared = new_block_of (elsewhere, seq, rest);

  profile_probability unlikely = profile_probability::very_unlikely ();
  profile_probability likely = profile_probability::likely ();
  profile_probability even = profile_probability::even ();
  branch (test, single_succ_edge (test),
	  gimple_build_cond (NE_EXPR, c, build_int_cst (u64, 0), NULL_TREE, NULL_TREE),
	  marked, set, unlikely);
  branch (set, single_succ_edge (set),
	  gimple_build_cond (EQ_EXPR, first_now, build_int_cst (u64, 0), NULL_TREE, NULL_TREE),
	  ask, record ? room : rest, unlikely);
  if (record)
    branch (room, single_succ_edge (room),
	    gimple_build_cond (NE_EXPR, full_now, boolean_false_node, NULL_TREE, NULL_TREE),
	    ask_full, rest, unlikely);
  branch (marked, make_single_succ_edge (marked, named, EDGE_FALLTHRU),
	  gimple_build_cond (NE_EXPR, asked, build_int_cst (u64, 0), NULL_TREE, NULL_TREE),
	  back, named, unlikely);
  if (full)
    branch (back, make_single_succ_edge (back, rest, EDGE_FALLTHRU),
	    gimple_build_cond (NE_EXPR, full, boolean_false_node, NULL_TREE, NULL_TREE),
	    ask, rest, unlikely);
  else
    make_single_succ_edge (back, rest, EDGE_FALLTHRU);
  branch (named, make_single_succ_edge (named, ask, EDGE_FALLTHRU),
	  gimple_build_cond (NE_EXPR, c, build_int_cst (u64, 0), NULL_TREE, NULL_TREE),
	  tagged, ask, likely);
  branch (tagged, make_single_succ_edge (tagged, elsewhere, EDGE_FALLTHRU),
	  gimple_build_cond (EQ_EXPR, tag, self, NULL_TREE, NULL_TREE),
	  inlined, elsewhere, likely);
  branch (elsewhere, make_single_succ_edge (elsewhere, cleared, EDGE_FALLTHRU),
	  gimple_build_cond (NE_EXPR, other, build_int_cst (u64, 0), NULL_TREE, NULL_TREE),
	  ask, cleared, unlikely);
  branch (inlined, make_single_succ_edge (inlined, rooted, EDGE_FALLTHRU),
	  gimple_build_cond (EQ_EXPR, word, build_int_cst (u64, -1), NULL_TREE, NULL_TREE),
	  run, rooted, even);
  branch (rooted, make_single_succ_edge (rooted, taken, EDGE_FALLTHRU),
	  gimple_build_cond (NE_EXPR, other, build_int_cst (u64, 0), NULL_TREE, NULL_TREE),
	  ask, taken, unlikely);
  marked->count = test->count.apply_probability (unlikely);
  set->count = test->count - marked->count;
  if (record)
    {
      room->count = set->count.apply_probability (unlikely.invert ());
      ask_full->count = room->count.apply_probability (unlikely);
    }
  back->count = marked->count.apply_probability (unlikely);
  named->count = marked->count - back->count;
  tagged->count = named->count.apply_probability (likely);
  inlined->count = tagged->count.apply_probability (likely);
  rooted->count = inlined->count.apply_probability (even);
  taken->count = rooted->count.apply_probability (unlikely.invert ());
  elsewhere->count = tagged->count - inlined->count;
  cleared->count = elsewhere->count.apply_probability (unlikely.invert ());
  ask->count = named->count - tagged->count + (rooted->count - taken->count)
	       + elsewhere->count.apply_probability (unlikely)
	       + set->count.apply_probability (unlikely);
  run->count = inlined->count.apply_probability (even) + ask->count
	       + (record ? ask_full->count : profile_count::zero ());
}

/* The clone DYN's entry (cfun; REC its function): where the function
   marked the caller word ASK (insert_dispatch), it asks libprof, and runs
   the function compiled where libprof says the call does not continue
   its caller's segment, else goes on to its ENTER:
     c = __pathprof_ip_caller;
     if (c & ASK)
       { __pathprof_ip_caller = c & ~ASK;
	 if (!__pathprof_seg_continues (&unit, index, &function))
	   { __pathprof_ip_caller |= ASK; return function (arguments); } }
   The question is here, not in the function, so that no call of the
   function's own ways keeps its arguments in callee-saved registers:
   GCC then keeps the saves out of the ways that need none (a guard's
   quick return, a function without calls).  */
static void
insert_asked (const function_record &rec, const probe_target &t)
{
  tree u64 = counter_type ();
  tree u64_ask = build_int_cst (u64, PATHPROF_IP_ASK);
  basic_block test = split_edge (single_succ_edge (ENTRY_BLOCK_PTR_FOR_FN (cfun)));
  basic_block rest = split_edge (single_succ_edge (test));
  gimple_seq seq = NULL;
  tree c = emit_value (&seq, u64, NOP_EXPR, t.ip_caller, NULL_TREE, "PP_ip_caller");
  tree asked = emit_value (&seq, u64, BIT_AND_EXPR, c, u64_ask, "PP_ip_asked");
  gimple_stmt_iterator gsi = gsi_start_bb (test);
  gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);

  seq = NULL;
  gimple_seq_add_stmt (&seq, gimple_build_assign (
    t.ip_caller, emit_value (&seq, u64, BIT_XOR_EXPR, c, u64_ask, "PP_ip_caller")));
  tree yes = make_temp_ssa_name (integer_type_node, NULL, "PP_ip_continues");
  gcall *ask_call = gimple_build_call (t.seg_continues, 3, build_fold_addr_expr (t.unit),
				       build_int_cst (unsigned_type_node,
						      rec.index | (rec.compiled_assumes
								   ? PATHPROF_COMPILED_ASSUMES
								   : 0)),
				       build_fold_addr_expr (rec.node->decl));
  gimple_call_set_lhs (ask_call, yes);
  gimple_seq_add_stmt (&seq, ask_call);
  basic_block ask = new_block_of (test, seq, NULL);

  seq = NULL;
  tree now = emit_value (&seq, u64, NOP_EXPR, t.ip_caller, NULL_TREE, "PP_ip_caller");
  gimple_seq_add_stmt (&seq, gimple_build_assign (
    t.ip_caller, emit_value (&seq, u64, BIT_IOR_EXPR, now, u64_ask, "PP_ip_caller")));
  basic_block run = returning_call (ask, seq, rec.node->decl);

  profile_probability unlikely = profile_probability::very_unlikely ();
  branch (test, single_succ_edge (test),
	  gimple_build_cond (NE_EXPR, asked, build_int_cst (u64, 0), NULL_TREE, NULL_TREE),
	  ask, rest, unlikely);
  branch (ask, make_single_succ_edge (ask, rest, EDGE_FALLTHRU),
	  gimple_build_cond (EQ_EXPR, yes, integer_zero_node, NULL_TREE, NULL_TREE),
	  run, rest, profile_probability::even ());
  ask->count = test->count.apply_probability (unlikely);
  run->count = ask->count.apply_probability (profile_probability::even ());
}

/* cfun's calls to the functions BODY's copy inlines go to their clones.  */
static void
redirect_calls (const function_record &body)
{
  if (body.call_target.is_empty ())
    return;
  auto_vec<gcall *> calls;
  function_calls (calls);
  gcc_assert (calls.length () == body.call_target.length ());
  for (unsigned k = 0; k < calls.length (); k++)
    if (tree target = body.call_target[k])	/* else a call S does not inline */
      {
	gimple_call_set_fndecl (calls[k], target);
	/* Another unit's clone writes the thread's pass word whatever the
	   function it copies was declared (const, pure: a call's type may
	   say so too, and the pass word's take after it would be folded).  */
	if (DECL_EXTERNAL (target))
	  gimple_call_set_fntype (calls[k], TREE_TYPE (target));
      }
}

/* cfun's calls of marker FN (probes.cc emit_action's), each taken out
   of its block: the edges from what precedes it to what follows.  */
static void
take_out_markers (tree fn, auto_vec<edge> &at)
{
  auto_vec<gcall *> markers;
  basic_block bb;
  FOR_EACH_BB_FN (bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi); gsi_next (&gsi))
      if (gcall *call = dyn_cast<gcall *> (gsi_stmt (gsi)))
	if (gimple_call_fndecl (call) == fn)
	  markers.safe_push (call);
  for (gcall *marker : markers)
    at.safe_push (take_out (marker));
}

/* Where the markers of take_out_markers AT are to run: in place, unless
   one is in a loop, where a test each time round would cost more than
   doing it once: then on cfun's entry instead (AT the edge after it).  */
static void
once_if_in_loops (auto_vec<edge> &at)
{
  bool looped = false;
  for (edge e : at)
    looped |= current_loops && e->src->loop_father
	      && loop_outer (e->src->loop_father) != NULL;
  if (!looped)
    return;
  at.truncate (0);
  at.safe_push (single_succ_edge (split_edge (single_succ_edge (
    ENTRY_BLOCK_PTR_FOR_FN (cfun)))));
}

/* Before each return of cfun, its block split: the edges into the return.  */
static void
split_before_returns (auto_vec<edge> &at)
{
  auto_vec<greturn *> returns;
  basic_block bb;
  FOR_EACH_BB_FN (bb, cfun)
    if (greturn *ret = safe_dyn_cast<greturn *> (last_stmt (bb)))
      returns.safe_push (ret);
  for (greturn *ret : returns)
    {
      gimple_stmt_iterator gsi = gsi_for_stmt (ret);
      gsi_prev_nondebug (&gsi);
      at.safe_push (gsi_end_p (gsi) ? split_block_after_labels (gimple_bb (ret))
		    : split_block (gimple_bb (ret), gsi_stmt (gsi)));
    }
}

/* On edge E, SEQ where the local FLAG is (CODE EQ_EXPR) or is not
   (NE_EXPR) 0: the new block of SEQ, which falls through to E's
   destination.  */
static basic_block
guard (edge e, tree flag, enum tree_code code, gimple_seq seq, profile_probability p)
{
  basic_block from = e->src;
  gimple_seq test = NULL;
  tree now = emit_value (&test, TREE_TYPE (flag), NOP_EXPR, flag, NULL_TREE,
			 IDENTIFIER_POINTER (DECL_NAME (flag)));
  gimple_stmt_iterator gsi = gsi_last_bb (from);
  gsi_insert_seq_after (&gsi, test, GSI_NEW_STMT);
  basic_block bb = new_block_of (from, seq, e->dest);
  branch (from, e, gimple_build_cond (code, now, build_int_cst (TREE_TYPE (flag), 0),
				      NULL_TREE, NULL_TREE),
	  bb, e->dest, p);
  bb->count = from->count.apply_probability (p);
  return bb;
}

/* LOCAL = VALUE on cfun's entry.  */
static void
set_on_entry (tree local, tree value)
{
  basic_block bb = split_edge (single_succ_edge (ENTRY_BLOCK_PTR_FOR_FN (cfun)));
  gimple_stmt_iterator gsi = gsi_start_bb (bb);
  gsi_insert_after (&gsi, gimple_build_assign (local, value), GSI_NEW_STMT);
}

/* A compiled root whose copies pass its register through the thread's
   word keeps the word as it found it (a signal handler's root may run
   between a call's pass and its callee's take), and the record's word
   with it where it keeps a record: the first call of REC's body saves
   them (the markers at its passes and before its calls S does not
   inline), and each return gives them back where they were saved.  Until
   then the activation has called nothing that could change them, so they
   are what it found on entry (a call may: a longjmp out of a root it
   calls, into code not instrumented that returns, leaves that root's
   words in place).  Where a pass is in a loop, they are saved on entry
   (sqlite3VdbeExec, whose opcodes call its copies: a test at each pass
   cost it 1,444 M -> 1,543 M instructions).  */
static void
keep_pass (const probe_target &t, const function_record &rec, bool record)
{
  tree u64 = counter_type ();
  tree saved = NULL_TREE, saved_record = NULL_TREE;
  make_register (&saved, "PP_pass");
  if (record)
    make_register (&saved_record, "PP_pass_record");
  auto_vec<edge> at;
  take_out_markers (t.pass_marker, at);
  once_if_in_loops (at);
  for (edge e : at)
    {
      gimple_seq seq = NULL;
      gimple_seq_add_stmt (&seq, gimple_build_assign (
	saved, emit_value (&seq, u64, NOP_EXPR, seg_pass_word (t, false), NULL_TREE,
			   "PP_pass")));
      if (record)
	gimple_seq_add_stmt (&seq, gimple_build_assign (
	  saved_record, emit_value (&seq, u64, NOP_EXPR, seg_pass_word (t, true), NULL_TREE,
				    "PP_pass_record")));
      gimple_seq_add_stmt (&seq, gimple_build_assign (rec.passed, build_int_cst (u64, 1)));
      guard (e, rec.passed, EQ_EXPR, seq, profile_probability::unlikely ());
    }
  at.truncate (0);
  split_before_returns (at);
  for (edge e : at)
    {
      gimple_seq seq = NULL;
      gimple_seq_add_stmt (&seq, gimple_build_assign (
	seg_pass_word (t, false),
	emit_value (&seq, u64, NOP_EXPR, saved, NULL_TREE, "PP_pass")));
      if (record)
	gimple_seq_add_stmt (&seq, gimple_build_assign (
	  seg_pass_word (t, true), emit_value (&seq, u64, NOP_EXPR, saved_record, NULL_TREE,
					 "PP_pass_record")));
      guard (e, rec.passed, NE_EXPR, seq, profile_probability::even ());
    }
  set_on_entry (rec.passed, build_int_cst (u64, 0));
}

/* Records.  The root's record (pathprof-abi.h) is pushed where its
   activation first needs it: before the first call S does not inline, in
   the root's body or in a copy's (the record's address goes into a copy
   and back with the register, 0 until pushed), so that an activation
   that makes no such call pushes nothing (SQLite's getCellInfo, whose
   calls mostly find the cell's info cached).  Every other call the
   activation makes is a copy's, which pushes before its own summary
   calls, so the record is pushed at the top the root found on entry (the
   records of the roots it called popped, those a longjmp left above
   unwound by their own roots' returns, each after a push of its caller)
   and the dispatch's test of the stack's room at entry holds for it.  */

/* cfun's record is 0 on entry (none pushed yet, RECORD the local with its
   address); before each return it is popped where it was pushed, the
   records above it unwound first where a longjmp left some:
     if (record != 0)
       { top = (record - &records[0]) / 32;
	 if (__pathprof_seg_top != top + 1) __pathprof_seg_unwind (top + 1);
	 __pathprof_seg_top = top; }  */
static void
start_record (const probe_target &t, tree record)
{
  tree u32 = unsigned_type_node, u64 = counter_type ();
  auto_vec<edge> at;
  split_before_returns (at);
  profile_probability unlikely = profile_probability::very_unlikely ();
  for (edge e : at)
    {
      gimple_seq seq = NULL;
      tree base = emit_value (&seq, u64, NOP_EXPR, build_fold_addr_expr (t.seg_records),
			      NULL_TREE, "PP_records");
      tree top = emit_value (
	&seq, u32, NOP_EXPR,
	emit_value (&seq, u64, EXACT_DIV_EXPR,
		    emit_value (&seq, u64, MINUS_EXPR,
				emit_value (&seq, u64, NOP_EXPR, record, NULL_TREE,
					    "PP_record"),
				base, "PP_record_top"),
		    build_int_cst (u64, sizeof (struct __pathprof_seg_record)),
		    "PP_record_top"),
	NULL_TREE, "PP_record_top");
      tree above = emit_value (&seq, u32, PLUS_EXPR, top, build_int_cst (u32, 1),
			       "PP_record_top");
      tree now = emit_value (&seq, u32, NOP_EXPR, t.seg_top, NULL_TREE, "PP_record_top");
      gimple_seq_add_stmt (&seq, gimple_build_cond (NE_EXPR, now, above, NULL_TREE,
						     NULL_TREE));
      basic_block pop = guard (e, record, NE_EXPR, seq, profile_probability::even ());
      edge to_join = single_succ_edge (pop);
      seq = NULL;
      gimple_seq_add_stmt (&seq, gimple_build_assign (t.seg_top, top));
      basic_block popped = split_edge (to_join);
      gimple_stmt_iterator gsi = gsi_start_bb (popped);
      gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);
      seq = NULL;
      gimple_seq_add_stmt (&seq, gimple_build_call (t.seg_unwind, 1, above));
      basic_block unwind = new_block_of (pop, seq, popped);
      edge straight = single_succ_edge (pop);
      straight->flags = EDGE_FALSE_VALUE;
      straight->probability = unlikely.invert ();
      make_edge (pop, unwind, EDGE_TRUE_VALUE)->probability = unlikely;
      unwind->count = pop->count.apply_probability (unlikely);
    }
  set_on_entry (record, build_int_cst (u64, 0));
}

/* Each marker of cfun (emit_action's, before a call S does not inline) by
   the push of the record, where RECORD is 0 (claimed, then filled: the
   root's counts at address COUNTS, NPATHS of them, or its path table with
   NPATHS 0, the thread's depth, no call under way):
     if (record == 0)
       { top = __pathprof_seg_top; __pathprof_seg_top = top + 1;
	 asm volatile ("" ::: "memory");
	 at = &records[top]; record = at; at->counts = COUNTS;
	 at->depth/npaths = depth | NPATHS << 32; at->leave = 1; }
   Where a marker of the root is in a loop, the push is on its entry
   instead (once_if_in_loops).  (A copy hands the record back by its
   return's pass, not from its push:
   a longjmp out of a root the copy called, into code not instrumented
   that returns to the copy, leaves that root's record in the thread's
   word.)  */
static void
expand_record_pushes (const probe_target &t, tree record, tree counts, uint64_t npaths,
		      bool copy)
{
  tree u32 = unsigned_type_node, u64 = counter_type ();
  tree ptr = build_pointer_type (u64);
  auto_vec<edge> at;
  take_out_markers (t.record_marker, at);
  if (!copy)
    once_if_in_loops (at);	/* a copy's record is known after its take */
  for (edge e : at)
    {
      gimple_seq seq = NULL;
      tree top = emit_value (&seq, u32, NOP_EXPR, t.seg_top, NULL_TREE, "PP_record_top");
      gimple_seq_add_stmt (&seq, gimple_build_assign (
	t.seg_top, emit_value (&seq, u32, PLUS_EXPR, top, build_int_cst (u32, 1),
			       "PP_record_top")));
      /* The claim before the fill (a compiler barrier), so that a signal
	 handler's root, which pushes and pops its own, takes the next
	 slot, never this one.  */
      vec<tree, va_gc> *clobbers = NULL;
      vec_safe_push (clobbers, build_tree_list (NULL_TREE, build_string (7, "memory")));
      gasm *barrier = gimple_build_asm_vec ("", NULL, NULL, clobbers, NULL);
      gimple_asm_set_volatile (barrier, true);
      gimple_seq_add_stmt (&seq, barrier);
      tree word = emit_value (&seq, u32, MULT_EXPR, top,
			      build_int_cst (u32, sizeof (struct __pathprof_seg_record) / 8),
			      "PP_record");
      tree address = make_temp_ssa_name (ptr, NULL, "PP_record");
      gimple_seq_add_stmt (&seq, gimple_build_assign (
	address, build_fold_addr_expr (build4 (ARRAY_REF, u64, t.seg_records, word,
					       NULL_TREE, NULL_TREE))));
      gimple_seq_add_stmt (&seq, gimple_build_assign (
	record, emit_value (&seq, u64, NOP_EXPR, address, NULL_TREE, "PP_record")));
      auto field = [&] (unsigned k) {
	return build2 (MEM_REF, u64, address, build_int_cst (ptr, 8 * k));
      };
      /* The root's counts: an address, or another unit's word holding it.  */
      tree at = TREE_CODE (counts) == VAR_DECL
		? emit_value (&seq, TREE_TYPE (counts), NOP_EXPR, counts, NULL_TREE,
			      "PP_record_counts")
		: unshare_expr (counts);
      gimple_seq_add_stmt (&seq, gimple_build_assign (
	field (1), emit_value (&seq, u64, NOP_EXPR, at, NULL_TREE, "PP_record_counts")));
      tree depth = emit_value (&seq, u64, NOP_EXPR,
			       emit_value (&seq, u32, NOP_EXPR, t.ip_depth, NULL_TREE,
					   "PP_depth"),
			       NULL_TREE, "PP_depth");
      gimple_seq_add_stmt (&seq, gimple_build_assign (
	field (2), emit_value (&seq, u64, BIT_IOR_EXPR, depth,
			       build_int_cstu (u64, npaths << 32), "PP_record_depth")));
      gimple_seq_add_stmt (&seq, gimple_build_assign (field (0), build_int_cst (u64, 1)));
      guard (e, record, EQ_EXPR, seq, profile_probability::unlikely ());
    }
}

void
insert_compiled_root (function_record &rec, const probe_target &t,
		      const probe_target &compiled)
{
  bool record = pp_plan_keeps_record (&rec.compiled) || rec.foreign_record;
  for (function_record *copy : rec.copies)
    record |= pp_plan_keeps_record (&copy->plan);
  bool copies = !rec.copies.is_empty () || !rec.foreign_clones.is_empty ();
  function_record own;
  own.node = rec.node;
  own.gcc_edge.safe_splice (rec.gcc_edge);
  own.edge_src.safe_splice (rec.edge_src);
  own.index = rec.index;
  own.value_offset = (uint32_t) rec.compiled_first;
  own.path_table = rec.compiled.path_table ? rec.path_table : -1;
  own.front_of = &rec;
  own.plan = rec.compiled;
  own.hint_first.safe_splice (rec.hint_first);
  own.hint_number.safe_splice (rec.hint_number);
  own.hint_slot.safe_splice (rec.hint_slot);
  if (record)
    make_register (&own.record, "PP_record");
  if (copies)
    make_register (&own.passed, "PP_passed");
  redirect_calls (rec);
  insert_probes (own, compiled);
  own.plan = pp_plan {};
  tree counts = NULL_TREE;
  uint64_t npaths = own.path_table >= 0 ? 0 : rec.compiled.npaths;
  if (record)
    {
      counts = build_fold_addr_expr (
	own.path_table >= 0 ? path_table_ref (compiled, own.path_table)
	: value_ref (compiled, build_int_cst (integer_type_node, own.value_offset)));
      expand_record_pushes (t, own.record, counts, npaths, false);
    }
  if (copies)
    keep_pass (t, own, record);
  if (record)
    start_record (t, own.record);
  insert_dispatch (rec, t, record);
  if (dump_file && !rec.front_keys.is_empty ())
    {
      unsigned hints = rec.hint_number.length ();
      for (function_record *copy : rec.copies)
	hints += copy->hint_number.length ();
      fprintf (dump_file, ";; pathprof: compiled root %s: a front of %u slots, %u "
	       "count(s) with a hint\n", IDENTIFIER_POINTER (DECL_ASSEMBLER_NAME (rec.node->decl)),
	       rec.front_keys.length (), hints);
    }

  push_cfun (DECL_STRUCT_FUNCTION (rec.dyn->node->decl));
  insert_probes (*rec.dyn, t);
  insert_asked (rec, t);
  pop_cfun ();
  for (function_record *copy : rec.copies)
    {
      push_cfun (DECL_STRUCT_FUNCTION (copy->node->decl));
      if (record)
	make_register (&copy->record, "PP_record");
      redirect_calls (*copy);
      insert_probes (*copy, compiled);
      if (record)
	expand_record_pushes (t, copy->record, counts, npaths, true);
      pop_cfun ();
    }
}

void
insert_clone_for_other (function_record &copy, const probe_target &t,
			const probe_target &compiled)
{
  if (copy.foreign_record)
    make_register (&copy.record, "PP_record");
  redirect_calls (copy);
  insert_probes (copy, compiled);
  if (copy.foreign_record)
    expand_record_pushes (t, copy.record, copy.xroot, copy.xnpaths, true);
}
