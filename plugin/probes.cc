/* pathprof plugin, the inserter: walks a function's plan (corelib/plan.h) and
   emits the GIMPLE of each probe, one sequence per probe site, in plan order.
   Nothing here depends on the mode: an action is one case of emit_action, and
   emit_increment is the one place that chooses a plain or an atomic update.
   Then a flush goes before every call that ends the process without running
   exit handlers, and the edge insertions are committed.  */

#include "pathprof-plugin.h"
#include "corelib/trace.h"

static tree
counter_type (void)
{
  return long_long_unsigned_type_node;	/* uint64_t */
}

static tree
value_ref (const probe_target &t, tree index)
{
  return build4 (ARRAY_REF, t.value_type, t.values, index, NULL_TREE, NULL_TREE);
}

/* Emits v = a CODE b (or v = (TYPE) a) into SEQ and returns v, or returns
   the constant when a and b are: a statement of constants only would be
   folded later, and GCC's inliner does not count it (inliner.cc).  */
static tree
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
static tree
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
static void
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
      tree f = builtin_decl_explicit (BUILT_IN_ATOMIC_FETCH_ADD_8);
      gimple_seq_add_stmt (seq, gimple_build_call (f, 3, addr, one,
						    build_int_cst (integer_type_node,
								   MEMMODEL_RELAXED)));
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

/* Counts one execution of path PATH (an SSA name or a constant): in the
   function's slice of the values, or in its libprof hash table.  */
static void
emit_path_count (const function_record &rec, const probe_target &t, tree path,
		 gimple_seq *seq)
{
  if (rec.path_table >= 0)
    {
      tree table = build4 (ARRAY_REF, TREE_TYPE (TREE_TYPE (t.path_tables)),
			   t.path_tables,
			   build_int_cst (integer_type_node, rec.path_table),
			   NULL_TREE, NULL_TREE);
      gimple_seq_add_stmt (seq, gimple_build_call (t.count_path, 2,
						    build_fold_addr_expr (table),
						    path));
      return;
    }
  tree index = emit_value (seq, counter_type (), PLUS_EXPR, path,
			   build_int_cstu (counter_type (), rec.value_offset),
			   "PP_index");
  emit_increment (t, value_ref (t, index), seq);
}

/* The state of one probe site's sequence: the function's path register (a
   local of the activation, so each thread and recursive call has its own; it
   lives in memory and later passes promote it) and its value loaded at the
   start of the site when a probe reads it.  */
struct site_state
{
  tree reg = NULL_TREE;		/* r, the Ball-Larus number */
  tree value = NULL_TREE;
  tree reg2 = NULL_TREE;	/* q, the preferential number */
  tree value2 = NULL_TREE;
  tree frame = NULL_TREE;	/* the trace frame word (ENTER's result) */
  auto_vec<gimple *> keyed;	/* the keyed counts' markers (expand_keyed) */
  auto_vec<gimple *> witnesses;	/* the witnesses' calls (expand_witness) */
  auto_vec<gimple *> trace_returns; /* the trace RETURNs' calls (expand_witness) */
  gimple *enter = NULL;		/* ENTER of a function called directly
				   (expand_enter) */
  auto_vec<gimple *> steps;	/* segments' EDGE calls (expand_step) */
  auto_vec<gimple *> returns;	/* segments' RETURN calls (expand_return) */
  auto_vec<gimple *> exits;	/* segments' EXIT calls (expand_exit) */
  auto_vec<uint32_t> step_args;	/* and their probes' operand2 */
  /* Segments whose registers are locals (ip_locals_fit): how many (r, and
     q in the preferential modes; 0: the code adds to the root's registers
     in memory), the locals, and the activation's values and registers
     (addresses, as words), loaded after ENTER.  */
  unsigned ip_width = 0;
  tree ip_reg[2] = {};
  tree ip_values = NULL_TREE, ip_regs = NULL_TREE;
};

static tree
make_register (tree *reg, const char *name)
{
  if (!*reg)
    {
      *reg = create_tmp_var (counter_type (), name);
      DECL_NOT_GIMPLE_REG_P (*reg) = 1;
    }
  return *reg;
}

static tree
path_register (site_state &s)
{
  return make_register (&s.reg, "PP_path_register");
}

static tree
ppp_register (site_state &s)
{
  return make_register (&s.reg2, "PP_ppp_register");
}

static tree
trace_frame (site_state &s)
{
  return make_register (&s.frame, "PP_trace_frame");
}

/* The frame word, loaded into SEQ.  */
static tree
load_frame (site_state &s, gimple_seq *seq)
{
  tree word = make_temp_ssa_name (counter_type (), NULL, "PP_trace_frame");
  gimple_seq_add_stmt (seq, gimple_build_assign (word, trace_frame (s)));
  return word;
}

/* Where pathprof-abi.h's struct __pathprof_ip_frame keeps its fields
   (kseg-runtime.c checks them).  */
enum { FRAME_VALUES = 0, FRAME_REGS = 8, FRAME_TAG = 16, FRAME_SITE = 24,
       FRAME_ENTERED = 28, FRAME_DEPTH = 32, FRAME_EXIT_ADDS = 36, FRAME_RET = 40,
       FRAME_CALLS = 56 };

/* Segments keep their root's registers r and q in locals of the activation
   (site_state::ip_width), as the paths mode keeps its register: loaded
   after ENTER and after whatever may move the root's registers (a call,
   libprof's slow ways), stored into them before whatever reads them (a
   call, EXIT, libprof).  An in-place add is then an add to a register.
   The activation's values and registers (their addresses) are locals too,
   loaded once: they stay valid while it runs (pathprof-abi.h).  */

/* The address in local VAR, a word, as a pointer to words, into SEQ.  */
static tree
emit_address (gimple_seq *seq, tree var, const char *name)
{
  tree ptr = build_pointer_type (counter_type ());
  return emit_value (seq, ptr, NOP_EXPR,
		     emit_value (seq, counter_type (), NOP_EXPR, var, NULL_TREE, name),
		     NULL_TREE, name);
}

/* The root's registers := the locals, into SEQ.  */
static void
ip_store_locals (site_state &s, gimple_seq *seq)
{
  tree u64 = counter_type (), ptr = build_pointer_type (u64);
  tree regs = emit_address (seq, s.ip_regs, "PP_ip_regs");
  for (unsigned k = 0; k < s.ip_width; k++)
    gimple_seq_add_stmt (seq, gimple_build_assign (
      build2 (MEM_REF, u64, regs, build_int_cst (ptr, 8 * k)),
      emit_value (seq, u64, NOP_EXPR, s.ip_reg[k], NULL_TREE, "PP_ip_reg")));
}

/* The locals := the root's registers, into SEQ; with the frame word FRAME
   (after ENTER), the activation's values and registers first.  */
static void
ip_load_locals (site_state &s, tree frame, gimple_seq *seq)
{
  tree u64 = counter_type (), ptr = build_pointer_type (u64);
  if (frame)
    {
      tree f = emit_value (seq, ptr, NOP_EXPR, frame, NULL_TREE, "PP_ip_frame");
      gimple_seq_add_stmt (seq, gimple_build_assign (
	make_register (&s.ip_values, "PP_ip_values"),
	emit_load (seq, u64, f, FRAME_VALUES, "PP_ip_values")));
      gimple_seq_add_stmt (seq, gimple_build_assign (
	make_register (&s.ip_regs, "PP_ip_regs"),
	emit_load (seq, u64, f, FRAME_REGS, "PP_ip_regs")));
    }
  tree regs = emit_address (seq, s.ip_regs, "PP_ip_regs");
  for (unsigned k = 0; k < s.ip_width; k++)
    gimple_seq_add_stmt (seq, gimple_build_assign (
      make_register (&s.ip_reg[k], k ? "PP_ip_q" : "PP_ip_r"),
      emit_load (seq, u64, regs, 8 * k, "PP_ip_reg")));
}

/* Can cfun keep the registers in locals?  Not where libprof moves them at
   places the code cannot follow: a landing (a longjmp, a computed goto, an
   exception: LAND), and not where every edge calls EDGE.  */
static unsigned
ip_locals_fit (const pp_plan &plan, const probe_target &t)
{
  if (!t.calls_in_place || cfun->calls_setjmp || cfun->has_nonlocal_label)
    return 0;
  for (uint32_t i = 0; i < plan.nprobes; i++)
    if (plan.probes[i].action == PP_PROBE_IP_EDGE
	|| plan.probes[i].action == PP_PROBE_IP_LAND)
      return 0;
  basic_block bb;
  FOR_EACH_BB_FN (bb, cfun)
    {
      gimple *last = last_stmt (bb);
      if (last && gimple_code (last) == GIMPLE_GOTO
	  && TREE_CODE (gimple_goto_dest (last)) != LABEL_DECL)
	return 0;
    }
  return t.ip_width;
}

/* A call of libprof's FN with ARGS into SEQ (the frame word, loaded, first
   when FRAME_FIRST).  */
static gimple *
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

static bool
reads_register (uint8_t action)
{
  return action == PP_PROBE_PATH_COUNT || action == PP_PROBE_PATH_ADD
	 || action == PP_PROBE_PATH_COUNT_KEYED;
}

