/* pathprof plugin, the trace mode's records in place (pathprof-abi.h,
   libprof/trace-buffers.c): witnesses, returns and the entry of a
   function called directly.  */

#include "probes.h"
#include "corelib/trace.h"

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

/* Into SEQ, the claim of the thread's buffer for WIDTH bits (pathprof-abi.h):
   lim = limit; limit = 0; pos = cursor; returns end = pos + WIDTH, which
   fits when end <= lim.  */
static tree
claim (const probe_target &t, gimple_seq *seq, tree width, tree *lim, tree *pos)
{
  tree u64 = counter_type ();
  *lim = emit_value (seq, u64, NOP_EXPR, tls_field (t, t.tls_limit), NULL_TREE,
		     "PP_trace_limit");
  gimple_seq_add_stmt (seq, gimple_build_assign (tls_field (t, t.tls_limit),
						 build_int_cst (u64, 0)));
  *pos = emit_value (seq, u64, NOP_EXPR, tls_field (t, t.tls_cursor), NULL_TREE,
		     "PP_trace_pos");
  return emit_value (seq, u64, PLUS_EXPR, *pos, width, "PP_trace_end");
}

/* Inserts SEQ at the end of BB (after its labels when it has nothing
   else).  */
static void
append_to (basic_block bb, gimple_seq seq)
{
  gimple_stmt_iterator gsi = gsi_last_bb (bb);
  if (gsi_end_p (gsi))
    {
      gsi = gsi_after_labels (bb);
      gsi_insert_seq_before (&gsi, seq, GSI_NEW_STMT);
    }
  else
    gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);
}

/* At the end of BB, whose edge TO_JOIN falls through to the rest: the write
   in place of WIDTH bits of VALUE (u64 values; WIDTH at most
   PP_TRACE_PENDING_MAX) of pathprof-abi.h, libprof's call on the unlikely
   path:
       lim = limit; limit = 0; pos = cursor; end = pos + WIDTH;
       if (end <= lim)
         { *(u64 *) ((char *) buf + pos / 8) |= VALUE << (pos % 8);
                                      (unaligned; the bits above pos are 0)
           cursor = end; limit = lim; }
       else
         { limit = lim; __pathprof_trace_witness (VALUE, WIDTH); }
   With FRAME, the bits end with the activation's last record (corelib/
   trace.h "Returns"), the call is __pathprof_trace_last (FRAME, VALUE,
   WIDTH), and the write is in place when the frame has no flag either
   (traced, no announcement to put back: end + the flags <= lim); it also
   puts the caller's state back (state = frame - 256) before it gives up the
   buffer, so that a signal handler after it writes in the caller's width
   and depth, where regeneration, which returns at EXIT, is then.  */
