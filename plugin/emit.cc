/* pathprof plugin, the GIMPLE the inserter is built of (probes.h): values,
   loads and counter updates into a sequence, libprof calls with the frame
   word, and new blocks and branches around a call taken out of its
   block.  */

#include "probes.h"

tree
counter_type (void)
{
  return long_long_unsigned_type_node;	/* uint64_t */
}

/* Emits v = a CODE b (or v = (TYPE) a) into SEQ and returns v, or returns
   the constant when a and b are: a statement of constants only would be
   folded later, and GCC's inliner does not count it (inliner.cc).  */
tree
emit_value (gimple_seq *seq, tree type, enum tree_code code, tree a, tree b,
	    const char *name)
{
  if (CONSTANT_CLASS_P (a) && (!b || CONSTANT_CLASS_P (b)))
    {
      tree c = b ? fold_build2 (code, type, a, b) : fold_convert (type, a);
      if (CONSTANT_CLASS_P (c))
	return c;
    }
  tree v = make_temp_ssa_name (type, NULL, name);
  if (b)
    gimple_seq_add_stmt (seq, gimple_build_assign (v, code, a, b));
  else if (useless_type_conversion_p (type, TREE_TYPE (a)))
    gimple_seq_add_stmt (seq, gimple_build_assign (v, a));
  else
    gimple_seq_add_stmt (seq, gimple_build_assign (v, NOP_EXPR, a));
  return v;
}

/* A load of the TYPE at byte OFFSET from pointer BASE into SEQ.  */
tree
emit_load (gimple_seq *seq, tree type, tree base, unsigned offset, const char *name)
{
  tree ref = build2 (MEM_REF, type, base,
		     build_int_cst (build_pointer_type (type), offset));
  return emit_value (seq, type, NOP_EXPR, ref, NULL_TREE, name);
}

/* *REF += 1: a relaxed atomic add when the program is built for threads
   (-fprofile-update=atomic or prefer-atomic, or -pthread, which cc1 sees as
   -D_REENTRANT: see plugin.cc), otherwise a plain load/add/store, as gcov
   does.  */
tree
value_ref (const probe_target &t, tree index)
{
  return build4 (ARRAY_REF, t.value_type, t.values, index, NULL_TREE, NULL_TREE);
}

tree
path_table_ref (const probe_target &t, int32_t table)
{
  return build4 (ARRAY_REF, TREE_TYPE (TREE_TYPE (t.path_tables)), t.path_tables,
		 build_int_cst (integer_type_node, table), NULL_TREE, NULL_TREE);
}

void
emit_atomic_increment (tree addr, gimple_seq *seq)
{
  tree f = builtin_decl_explicit (BUILT_IN_ATOMIC_FETCH_ADD_8);
  gimple_seq_add_stmt (seq, gimple_build_call (f, 3, addr,
						build_int_cst (long_long_unsigned_type_node, 1),
						build_int_cst (integer_type_node,
							       MEMMODEL_RELAXED)));
}

void
emit_increment (const probe_target &t, tree ref, gimple_seq *seq)
{
  tree type = TREE_TYPE (ref);
  tree one = build_int_cst (type, 1);
  if (t.atomic)
    {
      tree addr = build_fold_addr_expr (ref);
      if (!is_gimple_min_invariant (addr))
	{
	  /* A variable address must be computed into a register first.  */
	  tree tmp = make_temp_ssa_name (build_pointer_type (type), NULL,
					 "PP_counter_addr");
	  gimple_seq_add_stmt (seq, gimple_build_assign (tmp, addr));
	  addr = tmp;
	}
      emit_atomic_increment (addr, seq);
      return;
    }
  tree old_value = make_temp_ssa_name (type, NULL, "PP_counter");
  gimple_seq_add_stmt (seq, gimple_build_assign (old_value, ref));
  tree new_value = make_temp_ssa_name (type, NULL, "PP_counter");
  gimple_seq_add_stmt (seq, gimple_build_assign (new_value, PLUS_EXPR, old_value,
						 one));
  tree store = unshare_expr (ref);
  tree addr = build_fold_addr_expr (store);
  if (is_gimple_min_invariant (addr))
    {
      /* A counter at a fixed address is stored through the signed type of
	 its width (the same alias set): predictive commoning, which carries
	 a value from one iteration to the next only between references of
	 one type, then leaves it in memory.  Carried, every execution is a
	 register add and a store, and the register is taken from the loop,
	 against one add to memory (DESIGN.md, "How the value array
	 aliases").  */
      tree stype = signed_type_for (type);
      new_value = emit_value (seq, stype, NOP_EXPR, new_value, NULL_TREE,
			      "PP_counter");
      store = fold_build2 (MEM_REF, stype, addr,
			   build_int_cst (build_pointer_type (type), 0));
    }
  gimple_seq_add_stmt (seq, gimple_build_assign (store, new_value));
}