static bool
reads_ppp_register (uint8_t action)
{
  return action == PP_PROBE_PPP_ADD || action == PP_PROBE_PATH_COUNT_KEYED;
}

/* The value of register REG at the start of a site (probes FIRST .. END-1 of
   PLAN), loaded into SEQ when one of them READS it, else NULL_TREE.  */
static tree
load_register (const pp_plan &plan, uint32_t first, uint32_t end,
	       bool (*reads) (uint8_t), tree (*reg) (site_state &), site_state &s,
	       gimple_seq *seq)
{
  for (uint32_t k = first; k < end; k++)
    if (reads (plan.probes[k].action))
      {
	tree value = make_temp_ssa_name (counter_type (), NULL, "PP_path");
	gimple_seq_add_stmt (seq, gimple_build_assign (value, reg (s)));
	return value;
      }
  return NULL_TREE;
}

/* SUM = VALUE + OPERAND into SEQ.  */
static tree
emit_sum (tree value, tree operand, gimple_seq *seq)
{
  return emit_value (seq, counter_type (), PLUS_EXPR, value, operand, "PP_path");
}

/* The Ball-Larus number in NUMBER, the register's value at a path end: in a
   packed plan, its high bits (plan.h).  */
static tree
unpack_number (const function_record &rec, tree number, gimple_seq *seq)
{
  if (!rec.plan.pack_bits)
    return number;
  return emit_value (seq, counter_type (), RSHIFT_EXPR, number,
		     build_int_cst (unsigned_type_node, rec.plan.pack_bits),
		     "PP_path");
}

/* Appends the code of probe P to SEQ.  */
static void
emit_action (const function_record &rec, const probe_target &t, const pp_probe &p,
	     site_state &s, gimple_seq *seq)
{
  tree operand = pp_probe_stores_value (p.action)
		 ? NULL_TREE : build_int_cstu (counter_type (), p.operand);
  switch ((enum pp_probe_action) p.action)
    {
    case PP_PROBE_MARK:
      gimple_seq_add_stmt (seq, gimple_build_assign (
	value_ref (t, build_int_cst (integer_type_node, rec.value_offset + p.index)),
	build_int_cst (t.value_type, 1)));
      return;
    case PP_PROBE_COUNT:
      emit_increment (t, value_ref (t, build_int_cst (integer_type_node,
						      rec.value_offset + p.index)),
		      seq);
      return;
    case PP_PROBE_PATH_COUNT:
      emit_path_count (rec, t, unpack_number (rec, emit_sum (s.value, operand, seq),
					      seq),
		       seq);
      return;
    case PP_PROBE_PATH_COUNT_CONST:
      emit_path_count (rec, t, operand, seq);
      return;
    case PP_PROBE_PATH_COUNT_SLOT:
      emit_increment (t, value_ref (t, build_int_cst (integer_type_node,
						      rec.value_offset + p.index)),
		      seq);
      return;
    case PP_PROBE_PATH_COUNT_KEYED:
      {
	/* A marker call that expand_keyed turns into the check: edge
	   insertions cannot carry control flow.  */
	tree number = emit_sum (s.value, operand, seq);
	tree slot = rec.plan.pack_bits
		    ? emit_value (seq, counter_type (), BIT_AND_EXPR, number,
				  build_int_cstu (counter_type (),
						  ((uint64_t) 1 << rec.plan.pack_bits) - 1),
				  "PP_slot")
		    : emit_sum (s.value2, build_int_cstu (counter_type (), p.operand2),
				seq);
	gimple *marker = gimple_build_call (t.keyed_marker, 2, number, slot);
	gimple_seq_add_stmt (seq, marker);
	s.keyed.safe_push (marker);
	return;
      }
    case PP_PROBE_PATH_ADD:
      s.value = emit_sum (s.value, operand, seq);
      gimple_seq_add_stmt (seq, gimple_build_assign (path_register (s), s.value));
      return;
    case PP_PROBE_PATH_SET:
      gimple_seq_add_stmt (seq, gimple_build_assign (path_register (s), operand));
      s.value = operand;
      return;
    case PP_PROBE_PPP_ADD:
      s.value2 = emit_sum (s.value2, operand, seq);
      gimple_seq_add_stmt (seq, gimple_build_assign (ppp_register (s), s.value2));
      return;
    case PP_PROBE_PPP_SET:
      gimple_seq_add_stmt (seq, gimple_build_assign (ppp_register (s), operand));
      s.value2 = operand;
      return;
    case PP_PROBE_TRACE_ENTER:
      {
	tree word = make_temp_ssa_name (counter_type (), NULL, "PP_trace_frame");
	gcall *call = gimple_build_call (t.trace_enter, 3,
					 build_fold_addr_expr (t.unit),
					 build_int_cst (unsigned_type_node, rec.index),
					 build_int_cst (unsigned_type_node, p.operand));
	gimple_call_set_lhs (call, word);
	gimple_seq_add_stmt (seq, call);
	if (rec.called_directly)
	  {
	    s.enter = call;	/* expand_enter stores the frame word */
	    trace_frame (s);
	    return;
	  }
	gimple_seq_add_stmt (seq, gimple_build_assign (trace_frame (s), word));
	return;
      }
    case PP_PROBE_TRACE_WITNESS:
      /* A call that expand_witness turns into the write in place.  */
      s.witnesses.safe_push (emit_trace_call (t.trace_witness, s, false,
					      build_int_cst (unsigned_type_node,
							     p.index),
					      NULL_TREE, seq));
      return;
    case PP_PROBE_TRACE_RETURN:
      /* A call that expand_witness turns into the record in place.  */
      s.trace_returns.safe_push (emit_trace_call (t.trace_return, s, true, NULL_TREE,
						  NULL_TREE, seq));
      return;
    case PP_PROBE_TRACE_LAND:
      emit_trace_call (t.trace_land, s, true,
		       build_int_cst (unsigned_type_node, p.operand),
		       build_int_cst (unsigned_type_node, p.operand2), seq);
      return;
    case PP_PROBE_IP_ENTER:
      {
	tree word = make_temp_ssa_name (counter_type (), NULL, "PP_ip_frame");
	gcall *call = gimple_build_call (t.ip_enter, 3,
					 build_fold_addr_expr (t.unit),
					 build_int_cst (unsigned_type_node, rec.index),
					 build_fold_addr_expr (current_function_decl));
	gimple_call_set_lhs (call, word);
	gimple_seq_add_stmt (seq, call);
	gimple_seq_add_stmt (seq, gimple_build_assign (trace_frame (s), word));
	if (s.ip_width)
	  ip_load_locals (s, word, seq);
	return;
      }
    case PP_PROBE_IP_EDGE:
      emit_trace_call (t.ip_edge, s, true,
		       build_int_cst (unsigned_type_node, p.operand), NULL_TREE, seq);
      return;
    case PP_PROBE_IP_ADD:
      /* A call that expand_step turns into the add in place.  */
      s.steps.safe_push (emit_trace_call (t.ip_edge, s, true,
					  build_int_cst (unsigned_type_node,
							 p.operand),
					  NULL_TREE, seq));
      s.step_args.safe_push ((uint32_t) p.operand2);
      return;
    case PP_PROBE_IP_EXIT:
      {
	if (s.ip_width)
	  ip_store_locals (s, seq);
	gimple *call = emit_trace_call (t.ip_exit, s, true, NULL_TREE, NULL_TREE, seq);
	if (t.calls_in_place)
	  s.exits.safe_push (call);	/* expand_exit */
	return;
      }
    case PP_PROBE_IP_LAND:
      emit_trace_call (t.ip_land, s, true,
		       build_int_cst (unsigned_type_node, p.operand),
		       build_int_cst (unsigned_type_node, p.operand2), seq);
      return;
    }
  gcc_unreachable ();
}

/* Inserts SEQ on edge E before what is already pending there (the edge's
   own probes, inserted earlier: they run after what happens on the way to
   the edge).  */
static void
insert_on_edge_first (edge e, gimple_seq seq)
{
  gimple_seq pending = PENDING_STMT (e);
  PENDING_STMT (e) = NULL;
  gsi_insert_seq_on_edge (e, seq);
  if (pending)
    gsi_insert_seq_on_edge (e, pending);
}

/* Inserts SEQ at the start of block BB, after its labels, or right after a
   leading setjmp-like call (nothing may precede it); when that call also ends
   the block, on the block's one normal outgoing edge, before the probes of
   that edge.  */
static void
insert_at_block (basic_block bb, gimple_seq seq)
{
  gimple_stmt_iterator gsi = gsi_start_nondebug_after_labels_bb (bb);
  if (!gsi_end_p (gsi) && is_gimple_call (gsi_stmt (gsi))
      && (gimple_call_flags (gsi_stmt (gsi)) & ECF_RETURNS_TWICE))
    {
      gimple *call = gsi_stmt (gsi);
      if (!stmt_ends_bb_p (call))
	{
	  gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);
	  return;
	}
      edge e;
      edge_iterator ei;
      FOR_EACH_EDGE (e, ei, bb->succs)
	if (!(e->flags & (EDGE_ABNORMAL | EDGE_EH | EDGE_FAKE)))
	  {
	    /* The block's probes run before the edge's own (inserted
	       earlier: edge sites come first in the plan).  */
	    insert_on_edge_first (e, seq);
	    return;
	  }
      internal_error ("pathprof: block %d has no edge for its probe", bb->index);
    }
  gsi = gsi_after_labels (bb);
  gsi_insert_seq_before (&gsi, seq, GSI_SAME_STMT);
}