static void
emit_in_place (const probe_target &t, basic_block bb, edge to_join, tree value,
	       tree width, tree frame)
{
  tree u64 = counter_type (), ptr = TREE_TYPE (t.tls_buf);
  basic_block join = to_join->dest;
  basic_block fast = new_block (bb), slow = new_block (fast);
  profile_probability likely = profile_probability::very_likely ();
  gimple_seq seq = NULL;
  tree lim, pos, end = claim (t, &seq, width, &lim, &pos);
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
  append_to (bb, seq);
  redirect_edge_succ (to_join, fast);
  to_join->flags = EDGE_TRUE_VALUE;
  to_join->probability = likely;
  make_edge (bb, slow, EDGE_FALSE_VALUE)->probability = likely.invert ();

  seq = NULL;
  tree buf = emit_value (&seq, ptr, NOP_EXPR, tls_field (t, t.tls_buf), NULL_TREE,
			 "PP_trace_buf");
  /* The 8 bytes from the cursor's byte, unaligned: its bits up to the
     cursor are records, the rest 0, and VALUE << (pos % 8) fits (VALUE has
     at most PP_TRACE_PENDING_MAX bits), so one OR puts it in place.  */
  tree byte_offset = emit_value (&seq, u64, RSHIFT_EXPR, pos,
				 build_int_cst (integer_type_node, 3), "PP_trace_i");
  byte_offset = emit_value (&seq, sizetype, NOP_EXPR, byte_offset, NULL_TREE,
			    "PP_trace_at");
  tree at = emit_value (&seq, ptr, POINTER_PLUS_EXPR, buf, byte_offset,
			"PP_trace_word");
  tree word = build2 (MEM_REF, build_aligned_type (u64, BITS_PER_UNIT), at,
		      build_int_cst (ptr, 0));
  TREE_THIS_VOLATILE (word) = 1;
  tree off = emit_value (&seq, u64, BIT_AND_EXPR, pos, build_int_cst (u64, 7),
			 "PP_trace_off");
  tree shift = emit_value (&seq, integer_type_node, NOP_EXPR, off, NULL_TREE,
			   "PP_trace_shift");
  tree old_word = emit_value (&seq, u64, NOP_EXPR, word, NULL_TREE, "PP_trace_old");
  tree placed = emit_value (&seq, u64, LSHIFT_EXPR, value, shift, "PP_trace_placed");
  tree new_word = emit_value (&seq, u64, BIT_IOR_EXPR, old_word, placed,
			      "PP_trace_new");
  gimple_seq_add_stmt (&seq, gimple_build_assign (unshare_expr (word), new_word));
  gimple_seq_add_stmt (&seq, gimple_build_assign (tls_field (t, t.tls_cursor), end));
  if (frame)
    {
      tree back = emit_value (&seq, u64, MINUS_EXPR, fold_convert (u64, frame),
			      build_int_cst (u64, 256), "PP_trace_back");
      gimple_seq_add_stmt (&seq, gimple_build_assign (tls_field (t, t.tls_state), back));
    }
  gimple_seq_add_stmt (&seq, gimple_build_assign (tls_field (t, t.tls_limit), lim));
  gimple_stmt_iterator gsi = gsi_start_bb (fast);
  gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);
  make_single_succ_edge (fast, join, EDGE_FALLTHRU);

  seq = NULL;
  gimple_seq_add_stmt (&seq, gimple_build_assign (tls_field (t, t.tls_limit), lim));
  tree n32 = emit_value (&seq, unsigned_type_node, NOP_EXPR, width, NULL_TREE,
			 "PP_trace_n");
  gimple_seq_add_stmt (&seq, frame ? gimple_build_call (t.trace_last, 3, frame, value, n32)
			     : gimple_build_call (t.trace_witness, 2, value, n32));
  gsi = gsi_start_bb (slow);
  gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);
  make_single_succ_edge (slow, join, EDGE_FALLTHRU);

  fast->count = bb->count.apply_probability (likely);
  slow->count = bb->count - fast->count;
}

/* The function's pending bits, for the first time: its locals.  */
static tree
pending_acc (site_state &s)
{
  return make_register (&s.trace_acc, "PP_trace_acc");
}

static tree
pending_n (site_state &s)
{
  return make_register (&s.trace_n, "PP_trace_n");
}

/* Splits CALL's block after it and takes CALL out: the edge from what is
   left of the block to the rest.  */
static edge
cut_at (gimple *call)
{
  basic_block bb = gimple_bb (call);
  edge e = split_block (bb, call);
  gimple_stmt_iterator gsi = gsi_for_stmt (call);
  gsi_remove (&gsi, true);
  return e;
}

/* Replaces the marker call __pathprof_trace_witness (k) of a function whose
   witnesses take WIDTH bits by its append to the pending bits:
       m = n + WIDTH;
       if (m <= PP_TRACE_PENDING_MAX)
         { acc |= k << n; n = m; }
       else
         { __pathprof_trace_witness (acc, n); acc = k; n = WIDTH; }
   With LAST, the witness is its activation's last record: it goes out with
   the pending bits, written in place as emit_in_place says (the state put
   back), from the marker __pathprof_trace_last (frame, k); no record and so
   no flush follows it.  */
