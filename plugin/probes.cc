/* pathprof plugin, the inserter: walks a function's plan (corelib/format/probes.h) and
   emits the GIMPLE of each probe, one sequence per probe site, in plan order.
   Nothing here depends on the mode: an action is one case of emit_action, and
   emit_increment is the one place that chooses a plain or an atomic update.
   Then a flush goes before every call that ends the process without running
   exit handlers, and the edge insertions are committed.  */

#include "probes.h"
#include "corelib/trace.h"

/* Counts one execution of path PATH (an SSA name or a constant): in the
   function's slice of the values, or in its libprof hash table; a clone
   for another unit's compiled root (compiled.cc), in the root's array or
   table, whose address the root's unit exports in REC.xroot.  */
static void
emit_path_count (const function_record &rec, const probe_target &t, tree path,
		 gimple_seq *seq)
{
  if (rec.xroot)
    {
      tree u64 = counter_type (), p64 = build_pointer_type (u64);
      tree at = emit_value (seq, ptr_type_node, NOP_EXPR, rec.xroot, NULL_TREE, "PP_xroot");
      if (rec.plan.path_table)
	{
	  gimple_seq_add_stmt (seq, gimple_build_call (t.count_path, 2, at, path));
	  return;
	}
      tree offset = emit_value (seq, sizetype, NOP_EXPR,
				emit_value (seq, u64, MULT_EXPR, path, build_int_cstu (u64, 8),
					    "PP_index"),
				NULL_TREE, "PP_index");
      tree count = emit_value (seq, p64, POINTER_PLUS_EXPR,
			       emit_value (seq, p64, NOP_EXPR, at, NULL_TREE, "PP_xroot"),
			       offset, "PP_count");
      emit_increment (t, build2 (MEM_REF, u64, count, build_int_cst (p64, 0)), seq);
      return;
    }
  if (rec.path_table >= 0)
    {
      gimple_seq_add_stmt (seq, gimple_build_call (t.count_path, 2,
						    build_fold_addr_expr (
						      path_table_ref (t, rec.path_table)),
						    path));
      return;
    }
  tree index = emit_value (seq, counter_type (), PLUS_EXPR, path,
			   build_int_cstu (counter_type (), rec.value_offset),
			   "PP_index");
  emit_increment (t, value_ref (t, index), seq);
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

static bool
reads_register (uint8_t action)
{
  return action == PP_PROBE_PATH_COUNT || action == PP_PROBE_PATH_ADD
	 || action == PP_PROBE_PATH_COUNT_KEYED || action == PP_PROBE_PATH_PASS
	 || action == PP_PROBE_PATH_LEAVE;
}

static bool
reads_ppp_register (uint8_t action)
{
  return action == PP_PROBE_PPP_ADD || action == PP_PROBE_PATH_COUNT_KEYED;
}

static bool
sets_register (uint8_t action)
{
  return action == PP_PROBE_PATH_SET || action == PP_PROBE_PATH_TAKE;
}

static bool
sets_ppp_register (uint8_t action)
{
  return action == PP_PROBE_PPP_SET;
}

/* The value of register REG at the start of a site (probes FIRST .. END-1 of
   PLAN), loaded into SEQ when one of them READS it before one SETS it,
   else NULL_TREE.  */
static tree
load_register (const pp_plan &plan, uint32_t first, uint32_t end,
	       bool (*reads) (uint8_t), bool (*sets) (uint8_t), tree (*reg) (site_state &),
	       site_state &s, gimple_seq *seq)
{
  for (uint32_t k = first; k < end; k++)
    if (sets (plan.probes[k].action))
      return NULL_TREE;
    else if (reads (plan.probes[k].action))
      {
	tree value = make_temp_ssa_name (counter_type (), NULL, "PP_path");
	gimple_seq_add_stmt (seq, gimple_build_assign (value, reg (s)));
	return value;
      }
  return NULL_TREE;
}

/* Do the probes FIRST .. END-1 of PLAN (one site) take the register and
   pass it back, the record untouched between (no leave)?  */
static bool
takes_to_pass (const pp_plan &plan, uint32_t first, uint32_t end)
{
  bool taken = false;
  for (uint32_t k = first; k < end; k++)
    if (plan.probes[k].action == PP_PROBE_PATH_TAKE)
      taken = true;
    else if (plan.probes[k].action == PP_PROBE_PATH_LEAVE)
      return false;
    else if (plan.probes[k].action == PP_PROBE_PATH_PASS)
      return taken;
  return false;
}

/* Does an add of V need more than a 32-bit immediate (x86-64's add, sign
   extended)?  Such a constant is a movabs into a register and the add,
   where a load from the value array is one add from memory: SQLite's
   compiled roots with 2^63 segments added 108 M of them a run.  */
static bool
wide_constant_p (uint64_t v)
{
  return (uint64_t) (int64_t) (int32_t) (uint32_t) v != v;
}

/* The constants P adds to a path register through emit_sum, as they go
   into emit_action's code below.  */
static void
summed_operands (const pp_plan &plan, const pp_probe &p, vec<uint64_t> &out)
{
  switch ((enum pp_probe_action) p.action)
    {
    case PP_PROBE_PATH_COUNT_KEYED:
      if (!plan.pack_bits)
	out.safe_push (p.operand2);
      /* Fall through.  */
    case PP_PROBE_PATH_COUNT:
    case PP_PROBE_PATH_ADD:
    case PP_PROBE_PATH_PASS:
    case PP_PROBE_PATH_TAKE:
    case PP_PROBE_PPP_ADD:
      out.safe_push (p.operand);
      return;
    case PP_PROBE_PATH_LEAVE:
      if (p.operand2 != PP_LEAVE_NONE)
	out.safe_push (p.operand);
      return;
    default:
      return;
    }
}

void
wide_operands (const pp_plan &plan, vec<uint64_t> &out)
{
  auto_vec<uint64_t> ops;
  for (uint32_t k = 0; k < plan.nprobes; k++)
    summed_operands (plan, plan.probes[k], ops);
  for (uint64_t v : ops)
    if (wide_constant_p (v))
      out.safe_push (v);
}

/* SUM = VALUE + OPERAND into SEQ; a wide constant OPERAND is read from its
   word in T's value array (probe_target.wide).  */
static tree
emit_sum (const probe_target &t, tree value, tree operand, gimple_seq *seq)
{
  uint64_t v = TREE_CODE (operand) == INTEGER_CST ? TREE_INT_CST_LOW (operand) : 0;
  uint32_t lo = 0, hi = t.nwide;
  while (wide_constant_p (v) && lo < hi)
    {
      uint32_t mid = lo + (hi - lo) / 2;
      if (t.wide[mid] < v)
	lo = mid + 1;
      else
	hi = mid;
    }
  /* wide_operands lists every constant emit_action sums: one missing is a
     plugin bug that -fchecking reports, and elsewhere costs a movabs.  */
  bool found = wide_constant_p (v) && lo < t.nwide && t.wide[lo] == v;
  gcc_assert (!flag_checking || !wide_constant_p (v) || !t.nwide || found);
  if (found)
    {
      tree word = build4 (ARRAY_REF, TREE_TYPE (TREE_TYPE (t.wide_values)),
			  t.wide_values,
			  build_int_cst (integer_type_node, t.wide_offset + lo),
			  NULL_TREE, NULL_TREE);
      operand = make_temp_ssa_name (counter_type (), NULL, "PP_wide");
      gimple_seq_add_stmt (seq, gimple_build_assign (operand, word));
    }
  return emit_value (seq, counter_type (), PLUS_EXPR, value, operand, "PP_path");
}

/* The Ball-Larus number in NUMBER, the register's value at a path end: in a
   packed plan, its high bits (probes.h).  */
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
      emit_path_count (rec, t, unpack_number (rec, emit_sum (t, s.value, operand, seq),
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
	tree number = emit_sum (t, s.value, operand, seq);
	tree slot = rec.plan.pack_bits
		    ? emit_value (seq, counter_type (), BIT_AND_EXPR, number,
				  build_int_cstu (counter_type (),
						  ((uint64_t) 1 << rec.plan.pack_bits) - 1),
				  "PP_slot")
		    : emit_sum (t, s.value2, build_int_cstu (counter_type (), p.operand2),
				seq);
	gimple *marker = gimple_build_call (t.keyed_marker, 2, number, slot);
	gimple_seq_add_stmt (seq, marker);
	s.keyed.safe_push (marker);
	return;
      }
    case PP_PROBE_PATH_ADD:
      s.value = emit_sum (t, s.value, operand, seq);
      gimple_seq_add_stmt (seq, gimple_build_assign (path_register (s), s.value));
      return;
    case PP_PROBE_PATH_SET:
      gimple_seq_add_stmt (seq, gimple_build_assign (path_register (s), operand));
      s.value = operand;
      return;
    case PP_PROBE_PATH_PASS:
      if (rec.passed)
	gimple_seq_add_stmt (seq, gimple_build_call (t.pass_marker, 0));
      gimple_seq_add_stmt (seq, gimple_build_assign (seg_pass_word (t, false),
						     emit_sum (t, s.value, operand, seq)));
      /* Into a copy and back, with the record's address (0 until pushed:
	 compiled.cc, "Records"), which a take at the same site left
	 where it was.  */
      if (rec.record && !s.take_to_pass)
	gimple_seq_add_stmt (seq, gimple_build_assign (
	  seg_pass_word (t, true), emit_value (seq, counter_type (), NOP_EXPR, rec.record,
					 NULL_TREE, "PP_record")));
      return;
    case PP_PROBE_PATH_TAKE:
      {
	/* A second take (probes.h PP_TAKE_APART) loads with volatile
	   loads, which GCC neither merges with the entry's nor hoists to
	   it.  */
	bool apart = p.operand2 & PP_TAKE_APART;
	auto word = [&] (bool record) {
	  tree w = seg_pass_word (t, record);
	  TREE_THIS_VOLATILE (w) = apart;
	  TREE_SIDE_EFFECTS (w) = apart;
	  return w;
	};
	s.value = emit_sum (t, emit_value (seq, counter_type (), NOP_EXPR, word (false),
					NULL_TREE, "PP_path"),
			    operand, seq);
	gimple_seq_add_stmt (seq, gimple_build_assign (path_register (s), s.value));
	/* The record comes with the register: into a copy, and back from
	   one, which may have pushed it (compiled.cc, "Records").  */
	if (rec.record && !s.take_to_pass)
	  gimple_seq_add_stmt (seq, gimple_build_assign (
	    rec.record, emit_value (seq, counter_type (), NOP_EXPR, word (true),
				    NULL_TREE, "PP_record")));
	return;
      }
    case PP_PROBE_PATH_LEAVE:
      {
	/* The record's first word (pathprof-abi.h struct
	   __pathprof_seg_record's leave), the record pushed before a call
	   where it is not yet.  */
	if (p.site == PP_SITE_CALL_BEFORE)
	  {
	    if (rec.passed)
	      gimple_seq_add_stmt (seq, gimple_build_call (t.pass_marker, 0));
	    gimple_seq_add_stmt (seq, gimple_build_call (t.record_marker, 0));
	  }
	tree u64 = counter_type ();
	tree ptr = build_pointer_type (u64);
	tree at = emit_value (seq, ptr, NOP_EXPR,
			      emit_value (seq, u64, NOP_EXPR, rec.record, NULL_TREE,
					  "PP_record"),
			      NULL_TREE, "PP_record");
	tree leave = p.operand2 == PP_LEAVE_NONE ? build_int_cst (u64, 1)
		     : emit_sum (t, s.value, operand, seq);
	gimple_seq_add_stmt (seq, gimple_build_assign (
	  build2 (MEM_REF, u64, at, build_int_cst (ptr, 0)), leave));
	return;
      }
    case PP_PROBE_PPP_ADD:
      s.value2 = emit_sum (t, s.value2, operand, seq);
      gimple_seq_add_stmt (seq, gimple_build_assign (ppp_register (s), s.value2));
      return;
    case PP_PROBE_PPP_SET:
      gimple_seq_add_stmt (seq, gimple_build_assign (ppp_register (s), operand));
      s.value2 = operand;
      return;
    case PP_PROBE_TRACE_ENTER:
      {
	/* The markers (trace-probes.cc, "Markers"): the frame word's local
	   is ENTER's result, each record names its activation by it.  */
	tree key = rec.entered_in_place ? trace_key_address (t, rec.index)
		   : null_pointer_node;
	gcall *call = gimple_build_call (t.trace_m_enter, 5,
					 build_fold_addr_expr (t.unit),
					 build_int_cst (unsigned_type_node, rec.index),
					 build_int_cst (unsigned_type_node, p.operand),
					 key,
					 build_int_cst (unsigned_type_node,
							rec.entered_in_place));
	gimple_call_set_lhs (call, trace_frame (s));
	gimple_seq_add_stmt (seq, call);
	return;
      }
    case PP_PROBE_TRACE_WITNESS:
      {
	bool last = p.operand2 & PP_TRACE_LAST;
	emit_trace_call (last ? t.trace_m_last : t.trace_m_witness, s, true,
			 build_int_cst (unsigned_type_node, p.index),
			 build_int_cst (unsigned_type_node,
					pp_trace_width (rec.plan.nvalues)),
			 seq);
	/* A function that calls setjmp keeps nothing pending: what a local
	   holds when a longjmp returns is not to be relied on (and its setjmp
	   calls, which start their blocks, get no flush before them).  */
	if (!last && cfun->calls_setjmp)
	  emit_trace_flush (t, s, seq);
	return;
      }
    case PP_PROBE_TRACE_LAND:
      /* The bits pending when the block is reached normally go first (none
	 when a longjmp or an exception lands here: a call flushed them).  */
      emit_trace_flush (t, s, seq);
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
					 build_fold_addr_expr (rec.self ? rec.self
							       : current_function_decl));
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
      /* The block's probes run before the edge's own (inserted earlier:
	 edge sites come first in the plan).  */
      if (!insert_on_normal_edge (bb, seq))
	internal_error ("pathprof: block %d has no edge for its probe", bb->index);
      return;
    }
  gsi = gsi_after_labels (bb);
  gsi_insert_seq_before (&gsi, seq, GSI_SAME_STMT);
}

