/* pathprof plugin, CFG side: normalises each function's CFG so that flow is
   conserved for every execution (DESIGN.md, "The plugin's position and CFG
   normalisation"), turns it into a core graph (corelib/format/graph.h) with GCC's
   static estimates as weights, and describes it for the notes: blocks with the
   source lines gcov would give them, and edges.  */

#include "pathprof-plugin.h"

/* ------------------------------------------------------------------------- */
/* Source files and lines, recorded the way gcov records them.  */

unsigned
file_table::number_of (const char *file)
{
  if (!file)
    file = "<unknown>";
  if (unsigned *slot = index.get (file))
    return *slot;
  char *abs;
  if (IS_ABSOLUTE_PATH (file) || strcmp (file, "<unknown>") == 0
      || strcmp (file, "<built-in>") == 0)
    abs = xstrdup (file);
  else
    abs = concat (getpwd (), "/", file + (strncmp (file, "./", 2) == 0 ? 2 : 0),
		  NULL);
  unsigned i = names.length ();
  names.safe_push (abs);
  index.put (ggc_strdup (file), i);
  return i;
}

/* Appends (file, line) to a block's line list unless the block has it already.  */
static void
block_add_line (auto_vec<pp_line_ref> &lines, unsigned file, int line)
{
  pp_line_ref ref = {file, (uint32_t) MAX (1, line)};
  for (const pp_line_ref &r : lines)
    if (r.file == ref.file && r.line == ref.line)
      return;
  lines.safe_push (ref);
}

/* gcov attributes to a block the function's declaration line (first block only),
   the lines of its statements, and the goto line of its single successor edge when
   that location appears nowhere else in the function (a goto or return that the
   CFG builder folded into an edge).  */
static void
record_block_lines (basic_block bb, file_table &files,
		    hash_set<int_hash<location_t, 0, 1>> &seen,
		    auto_vec<pp_line_ref> &lines)
{
  if (bb == ENTRY_BLOCK_PTR_FOR_FN (cfun)->next_bb)
    {
      location_t loc = DECL_SOURCE_LOCATION (current_function_decl);
      seen.add (loc);
      expanded_location x = expand_location (loc);
      block_add_line (lines, files.number_of (x.file), x.line);
    }
  /* Not the debug statements -g adds (binds, statement markers): the
     notes, their checksums and every line's count are the same with -g
     as without.  */
  for (gimple_stmt_iterator gsi = gsi_start_nondebug_bb (bb); !gsi_end_p (gsi);
       gsi_next_nondebug (&gsi))
    {
      gimple *stmt = gsi_stmt (gsi);
      location_t loc = gimple_location (stmt);
      if (RESERVED_LOCATION_P (loc))
	continue;
      seen.add (loc);
      block_add_line (lines, files.number_of (gimple_filename (stmt)),
		      gimple_lineno (stmt));
    }
  if (single_succ_p (bb))
    {
      location_t loc = single_succ_edge (bb)->goto_locus;
      if (!RESERVED_LOCATION_P (loc) && !seen.contains (loc))
	{
	  expanded_location x = expand_location (loc);
	  block_add_line (lines, files.number_of (x.file), x.line);
	}
    }
}

/* ------------------------------------------------------------------------- */
/* CFG normalisation: make flow conservation hold for every execution.  */

/* Gives an edge whose goto location differs from its source block's last
   statement a block of its own, as gcov does, so the goto's line gets a count.  */
static void
split_goto_edges (void)
{
  basic_block bb;
  FOR_EACH_BB_FN (bb, cfun)
    {
      if (single_succ_p (bb))
	continue;
      gimple *last = NULL;
      for (gimple_stmt_iterator gsi = gsi_last_nondebug_bb (bb); !gsi_end_p (gsi);
	   gsi_prev_nondebug (&gsi))
	{
	  last = gsi_stmt (gsi);
	  if (!RESERVED_LOCATION_P (gimple_location (last)))
	    break;
	}
      if (!last || !gimple_has_location (last))
	continue;
      location_t here = gimple_location (last);
      auto_vec<edge> to_split;
      edge e;
      edge_iterator ei;
      FOR_EACH_EDGE (e, ei, bb->succs)
	if (!RESERVED_LOCATION_P (e->goto_locus)
	    && !(e->flags & (EDGE_ABNORMAL | EDGE_EH))
	    && (LOCATION_FILE (e->goto_locus) != LOCATION_FILE (here)
		|| LOCATION_LINE (e->goto_locus) != LOCATION_LINE (here)))
	  to_split.safe_push (e);
      for (edge s : to_split)
	{
	  location_t locus = s->goto_locus;
	  basic_block mid = split_edge (s);
	  single_succ_edge (mid)->goto_locus = locus;
	}
    }
}