void
expand_witness (const probe_target &t, site_state &s, gimple *call, unsigned width,
		bool last)
{
  tree u64 = counter_type ();
  tree frame = last ? gimple_call_arg (call, 0) : NULL_TREE;
  tree k = fold_convert (u64, gimple_call_arg (call, last ? 1 : 0));
  tree acc = pending_acc (s), n = pending_n (s);
  tree w = build_int_cst (u64, width);
  basic_block bb = gimple_bb (call);
  edge to_join = cut_at (call);
  basic_block join = to_join->dest;

  gimple_seq seq = NULL;
  tree n0 = emit_value (&seq, u64, NOP_EXPR, n, NULL_TREE, "PP_trace_n");
  tree m = emit_value (&seq, u64, PLUS_EXPR, n0, w, "PP_trace_m");
  append_to (bb, seq);

  /* More than fit: the pending bits go first.  */
  seq = NULL;
  tree acc0 = emit_value (&seq, u64, NOP_EXPR, acc, NULL_TREE, "PP_trace_acc");
  tree n32 = emit_value (&seq, unsigned_type_node, NOP_EXPR, n0, NULL_TREE, "PP_trace_n");
  gimple_seq_add_stmt (&seq, gimple_build_call (t.trace_witness, 2, acc0, n32));
  gimple_seq_add_stmt (&seq, gimple_build_assign (acc, last ? build_int_cst (u64, 0) : k));
  gimple_seq_add_stmt (&seq, gimple_build_assign (n, last ? build_int_cst (u64, 0) : w));
  basic_block full = new_block (bb);
  append_to (full, seq);

  if (!last)
    {
      seq = NULL;
      tree a = emit_value (&seq, u64, NOP_EXPR, acc, NULL_TREE, "PP_trace_acc");
      tree sh = emit_value (&seq, integer_type_node, NOP_EXPR, n0, NULL_TREE,
			    "PP_trace_shift");
      tree placed = emit_value (&seq, u64, LSHIFT_EXPR, k, sh, "PP_trace_placed");
      tree a2 = emit_value (&seq, u64, BIT_IOR_EXPR, a, placed, "PP_trace_acc");
      gimple_seq_add_stmt (&seq, gimple_build_assign (acc, a2));
      gimple_seq_add_stmt (&seq, gimple_build_assign (n, m));
      basic_block fits = new_block_of (bb, seq, join);
      make_single_succ_edge (full, join, EDGE_FALLTHRU);
      branch (bb, to_join, gimple_build_cond (LE_EXPR, m,
					      build_int_cst (u64, PP_TRACE_PENDING_MAX),
					      NULL_TREE, NULL_TREE),
	      fits, full, profile_probability::very_likely ());
      fits->count = bb->count.apply_probability (profile_probability::very_likely ());
      full->count = bb->count - fits->count;
      return;
    }

  /* The last record: with the pending bits (after those that do not fit
     with it), in place.  */
  basic_block merge = new_block (full);
  make_single_succ_edge (full, merge, EDGE_FALLTHRU);
  branch (bb, to_join, gimple_build_cond (LE_EXPR, m,
					  build_int_cst (u64, PP_TRACE_PENDING_MAX),
					  NULL_TREE, NULL_TREE),
	  merge, full, profile_probability::very_likely ());
  full->count = bb->count.apply_probability (profile_probability::very_likely ()
					     .invert ());
  merge->count = bb->count;
  seq = NULL;
  tree a = emit_value (&seq, u64, NOP_EXPR, acc, NULL_TREE, "PP_trace_acc");
  tree nn = emit_value (&seq, u64, NOP_EXPR, n, NULL_TREE, "PP_trace_n");
  tree sh = emit_value (&seq, integer_type_node, NOP_EXPR, nn, NULL_TREE,
			"PP_trace_shift");
  tree placed = emit_value (&seq, u64, LSHIFT_EXPR, k, sh, "PP_trace_placed");
  tree v = emit_value (&seq, u64, BIT_IOR_EXPR, a, placed, "PP_trace_bits");
  tree vw = emit_value (&seq, u64, PLUS_EXPR, nn, w, "PP_trace_width");
  append_to (merge, seq);
  emit_in_place (t, merge, make_single_succ_edge (merge, join, EDGE_FALLTHRU), v, vw,
		 frame);
}

void
start_pending (site_state &s, gimple_seq *seq)
{
  tree u64 = counter_type ();
  gimple_seq_add_stmt (seq, gimple_build_assign (pending_acc (s), build_int_cst (u64, 0)));
  gimple_seq_add_stmt (seq, gimple_build_assign (pending_n (s), build_int_cst (u64, 0)));
}

/* The marker of a flush of the pending bits, into SEQ.  */
gimple *
emit_trace_flush (const probe_target &t, site_state &s, gimple_seq *seq)
{
  gimple *marker = gimple_build_call (t.trace_flush_marker, 0);
  gimple_seq_add_stmt (seq, marker);
  s.trace_flushes.safe_push (marker);
  return marker;
}