bool
insert_at_call (gcall *call, bool after, gimple_seq seq)
{
  /* A callee instrumented in this unit is no longer const (instrument_unit
     clears its decl's flags: it writes memory), but the C front end marks
     the call's function type const too, and GCC's sinking then moved the
     call past its probes.  Calls of other units' functions keep their
     flags, as the plugin left them before.  */
  tree fndecl = gimple_call_fndecl (call);
  if (fndecl && !DECL_EXTERNAL (fndecl) && !fndecl_built_in_p (fndecl)
      && (flags_from_decl_or_type (gimple_call_fntype (call)) & ECF_CONST))
    gimple_call_set_fntype (call, TYPE_MAIN_VARIANT (gimple_call_fntype (call)));
  gimple_stmt_iterator gsi = gsi_for_stmt (call);
  basic_block bb = gimple_bb (call);
  if (!after)
    gsi_insert_seq_before (&gsi, seq, GSI_SAME_STMT);
  else if (call != last_stmt (bb) && !stmt_ends_bb_p (call))
    gsi_insert_seq_after (&gsi, seq, GSI_SAME_STMT);
  else
    return insert_on_normal_edge (bb, seq);	/* before the edge's own */
  return true;
}

/* Inserts SEQ where the probes of site SITE, WHERE go (CALLS: cfun's
   calls, as the notes number them).  */