static bool
first_stmt_is_special_receiver (basic_block bb)
{
  gimple_stmt_iterator gsi = gsi_start_nondebug_after_labels_bb (bb);
  if (gsi_end_p (gsi))
    return false;
  gimple *first = gsi_stmt (gsi);
  return is_gimple_call (first)
	 && (gimple_call_builtin_p (first, BUILT_IN_SETJMP_RECEIVER)
	     || (gimple_call_flags (first) & ECF_RETURNS_TWICE)
	     || gimple_call_internal_p (first, IFN_ABNORMAL_DISPATCHER));
}

/* setjmp never leaves its caller early: its second return is a re-entry.  */
static bool
ends_with_returns_twice_call (basic_block bb)
{
  gimple_stmt_iterator gsi = gsi_last_nondebug_bb (bb);
  return !gsi_end_p (gsi) && is_gimple_call (gsi_stmt (gsi))
	 && (gimple_call_flags (gsi_stmt (gsi)) & ECF_RETURNS_TWICE);
}

bool
is_abnormal_dispatcher (basic_block bb)
{
  gimple_stmt_iterator gsi = gsi_start_nondebug_after_labels_bb (bb);
  return !gsi_end_p (gsi)
	 && gimple_call_internal_p (gsi_stmt (gsi), IFN_ABNORMAL_DISPATCHER);
}

/* Abnormal edges (setjmp, computed and nonlocal goto) cannot carry probes.  Each
   is modelled as a leave of its source (source -> EXIT) and a re-entry of its
   destination (ENTRY -> destination): flow is then conserved and every other edge
   count stays exact.  A block that would get both a re-entry and a leave is split
   after its labels so that those two pinned edges never close a cycle.  */
static void
find_abnormal_blocks (sbitmap leaves, sbitmap reenters)
{
  basic_block bb;
  FOR_EACH_BB_FN (bb, cfun)
    {
      edge e;
      edge_iterator ei;
      FOR_EACH_EDGE (e, ei, bb->succs)
	if ((e->flags & EDGE_ABNORMAL)
	    && e->dest != EXIT_BLOCK_PTR_FOR_FN (cfun))
	  bitmap_set_bit (leaves, bb->index);
      FOR_EACH_EDGE (e, ei, bb->preds)
	if ((e->flags & EDGE_ABNORMAL)
	    && e->src != ENTRY_BLOCK_PTR_FOR_FN (cfun))
	  bitmap_set_bit (reenters, bb->index);
    }
}

static bool
has_exit_edge (basic_block bb)
{
  edge e;
  edge_iterator ei;
  FOR_EACH_EDGE (e, ei, bb->succs)
    if (e->dest == EXIT_BLOCK_PTR_FOR_FN (cfun))
      return true;
  return false;
}

/* Splits blocks so that every call that may not return ends its block, and
   re-entry blocks from their leaves.  Leaves the fake edges GCC adds for calls and
   noreturn blocks in the CFG (EDGE_FAKE); the caller removes them.  */
void
normalise_cfg (void)
{
  flow_call_edges_add (NULL);
  add_noreturn_fake_exit_edges ();
  /* After the fake edges, as gcov: a call block's goto edge then gets its own
     block too, and the block numbering matches gcov's.  */
  split_goto_edges ();

  auto_sbitmap leaves (last_basic_block_for_fn (cfun));
  auto_sbitmap reenters (last_basic_block_for_fn (cfun));
  bitmap_clear (leaves);
  bitmap_clear (reenters);
  find_abnormal_blocks (leaves, reenters);
  auto_vec<basic_block> to_split;
  basic_block bb;
  FOR_EACH_BB_FN (bb, cfun)
    if (bitmap_bit_p (reenters, bb->index)
	&& (bitmap_bit_p (leaves, bb->index) || has_exit_edge (bb))
	&& !first_stmt_is_special_receiver (bb))
      to_split.safe_push (bb);
  for (basic_block b : to_split)
    split_block_after_labels (b);
  /* A function whose first block is a re-entry target (setjmp first thing)
     gets an empty block in front of it: otherwise the entry edge and the fake
     re-entry both go ENTRY -> that block, and a paths profile could not tell
     how many paths started there by a call and how many by a longjmp.  */
  edge entry = single_succ_edge (ENTRY_BLOCK_PTR_FOR_FN (cfun));
  if (bitmap_bit_p (reenters, entry->dest->index))
    split_edge (entry);
  compact_blocks ();
}