tree
make_register (tree *reg, const char *name)
{
  if (!*reg)
    {
      *reg = create_tmp_var (counter_type (), name);
      DECL_NOT_GIMPLE_REG_P (*reg) = 1;
    }
  return *reg;
}

tree
trace_frame (site_state &s)
{
  return make_register (&s.frame, "PP_trace_frame");
}

/* The frame word, loaded into SEQ.  */
tree
load_frame (site_state &s, gimple_seq *seq)
{
  tree word = make_temp_ssa_name (counter_type (), NULL, "PP_trace_frame");
  gimple_seq_add_stmt (seq, gimple_build_assign (word, trace_frame (s)));
  return word;
}

/* A call of libprof's FN with ARGS into SEQ (the frame word, loaded, first
   when FRAME_FIRST).  */
gimple *
emit_trace_call (tree fn, site_state &s, bool frame_first, tree a, tree b,
		 gimple_seq *seq)
{
  auto_vec<tree, 3> args;
  if (frame_first)
    args.safe_push (load_frame (s, seq));
  if (a)
    args.safe_push (a);
  if (b)
    args.safe_push (b);
  gimple *call = gimple_build_call_vec (fn, args);
  gimple_seq_add_stmt (seq, call);
  return call;
}

/* Inserts SEQ on edge E before what is already pending there (the edge's
   own probes, inserted earlier: they run after what happens on the way to
   the edge).  */
void
insert_on_edge_first (edge e, gimple_seq seq)
{
  gimple_seq pending = PENDING_STMT (e);
  PENDING_STMT (e) = NULL;
  gsi_insert_seq_on_edge (e, seq);
  if (pending)
    gsi_insert_seq_on_edge (e, pending);
}

bool
insert_on_normal_edge (basic_block bb, gimple_seq seq)
{
  edge e;
  edge_iterator ei;
  FOR_EACH_EDGE (e, ei, bb->succs)
    if (!(e->flags & (EDGE_ABNORMAL | EDGE_EH | EDGE_FAKE)))
      {
	insert_on_edge_first (e, seq);
	return true;
      }
  return false;
}

/* A new COMPONENT_REF of __pathprof_seg_pass's r (or record) word: each
   statement needs its own.  */
tree
seg_pass_word (const probe_target &t, bool record)
{
  tree field = record ? t.seg_pass_record : t.seg_pass_r;
  return build3 (COMPONENT_REF, TREE_TYPE (field), t.seg_pass, field, NULL_TREE);
}

/* A new block after AFTER, in AFTER's loop.  */
basic_block
new_block (basic_block after)
{
  basic_block bb = create_empty_bb (after);
  if (current_loops)
    add_bb_to_loop (bb, after->loop_father);
  return bb;
}

/* A conditional jump at the end of FROM: COND true to YES (with
   probability LIKELY), else to NO.  EDGE is FROM's fallthrough, which is
   redirected to YES.  */
void
branch (basic_block from, edge e, gimple *cond, basic_block yes, basic_block no,
	profile_probability likely)
{
  gimple_stmt_iterator gsi = gsi_last_bb (from);
  gsi_insert_after (&gsi, cond, GSI_NEW_STMT);
  redirect_edge_succ (e, yes);
  e->flags = EDGE_TRUE_VALUE;
  e->probability = likely;
  make_edge (from, no, EDGE_FALSE_VALUE)->probability = likely.invert ();
}

/* A block after AFTER whose code is SEQ, falling through to JOIN.  */
basic_block
new_block_of (basic_block after, gimple_seq seq, basic_block join)
{
  basic_block bb = new_block (after);
  gimple_stmt_iterator gsi = gsi_start_bb (bb);
  gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);
  if (join)
    make_single_succ_edge (bb, join, EDGE_FALLTHRU);
  return bb;
}

/* Splits CALL's block after it and takes CALL out (to go on a path of its
   own): the edge from the block, now without CALL, to the rest.  */
edge
take_out (gimple *call)
{
  edge e = split_block (gimple_bb (call), call);
  gimple_stmt_iterator gsi = gsi_for_stmt (call);
  gsi_remove (&gsi, false);
  return e;
}