static void
insert_at_site (const function_record &rec, uint8_t site, uint32_t where,
		const auto_vec<gcall *> &calls, gimple_seq seq)
{
  if (site == PP_SITE_CALL_BEFORE || site == PP_SITE_CALL_AFTER)
    {
      gcc_assert (where < calls.length ());
      if (!insert_at_call (calls[where], site == PP_SITE_CALL_AFTER, seq))
	internal_error ("pathprof: the block of call %u has no edge for its probe", where);
      return;
    }
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
  /* The marker goes (its virtual operands released with it).  */
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

/* The compiled root whose front a body of REC counts behind (compiled.cc
   "Fronts"), or NULL.  */
static const function_record *
front_root (const function_record &rec)
{
  const function_record *root = rec.front_of;
  return root && !root->front_keys.is_empty () ? root : NULL;
}

/* Ends *BB (its edge *FALLTHRU to the rest) with COND, likely true, whose
   way runs SEQ (a count) and joins the rest; *BB and *FALLTHRU move to
   the other way.  */
static void
count_if (basic_block *bb, edge *fallthru, gcond *cond, gimple_seq seq)
{
  basic_block join = (*fallthru)->dest;
  basic_block hit = new_block_of (*bb, seq, join);
  basic_block rest = new_block_of (hit, NULL, join);
  profile_probability likely = profile_probability::likely ();
  branch (*bb, *fallthru, cond, hit, rest, likely);
  hit->count = (*bb)->count.apply_probability (likely);
  rest->count = (*bb)->count - hit->count;
  *bb = rest;
  *fallthru = single_succ_edge (rest);
}

/* Before the count of number N that ends *BB (its edge *FALLTHRU to the
   rest), one of the count's hints (compiled.cc "Hints"): K, whose slot in the
   front of REC's root is SLOT (its counts REC.xfront's, for another
   unit's root),
       if (N == K) counts[...] += 1;
   compared as the register where N is its half (a packed plan's number:
   the register is even, so it is twice N exactly when N is K), with *BB
   and *FALLTHRU moved to the way where N is another.  */
static void
expand_hint (const function_record &rec, const probe_target &t, tree n, uint64_t k,
	     uint32_t slot, basic_block *bb, edge *fallthru)
{
  tree u64 = long_long_unsigned_type_node;
  tree lhs = n, rhs = build_int_cstu (u64, k);
  if (TREE_CODE (n) == SSA_NAME)
    if (gassign *def = dyn_cast<gassign *> (SSA_NAME_DEF_STMT (n)))
      if (gimple_assign_rhs_code (def) == RSHIFT_EXPR
	  && integer_onep (gimple_assign_rhs2 (def))
	  && TYPE_PRECISION (TREE_TYPE (gimple_assign_rhs1 (def))) == 64
	  && TYPE_UNSIGNED (TREE_TYPE (gimple_assign_rhs1 (def))))
	{
	  lhs = gimple_assign_rhs1 (def);
	  rhs = build_int_cstu (TREE_TYPE (lhs), k << 1);
	}
  gimple_seq seq = NULL;
  if (rec.xfront)
    {
      /* Another unit's root: its front's counts where its unit says.  */
      tree p64 = build_pointer_type (u64);
      tree at = emit_value (&seq, p64, NOP_EXPR, rec.xfront, NULL_TREE, "PP_xfront");
      emit_increment (t, build2 (MEM_REF, u64, at, build_int_cst (p64, (HOST_WIDE_INT) slot * 8)),
		      &seq);
    }
  else
    emit_increment (t, value_ref (t, build_int_cst (integer_type_node,
						    (HOST_WIDE_INT) (rec.front_of->compiled_first
								     + slot))),
		    &seq);
  count_if (bb, fallthru, gimple_build_cond (EQ_EXPR, lhs, rhs, NULL_TREE, NULL_TREE), seq);
}

/* Before the count of number N that ends *BB (its edge *FALLTHRU to the
   rest), ROOT's front: N's slot, its key and its count in the unit's
   arrays,
       if (keys[(N * mul) >> (64 - log2)] == N) counts[...] += 1;
   with *BB and *FALLTHRU moved to the way where the key is another.  */
static void
expand_front (const function_record &root, const probe_target &t, tree n, basic_block *bb,
	      edge *fallthru)
{
  tree u64 = long_long_unsigned_type_node;
  gimple_seq seq = NULL;
  tree mixed = emit_value (&seq, u64, MULT_EXPR, n, build_int_cstu (u64, root.front_mul),
			   "PP_front");
  tree slot = emit_value (&seq, sizetype, NOP_EXPR,
			  emit_value (&seq, u64, RSHIFT_EXPR, mixed,
				      build_int_cst (integer_type_node, 64 - root.front_log2),
				      "PP_front"),
			  NULL_TREE, "PP_front");
  tree key = emit_value (&seq, u64, NOP_EXPR,
			 build4 (ARRAY_REF, u64, t.front_keys,
				 emit_value (&seq, sizetype, PLUS_EXPR, slot,
					     size_int (root.front_at), "PP_front"),
				 NULL_TREE, NULL_TREE),
			 NULL_TREE, "PP_front_key");
  gimple_stmt_iterator gsi = gsi_last_bb (*bb);
  gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);
  seq = NULL;
  emit_increment (t, value_ref (t, emit_value (&seq, sizetype, PLUS_EXPR, slot,
					       size_int (root.compiled_first), "PP_front")),
		  &seq);
  count_if (bb, fallthru, gimple_build_cond (EQ_EXPR, key, n, NULL_TREE, NULL_TREE), seq);
}