/* ------------------------------------------------------------------------- */
/* GIMPLE CFG -> core graph and notes.  */

static uint32_t
edge_flags_of (edge e)
{
  uint32_t f = 0;
  if (e->flags & EDGE_FAKE)
    f |= PP_EDGE_FAKE;
  if (e->flags & EDGE_EH)
    f |= PP_EDGE_EH;
  if (e->flags & EDGE_FALLTHRU)
    f |= PP_EDGE_FALLTHRU;
  if (e->flags & EDGE_TRUE_VALUE)
    f |= PP_EDGE_TRUE;
  if (e->flags & EDGE_FALSE_VALUE)
    f |= PP_EDGE_FALSE;
  return f;
}

static bool
gcc_estimates_available (void)
{
  return profile_status_for_fn (cfun) != PROFILE_ABSENT
	 && ENTRY_BLOCK_PTR_FOR_FN (cfun)->count.initialized_p ();
}


void
build_core_graph (pp_graph *g, function_record &rec, auto_vec<double> &gcc_weight)
{
  unsigned nblocks = last_basic_block_for_fn (cfun);
  basic_block entry = ENTRY_BLOCK_PTR_FOR_FN (cfun);
  basic_block exit = EXIT_BLOCK_PTR_FOR_FN (cfun);
  gcc_assert (entry->index == 0 && exit->index == 1);

  auto_sbitmap leaves (nblocks), reenters (nblocks);
  bitmap_clear (leaves);
  bitmap_clear (reenters);
  find_abnormal_blocks (leaves, reenters);

  if (pp_graph_init (g, nblocks, 0, 1) != 0)
    fatal_error (UNKNOWN_LOCATION, "pathprof: out of memory");
  bool have_estimates = gcc_estimates_available ();
  auto add = [&] (unsigned src, unsigned dst, uint32_t flags, edge e) {
    if (pp_graph_add_edge (g, src, dst, flags) == UINT32_MAX)
      fatal_error (UNKNOWN_LOCATION, "pathprof: out of memory");
    rec.gcc_edge.safe_push (flags & PP_EDGE_FAKE ? NULL : e);
    rec.edge_src.safe_push (src);
    double w = 0;
    if (e && have_estimates && e->count ().initialized_p ())
      w = e->count ().to_gcov_type ();
    gcc_weight.safe_push (w);
  };

  basic_block bb;
  FOR_ALL_BB_FN (bb, cfun)
    {
      if (bb != entry && bb != exit && is_abnormal_dispatcher (bb))
	continue;		/* not user code; its edges are all abnormal */
      bool returns_twice = ends_with_returns_twice_call (bb);
      bool leaves_early = false;
      edge e;
      edge_iterator ei;
      FOR_EACH_EDGE (e, ei, bb->succs)
	{
	  if (e->flags & EDGE_ABNORMAL)
	    continue;
	  if (e->flags & EDGE_FAKE)
	    {
	      if (returns_twice)
		continue;
	      leaves_early = true;
	    }
	  add (bb->index, e->dest->index, edge_flags_of (e), e);
	}
      if (bitmap_bit_p (leaves, bb->index) && !leaves_early && !returns_twice)
	add (bb->index, 1, PP_EDGE_FAKE, NULL);
      if (bitmap_bit_p (reenters, bb->index))
	add (0, bb->index, PP_EDGE_FAKE, NULL);
    }
  add (1, 0, PP_EDGE_EXIT_ENTRY, NULL);
  if (pp_graph_finish (g) != 0)
    fatal_error (UNKNOWN_LOCATION, "pathprof: out of memory");
  if (!have_estimates)
    gcc_weight.truncate (0);
}

bool
user_call_p (const gcall *call)
{
  if (gimple_call_internal_p (call))
    return false;
  tree fndecl = gimple_call_fndecl (call);
  return !fndecl || !fndecl_built_in_p (fndecl);
}

/* Does bb call a function that may be instrumented (not a GCC builtin or an
   internal function)?  */
static bool
calls_user_code (basic_block bb)
{
  for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);
       gsi_next (&gsi))
    if (gcall *call = dyn_cast<gcall *> (gsi_stmt (gsi)))
      if (user_call_p (call))
	return true;
  return false;
}

/* The calls the interprocedural mode probes: every call but internal
   functions and GCC builtins, and those builtins too that end their block or
   do not return (exit, abort, longjmp: where a path may be left).  */