/* Does CALL need the pending bits out first: may it enter traced code,
   leave the function (longjmp, an exception) or end the process?  */
static bool
flush_before_p (gcall *call)
{
  if (gimple_call_internal_p (call))
    return false;
  return user_call_p (call)
	 || (gimple_call_flags (call) & (ECF_NORETURN | ECF_RETURNS_TWICE))
	 || stmt_ends_bb_p (call);
}

/* The flushes before the calls of the function.  Not before a call that
   returns twice (setjmp), which must start its block: a function that calls
   one writes each witness at once (probes.cc), so nothing is pending there,
   nor when a longjmp returns to it, whatever its local then holds.  */
void
mark_trace_flushes (const probe_target &t, site_state &s)
{
  basic_block bb;
  FOR_EACH_BB_FN (bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);
	 gsi_next (&gsi))
      if (gcall *call = dyn_cast<gcall *> (gsi_stmt (gsi)))
	if (flush_before_p (call) && !(gimple_call_flags (call) & ECF_RETURNS_TWICE))
	  {
	    gimple_seq seq = NULL;
	    emit_trace_flush (t, s, &seq);
	    gsi_insert_seq_before (&gsi, seq, GSI_SAME_STMT);
	  }
}

/* Replaces a flush's marker by the write of the pending bits:
       if (n != 0)
         { (the write in place of n bits of acc); acc = 0; n = 0; }  */
void
expand_flush (const probe_target &t, site_state &s, gimple *marker)
{
  tree u64 = counter_type ();
  tree acc = pending_acc (s), n = pending_n (s);
  basic_block bb = gimple_bb (marker);
  edge to_join = cut_at (marker);
  basic_block join = to_join->dest;

  gimple_seq seq = NULL;
  tree n0 = emit_value (&seq, u64, NOP_EXPR, n, NULL_TREE, "PP_trace_n");
  append_to (bb, seq);

  seq = NULL;
  tree a = emit_value (&seq, u64, NOP_EXPR, acc, NULL_TREE, "PP_trace_acc");
  gimple_seq_add_stmt (&seq, gimple_build_assign (acc, build_int_cst (u64, 0)));
  gimple_seq_add_stmt (&seq, gimple_build_assign (n, build_int_cst (u64, 0)));
  basic_block write = new_block (bb);
  append_to (write, seq);
  branch (bb, to_join, gimple_build_cond (NE_EXPR, n0, build_int_cst (u64, 0),
					  NULL_TREE, NULL_TREE),
	  write, join, profile_probability::likely ());
  write->count = bb->count.apply_probability (profile_probability::likely ());
  emit_in_place (t, write, make_single_succ_edge (write, join, EDGE_FALLTHRU), a, n0,
		 NULL_TREE);
}

/* The key of function INDEX of the unit (pathprof-abi.h), into SEQ: its
   address where code may call it by its address, else the address of its
   byte in the key array.  */
static tree
trace_key (const probe_target &t, uint32_t index, gimple_seq *seq)
{
  tree fn = t.trace_key_fn[index];
  tree addr = fn ? build_fold_addr_expr (fn)
	      : build_fold_addr_expr (build4 (ARRAY_REF,
					      TREE_TYPE (TREE_TYPE (t.trace_keys)),
					      t.trace_keys, size_int (index),
					      NULL_TREE, NULL_TREE));
  return emit_value (seq, counter_type (), NOP_EXPR, addr, NULL_TREE, "PP_trace_key");
}

/* Word I of the unit's thread-local call sites, accessed as volatile (a
   signal handler's call sites may run between any two accesses).  */
static tree
site_word (const probe_target &t, tree index)
{
  tree ref = build4 (ARRAY_REF, counter_type (), t.trace_sites, index, NULL_TREE,
		     NULL_TREE);
  TREE_THIS_VOLATILE (ref) = 1;
  return ref;
}

/* Before CALL, call site WORD (PP_TRACE_SITE, its number, its flags) of
   a function of WIDTH: its record and the announcement of its callee
   (pathprof-abi.h), libprof's __pathprof_trace_site on the unlikely path.  */