/* Replaces CALL, __pathprof_count_path (&TABLE, N), by the count in N's
   home slot where its key is there (pathprof-abi.h):
       h = TABLE.table;   (the unit's empty table until the first count)
       key = N + 1; s = h + SLOTS + 16 ((key * MUL) >> h->shift);
       if (s->key == key) atomic s->count += 1;
       else __pathprof_count_path (&TABLE, N);
   the call a dozen instructions without it, most counts of a table
   being of keys libprof keeps home; where AT_HOME is false, the call
   alone.  A body of a compiled root with a front looks N up there first
   (expand_front).  */
static void
expand_table_count (const function_record &rec, const probe_target &t, gcall *call,
		    bool at_home, uint32_t hint)
{
  tree u64 = long_long_unsigned_type_node;
  tree p64 = build_pointer_type (u64);
  /* &TABLE, or the address another unit exports (emit_path_count).  */
  tree arg = gimple_call_arg (call, 0), number = gimple_call_arg (call, 1);
  tree table_type = DECL_CONTEXT (t.path_table_hash);
  tree table = TREE_CODE (arg) == ADDR_EXPR
	       ? TREE_OPERAND (arg, 0)
	       : build2 (MEM_REF, table_type, arg, build_int_cst (build_pointer_type (table_type), 0));
  edge fallthru = take_out (call);
  basic_block bb = fallthru->src, join = fallthru->dest;
  profile_probability likely = profile_probability::likely ();

  if (hint != UINT32_MAX)
    for (uint32_t j = rec.hint_first[hint]; j < rec.hint_first[hint + 1]; j++)
      expand_hint (rec, t, number, rec.hint_number[j], rec.hint_slot[j], &bb, &fallthru);
  if (const function_record *root = front_root (rec))
    expand_front (*root, t, number, &bb, &fallthru);
  if (!at_home)
    {
      gimple_stmt_iterator gsi = gsi_start_bb (bb);
      gsi_insert_after (&gsi, call, GSI_NEW_STMT);
      return;
    }
  gimple_seq seq = NULL;
  tree word = make_temp_ssa_name (ptr_type_node, NULL, "PP_hash");
  gimple_seq_add_stmt (&seq, gimple_build_assign (word, build3 (COMPONENT_REF, ptr_type_node,
								 unshare_expr (table),
								 t.path_table_hash, NULL_TREE)));
  tree h = make_temp_ssa_name (p64, NULL, "PP_hash");
  gimple_seq_add_stmt (&seq, gimple_build_assign (h, NOP_EXPR, word));
  tree key = emit_value (&seq, u64, PLUS_EXPR, number, build_int_cst (u64, 1), "PP_key");
  tree home = emit_value (&seq, u64, RSHIFT_EXPR,
			  emit_value (&seq, u64, MULT_EXPR, key,
				      build_int_cstu (u64, PATHPROF_PATH_HASH_MUL), "PP_home"),
			  emit_load (&seq, u64, h, 0, "PP_shift"), "PP_home");
  tree offset = emit_value (&seq, u64, PLUS_EXPR,
			    emit_value (&seq, u64, LSHIFT_EXPR, home, build_int_cst (u64, 4),
					"PP_home"),
			    build_int_cst (u64, PATHPROF_PATH_HASH_SLOTS), "PP_home");
  tree slot = emit_value (&seq, p64, POINTER_PLUS_EXPR, h,
			  emit_value (&seq, sizetype, NOP_EXPR, offset, NULL_TREE, "PP_home"),
			  "PP_slot");
  tree there = emit_load (&seq, u64, slot, 0, "PP_key");
  gimple_stmt_iterator gsi = gsi_last_bb (bb);
  gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);

  seq = NULL;
  emit_atomic_increment (emit_value (&seq, p64, POINTER_PLUS_EXPR, slot, size_int (8),
				     "PP_count"), &seq);
  basic_block hit = new_block_of (bb, seq, join);
  seq = NULL;
  gimple_seq_add_stmt (&seq, call);
  basic_block slow = new_block_of (hit, seq, join);

  branch (bb, fallthru, gimple_build_cond (EQ_EXPR, there, key, NULL_TREE, NULL_TREE), hit,
	  slow, likely);
  hit->count = bb->count.apply_probability (likely);
  slow->count = bb->count - hit->count;
}