/* Inserts SEQ where the probes of site SITE, WHERE go.  */
static void
insert_at_site (const function_record &rec, uint8_t site, uint32_t where,
		gimple_seq seq)
{
  if (site == PP_SITE_BLOCK)
    {
      insert_at_block (BASIC_BLOCK_FOR_FN (cfun, where), seq);
      return;
    }
  edge e = rec.gcc_edge[where];
  if (site == PP_SITE_EDGE)
    {
      gcc_assert (e && !(e->flags & (EDGE_ABNORMAL | EDGE_FAKE)));
      gsi_insert_seq_on_edge (e, seq);
      return;
    }
  /* PP_SITE_SOURCE_END: before the last statement of the edge's source.  */
  basic_block src = e ? e->src : BASIC_BLOCK_FOR_FN (cfun, rec.edge_src[where]);
  gimple_stmt_iterator gsi = gsi_last_nondebug_bb (src);
  gcc_assert (!gsi_end_p (gsi));
  gsi_insert_seq_before (&gsi, seq, GSI_SAME_STMT);
}

/* A new block after AFTER, in AFTER's loop.  */
static basic_block
new_block (basic_block after)
{
  basic_block bb = create_empty_bb (after);
  if (current_loops)
    add_bb_to_loop (bb, after->loop_father);
  return bb;
}

/* Replaces the marker of a keyed count (number, slot) by
       if (slot < nkeys) { if (keys[slot] == number) values[slot]++; else miss; }
       else miss;              miss: count path number in the table
   with both branches expected to go to the slot; without the range test when
   the slots cover every path's number (the plan's keys_cover_all).  In a
   packed plan, number is the register's packed value, the keys packed alike,
   and the table counts its Ball-Larus half.  */
static void
expand_keyed (const function_record &rec, const probe_target &t, gimple *marker)
{
  tree number = gimple_call_arg (marker, 0), slot = gimple_call_arg (marker, 1);
  basic_block bb = gimple_bb (marker);
  edge fallthru = split_block (bb, marker);
  basic_block join = fallthru->dest;
  gimple_stmt_iterator gsi = gsi_for_stmt (marker);
  gsi_remove (&gsi, true);

  basic_block check = new_block (bb), hit = new_block (check),
	      miss = new_block (hit);
  profile_probability likely = profile_probability::very_likely ();
  redirect_edge_succ (fallthru, check);
  if (!rec.plan.keys_cover_all)
    {
      gsi = gsi_last_bb (bb);
      gsi_insert_after (&gsi, gimple_build_cond (LT_EXPR, slot,
						 build_int_cstu (counter_type (),
								 rec.plan.nkeys),
						 NULL_TREE, NULL_TREE),
			GSI_NEW_STMT);
      fallthru->flags = EDGE_TRUE_VALUE;
      fallthru->probability = likely;
      make_edge (bb, miss, EDGE_FALSE_VALUE)->probability = likely.invert ();
    }

  gimple_seq seq = NULL;
  tree index = emit_value (&seq, counter_type (), PLUS_EXPR, slot,
			   build_int_cstu (counter_type (), rec.key_offset),
			   "PP_key_index");
  tree key = make_temp_ssa_name (counter_type (), NULL, "PP_key");
  gimple_seq_add_stmt (&seq, gimple_build_assign (key, value_ref (t, index)));
  gimple_seq_add_stmt (&seq, gimple_build_cond (EQ_EXPR, key, number, NULL_TREE,
						 NULL_TREE));
  gsi = gsi_start_bb (check);
  gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);
  make_edge (check, hit, EDGE_TRUE_VALUE)->probability = likely;
  make_edge (check, miss, EDGE_FALSE_VALUE)->probability = likely.invert ();

  seq = NULL;
  tree value = emit_value (&seq, counter_type (), PLUS_EXPR, slot,
			   build_int_cstu (counter_type (), rec.value_offset),
			   "PP_index");
  emit_increment (t, value_ref (t, value), &seq);
  gsi = gsi_start_bb (hit);
  gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);
  make_single_succ_edge (hit, join, EDGE_FALLTHRU);

  seq = NULL;
  emit_path_count (rec, t, unpack_number (rec, number, &seq), &seq);
  gsi = gsi_start_bb (miss);
  gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);
  make_single_succ_edge (miss, join, EDGE_FALLTHRU);

  check->count = rec.plan.keys_cover_all ? bb->count
					  : bb->count.apply_probability (likely);
  hit->count = check->count.apply_probability (likely);
  miss->count = bb->count - hit->count;
}

/* A field of the thread's trace state, accessed as volatile: a signal
   handler may run between any two of these accesses (pathprof-abi.h).  */
static tree
tls_field (const probe_target &t, tree field)
{
  tree ref = build3 (COMPONENT_REF, TREE_TYPE (field), t.trace_tls, field,
		     NULL_TREE);
  TREE_THIS_VOLATILE (ref) = 1;
  return ref;
}

/* Replaces the call __pathprof_trace_witness (k) of a function whose
   witnesses take WIDTH bits by the write in place of pathprof-abi.h, the call
   staying on the unlikely path:
       lim = limit; limit = 0; pos = cursor; end = pos + WIDTH;
       if (end <= lim)
         { i = pos / 64; off = pos % 64;
           buf[i] |= k << off;                      (the bits above pos are 0)
           buf[i + 1] = (k >> 1) >> (63 - off);     (0 when off is 0)
           cursor = end; limit = lim; }
       else
         { limit = lim; __pathprof_trace_witness (k); }
   With RETURN true, the call is __pathprof_trace_return (frame), and in
   place of k the RETURN record (the escape, then the kind: WIDTH + 2 bits)
   of an activation whose frame has no flag (traced, no announcement to put
   back: end + the flags <= lim), which also puts the caller's state back
   (state = frame - 256) before it gives up the buffer, so that a signal
   handler after it writes in the caller's width and depth.  */
