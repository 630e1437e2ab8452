/* pathprof plugin, compiled roots (the segments modes): the roots the
   plugin numbers itself, so that their activations count their segments as
   the paths mode counts paths, with no call into libprof.

   A root's segments are paths of its supergraph S, which inlines its
   callees k deep; libprof numbers S when the root first runs, because S
   may hold other units' functions.  A function without calls is its own
   S, whatever the program: the plugin numbers it with corelib, as libprof
   would (the same notes, the same pp_seg_build_numbered and
   pp_seg_actions_make), and gives its body the paths mode's probes
   (pp_plan_compiled_root: one register, constants on the chords, counts in
   the unit's compiled counts, which libprof moves into the program record
   at a dump, keyed by the root as its own counts are).

   The same function also runs as a copy in its callers' supergraphs, where
   it continues their segments: only libprof's activations can do that.  So
   the plugin clones it first (the clone keeps the probes the notes record,
   its ENTER naming the function), and the function starts with a test:
       if ((__pathprof_ip_caller != 0 || unit.ip_first == 0)
           && __pathprof_seg_continues (&unit, index, &function))
         return clone (arguments);
   libprof answers as ENTER would decide between a continuation and a root
   (and sets the program up at its first probe).  A caller that is a
   compiled root itself never names a call, so from it the test is two
   loads.  See DESIGN.md, "Compiled roots".  */

#include "probes.h"
#include "corelib/ip-notes.h"
#include "corelib/segments.h"
#include "tree-dfa.h"
#include "tree-inline.h"

/* Can FN's body be a compiled root's, and a clone of it be called with
   its own arguments in its place?  */