static void
expand_site (const probe_target &t, gcall *call, uint32_t word, unsigned width)
{
  tree u64 = counter_type ();
  basic_block bb = gimple_bb (call);
  gimple_stmt_iterator gsi = gsi_for_stmt (call);
  gsi_prev (&gsi);
  edge to_join = gsi_end_p (gsi) ? split_block_after_labels (bb)
		 : split_block (bb, gsi_stmt (gsi));
  basic_block join = to_join->dest;

  gimple_seq seq = NULL;
  tree fp = emit_value (&seq, u64, NOP_EXPR, unshare_expr (gimple_call_fn (call)),
			NULL_TREE, "PP_trace_fp");
  tree gen = emit_value (&seq, u64, NOP_EXPR, tls_field (t, t.tls_gen), NULL_TREE,
			 "PP_trace_gen");
  tree key = emit_value (&seq, u64, BIT_XOR_EXPR, fp, gen, "PP_trace_key");
  uint32_t i = word & PP_TRACE_SITE_NUMBER;
  tree lim, pos, end = claim (t, &seq, build_int_cst (u64, pp_trace_hit_bits (width)),
			     &lim, &pos);
  tree last = emit_value (&seq, u64, NOP_EXPR, site_word (t, size_int (2 * i)),
			  NULL_TREE, "PP_trace_last");
  tree same = emit_value (&seq, boolean_type_node, EQ_EXPR, last, key, "PP_trace_same");
  tree room = emit_value (&seq, boolean_type_node, LE_EXPR, end, lim, "PP_trace_room");
  tree hit = emit_value (&seq, boolean_type_node, BIT_AND_EXPR, same, room,
			 "PP_trace_hit");
  append_to (bb, seq);

  seq = NULL;
  tree callee = emit_value (&seq, u64, NOP_EXPR, site_word (t, size_int (2 * i + 1)),
			    NULL_TREE, "PP_trace_callee");
  gimple_seq_add_stmt (&seq, gimple_build_assign (tls_field (t, t.tls_cursor), end));
  gimple_seq_add_stmt (&seq, gimple_build_assign (tls_field (t, t.tls_limit), lim));
  gimple_seq_add_stmt (&seq, gimple_build_assign (tls_field (t, t.tls_expect), callee));
  basic_block fast = new_block_of (bb, seq, join);

  seq = NULL;
  gimple_seq_add_stmt (&seq, gimple_build_assign (tls_field (t, t.tls_limit), lim));
  tree slot = build_fold_addr_expr (build4 (ARRAY_REF, u64, t.trace_sites,
					    size_int (2 * i), NULL_TREE, NULL_TREE));
  gimple_seq_add_stmt (&seq, gimple_build_call (t.trace_site, 3, slot, fp,
						build_int_cst (unsigned_type_node,
							       width | (word
									& PP_TRACE_SITE_ENTER_AFTER))));
  basic_block slow = new_block_of (fast, seq, join);

  profile_probability likely = profile_probability::likely ();
  branch (bb, to_join, gimple_build_cond (NE_EXPR, hit, boolean_false_node, NULL_TREE,
					  NULL_TREE),
	  fast, slow, likely);
  fast->count = bb->count.apply_probability (likely);
  slow->count = bb->count - fast->count;
}

/* Before each call site of rec: its record and announcement.  */
void
expand_sites (const function_record &rec, const probe_target &t)
{
  for (unsigned k = 0; k < rec.site_calls.length (); k++)
    expand_site (t, rec.site_calls[k], rec.site_words[k],
		 pp_trace_width (rec.plan.nvalues));
}

/* Before each direct call of rec: expect = the callee's key.  */
void
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
         frame = __pathprof_trace_enter (...);
   where a function without records (ENTER's width argument has
   PP_TRACE_LAST) leaves state as it is.  */
void
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
  if (!(tree_to_uhwi (gimple_call_arg (call, 2)) & PP_TRACE_LAST))
    {
      tree depth = emit_value (&seq, u64, BIT_AND_EXPR, fr,
			       build_int_cst (u64, ~(HOST_WIDE_INT) 255), "PP_trace_state");
      tree next = emit_value (&seq, u64, BIT_IOR_EXPR, depth, build_int_cst (u64, width),
			      "PP_trace_state");
      gimple_seq_add_stmt (&seq, gimple_build_assign (tls_field (t, t.tls_state), next));
    }
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