static void
expand_witness (const probe_target &t, gimple *call, unsigned width, bool is_return = false)
{
  tree u64 = counter_type (), ptr = TREE_TYPE (t.tls_buf);
  tree k, frame = NULL_TREE;
  if (is_return)
    {
      frame = gimple_call_arg (call, 0);
      k = build_int_cst (u64, pp_trace_escape (width)
			      | (uint64_t) PP_TRACE_RETURN << width);
      width += 2;
    }
  else
    k = fold_convert (u64, gimple_call_arg (call, 0));
  basic_block bb = gimple_bb (call);
  edge to_fast = split_block (bb, call);
  basic_block join = to_fast->dest;
  gimple_stmt_iterator gsi = gsi_for_stmt (call);
  gsi_remove (&gsi, false);

  basic_block fast = new_block (bb), slow = new_block (fast);
  profile_probability likely = profile_probability::very_likely ();
  gimple_seq seq = NULL;
  tree lim = emit_value (&seq, u64, NOP_EXPR, tls_field (t, t.tls_limit), NULL_TREE,
			 "PP_trace_limit");
  gimple_seq_add_stmt (&seq, gimple_build_assign (tls_field (t, t.tls_limit),
						  build_int_cst (u64, 0)));
  tree pos = emit_value (&seq, u64, NOP_EXPR, tls_field (t, t.tls_cursor), NULL_TREE,
			 "PP_trace_pos");
  tree end = emit_value (&seq, u64, PLUS_EXPR, pos, build_int_cst (u64, width),
			 "PP_trace_end");
  tree test = end;
  if (frame)
    {
      /* The frame's flags (pathprof-abi.h: bits 62 and 63) put the test
	 past any limit.  */
      tree flags = emit_value (&seq, u64, BIT_AND_EXPR, fold_convert (u64, frame),
			       build_int_cst (u64, HOST_WIDE_INT_M1U << 62),
			       "PP_trace_flags");
      test = emit_value (&seq, u64, PLUS_EXPR, end, flags, "PP_trace_test");
    }
  gimple_seq_add_stmt (&seq, gimple_build_cond (LE_EXPR, test, lim, NULL_TREE,
						 NULL_TREE));
  gsi = gsi_last_bb (bb);
  gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);
  redirect_edge_succ (to_fast, fast);
  to_fast->flags = EDGE_TRUE_VALUE;
  to_fast->probability = likely;
  make_edge (bb, slow, EDGE_FALSE_VALUE)->probability = likely.invert ();

  seq = NULL;
  tree buf = emit_value (&seq, ptr, NOP_EXPR, tls_field (t, t.tls_buf), NULL_TREE,
			 "PP_trace_buf");
  tree word_index = emit_value (&seq, u64, RSHIFT_EXPR, pos,
				build_int_cst (integer_type_node, 6), "PP_trace_i");
  tree off = emit_value (&seq, u64, BIT_AND_EXPR, pos, build_int_cst (u64, 63),
			 "PP_trace_off");
  tree byte_offset = emit_value (&seq, sizetype, NOP_EXPR, word_index, NULL_TREE,
				 "PP_trace_at");
  byte_offset = emit_value (&seq, sizetype, MULT_EXPR, byte_offset, size_int (8),
			    "PP_trace_at");
  tree at = emit_value (&seq, ptr, POINTER_PLUS_EXPR, buf, byte_offset,
			"PP_trace_word");
  tree word = build2 (MEM_REF, u64, at, build_int_cst (ptr, 0));
  TREE_THIS_VOLATILE (word) = 1;
  tree next = build2 (MEM_REF, u64, at, build_int_cst (ptr, 8));
  TREE_THIS_VOLATILE (next) = 1;
  tree shift = emit_value (&seq, integer_type_node, NOP_EXPR, off, NULL_TREE,
			   "PP_trace_shift");
  tree old_word = emit_value (&seq, u64, NOP_EXPR, word, NULL_TREE, "PP_trace_old");
  tree kv = emit_value (&seq, u64, NOP_EXPR, k, NULL_TREE, "PP_trace_k");
  tree placed = emit_value (&seq, u64, LSHIFT_EXPR, kv, shift, "PP_trace_placed");
  tree new_word = emit_value (&seq, u64, BIT_IOR_EXPR, old_word, placed,
			      "PP_trace_new");
  gimple_seq_add_stmt (&seq, gimple_build_assign (unshare_expr (word), new_word));
  tree half = emit_value (&seq, u64, RSHIFT_EXPR, kv,
			  build_int_cst (integer_type_node, 1), "PP_trace_high");
  tree rest = emit_value (&seq, integer_type_node, MINUS_EXPR,
			  build_int_cst (integer_type_node, 63), shift, "PP_trace_rest");
  tree high = emit_value (&seq, u64, RSHIFT_EXPR, half, rest, "PP_trace_high");
  gimple_seq_add_stmt (&seq, gimple_build_assign (next, high));
  gimple_seq_add_stmt (&seq, gimple_build_assign (tls_field (t, t.tls_cursor), end));
  if (frame)
    {
      tree back = emit_value (&seq, u64, MINUS_EXPR, fold_convert (u64, frame),
			      build_int_cst (u64, 256), "PP_trace_back");
      gimple_seq_add_stmt (&seq, gimple_build_assign (tls_field (t, t.tls_state), back));
    }
  gimple_seq_add_stmt (&seq, gimple_build_assign (tls_field (t, t.tls_limit), lim));
  gsi = gsi_start_bb (fast);
  gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);
  make_single_succ_edge (fast, join, EDGE_FALLTHRU);

  seq = NULL;
  gimple_seq_add_stmt (&seq, gimple_build_assign (tls_field (t, t.tls_limit), lim));
  gimple_seq_add_stmt (&seq, call);
  gsi = gsi_start_bb (slow);
  gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);
  make_single_succ_edge (slow, join, EDGE_FALLTHRU);

  fast->count = bb->count.apply_probability (likely);
  slow->count = bb->count - fast->count;
}

/* A conditional jump at the end of FROM: COND true to YES (with
   probability LIKELY), else to NO.  EDGE is FROM's fallthrough, which is
   redirected to YES.  */
static void
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
static basic_block
new_block_of (basic_block after, gimple_seq seq, basic_block join)
{
  basic_block bb = new_block (after);
  gimple_stmt_iterator gsi = gsi_start_bb (bb);
  gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);
  if (join)
    make_single_succ_edge (bb, join, EDGE_FALLTHRU);
  return bb;
}

/* The key of function INDEX of the unit (pathprof-abi.h), into SEQ.  */
static tree
trace_key (const probe_target &t, uint32_t index, gimple_seq *seq)
{
  tree byte = build4 (ARRAY_REF, TREE_TYPE (TREE_TYPE (t.trace_keys)), t.trace_keys,
		      size_int (index), NULL_TREE, NULL_TREE);
  return emit_value (seq, counter_type (), NOP_EXPR, build_fold_addr_expr (byte),
		     NULL_TREE, "PP_trace_key");
}

/* Before each direct call of rec: expect = the callee's key.  */
static void
announce_direct_calls (const function_record &rec, const probe_target &t)
{
  for (unsigned k = 0; k < rec.direct_calls.length (); k++)
    {
      gimple_seq seq = NULL;
      tree key = trace_key (t, rec.direct_callees[k], &seq);
      gimple_seq_add_stmt (&seq, gimple_build_assign (tls_field (t, t.tls_expect), key));
      gimple_stmt_iterator gsi = gsi_for_stmt (rec.direct_calls[k]);
      gsi_insert_seq_before (&gsi, seq, GSI_SAME_STMT);
    }
}

/* Replaces the ENTER call (its result WORD) of function INDEX, whose
   records take WIDTH bits and which direct calls enter, by the entry of
   pathprof-abi.h, the call staying on the other path:
       if (expect == key)
         { expect = 0; s = state; frame = s + 256;
           state = (frame & ~255) | WIDTH; }
       else
         frame = __pathprof_trace_enter (...);  */
static void
expand_enter (const probe_target &t, gimple *call, tree frame, uint32_t index,
	      unsigned width)
{
  tree u64 = counter_type ();
  tree word = gimple_call_lhs (call);
  basic_block bb = gimple_bb (call);
  edge to_direct = split_block (bb, call);
  basic_block join = to_direct->dest;
  gimple_stmt_iterator gsi = gsi_for_stmt (call);
  gsi_remove (&gsi, false);

  gimple_seq seq = NULL;
  tree expect = emit_value (&seq, u64, NOP_EXPR, tls_field (t, t.tls_expect),
			    NULL_TREE, "PP_trace_expect");
  tree key = trace_key (t, index, &seq);
  gsi = gsi_last_bb (bb);
  gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);

  seq = NULL;
  gimple_seq_add_stmt (&seq, gimple_build_assign (tls_field (t, t.tls_expect),
						  build_int_cst (u64, 0)));
  tree state = emit_value (&seq, u64, NOP_EXPR, tls_field (t, t.tls_state), NULL_TREE,
			   "PP_trace_state");
  tree fr = emit_value (&seq, u64, PLUS_EXPR, state, build_int_cst (u64, 256),
			"PP_trace_frame");
  tree depth = emit_value (&seq, u64, BIT_AND_EXPR, fr, build_int_cst (u64, ~(HOST_WIDE_INT) 255),
			   "PP_trace_state");
  tree next = emit_value (&seq, u64, BIT_IOR_EXPR, depth, build_int_cst (u64, width),
			  "PP_trace_state");
  gimple_seq_add_stmt (&seq, gimple_build_assign (tls_field (t, t.tls_state), next));
  gimple_seq_add_stmt (&seq, gimple_build_assign (frame, fr));
  basic_block direct = new_block_of (bb, seq, join);

  seq = NULL;
  gimple_seq_add_stmt (&seq, call);
  gimple_seq_add_stmt (&seq, gimple_build_assign (frame, word));
  basic_block other = new_block_of (direct, seq, join);

  branch (bb, to_direct, gimple_build_cond (EQ_EXPR, expect, key, NULL_TREE, NULL_TREE),
	  direct, other, profile_probability::even ());
  direct->count = bb->count.apply_probability (profile_probability::even ());
  other->count = bb->count - direct->count;
}


/* Register K (0: r, 1: q) of the activation's root, into SEQ: its local
   (site_state::ip_width) or REGS[K].  */
static tree
load_ip_reg (const site_state &s, tree regs, unsigned k, gimple_seq *seq)
{
  if (s.ip_width)
    return emit_value (seq, counter_type (), NOP_EXPR, s.ip_reg[k], NULL_TREE,
		       "PP_ip_reg");
  return emit_load (seq, counter_type (), regs, 8 * k, "PP_ip_reg");
}

/* Register K := VALUE, into SEQ.  */
static void
store_ip_reg (const site_state &s, tree regs, unsigned k, tree value,
	      gimple_seq *seq)
{
  tree u64 = counter_type ();
  tree to = s.ip_width ? s.ip_reg[k]
	    : build2 (MEM_REF, u64, regs, build_int_cst (build_pointer_type (u64), 8 * k));
  gimple_seq_add_stmt (seq, gimple_build_assign (to, value));
}

/* &BASE[INDEX] of 64-bit words into SEQ, BASE a u64 holding the address.  */
static tree
emit_word_address (gimple_seq *seq, tree base, tree index)
{
  tree ptr = build_pointer_type (counter_type ());
  tree b = emit_value (seq, ptr, NOP_EXPR, base, NULL_TREE, "PP_ip_array");
  tree offset = emit_value (seq, sizetype, NOP_EXPR, index, NULL_TREE, "PP_ip_at");
  offset = emit_value (seq, sizetype, MULT_EXPR, offset, size_int (8), "PP_ip_at");
  return emit_value (seq, ptr, POINTER_PLUS_EXPR, b, offset, "PP_ip_count");
}

/* The start of the next segment after one ended in place (expand_step),
   as the record at NEXT says.  */
