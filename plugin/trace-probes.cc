/* pathprof plugin, the trace mode's records in place (pathprof-abi.h,
   libprof/trace-buffers.c): witnesses, returns and the entry of a
   function called directly.  */

#include "probes.h"
#include "corelib/trace.h"
#include "internal-fn.h"

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

/* Into SEQ, V (an address or an integer) as a u64 word: an address
   through the integer of its width (a 32-bit target's pointer cannot
   convert to 64 bits directly).  */
static tree
emit_word (gimple_seq *seq, tree v, const char *name)
{
  tree u64 = counter_type ();
  if (POINTER_TYPE_P (TREE_TYPE (v))
      && TYPE_PRECISION (TREE_TYPE (v)) != TYPE_PRECISION (u64))
    v = emit_value (seq, pointer_sized_int_node, NOP_EXPR, v, NULL_TREE, name);
  return emit_value (seq, u64, NOP_EXPR, v, NULL_TREE, name);
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
pending_bit (site_state &s)
{
  return make_register (&s.trace_bit, "PP_trace_bit");
}

/* The pending bits' marker when none pend.  */
static tree
no_pending_bit (void)
{
  return build_int_cst (counter_type (), 1);
}

/* Into SEQ, the number of pending bits whose marker is BIT (probes.h).
   The count of trailing zeros as an internal function of u64s where the
   target has it (x86's tzcnt or bsf), with no int to widen as
   __builtin_ctzll's would be.  */
static tree
emit_pending_count (gimple_seq *seq, tree bit)
{
  tree u64 = counter_type ();
  bool direct = direct_internal_fn_supported_p (IFN_CTZ, u64, OPTIMIZE_FOR_BOTH);
  tree z = make_temp_ssa_name (direct ? u64 : integer_type_node, NULL, "PP_trace_z");
  gcall *ctz = direct ? gimple_build_call_internal (IFN_CTZ, 1, bit)
    : gimple_build_call (builtin_decl_explicit (BUILT_IN_CTZLL), 1, bit);
  gimple_call_set_lhs (ctz, z);
  gimple_seq_add_stmt (seq, ctz);
  return emit_value (seq, u64, NOP_EXPR, z, NULL_TREE, "PP_trace_n");
}

/* Splits CALL's block after it and takes CALL out: the edge from what is
   left of the block to the rest.  */
static edge
cut_at (gimple *call)
{
  basic_block bb = gimple_bb (call);
  edge e = split_block (bb, call);
  gimple_stmt_iterator gsi = gsi_for_stmt (call);
  unlink_stmt_vdef (call);
  gsi_remove (&gsi, true);
  return e;
}

/* The state word a write of the pending bits puts in place where an
   activation GCC inlined into the function may have moved it ("Markers"
   below), as a frame word whose state back is the writer's: VAR's value
   (the group's first frame word) with its depth and the flags that are not
   the writer's taken off, plus ADD.  No VAR: nothing to put in place.  */
struct state_word
{
  tree var = NULL_TREE;
  uint64_t add = 0;
};

/* The frame word of W into SEQ, or NULL_TREE.  */
static tree
emit_state_frame (const state_word &w, gimple_seq *seq)
{
  if (!w.var)
    return NULL_TREE;
  tree u64 = counter_type ();
  tree fr = emit_value (seq, u64, NOP_EXPR, w.var, NULL_TREE, "PP_trace_frame");
  /* Bit 63 (not traced) stays, bit 62 (an announcement to put back) and
     the caller's width go.  */
  tree kept = emit_value (seq, u64, BIT_AND_EXPR, fr,
			  build_int_cst (u64, (HOST_WIDE_INT) 0xbfffffffffffff00ULL),
			  "PP_trace_frame");
  return emit_value (seq, u64, PLUS_EXPR, kept, build_int_cst (u64, w.add),
		     "PP_trace_frame");
}

/* Into SEQ, ACC + K * BIT: the witness K appended to the pending bits ACC
   whose marker is BIT (an add, as no bit of ACC is at or above BIT's, so
   that GCC can fold a K of 2, 4 or 8 into one lea).  */
static tree
emit_append (gimple_seq *seq, tree acc, tree k, tree bit)
{
  tree u64 = counter_type ();
  tree a = emit_value (seq, u64, NOP_EXPR, acc, NULL_TREE, "PP_trace_acc");
  if (integer_zerop (k))
    return a;
  tree placed = integer_onep (k) ? bit
    : emit_value (seq, u64, MULT_EXPR, bit, k, "PP_trace_placed");
  return emit_value (seq, u64, PLUS_EXPR, a, placed, "PP_trace_acc");
}

/* Replaces the witness marker CALL (its value K, WIDTH bits) by its append
   to the pending bits (probes.h: n bits of acc, and bit = 1 << n):
       if (bit < 1 << (PP_TRACE_PENDING_MAX + 1 - WIDTH))
         { acc += k * bit; bit <<= WIDTH; }
       else
         { (the write in place of n bits of acc); acc = k; bit = 1 << WIDTH; }
   A compare, a multiply by a constant and an add (one lea, or two), and a
   shift by a constant: no shift by n, which x86 takes only from %cl.
   With LAST (the frame word), the witness is its activation's last record:
   it goes out with the pending bits, written in place as emit_in_place says
   (the state put back); no record and so no flush follows it.  With STATE,
   a write of the pending bits that do not fit puts that state in place.  */
static void
expand_witness (const probe_target &t, site_state &s, gimple *call, tree k,
		unsigned width, tree last, const state_word &state)
{
  gcc_checking_assert (width <= PP_TRACE_PENDING_MAX);
  tree u64 = counter_type ();
  k = fold_convert (u64, k);
  tree acc = pending_acc (s), bit = pending_bit (s);
  basic_block bb = gimple_bb (call);
  edge to_join = cut_at (call);
  basic_block join = to_join->dest;

  gimple_seq seq = NULL;
  tree b0 = emit_value (&seq, u64, NOP_EXPR, bit, NULL_TREE, "PP_trace_bit");
  append_to (bb, seq);
  gimple *fits_p = gimple_build_cond
    (LT_EXPR, b0, build_int_cst (u64, HOST_WIDE_INT_1U << (PP_TRACE_PENDING_MAX + 1 - width)),
     NULL_TREE, NULL_TREE);

  /* More than fit: the pending bits go first, written in place (a
     function with callees GCC inlined fills them often).  */
  seq = NULL;
  tree acc0 = emit_value (&seq, u64, NOP_EXPR, acc, NULL_TREE, "PP_trace_acc");
  tree n0 = emit_pending_count (&seq, b0);
  tree fr = emit_state_frame (state, &seq);
  gimple_seq_add_stmt (&seq, gimple_build_assign (acc, last ? build_int_cst (u64, 0) : k));
  gimple_seq_add_stmt (&seq, gimple_build_assign
		       (bit, last ? no_pending_bit ()
			: build_int_cst (u64, HOST_WIDE_INT_1U << width)));
  basic_block full = new_block (bb);
  append_to (full, seq);

  if (!last)
    {
      seq = NULL;
      gimple_seq_add_stmt (&seq, gimple_build_assign (acc, emit_append (&seq, acc, k, b0)));
      tree b = emit_value (&seq, u64, LSHIFT_EXPR, b0,
			   build_int_cst (integer_type_node, width), "PP_trace_bit");
      gimple_seq_add_stmt (&seq, gimple_build_assign (bit, b));
      basic_block fits = new_block_of (bb, seq, join);
      edge out = make_single_succ_edge (full, join, EDGE_FALLTHRU);
      branch (bb, to_join, fits_p, fits, full, profile_probability::very_likely ());
      fits->count = bb->count.apply_probability (profile_probability::very_likely ());
      full->count = bb->count - fits->count;
      emit_in_place (t, full, out, acc0, n0, fr);
      return;
    }

  /* The last record: with the pending bits (after those that do not fit
     with it), in place.  */
  basic_block merge = new_block (full);
  edge out = make_single_succ_edge (full, merge, EDGE_FALLTHRU);
  branch (bb, to_join, fits_p, merge, full, profile_probability::very_likely ());
  full->count = bb->count.apply_probability (profile_probability::very_likely ()
					     .invert ());
  merge->count = bb->count;
  emit_in_place (t, full, out, acc0, n0, fr);
  seq = NULL;
  tree b1 = emit_value (&seq, u64, NOP_EXPR, bit, NULL_TREE, "PP_trace_bit");
  tree v = emit_append (&seq, acc, k, b1);
  tree nn = emit_pending_count (&seq, b1);
  tree vw = emit_value (&seq, u64, PLUS_EXPR, nn, build_int_cst (u64, width),
			"PP_trace_width");
  append_to (merge, seq);
  emit_in_place (t, merge, make_single_succ_edge (merge, join, EDGE_FALLTHRU), v, vw,
		 last);
}

/* The marker of a flush of the pending bits, into SEQ.  */
gimple *
emit_trace_flush (const probe_target &t, site_state &s, gimple_seq *seq)
{
  return emit_trace_call (t.trace_m_flush, s, true, NULL_TREE, NULL_TREE, seq);
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
       if (bit != 1)
         { (the write in place of n bits of acc); acc = 0; bit = 1; }
   With STATE, the write puts that state in place, and so does the way
   with nothing to write.  */
static void
expand_flush (const probe_target &t, site_state &s, gimple *marker,
	      const state_word &state)
{
  tree u64 = counter_type ();
  tree acc = pending_acc (s), bit = pending_bit (s);
  basic_block bb = gimple_bb (marker);
  edge to_join = cut_at (marker);
  basic_block join = to_join->dest;

  gimple_seq seq = NULL;
  tree b0 = emit_value (&seq, u64, NOP_EXPR, bit, NULL_TREE, "PP_trace_bit");
  append_to (bb, seq);

  seq = NULL;
  tree a = emit_value (&seq, u64, NOP_EXPR, acc, NULL_TREE, "PP_trace_acc");
  tree n0 = emit_pending_count (&seq, b0);
  gimple_seq_add_stmt (&seq, gimple_build_assign (acc, build_int_cst (u64, 0)));
  gimple_seq_add_stmt (&seq, gimple_build_assign (bit, no_pending_bit ()));
  tree fr = emit_state_frame (state, &seq);
  basic_block write = new_block (bb);
  append_to (write, seq);
  basic_block none = join;
  if (fr)
    {
      seq = NULL;
      tree fr0 = emit_state_frame (state, &seq);
      tree back = emit_value (&seq, u64, MINUS_EXPR, fr0, build_int_cst (u64, 256),
			      "PP_trace_back");
      gimple_seq_add_stmt (&seq, gimple_build_assign (tls_field (t, t.tls_state), back));
      none = new_block_of (write, seq, join);
      none->count = bb->count.apply_probability (profile_probability::likely ()
						 .invert ());
    }
  branch (bb, to_join, gimple_build_cond (NE_EXPR, b0, no_pending_bit (),
					  NULL_TREE, NULL_TREE),
	  write, none, profile_probability::likely ());
  write->count = bb->count.apply_probability (profile_probability::likely ());
  emit_in_place (t, write, make_single_succ_edge (write, join, EDGE_FALLTHRU), a, n0,
		 fr);
}

tree
trace_key_address (const probe_target &t, uint32_t index)
{
  tree fn = t.trace_key_fn[index];
  return fn ? build_fold_addr_expr (fn)
	 : build_fold_addr_expr (build4 (ARRAY_REF,
					 TREE_TYPE (TREE_TYPE (t.trace_keys)),
					 t.trace_keys, size_int (index),
					 NULL_TREE, NULL_TREE));
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
  tree fp = emit_word (&seq, unshare_expr (gimple_call_fn (call)), "PP_trace_fp");
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

void
announce_direct_calls (const function_record &rec, const probe_target &t,
			site_state &s)
{
  for (unsigned k = 0; k < rec.direct_calls.length (); k++)
    {
      gimple_seq seq = NULL;
      emit_trace_call (t.trace_m_direct, s, true,
		       trace_key_address (t, rec.direct_callees[k]), NULL_TREE, &seq);
      gimple_stmt_iterator gsi = gsi_for_stmt (rec.direct_calls[k]);
      gsi_insert_seq_before (&gsi, seq, GSI_SAME_STMT);
    }
}

/* Replaces the ENTER call (its result WORD) of a function whose key is KEY
   and whose records take WIDTH bits, which direct calls enter, by the entry
   of pathprof-abi.h, the call staying on the other path (returns the block
   after both):
       if (expect == key)
         { expect = 0; s = state; frame = s + 256;
           state = (frame & ~255) | WIDTH; }
       else
         frame = __pathprof_trace_enter (...);
   where a function without records (ENTER's width argument has
   PP_TRACE_LAST) leaves state as it is.  */
static basic_block
expand_enter (const probe_target &t, gimple *call, tree frame, tree key,
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
  key = emit_word (&seq, key, "PP_trace_key");
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
  return join;
}

/* Markers.  The plan's trace probes go in at gcov's position, before GCC's
   IPA inliner, as calls of probe_target's trace_m_* (ENTER's result is the
   frame word's local, and every other marker names its activation by that
   local's value): ENTER, a witness, an activation's last witness, a flush
   before a call, and a direct call's announcement (expect = the callee's
   key).  Call sites' records, LAND and the flushes before abort are code
   at once.  GCC inlines the markers with the rest of a callee, and
   GCC-inlined callees made up most of what the trace mode cost: SQLite's
   bench run enters 110 M traced activations for 26.8 M calls the program
   makes, and each inlined one paid the caller's flush, the announcement,
   the callee's check of it and its update of the state word, and the last
   record's write with the state put back, around 30 instructions.

   After inlining (as each function goes to be compiled),
   expand_trace_markers finds each inlined ENTER whose direct call's
   announcement comes right before it (same key, nothing called between)
   and lets that activation *continue* its caller's: it adds its witnesses
   to the caller's pending bits (its last record too), and the flush before
   the call, the announcement, the ENTER and the state's updates go.  The
   records are the same bits in the same order: only who holds them until
   they are written changes (the traces of the bench programs are byte for
   byte those of the build without it).  What a signal handler's records
   need (pathprof-abi.h: they go before the pending bits, in the state's
   width and depth + 1) holds as follows.  The state names the activation
   that regeneration, having read what is written, stands in or waits at a
   call of: while a continued callee runs, that is its caller's (the first
   pending bit is the caller's, or regeneration waits at the call, where it
   takes an ENTER at the caller's depth + 1 for a handler) until the callee
   writes.  A continued activation writes before its own calls (their
   records must follow its bits); then the state must be its own, so in a
   group where a continued activation writes ("dirty"), every write and
   every flush with nothing pending puts the writer's state in place, in
   the write's claim (emit_in_place with a frame word whose state back is
   the writer's: the group's first frame word plus the depth and width it
   is known to have).  A continued activation's last record is a witness
   like any other: once it has written, its state stays until the next
   write, and its bits are then pending, the first of them its own (a
   function with records has a last record after its last call).  Not
   continued: an activation with a LAND, and any in a function that calls
   setjmp (which keeps nothing pending).  */

namespace {

struct trace_activation
{
  tree var = NULL_TREE;		/* its frame word's local */
  gcall *enter = NULL;		/* its ENTER's marker */
  unsigned width = 0;		/* its records' */
  int parent = -1;		/* continued: the caller it continues */
  gimple *direct = NULL;	/* continued: the call's announcement */
  gimple *flush = NULL;		/* and the flush before it, if any */
  bool land = false;		/* it has a LAND */
  int root = -1;		/* whose pending bits it adds to */
  unsigned depth = 0;		/* its calls below root */
  bool dirty = false;		/* root: a continued activation writes */
  site_state *s = NULL;		/* root: the pending bits */
};

}

/* The call before STMT in its block, or in the blocks before it while
   each has one predecessor; NULL without one.  */
static gcall *
call_before (gimple *stmt)
{
  basic_block bb = gimple_bb (stmt);
  gimple_stmt_iterator gsi = gsi_for_stmt (stmt);
  gsi_prev (&gsi);
  for (int steps = n_basic_blocks_for_fn (cfun); steps > 0; steps--)
    {
      for (; !gsi_end_p (gsi); gsi_prev (&gsi))
	if (gcall *call = dyn_cast<gcall *> (gsi_stmt (gsi)))
	  return call;
      if (!single_pred_p (bb) || single_pred (bb) == ENTRY_BLOCK_PTR_FOR_FN (cfun))
	return NULL;
      bb = single_pred (bb);
      gsi = gsi_last_bb (bb);
    }
  return NULL;
}

static bool
is_call_of (const gimple *stmt, tree fn)
{
  return stmt && is_gimple_call (stmt) && gimple_call_fndecl (stmt) == fn;
}

/* The activation whose frame word the marker's argument ARG loads.  */
static int
activation_of (hash_map<tree, int> &of_var, tree arg)
{
  /* The local itself (an inlined copy of it may be an SSA name), or its
     value loaded or copied.  */
  for (int copies = 0; copies < 8; copies++)
    {
      if (int *a = of_var.get (arg))
	return *a;
      if (TREE_CODE (arg) != SSA_NAME)
	break;
      gimple *def = SSA_NAME_DEF_STMT (arg);
      if (!gimple_assign_single_p (def))
	break;
      arg = gimple_assign_rhs1 (def);
    }
  fatal_error (DECL_SOURCE_LOCATION (current_function_decl),
	       "pathprof: a trace record of %qD has lost its activation "
	       "(internal error)", current_function_decl);
}

void
expand_trace_markers (const probe_target &t)
{
  auto_vec<trace_activation> acts;
  hash_map<tree, int> of_var;
  auto_vec<gimple *> markers;
  basic_block bb;
  FOR_EACH_BB_FN (bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi); gsi_next (&gsi))
      {
	gcall *call = dyn_cast<gcall *> (gsi_stmt (gsi));
	tree fn = call ? gimple_call_fndecl (call) : NULL_TREE;
	if (!fn)
	  continue;
	if (fn == t.trace_m_enter)
	  {
	    trace_activation a;
	    a.var = gimple_call_lhs (call);
	    a.enter = call;
	    a.width = tree_to_uhwi (gimple_call_arg (call, 2)) & ~PP_TRACE_LAST;
	    of_var.put (a.var, acts.length ());
	    acts.safe_push (a);
	  }
	else if (fn == t.trace_m_witness || fn == t.trace_m_last || fn == t.trace_m_flush
		 || fn == t.trace_m_direct || fn == t.trace_land)
	  markers.safe_push (call);
      }
  if (acts.is_empty () && markers.is_empty ())
    return;
  for (gimple *m : markers)
    if (is_call_of (m, t.trace_land))
      acts[activation_of (of_var, gimple_call_arg (m, 0))].land = true;

  /* Which inlined activations continue their callers'.  */
  if (!cfun->calls_setjmp)
    for (trace_activation &a : acts)
      {
	gcall *direct = call_before (a.enter);
	if (a.land || !is_call_of (direct, t.trace_m_direct)
	    || !operand_equal_p (gimple_call_arg (direct, 1), gimple_call_arg (a.enter, 3),
				 0))
	  continue;
	a.parent = activation_of (of_var, gimple_call_arg (direct, 0));
	a.direct = direct;
	gcall *flush = call_before (direct);
	if (is_call_of (flush, t.trace_m_flush)
	    && activation_of (of_var, gimple_call_arg (flush, 0)) == a.parent)
	  a.flush = flush;
      }
  for (unsigned i = 0; i < acts.length (); i++)
    {
      int r = i;
      unsigned depth = 0;
      while (acts[r].parent >= 0)
	r = acts[r].parent, depth++;
      acts[i].root = r;
      acts[i].depth = depth;
    }
  hash_set<gimple *> gone;	/* the continued calls' markers */
  for (trace_activation &a : acts)
    {
      if (a.root == (int) (&a - acts.address ()))
	a.s = new site_state;
      if (a.direct)
	gone.add (a.direct);
      if (a.flush)
	gone.add (a.flush);
    }
  for (gimple *m : markers)
    if (is_call_of (m, t.trace_m_flush) && !gone.contains (m))
      {
	trace_activation &a = acts[activation_of (of_var, gimple_call_arg (m, 0))];
	if (a.parent >= 0)
	  acts[a.root].dirty = true;
      }

  if (dump_file)
    {
      unsigned continued = 0, writing = 0;
      for (trace_activation &a : acts)
	{
	  continued += a.parent >= 0;
	  writing += a.parent < 0 && a.dirty;
	}
      fprintf (dump_file, ";; pathprof: %u trace activation(s) (the function's "
	       "and its inlined callees'), %u continuing their callers', written "
	       "from %u group(s)\n", acts.length (), continued, writing);
    }

  /* What a write by activation A puts in place, if anything.  */
  auto state_of = [&] (const trace_activation &a) {
    state_word w;
    const trace_activation &r = acts[a.root];
    if (r.dirty)
      {
	w.var = r.var;
	w.add = ((uint64_t) (a.depth + 1) << 8) + a.width;
      }
    return w;
  };
  tree u64 = counter_type ();
  for (gimple *m : markers)
    {
      if (is_call_of (m, t.trace_land))
	continue;
      trace_activation &a = acts[activation_of (of_var, gimple_call_arg (m, 0))];
      site_state &s = *acts[a.root].s;
      gimple_stmt_iterator gsi = gsi_for_stmt (m);
      if (gone.contains (m))
	{
	  unlink_stmt_vdef (m);
	  gsi_remove (&gsi, true);
	}
      else if (is_call_of (m, t.trace_m_direct))
	{
	  gimple_seq seq = NULL;
	  tree key = emit_word (&seq, gimple_call_arg (m, 1), "PP_trace_key");
	  gimple_seq_add_stmt (&seq, gimple_build_assign (tls_field (t, t.tls_expect),
							  key));
	  gsi_insert_seq_before (&gsi, seq, GSI_SAME_STMT);
	  unlink_stmt_vdef (m);
	  gsi_remove (&gsi, true);
	}
      else if (is_call_of (m, t.trace_m_flush))
	expand_flush (t, s, m, state_of (a));
      else
	{
	  bool last = is_call_of (m, t.trace_m_last) && a.parent < 0;
	  expand_witness (t, s, m, gimple_call_arg (m, 1),
			  tree_to_uhwi (gimple_call_arg (m, 2)),
			  last ? gimple_call_arg (m, 0) : NULL_TREE, state_of (a));
	}
    }
  /* The ENTERs last: they start their pending bits.  */
  for (trace_activation &a : acts)
    {
      gimple_stmt_iterator gsi = gsi_for_stmt (a.enter);
      if (a.parent >= 0)
	{
	  gsi_insert_before (&gsi, gimple_build_assign (a.var, build_int_cst (u64, 0)),
			     GSI_SAME_STMT);
	  gimple_call_set_lhs (a.enter, NULL_TREE);
	  unlink_stmt_vdef (a.enter);
	  gsi_remove (&gsi, true);
	  continue;
	}
      gimple_seq seq = NULL;
      gimple_seq_add_stmt (&seq, gimple_build_assign (pending_acc (*a.s),
						      build_int_cst (u64, 0)));
      gimple_seq_add_stmt (&seq, gimple_build_assign (pending_bit (*a.s),
						      no_pending_bit ()));
      gsi_insert_seq_before (&gsi, seq, GSI_SAME_STMT);
      tree word = make_temp_ssa_name (u64, NULL, "PP_trace_frame");
      gcall *call = gimple_build_call (t.trace_enter, 3, gimple_call_arg (a.enter, 0),
				       gimple_call_arg (a.enter, 1),
				       gimple_call_arg (a.enter, 2));
      bool in_place = integer_nonzerop (gimple_call_arg (a.enter, 4));
      tree key = gimple_call_arg (a.enter, 3);
      gimple_call_set_lhs (call, word);
      gimple_set_location (call, gimple_location (a.enter));
      gsi_insert_before (&gsi, call, GSI_SAME_STMT);
      if (!in_place)
	gsi_insert_before (&gsi, gimple_build_assign (a.var, word), GSI_SAME_STMT);
      /* Its result (an SSA name in an inlined copy) lives on.  */
      gimple_call_set_lhs (a.enter, NULL_TREE);
      unlink_stmt_vdef (a.enter);
      gsi_remove (&gsi, true);
      if (in_place)
	{
	  /* Two ways set the frame word: through a local when GCC's copy of
	     it (an inlined callee's) is an SSA name.  */
	  tree frame = a.var;
	  if (TREE_CODE (frame) == SSA_NAME)
	    {
	      frame = create_tmp_var (u64, "PP_trace_frame");
	      DECL_NOT_GIMPLE_REG_P (frame) = 1;
	    }
	  basic_block join = expand_enter (t, call, frame, key, a.width);
	  if (frame != a.var)
	    {
	      gimple_stmt_iterator at = gsi_after_labels (join);
	      gsi_insert_before (&at, gimple_build_assign (a.var, frame), GSI_SAME_STMT);
	    }
	}
      delete a.s;
    }
}

/* The pass after GCC's inliner that expands the markers, and what it needs
   of the unit's probe_target: its trees kept from the garbage collector
   (nothing else refers to libprof's declarations once the markers are the
   only probes).  */

static probe_target late_target;
static bool late_target_kept;
static tree late_roots[10];
static const struct ggc_root_tab late_root_tab[] = {
  { &late_roots[0], ARRAY_SIZE (late_roots), sizeof (tree), &gt_ggc_mx_tree_node,
    &gt_pch_nx_tree_node },
  LAST_GGC_ROOT_TAB
};

bool
trace_markers_late (void)
{
  return !flag_generate_lto && !flag_generate_offload;
}

void
keep_trace_target (const probe_target &t)
{
  late_target.trace_enter = late_roots[0] = t.trace_enter;
  late_target.trace_witness = late_roots[1] = t.trace_witness;
  late_target.trace_last = late_roots[2] = t.trace_last;
  late_target.trace_land = late_roots[3] = t.trace_land;
  late_target.trace_tls = late_roots[4] = t.trace_tls;
  late_target.trace_m_enter = late_roots[5] = t.trace_m_enter;
  late_target.trace_m_witness = late_roots[6] = t.trace_m_witness;
  late_target.trace_m_last = late_roots[7] = t.trace_m_last;
  late_target.trace_m_flush = late_roots[8] = t.trace_m_flush;
  late_target.trace_m_direct = late_roots[9] = t.trace_m_direct;
  /* The thread state's fields: its type's, which the TLS variable keeps.  */
  late_target.tls_buf = t.tls_buf;
  late_target.tls_cursor = t.tls_cursor;
  late_target.tls_limit = t.tls_limit;
  late_target.tls_state = t.tls_state;
  late_target.tls_expect = t.tls_expect;
  late_target.tls_gen = t.tls_gen;
  late_target_kept = true;
}

namespace {

const pass_data trace_markers_pass_data = {
  GIMPLE_PASS,
  "pathprof-trace",		/* name */
  OPTGROUP_NONE,
  TV_NONE,
  PROP_cfg | PROP_ssa,
  0, 0, 0, 0
};

class trace_markers_pass : public gimple_opt_pass
{
public:
  trace_markers_pass (gcc::context *ctxt)
    : gimple_opt_pass (trace_markers_pass_data, ctxt)
  {}
  bool gate (function *) final override { return late_target_kept; }
  unsigned int execute (function *) final override
  {
    if (!cfun->cfg)
      return 0;
    /* The TLS model lives in the variable's symbol, which the IPA passes
       drop while only the markers stand for its uses (unit.cc
       libprof_tls: local-exec where the unit defines it).  */
    set_decl_tls_model (late_target.trace_tls, DECL_EXTERNAL (late_target.trace_tls)
					       ? TLS_MODEL_INITIAL_EXEC
					       : TLS_MODEL_LOCAL_EXEC);
    expand_trace_markers (late_target);
    free_dominance_info (CDI_DOMINATORS);
    free_dominance_info (CDI_POST_DOMINATORS);
    /* A latch's witness makes two latches of one.  */
    if (current_loops)
      loops_state_set (LOOPS_NEED_FIXUP);
    mark_virtual_operands_for_renaming (cfun);
    cleanup_tree_cfg ();
    update_ssa (TODO_update_ssa);
    cgraph_edge::rebuild_edges ();
    return 0;
  }
};

}

void
register_trace_pass (const char *plugin_name)
{
  static struct register_pass_info pass;
  pass.pass = new trace_markers_pass (g);
  /* The first pass after the IPA passes that runs at every -O level
     (fixup_cfg before it has no instance number to name it by).  */
  pass.reference_pass_name = "adjust_alignment";
  pass.ref_pass_instance_number = 1;
  pass.pos_op = PASS_POS_INSERT_AFTER;
  register_callback (plugin_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &pass);
  register_callback (plugin_name, PLUGIN_REGISTER_GGC_ROOTS, NULL,
		     (void *) late_root_tab);
}