static bool
compilable_p (const function_record &rec, const pp_function_notes &fn)
{
  tree decl = rec.node->decl;
  function *f = DECL_STRUCT_FUNCTION (decl);
  if (fn.ncalls || f->calls_setjmp || f->has_nonlocal_label || f->stdarg
      || stdarg_p (TREE_TYPE (decl)) || DECL_STATIC_CHAIN (decl)
      || aggregate_value_p (DECL_RESULT (decl), decl)
      || DECL_BY_REFERENCE (DECL_RESULT (decl))
      || (!VOID_TYPE_P (TREE_TYPE (DECL_RESULT (decl)))
	  && !is_gimple_reg_type (TREE_TYPE (DECL_RESULT (decl))))
      || !tree_versionable_function_p (decl)
      || DECL_FUNCTION_VERSIONED (decl)
      || TREE_THIS_VOLATILE (decl)	/* noreturn: no return after the call */
      || DECL_DISREGARD_INLINE_LIMITS (decl)	/* always_inline: the clone may not be */
      || lookup_attribute ("naked", DECL_ATTRIBUTES (decl))
      || lookup_attribute ("noipa", DECL_ATTRIBUTES (decl)))
    return false;
  for (uint32_t i = 0; i < rec.plan.nprobes; i++)
    if (rec.plan.probes[i].action != PP_PROBE_IP_ENTER
	&& rec.plan.probes[i].action != PP_PROBE_IP_ADD
	&& rec.plan.probes[i].action != PP_PROBE_IP_EXIT)
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

/* The clone of REC's function that keeps the notes' probes, with its record
   (the same plan and index, its edges the clone's), or NULL when the
   clone's CFG is not the function's block for block.  */
static function_record *
clone_for_enter (function_record &rec)
{
  function *f = DECL_STRUCT_FUNCTION (rec.node->decl);
  cgraph_node *clone = rec.node->create_version_clone_with_body (vNULL, NULL, NULL,
								 NULL, NULL, "pathprof");
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
  dyn->self = rec.node->decl;
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
  dyn->plan = rec.plan;		/* moved: REC's own plan is the compiled one */
  rec.plan = pp_plan {};
  DECL_UNINLINABLE (clone->decl) = 1;	/* called once, from the test */
  return dyn;
}

void
plan_compiled_roots (auto_delete_vec<function_record> &records,
		     const auto_vec<pp_function_notes> &fns, uint64_t *ncounts)
{
  *ncounts = 0;
  if (!pp_mode_segments (option_mode) || !option_compiled_roots)
    return;
  pp_unit_notes notes = {};
  notes.mode = option_mode->mode;
  notes.depth = (uint32_t) option_depth;
  notes.nfunctions = fns.length ();
  notes.functions = const_cast<pp_function_notes *> (fns.address ());
  const pp_unit_notes *units[1] = { &notes };
  pp_ip_layout layout;
  if (pp_ip_layout_build (units, 1, &layout))
    fatal_error (UNKNOWN_LOCATION, "pathprof: out of memory");
  for (function_record *rec : records)
    {
      if (!compilable_p (*rec, fns[rec->index]))
	continue;
      uint32_t p = layout.first_proc[0] + rec->index;
      pp_seg_graph s;
      pp_paths *paths;
      if (pp_seg_build_numbered (&layout.prog, p, (uint32_t) option_depth, &s, &paths)
	  != PP_SEG_OK)
	continue;
      pp_seg_actions a;
      pp_plan compiled = {};
      int rc = paths->npaths <= option_path_array_max
	       && *ncounts + paths->npaths <= UINT32_MAX
	       ? pp_seg_actions_make (&s, paths, NULL, &a) : PP_PLAN_EGRAPH;
      if (rc == 0)
	{
	  rc = pp_plan_compiled_root (&layout.prog.procs[p], &s, &a, paths->npaths,
				      &compiled);
	  pp_seg_actions_free (&a);
	}
      if (rc == PP_PLAN_ENOMEM)
	fatal_error (UNKNOWN_LOCATION, "pathprof: out of memory");
      uint64_t npaths = paths->npaths;
      pp_paths_free (paths);
      pp_seg_free (&s);
      if (rc != PP_PLAN_OK)
	continue;
      rec->dyn = clone_for_enter (*rec);
      if (!rec->dyn)
	{
	  pp_plan_free (&compiled);
	  continue;
	}
      rec->compiled = compiled;
      rec->compiled_first = *ncounts;
      *ncounts += npaths;
    }
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

/* The test at cfun's entry (above): where libprof says so, the clone
   DYN runs instead, with the same arguments, and its result is cfun's.  */
static void
insert_dispatch (const function_record &rec, const probe_target &t)
{
  tree u64 = counter_type ();
  /* ENTRY -> test -> rest -> the function's first block (or the first
     probes' block), rest without phi nodes, whatever the first block has.  */
  basic_block test = split_edge (single_succ_edge (ENTRY_BLOCK_PTR_FOR_FN (cfun)));
  basic_block rest = split_edge (single_succ_edge (test));

  /* test: c = __pathprof_ip_caller; first = unit.ip_first;
	   if ((c | (first == 0)) != 0) goto ask; else goto rest;  */
  gimple_seq seq = NULL;
  tree c = emit_value (&seq, u64, NOP_EXPR, t.ip_caller, NULL_TREE, "PP_ip_caller");
  tree first = emit_value (&seq, u64, NOP_EXPR,
			   build3 (COMPONENT_REF, u64, t.unit, t.unit_ip_first, NULL_TREE),
			   NULL_TREE, "PP_ip_first");
  tree unset = emit_value (&seq, u64, NOP_EXPR,
			   emit_value (&seq, boolean_type_node, EQ_EXPR, first,
				       build_int_cst (u64, 0), "PP_ip_unset"),
			   NULL_TREE, "PP_ip_unset");
  unset = emit_value (&seq, u64, BIT_IOR_EXPR, c, unset, "PP_ip_ask");
  gimple_stmt_iterator gsi = gsi_start_bb (test);
  gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);

  /* ask: if (__pathprof_seg_continues (&unit, index, &self)) goto call;  */
  seq = NULL;
  tree yes = make_temp_ssa_name (integer_type_node, NULL, "PP_ip_continues");
  gcall *ask_call = gimple_build_call (t.seg_continues, 3, build_fold_addr_expr (t.unit),
				       build_int_cst (unsigned_type_node, rec.index),
				       build_fold_addr_expr (rec.node->decl));
  gimple_call_set_lhs (ask_call, yes);
  gimple_seq_add_stmt (&seq, ask_call);
  basic_block ask = new_block_of (test, seq, NULL);

  /* call: [r =] dyn (arguments); return [r];  */
  seq = NULL;
  auto_vec<tree> args = own_arguments (&seq);
  gcall *call = gimple_build_call_vec (rec.dyn->node->decl, args);
  tree type = TREE_TYPE (DECL_RESULT (current_function_decl));
  tree result = NULL_TREE;
  if (!VOID_TYPE_P (type))
    {
      result = make_temp_ssa_name (type, NULL, "PP_result");
      gimple_call_set_lhs (call, result);
    }
  gimple_seq_add_stmt (&seq, call);
  gimple_seq_add_stmt (&seq, gimple_build_return (result));
  basic_block run = new_block (ask);
  gsi = gsi_start_bb (run);
  gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);
  make_edge (run, EXIT_BLOCK_PTR_FOR_FN (cfun), 0);

  profile_probability unlikely = profile_probability::very_unlikely ();
  edge to_rest = single_succ_edge (test);
  branch (test, to_rest, gimple_build_cond (NE_EXPR, unset, build_int_cst (u64, 0),
					    NULL_TREE, NULL_TREE),
	  ask, rest, unlikely);
  branch (ask, make_single_succ_edge (ask, rest, EDGE_FALLTHRU),
	  gimple_build_cond (NE_EXPR, yes, integer_zero_node, NULL_TREE, NULL_TREE),
	  run, rest, unlikely);
  ask->count = test->count.apply_probability (unlikely);
  run->count = ask->count.apply_probability (unlikely);
}

void
insert_compiled_root (function_record &rec, const probe_target &t,
		      const probe_target &compiled)
{
  function_record own;
  own.node = rec.node;
  own.gcc_edge.safe_splice (rec.gcc_edge);
  own.edge_src.safe_splice (rec.edge_src);
  own.index = rec.index;
  own.value_offset = (uint32_t) rec.compiled_first;
  own.plan = rec.compiled;
  insert_probes (own, compiled);
  own.plan = pp_plan {};
  insert_dispatch (rec, t);

  push_cfun (DECL_STRUCT_FUNCTION (rec.dyn->node->decl));
  insert_probes (*rec.dyn, t);
  pop_cfun ();
}