static gimple_seq
segment_end (const site_state &s, tree regs, tree next)
{
  tree u64 = counter_type (), ptr = build_pointer_type (u64);
  gimple_seq seq = NULL;
  /* regs[0 .. 4] = next[0 .. 4]: r and q, maybe locals; the rest.  */
  for (unsigned k = 0; k < 5; k++)
    {
      if (k == 1 && s.ip_width == 1)
	continue;		/* no q */
      tree word = emit_load (&seq, u64, next, 8 * k, "PP_ip_start");
      if (k < 2)
	store_ip_reg (s, regs, k, word, &seq);
      else
	gimple_seq_add_stmt (&seq, gimple_build_assign (
	  build2 (MEM_REF, u64, regs, build_int_cst (ptr, 8 * k)), word));
    }
  return seq;
}

/* The code that counts segment number N of the root whose registers are
   at REGS in its place (kseg-runtime.c, "In place"), after block FROM, into
   which it puts its first test: in the array of the segment's start
   (regs[2 .. 4]), in the preferential slot SLOT when its key is N (with
   SLOT, NULL_TREE but in the preferential modes: regs[5 .. 7]), or in
   the hashed place ((N * PATHPROF_IP_HASH) >> 32) & regs[8] when its key
   is N (regs[9], regs[10]).  Where it counts, the code THEN () makes
   follows and goes to JOIN; where N has no place, to MISS (whose count it
   sets).  */
template <typename F>
static void
count_in_place (const probe_target &t, basic_block from, tree regs, tree n, tree slot,
		F then, basic_block join, basic_block miss)
{
  tree u64 = counter_type (), ptr = build_pointer_type (u64);
  profile_probability likely = profile_probability::very_likely ();
  auto hit = [&] (basic_block after, unsigned counts_at, tree index) {
    gimple_seq seq = NULL;
    tree count = emit_word_address (&seq, emit_load (&seq, u64, regs, counts_at,
						       "PP_ip_counts"), index);
    emit_increment (t, build2 (MEM_REF, u64, count, build_int_cst (ptr, 0)), &seq);
    gimple_seq_add_seq (&seq, then ());
    return new_block_of (after, seq, join);
  };
  /* A test at the end of block B: COND to YES, else NO.  */
  auto test = [&] (basic_block b, tree cond_a, enum tree_code code, tree cond_b,
		   basic_block yes, basic_block no) {
    branch (b, make_single_succ_edge (b, yes, EDGE_FALLTHRU),
	    gimple_build_cond (code, cond_a, cond_b, NULL_TREE, NULL_TREE), yes, no,
	    likely);
    yes->count = b->count.apply_probability (likely);
  };

  /* The hashed place.  */
  gimple_seq seq = NULL;
  tree h = emit_value (&seq, u64, BIT_AND_EXPR,
		       emit_value (&seq, u64, RSHIFT_EXPR,
				   emit_value (&seq, u64, MULT_EXPR, n,
					       build_int_cstu (u64, PATHPROF_IP_HASH),
					       "PP_ip_hash"),
				   build_int_cst (unsigned_type_node, 32), "PP_ip_hash"),
		       emit_load (&seq, u64, regs, 64, "PP_ip_mask"), "PP_ip_hash");
  tree hkey = emit_value (&seq, u64, NOP_EXPR,
			  build2 (MEM_REF, u64,
				  emit_word_address (&seq, emit_load (&seq, u64, regs, 72,
								      "PP_ip_keys"), h),
				  build_int_cst (ptr, 0)), NULL_TREE, "PP_ip_key");
  basic_block hashed = new_block_of (from, seq, NULL);

  /* The preferential slot.  */
  basic_block after_array = hashed;
  basic_block keyed = NULL, check = NULL;
  tree key = NULL_TREE, span = NULL_TREE;
  if (slot)
    {
      seq = NULL;
      span = emit_load (&seq, u64, regs, 40, "PP_ip_span");
      keyed = new_block_of (from, seq, NULL);
      seq = NULL;
      key = emit_value (&seq, u64, NOP_EXPR,
			build2 (MEM_REF, u64,
				emit_word_address (&seq, emit_load (&seq, u64, regs, 48,
								    "PP_ip_keys"), slot),
				build_int_cst (ptr, 0)), NULL_TREE, "PP_ip_key");
      check = new_block_of (keyed, seq, NULL);
      after_array = keyed;
    }

  /* The start's array, first.  */
  seq = NULL;
  tree i = emit_value (&seq, u64, MINUS_EXPR, n,
		       emit_load (&seq, u64, regs, 16, "PP_ip_first"), "PP_ip_index");
  tree size = emit_load (&seq, u64, regs, 24, "PP_ip_size");
  gimple_stmt_iterator gsi = gsi_last_bb (from);
  gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);
  test (from, i, LT_EXPR, size, hit (from, 32, i), after_array);
  after_array->count = from->count - from->count.apply_probability (likely);
  if (slot)
    {
      test (keyed, slot, LT_EXPR, span, check, hashed);
      test (check, key, EQ_EXPR, n, hit (check, 56, slot), hashed);
      hashed->count = keyed->count - check->count.apply_probability (likely);
    }
  test (hashed, hkey, EQ_EXPR, n, hit (hashed, 80, h), miss);
  miss->count = hashed->count - hashed->count.apply_probability (likely);
}

/* CALL of libprof, which reads and moves the root's registers, into SEQ:
   with the locals stored before and loaded after.  */
static void
emit_ip_slow (site_state &s, gimple *call, gimple_seq *seq)
{
  if (s.ip_width)
    ip_store_locals (s, seq);
  gimple_seq_add_stmt (seq, call);
  if (s.ip_width)
    ip_load_locals (s, NULL_TREE, seq);
}

/* Splits CALL's block after it and takes CALL out (to go on a path of its
   own): the edge from the block, now without CALL, to the rest.  */
static edge
take_out (gimple *call)
{
  edge e = split_block (gimple_bb (call), call);
  gimple_stmt_iterator gsi = gsi_for_stmt (call);
  gsi_remove (&gsi, false);
  return e;
}

/* h = __pathprof_ip_mix (h, w) of pathprof-abi.h into SEQ (H NULL_TREE:
   0).  */
static tree
emit_mix (gimple_seq *seq, tree h, tree w)
{
  tree u64 = counter_type ();
  tree x = h ? emit_value (seq, u64, BIT_XOR_EXPR, h, w, "PP_ip_mix") : w;
  x = emit_value (seq, u64, MULT_EXPR, x, build_int_cstu (u64, 0x9e3779b97f4a7c15u),
		  "PP_ip_mix");
  return emit_value (seq, u64, BIT_XOR_EXPR, x,
		     emit_value (seq, u64, RSHIFT_EXPR, x,
				 build_int_cst (unsigned_type_node, 29), "PP_ip_mix"),
		     "PP_ip_mix");
}

/* A backedge's cut in place for context and piecewise paths
   (pathprof-abi.h, "Context and piecewise paths"), in block CUT, where the
   edge's first value V (in the function's row VALUES, the edge's words at
   byte AT; F the frame) has its top bit set:
       regs = f->regs;
       if ((key = regs[2]) != 0
           && (a = regs[0] + (v & ~TOP), b = regs[1] + values[2],
               t = (struct __pathprof_ip_table *) regs[3],
               s = &t->slots[__pathprof_ip_home (t, key, a, b)],
               ((s->ctx1 ^ key) | (s->a ^ a) | (s->b ^ b)) == 0))
         { s->count += 1; regs[0] = values[1]; regs[1] = values[3]; }
       else
         SLOW (EDGE)
   then JOIN.  */