static bool
probed_call_p (gcall *call)
{
  return user_call_p (call)
	 || (!gimple_call_internal_p (call)
	     && (stmt_ends_bb_p (call)
		 || (gimple_call_flags (call) & (ECF_NORETURN | ECF_RETURNS_TWICE))));
}

void
function_calls (auto_vec<gcall *> &calls)
{
  basic_block bb;
  FOR_EACH_BB_FN (bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);
	 gsi_next (&gsi))
      if (gcall *call = dyn_cast<gcall *> (gsi_stmt (gsi)))
	if (probed_call_p (call))
	  calls.safe_push (call);
}

/* The notes' calls and how the function may be entered (modes with calls).  */
static void
describe_calls (pp_function_notes &fn)
{
  cgraph_node *node = cgraph_node::get (current_function_decl);
  fn.function_flags = (TREE_PUBLIC (current_function_decl) ? PP_FUNCTION_PUBLIC : 0)
		      | (node && node->address_taken ? PP_FUNCTION_ADDRESSED : 0)
		      | (DECL_WEAK (current_function_decl) ? PP_FUNCTION_WEAK : 0);
  auto_vec<gcall *> calls;
  function_calls (calls);
  fn.ncalls = calls.length ();
  fn.calls = XCNEWVEC (pp_call_notes, MAX (1u, fn.ncalls));
  for (unsigned k = 0; k < fn.ncalls; k++)
    {
      gcall *call = calls[k];
      tree fndecl = gimple_call_fndecl (call);
      pp_call_notes &c = fn.calls[k];
      c.block = gimple_bb (call)->index;
      c.flags = (fndecl ? 0 : PP_CALL_INDIRECT)
		| (gimple_call_flags (call) & ECF_RETURNS_TWICE
		   ? PP_CALL_RETURNS_TWICE : 0)
		| (stmt_ends_bb_p (call) || call == last_stmt (gimple_bb (call))
		   ? PP_CALL_ENDS_BLOCK : 0);
      c.callee = xstrdup (fndecl ? IDENTIFIER_POINTER (DECL_ASSEMBLER_NAME (fndecl))
			  : "");
    }
}

void
describe_function (pp_function_notes &fn, const pp_graph &g, file_table &files,
		   bool calls)
{
  tree decl = current_function_decl;
  fn.asm_name = xstrdup (IDENTIFIER_POINTER (DECL_ASSEMBLER_NAME (decl)));
  fn.name = xstrdup (lang_hooks.decl_printable_name (decl, 2));
  expanded_location dx = expand_location (DECL_SOURCE_LOCATION (decl));
  fn.decl_file = files.number_of (dx.file);
  fn.decl_line = dx.line;
  fn.nblocks = g.nnodes;
  fn.blocks = XCNEWVEC (pp_block_notes, g.nnodes);
  hash_set<int_hash<location_t, 0, 1>> seen;
  basic_block bb;
  FOR_EACH_BB_FN (bb, cfun)
    {
      auto_vec<pp_line_ref> lines;
      if (!is_abnormal_dispatcher (bb))
	record_block_lines (bb, files, seen, lines);
      pp_block_notes &b = fn.blocks[bb->index];
      b.flags = (bb_has_eh_pred (bb) ? PP_BLOCK_LANDING_PAD : 0)
		| (calls_user_code (bb) ? PP_BLOCK_CALLS : 0);
      b.nlines = lines.length ();
      b.lines = XNEWVEC (pp_line_ref, MAX (1u, b.nlines));
      if (b.nlines)
	memcpy (b.lines, lines.address (), b.nlines * sizeof (pp_line_ref));
    }
  for (unsigned i = 0; i < 2; i++)	/* ENTRY and EXIT */
    fn.blocks[i].lines = XNEWVEC (pp_line_ref, 1);
  fn.nedges = g.nedges;
  fn.edges = XNEWVEC (pp_edge_notes, g.nedges);
  for (unsigned i = 0; i < g.nedges; i++)
    fn.edges[i] = { g.edges[i].src, g.edges[i].dst, g.edges[i].flags, -1 };
  if (calls)
    describe_calls (fn);
}

void
free_function_notes (pp_function_notes &fn)
{
  free (fn.asm_name);
  free (fn.name);
  for (unsigned i = 0; i < fn.nblocks; i++)
    free (fn.blocks[i].lines);
  free (fn.blocks);
  free (fn.edges);
  for (unsigned k = 0; k < fn.ncalls; k++)
    free (fn.calls[k].callee);
  free (fn.calls);
  free (fn.direct);
}