/* Every call of __pathprof_count_path the function's probes made in a
   loop, by its fast way (expand_table_count); elsewhere the call alone,
   which costs less text and fewer registers where a count runs once a
   call (csmith's main, 655 counts in straight-line code: 2.37 M -> 2.44
   M instructions expanded), behind the root's front where it has one (a
   compare and an add where the call took about 25 instructions:
   SQLite's vdbeRecordCompareInt, 0.75 M counts in 5,000 orders).  */
static void
expand_table_counts (const function_record &rec, const probe_target &t, const site_state &s)
{
  if (!t.path_tables && !rec.xroot)
    return;
  auto_vec<gcall *> counts;
  auto_vec<bool> home;
  bool front = front_root (rec) != NULL;
  basic_block bb;
  FOR_EACH_BB_FN (bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi); gsi_next (&gsi))
      if (gcall *call = dyn_cast<gcall *> (gsi_stmt (gsi)))
	if (gimple_call_fndecl (call) == t.count_path
	    && (TREE_CODE (gimple_call_arg (call, 0)) == ADDR_EXPR || rec.xroot))
	  {
	    bool in_loop = !current_loops || loop_outer (bb->loop_father);
	    if (in_loop || front)
	      {
		counts.safe_push (call);
		home.safe_push (in_loop);
	      }
	  }
  for (unsigned i = 0; i < counts.length (); i++)
    {
      uint32_t hint = UINT32_MAX;
      for (unsigned j = 0; j < s.hinted.length (); j++)
	if (s.hinted[j] == counts[i])
	  hint = s.hinted_probe[j];
      expand_table_count (rec, t, counts[i], home[i], hint);
    }
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
  if (t.calls || (plan.nprobes && plan.probes[plan.nprobes - 1].site >= PP_SITE_CALL_BEFORE))
    function_calls (calls);
  if (option_mode->traced)
    mark_trace_flushes (t, s);
  announce_direct_calls (rec, t, s);
  for (uint32_t i = 0; i < plan.nprobes;)
    {
      const pp_probe &first = plan.probes[i];
      uint32_t end = i + 1;
      while (end < plan.nprobes && plan.probes[end].site == first.site
	     && plan.probes[end].where == first.where)
	end++;
      gimple_seq seq = NULL;
      s.take_to_pass = takes_to_pass (plan, i, end);
      s.value = load_register (plan, i, end, reads_register, sets_register, path_register, s,
			       &seq);
      /* A packed plan has no second register (probes.h).  */
      s.value2 = plan.pack_bits ? NULL_TREE
		 : load_register (plan, i, end, reads_ppp_register, sets_ppp_register, ppp_register,
				  s, &seq);
      for (uint32_t k = i; k < end; k++)
	{
	  emit_action (rec, t, plan.probes[k], s, &seq);
	  if (k + 1 < rec.hint_first.length () && rec.hint_first[k] < rec.hint_first[k + 1])
	    if (gcall *call = dyn_cast<gcall *> (gimple_seq_last_stmt (seq)))
	      if (gimple_call_fndecl (call) == t.count_path)
		{
		  s.hinted.safe_push (call);
		  s.hinted_probe.safe_push (k);
		}
	}
      insert_at_site (rec, first.site, first.where, calls, seq);
      i = end;
    }
  if (t.calls)
    insert_call_probes (t, s, calls);
  insert_flushes (t);
  gsi_commit_edge_inserts ();
  for (gimple *marker : s.keyed)
    expand_keyed (rec, t, marker);
  expand_table_counts (rec, t, s);
  /* The trace mode's records stay markers until GCC has inlined
     (trace-probes.cc), unless the unit goes out as LTO bytecode.  */
  if (option_mode->traced && !trace_markers_late ())
    expand_trace_markers (t);
  for (unsigned k = 0; k < s.steps.length (); k++)
    expand_step (t, s, s.steps[k], s.step_args[k]);
  expand_sites (rec, t);
  for (gimple *call : s.returns)
    expand_return (t, call);
  for (gimple *call : s.exits)
    expand_exit (t, call);
}