static void
context_cut (const probe_target &t, tree f, tree values, tree v, unsigned at,
	     basic_block cut, basic_block slow, basic_block join)
{
  tree u64 = counter_type (), ptr = build_pointer_type (u64);
  profile_probability likely = profile_probability::very_likely ();
  gimple_seq seq = NULL;
  tree regs = emit_load (&seq, ptr, f, FRAME_REGS, "PP_ip_regs");
  tree key = emit_load (&seq, u64, regs, 16, "PP_ip_key");
  gimple_stmt_iterator gsi = gsi_start_bb (cut);
  gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);

  seq = NULL;
  tree a = emit_value (&seq, u64, PLUS_EXPR, emit_load (&seq, u64, regs, 0, "PP_ip_a"),
		       emit_value (&seq, u64, BIT_AND_EXPR, v,
				   build_int_cstu (u64, ~((uint64_t) 1 << 63)), "PP_ip_out"),
		       "PP_ip_a");
  tree b = emit_value (&seq, u64, PLUS_EXPR, emit_load (&seq, u64, regs, 8, "PP_ip_b"),
		       emit_load (&seq, u64, values, at + 16, "PP_ip_out"), "PP_ip_b");
  tree table = emit_value (&seq, ptr, NOP_EXPR, emit_load (&seq, u64, regs, 24, "PP_ip_table"),
			   NULL_TREE, "PP_ip_table");
  tree h = emit_value (&seq, u64, BIT_AND_EXPR,
		       emit_mix (&seq, emit_mix (&seq, emit_mix (&seq, NULL_TREE, key), a), b),
		       emit_load (&seq, u64, table, 8, "PP_ip_mask"), "PP_ip_home");
  tree slot = emit_value (&seq, ptr, POINTER_PLUS_EXPR,
			  emit_value (&seq, ptr, NOP_EXPR,
				      emit_load (&seq, u64, table, 0, "PP_ip_slots"),
				      NULL_TREE, "PP_ip_slots"),
			  emit_value (&seq, sizetype, MULT_EXPR,
				      emit_value (&seq, sizetype, NOP_EXPR, h, NULL_TREE,
						  "PP_ip_home"),
				      size_int (32), "PP_ip_home"),
			  "PP_ip_slot");
  auto differ = [&] (unsigned offset, tree want) {
    return emit_value (&seq, u64, BIT_XOR_EXPR,
		       emit_load (&seq, u64, slot, offset, "PP_ip_key"), want, "PP_ip_differ");
  };
  tree d = emit_value (&seq, u64, BIT_IOR_EXPR, differ (0, key), differ (8, a), "PP_ip_differ");
  d = emit_value (&seq, u64, BIT_IOR_EXPR, d, differ (16, b), "PP_ip_differ");
  basic_block look = new_block_of (cut, seq, NULL);

  seq = NULL;
  emit_increment (t, build2 (MEM_REF, u64, slot, build_int_cst (ptr, 24)), &seq);
  for (unsigned k = 0; k < 2; k++)
    gimple_seq_add_stmt (&seq, gimple_build_assign (
      build2 (MEM_REF, u64, regs, build_int_cst (ptr, 8 * k)),
      emit_load (&seq, u64, values, at + 8 + 16 * k, "PP_ip_in")));
  basic_block hit = new_block_of (look, seq, join);

  branch (cut, make_single_succ_edge (cut, look, EDGE_FALLTHRU),
	  gimple_build_cond (NE_EXPR, key, build_int_cst (u64, 0), NULL_TREE, NULL_TREE),
	  look, slow, likely);
  look->count = cut->count.apply_probability (likely);
  branch (look, make_single_succ_edge (look, hit, EDGE_FALLTHRU),
	  gimple_build_cond (EQ_EXPR, d, build_int_cst (u64, 0), NULL_TREE, NULL_TREE),
	  hit, slow, likely);
  hit->count = look->count.apply_probability (likely);
  slow->count = cut->count - hit->count;
}

/* Replaces the call __pathprof_ip_edge (frame, e) of an interprocedural
   function by __pathprof_ip_step of pathprof-abi.h for its probe's operand2 ARG
   (plan.h: the WIDTH registers the activations add, and whether the edge
   CUTS), the call staying on the unlikely path (w = 2 WIDTH words per
   edge):
       f = (struct __pathprof_ip_frame *) frame; regs = f->regs;
       v = f->values[w e];
       if ((int64_t) v >= 0)
         { regs[0] += v;  (WIDTH 2: regs[1] += f->values[w e + 2]) }
       else
         __pathprof_ip_edge (frame, e);
   On an edge that CUTS (a loop's backedge, where segments end) the
   segment, number n = (regs[0] + v) & ~TOP, ends in place where it can
   (kseg-runtime.c, "In place"), next = f->values[w e + 1]:
       else if ((i = n - regs[2]) < regs[3])
         end: ((uint64_t *) regs[4])[i] += 1
       else if (WIDTH 2 and (k = regs[1] + f->values[w e + 2]) < regs[5]
                and ((uint64_t *) regs[6])[k] == n)
         end: ((uint64_t *) regs[7])[k] += 1
       else if (((uint64_t *) regs[9])[h] == n,
                h = ((n * PATHPROF_IP_HASH) >> 32) & regs[8])
         end: ((uint64_t *) regs[10])[h] += 1
       else if (next)
         __pathprof_ip_cut (frame, e, n, next);
       else
         __pathprof_ip_edge (frame, e);
   (end: regs[0 .. 4] = next[0 .. 4]).  The registers are the
   calling thread's; a count is atomic when the program is built for
   threads (emit_increment).  Where the function keeps r and q in locals
   (site_state::ip_width), regs[0] and regs[1] above are those, and the
   calls of libprof store them before and load them after.  */
static void
expand_step (const probe_target &t, site_state &s, gimple *call, uint32_t arg)
{
  unsigned width = arg & PP_PROBE_IP_WIDTH;
  tree u64 = counter_type (), s64 = signed_type_for (u64);
  tree ptr = build_pointer_type (u64);
  tree frame = gimple_call_arg (call, 0);
  unsigned e = (unsigned) tree_to_uhwi (gimple_call_arg (call, 1));
  unsigned at = 16 * width * e;	/* the edge's words, in bytes */
  edge to_add = take_out (call);
  basic_block bb = to_add->src, join = to_add->dest;
  gimple_stmt_iterator gsi;
  profile_probability likely = profile_probability::very_likely ();

  gimple_seq seq = NULL;
  tree f = emit_value (&seq, ptr, NOP_EXPR, frame, NULL_TREE, "PP_ip_frame");
  tree values = s.ip_width ? emit_address (&seq, s.ip_values, "PP_ip_values")
		: emit_load (&seq, ptr, f, FRAME_VALUES, "PP_ip_values");
  tree v = emit_load (&seq, u64, values, at, "PP_ip_value");
  tree sv = emit_value (&seq, s64, NOP_EXPR, v, NULL_TREE, "PP_ip_value");
  gsi = gsi_last_bb (bb);
  gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);

  /* The add.  */
  seq = NULL;
  tree regs = s.ip_width ? NULL_TREE : emit_load (&seq, ptr, f, FRAME_REGS, "PP_ip_regs");
  for (unsigned k = 0; k < width; k++)
    {
      tree value = k == 0 ? v : emit_load (&seq, u64, values, at + 16, "PP_ip_value");
      store_ip_reg (s, regs, k,
		    emit_value (&seq, u64, PLUS_EXPR, load_ip_reg (s, regs, k, &seq),
				value, "PP_ip_reg"), &seq);
    }
  basic_block add = new_block_of (bb, seq, join);
  seq = NULL;
  emit_ip_slow (s, call, &seq);
  basic_block slow = new_block_of (add, seq, join);
  basic_block cut = (arg & PP_PROBE_IP_CUTS) ? new_block (slow) : slow;
  branch (bb, to_add, gimple_build_cond (GE_EXPR, sv, build_int_cst (s64, 0),
					 NULL_TREE, NULL_TREE), add, cut, likely);
  add->count = bb->count.apply_probability (likely);
  cut->count = bb->count - add->count;
  if (cut == slow)
    return;
  if (!t.calls_in_place)
    {
      context_cut (t, f, values, v, at, cut, slow, join);
      return;
    }

  /* A cut: the number, its place.  */
  seq = NULL;
  regs = s.ip_width ? emit_address (&seq, s.ip_regs, "PP_ip_regs")
	 : emit_load (&seq, ptr, f, FRAME_REGS, "PP_ip_regs");
  tree n = emit_value (&seq, u64, BIT_AND_EXPR,
		       emit_value (&seq, u64, PLUS_EXPR, load_ip_reg (s, regs, 0, &seq),
				   v, "PP_ip_number"),
		       build_int_cstu (u64, ~((uint64_t) 1 << 63)), "PP_ip_number");
  tree next = emit_value (&seq, ptr, NOP_EXPR,
			  emit_load (&seq, u64, values, at + 8, "PP_ip_next"),
			  NULL_TREE, "PP_ip_next");
  tree slot = width == 2
	      ? emit_value (&seq, u64, PLUS_EXPR, load_ip_reg (s, regs, 1, &seq),
			    emit_load (&seq, u64, values, at + 16, "PP_ip_value"),
			    "PP_ip_slot")
	      : NULL_TREE;
  gsi = gsi_start_bb (cut);
  gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);

  /* No place for n: libprof's CUT counts it and starts the next segment,
     or where there is no next start (w 0), EDGE does what else must be.  */
  basic_block far = new_block (cut);
  seq = NULL;
  emit_ip_slow (s, gimple_build_call (t.ip_cut, 4, frame,
				      build_int_cst (unsigned_type_node, e), n, next),
		&seq);
  basic_block to_cut = new_block_of (far, seq, join);
  branch (far, make_single_succ_edge (far, to_cut, EDGE_FALLTHRU),
	  gimple_build_cond (NE_EXPR, next, build_int_cst (ptr, 0), NULL_TREE,
			     NULL_TREE), to_cut, slow, likely);
  count_in_place (t, cut, regs, n, slot, [&] () { return segment_end (s, regs, next); },
		  join, far);
  to_cut->count = far->count.apply_probability (likely);
  slow->count = far->count - to_cut->count;
}

/* Calls that end the process without running exit handlers (or replace it):
   libprof must write the profile before them.  */
static bool
ends_process_without_exit_handlers (gcall *call)
{
  tree fndecl = gimple_call_fndecl (call);
  if (!fndecl || !DECL_NAME (fndecl))
    return false;
  static const char *const names[] = {
    "abort", "_exit", "_Exit", "quick_exit", "__assert_fail",
    "execl", "execle", "execlp", "execv", "execve", "execvp", "execvpe",
    "fexecve", NULL
  };
  const char *name = IDENTIFIER_POINTER (DECL_NAME (fndecl));
  for (const char *const *n = names; *n; n++)
    if (strcmp (name, *n) == 0)
      return DECL_EXTERNAL (fndecl) || fndecl_built_in_p (fndecl);
  return false;
}

/* __pathprof_ip_call_step of pathprof-abi.h (segments): the call INDEX of
   CALLEE named in the frame, the frame in __pathprof_ip_caller.  */
static void
call_in_place (const probe_target &t, site_state &s, tree index, tree callee,
	       gimple_seq *seq)
{
  tree u64 = counter_type (), u32 = unsigned_type_node;
  tree ptr = build_pointer_type (u64);
  if (s.ip_width)
    ip_store_locals (s, seq);
  tree word = load_frame (s, seq);
  tree f = emit_value (seq, ptr, NOP_EXPR, word, NULL_TREE, "PP_ip_frame");
  tree pptr = build_pointer_type (ptr_type_node), p32 = build_pointer_type (u32);
  gimple_seq_add_stmt (seq, gimple_build_assign (
    build2 (MEM_REF, ptr_type_node, f, build_int_cst (pptr, FRAME_TAG)),
    emit_value (seq, ptr_type_node, NOP_EXPR, callee, NULL_TREE, "PP_ip_callee")));
  gimple_seq_add_stmt (seq, gimple_build_assign (
    build2 (MEM_REF, u32, f, build_int_cst (p32, FRAME_SITE)), index));
  gimple_seq_add_stmt (seq, gimple_build_assign (
    build2 (MEM_REF, u32, f, build_int_cst (p32, FRAME_ENTERED)),
    build_int_cst (u32, 0)));
  gimple_seq_add_stmt (seq, gimple_build_assign (t.ip_caller, word));
}

/* (A ^ B) | (C ^ D) into SEQ, 0 where A is B and C is D (unsigned ints).  */
static tree
emit_both_equal (gimple_seq *seq, tree a, tree b, tree c, tree d)
{
  tree u32 = unsigned_type_node;
  return emit_value (seq, u32, BIT_IOR_EXPR,
		     emit_value (seq, u32, BIT_XOR_EXPR, a, b, "PP_ip_same"),
		     emit_value (seq, u32, BIT_XOR_EXPR, c, d, "PP_ip_same"),
		     "PP_ip_same");
}

/* The end of EDGE's source (whose code TEST computes A, B and FLAG, the
   edge leading to the rest) tests ((A ^ B) | (FLAG ^ 1)) == 0: where it
   holds, the likely case, the code FAST runs, else CALL.  */
static void
fast_or_call (edge to_join, gimple_seq test, tree a, tree b, tree flag,
	      gimple_seq fast, gimple *call)
{
  tree u32 = unsigned_type_node;
  basic_block bb = to_join->src, join = to_join->dest;
  profile_probability likely = profile_probability::very_likely ();
  tree x = emit_both_equal (&test, a, b, flag, build_int_cst (u32, 1));
  gimple_stmt_iterator gsi = gsi_last_bb (bb);
  gsi_insert_seq_after (&gsi, test, GSI_NEW_STMT);
  basic_block done = new_block_of (bb, fast, join);
  gimple_seq seq = NULL;
  gimple_seq_add_stmt (&seq, call);
  basic_block slow = new_block_of (done, seq, join);
  branch (bb, to_join, gimple_build_cond (EQ_EXPR, x, build_int_cst (u32, 0),
					  NULL_TREE, NULL_TREE), done, slow, likely);
  done->count = bb->count.apply_probability (likely);
  slow->count = bb->count - done->count;
}

/* Before fast_or_call's slow block, which calls CALL: a block whose code
   SEQ computes X, going on where X is 0 (likely) to a block whose code is
   THEN, which it returns (without a way out), else to the call.  */
static basic_block
zero_before_call (gimple *call, gimple_seq seq, tree x, gimple_seq then)
{
  basic_block slow = gimple_bb (call);
  edge into = single_pred_edge (slow);
  basic_block here = new_block_of (into->src, seq, NULL);
  redirect_edge_succ (into, here);
  here->count = into->count ();
  basic_block next = new_block_of (here, then, NULL);
  profile_probability likely = profile_probability::likely ();
  branch (here, make_single_succ_edge (here, next, EDGE_FALLTHRU),
	  gimple_build_cond (EQ_EXPR, x, build_int_cst (TREE_TYPE (x), 0),
			     NULL_TREE, NULL_TREE), next, slow, likely);
  next->count = here->count.apply_probability (likely);
  return next;
}

/* Replaces the call __pathprof_ip_return (frame, k) of a segments function
   by __pathprof_ip_return_step of pathprof-abi.h, the call staying on the
   unlikely path:
       f = (struct __pathprof_ip_frame *) frame;
       if (((f->site ^ k) | (f->entered ^ 1)) == 0)
         f->site = UINT32_MAX;
       else if (((f->site ^ k) | (f->depth ^ __pathprof_ip_depth)) == 0
                && (int64_t) f->calls[2 k] >= 0)
         { f->regs[0] += f->calls[2 k]; f->regs[1] += f->calls[2 k + 1];
           f->site = UINT32_MAX; }
       else
         __pathprof_ip_return (frame, k);
   (q's add only in the preferential modes).  */
static void
expand_return (const probe_target &t, gimple *call)
{
  tree u64 = counter_type (), s64 = signed_type_for (u64), u32 = unsigned_type_node;
  tree ptr = build_pointer_type (u64);
  tree frame = gimple_call_arg (call, 0), k = gimple_call_arg (call, 1);
  edge to_join = take_out (call);
  basic_block join = to_join->dest;
  gimple_seq test = NULL, fast = NULL;
  tree f = emit_value (&test, ptr, NOP_EXPR, frame, NULL_TREE, "PP_ip_frame");
  tree site = emit_load (&test, u32, f, FRAME_SITE, "PP_ip_site");
  tree entered = emit_load (&test, u32, f, FRAME_ENTERED, "PP_ip_entered");
  tree end_call = build2 (MEM_REF, u32, f, build_int_cst (build_pointer_type (u32),
							  FRAME_SITE));
  gimple_seq_add_stmt (&fast, gimple_build_assign (end_call, build_int_cst (u32, -1)));
  fast_or_call (to_join, test, site, k, entered, fast, call);
  if (tree_to_uhwi (k) >= PP_PLAN_IP_INLINE_EDGES)
    return;			/* beyond a frame without S's words (zeros) */

  /* fast_or_call's slow block, which calls RETURN: first the callee that
     did not continue, from the top of the stack, whose call adds.  */
  basic_block slow = gimple_bb (call);
  profile_count total = slow->count;
  profile_probability likely = profile_probability::likely ();
  gimple_seq seq = NULL, then = NULL;
  tree d = emit_load (&seq, u32, f, FRAME_DEPTH, "PP_ip_depth");
  tree top = emit_value (&seq, u32, NOP_EXPR, t.ip_depth, NULL_TREE, "PP_ip_depth");
  tree same = emit_both_equal (&seq, site, k, d, top);
  unsigned at = 16 * (unsigned) tree_to_uhwi (k);
  tree calls = emit_load (&then, ptr, f, FRAME_CALLS, "PP_ip_calls");
  tree v = emit_load (&then, u64, calls, at, "PP_ip_value");
  tree sv = emit_value (&then, s64, NOP_EXPR, v, NULL_TREE, "PP_ip_value");
  basic_block check = zero_before_call (call, seq, same, then);
  seq = NULL;
  tree regs = emit_load (&seq, ptr, f, FRAME_REGS, "PP_ip_regs");
  for (unsigned r = 0; r < t.ip_width; r++)
    {
      tree value = r == 0 ? v : emit_load (&seq, u64, calls, at + 8, "PP_ip_value");
      gimple_seq_add_stmt (&seq, gimple_build_assign (
	build2 (MEM_REF, u64, regs, build_int_cst (ptr, 8 * r)),
	emit_value (&seq, u64, PLUS_EXPR, emit_load (&seq, u64, regs, 8 * r, "PP_ip_reg"),
		    value, "PP_ip_reg")));
    }
  gimple_seq_add_stmt (&seq, gimple_build_assign (unshare_expr (end_call),
						  build_int_cst (u32, -1)));
  basic_block adds = new_block_of (check, seq, join);
  branch (check, make_single_succ_edge (check, adds, EDGE_FALLTHRU),
	  gimple_build_cond (GE_EXPR, sv, build_int_cst (s64, 0), NULL_TREE, NULL_TREE),
	  adds, slow, likely);
  adds->count = check->count.apply_probability (likely);
  slow->count = total - adds->count;
}

/* Replaces the call __pathprof_ip_exit (frame) of a segments function by
   __pathprof_ip_exit_step of pathprof-abi.h, the call staying on the
   unlikely path:
       f = (struct __pathprof_ip_frame *) frame; d = f->depth;
       if (((d ^ __pathprof_ip_depth) | (f->exit_adds ^ 1)) == 0)
         { f->regs[0] += f->ret[0]; f->regs[1] += f->ret[1];
           __pathprof_ip_depth = d - 1; }
       else if (((d ^ __pathprof_ip_depth) | (f->exit_adds ^ 2)) == 0
                and segment f->regs[0] & ~TOP has a place (count_in_place))
         { its count += 1; __pathprof_ip_depth = d - 1; }
       else
         __pathprof_ip_exit (frame);  */
static void
expand_exit (const probe_target &t, gimple *call)
{
  tree u64 = counter_type (), u32 = unsigned_type_node;
  tree ptr = build_pointer_type (u64);
  tree frame = gimple_call_arg (call, 0);
  edge to_join = take_out (call);
  basic_block join = to_join->dest;
  gimple_seq test = NULL, fast = NULL;
  tree f = emit_value (&test, ptr, NOP_EXPR, frame, NULL_TREE, "PP_ip_frame");
  tree d = emit_load (&test, u32, f, FRAME_DEPTH, "PP_ip_depth");
  tree top = emit_value (&test, u32, NOP_EXPR, t.ip_depth, NULL_TREE, "PP_ip_depth");
  tree adds = emit_load (&test, u32, f, FRAME_EXIT_ADDS, "PP_ip_adds");
  tree regs = emit_load (&fast, ptr, f, FRAME_REGS, "PP_ip_regs");
  for (unsigned k = 0; k < 2; k++)
    {
      tree value = emit_load (&fast, u64, f, FRAME_RET + 8 * k, "PP_ip_ret");
      tree old_value = emit_load (&fast, u64, regs, 8 * k, "PP_ip_reg");
      gimple_seq_add_stmt (&fast, gimple_build_assign (
	build2 (MEM_REF, u64, regs, build_int_cst (ptr, 8 * k)),
	emit_value (&fast, u64, PLUS_EXPR, old_value, value, "PP_ip_reg")));
    }
  auto pop = [&] () {
    gimple_seq seq = NULL;
    gimple_seq_add_stmt (&seq, gimple_build_assign (
      t.ip_depth, emit_value (&seq, u32, MINUS_EXPR, d, build_int_cst (u32, 1),
			      "PP_ip_depth")));
    return seq;
  };
  gimple_seq_add_seq (&fast, pop ());
  fast_or_call (to_join, test, d, top, adds, fast, call);

  /* fast_or_call's slow block, which calls EXIT: first a root's, which
     counts its segment in place where it can.  */
  basic_block slow = gimple_bb (call);
  profile_count total = slow->count;
  gimple_seq seq = NULL, then = NULL;
  tree root = emit_both_equal (&seq, d, top, adds, build_int_cst (u32, 2));
  tree rregs = emit_load (&then, ptr, f, FRAME_REGS, "PP_ip_regs");
  tree n = emit_value (&then, u64, BIT_AND_EXPR, emit_load (&then, u64, rregs, 0, "PP_ip_reg"),
		       build_int_cstu (u64, ~((uint64_t) 1 << 63)), "PP_ip_number");
  tree slot = t.ip_width == 2 ? emit_load (&then, u64, rregs, 8, "PP_ip_q") : NULL_TREE;
  basic_block counts = zero_before_call (call, seq, root, then);
  count_in_place (t, counts, rregs, n, slot, pop, join, slow);
  slow->count = total - counts->count.apply_probability (profile_probability::likely ());
}

/* The interprocedural mode's probes around the calls of the notes (CALL
   before, RETURN after, on the block's normal edge, before that edge's
   probes, when the call ends its block; none around setjmp, whose block's
   LAND probe stands for its return) and before computed gotos (JUMP).
   CALLS was listed before any probe went in.  */
static void
insert_call_probes (const probe_target &t, site_state &s,
		    const auto_vec<gcall *> &calls)
{
  for (unsigned k = 0; k < calls.length (); k++)
    {
      gcall *call = calls[k];
      if (gimple_call_flags (call) & ECF_RETURNS_TWICE)
	continue;
      /* The callee's address, which its ENTER compares with its own: none
	 for an indirect call, nor for a GCC builtin (never instrumented;
	 some, as __builtin_longjmp, have no address to take).  */
      tree fndecl = gimple_call_fndecl (call);
      tree callee = fndecl && !fndecl_built_in_p (fndecl)
		    ? build_fold_addr_expr (fndecl) : null_pointer_node;
      /* The probes bracket the call: it must stay between them.  A callee
	 instrumented in this unit is no longer const (instrument_unit clears
	 its decl's flags: it writes memory), but the C front end marks the
	 call's function type const too, and GCC's sinking then moved the
	 call past its RETURN probe.  Calls of other units' functions keep
	 their flags, as the plugin left them before.  */
      if (fndecl && !DECL_EXTERNAL (fndecl) && !fndecl_built_in_p (fndecl)
	  && (flags_from_decl_or_type (gimple_call_fntype (call)) & ECF_CONST))
	gimple_call_set_fntype (call, TYPE_MAIN_VARIANT (gimple_call_fntype (call)));
      tree index = build_int_cst (unsigned_type_node, k);
      gimple_seq before = NULL, after = NULL;
      if (t.calls_in_place)
	call_in_place (t, s, index, callee, &before);
      else
	emit_trace_call (t.ip_call, s, true, index, callee, &before);
      gimple_stmt_iterator gsi = gsi_for_stmt (call);
      gsi_insert_seq_before (&gsi, before, GSI_SAME_STMT);
      if (gimple_call_flags (call) & ECF_NORETURN)
	continue;
      gimple *ret = emit_trace_call (t.ip_return, s, true, index, NULL_TREE, &after);
      if (t.calls_in_place)
	s.returns.safe_push (ret);	/* expand_return */
      if (s.ip_width)
	ip_load_locals (s, NULL_TREE, &after);
      basic_block bb = gimple_bb (call);
      if (call != last_stmt (bb) && !stmt_ends_bb_p (call))
	{
	  gsi = gsi_for_stmt (call);
	  gsi_insert_seq_after (&gsi, after, GSI_SAME_STMT);
	  continue;
	}
      edge e;
      edge_iterator ei;
      FOR_EACH_EDGE (e, ei, bb->succs)
	if (!(e->flags & (EDGE_ABNORMAL | EDGE_EH | EDGE_FAKE)))
	  {
	    insert_on_edge_first (e, after);
	    break;
	  }
    }
  basic_block bb;
  FOR_EACH_BB_FN (bb, cfun)
    {
      gimple *last = last_stmt (bb);
      if (last && gimple_code (last) == GIMPLE_GOTO
	  && TREE_CODE (gimple_goto_dest (last)) != LABEL_DECL)
	{
	  gimple_seq seq = NULL;
	  emit_trace_call (t.ip_jump, s, true,
			   build_int_cst (unsigned_type_node, bb->index), NULL_TREE,
			   &seq);
	  gimple_stmt_iterator gsi = gsi_for_stmt (last);
	  gsi_insert_seq_before (&gsi, seq, GSI_SAME_STMT);
	}
    }
}

static void
insert_flushes (const probe_target &t)
{
  basic_block bb;
  FOR_EACH_BB_FN (bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);
	 gsi_next (&gsi))
      if (gcall *call = dyn_cast<gcall *> (gsi_stmt (gsi)))
	if (ends_process_without_exit_handlers (call))
	  {
	    gcall *flush = gimple_build_call (t.flush, 0);
	    gimple_set_location (flush, gimple_location (call));
	    gsi_insert_before (&gsi, flush, GSI_SAME_STMT);
	  }
}

void
insert_probes (const function_record &rec, const probe_target &t)
{
  const pp_plan &plan = rec.plan;
  site_state s;
  s.ip_width = ip_locals_fit (plan, t);
  auto_vec<gcall *> calls;
  if (t.calls)
    function_calls (calls);
  announce_direct_calls (rec, t);
  for (uint32_t i = 0; i < plan.nprobes;)
    {
      const pp_probe &first = plan.probes[i];
      uint32_t end = i + 1;
      while (end < plan.nprobes && plan.probes[end].site == first.site
	     && plan.probes[end].where == first.where)
	end++;
      gimple_seq seq = NULL;
      s.value = load_register (plan, i, end, reads_register, path_register, s,
			       &seq);
      /* A packed plan has no second register (plan.h).  */
      s.value2 = plan.pack_bits ? NULL_TREE
		 : load_register (plan, i, end, reads_ppp_register, ppp_register,
				  s, &seq);
      for (uint32_t k = i; k < end; k++)
	emit_action (rec, t, plan.probes[k], s, &seq);
      insert_at_site (rec, first.site, first.where, seq);
      i = end;
    }
  if (t.calls)
    insert_call_probes (t, s, calls);
  insert_flushes (t);
  gsi_commit_edge_inserts ();
  for (gimple *marker : s.keyed)
    expand_keyed (rec, t, marker);
  for (gimple *call : s.witnesses)
    expand_witness (t, call, pp_trace_width (plan.nvalues));
  for (gimple *call : s.trace_returns)
    expand_witness (t, call, pp_trace_width (plan.nvalues), true);
  if (s.enter)
    expand_enter (t, s.enter, s.frame, rec.index, pp_trace_width (plan.nvalues));
  for (unsigned k = 0; k < s.steps.length (); k++)
    expand_step (t, s, s.steps[k], s.step_args[k]);
  for (gimple *call : s.returns)
    expand_return (t, call);
  for (gimple *call : s.exits)
    expand_exit (t, call);
}
