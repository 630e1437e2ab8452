/* pathprof plugin, the interprocedural modes' code in place
   (pathprof-abi.h): the registers in locals, an edge's add and a cut's
   count (expand_step; context_cut for context and piecewise paths, the
   segments' places otherwise), and around each call the call, return and
   exit steps.  */

#include "probes.h"

/* Where pathprof-abi.h's struct __pathprof_ip_frame keeps its fields
   (kseg-runtime.c checks them).  */
enum { FRAME_VALUES = 0, FRAME_REGS = 8, FRAME_TAG = 16, FRAME_SITE = 24,
       FRAME_ENTERED = 28, FRAME_DEPTH = 32, FRAME_EXIT_ADDS = 36, FRAME_RET = 40,
       FRAME_CALLS = 56 };

/* Interprocedural functions keep their registers in locals of the
   activation (site_state::ip_width), as the paths mode keeps its register:
   the segments' root's r and q, context and piecewise paths' sum A (but
   not the keys and arrays of their cuts in place, which libprof sets).
   They are loaded after ENTER and after whatever may move the registers (a
   call, libprof's slow ways), and stored into them before whatever reads
   them (a call, EXIT, libprof).  An in-place add is then an add to a
   register.  The activation's values and registers (their addresses) are
   locals too, loaded once: they stay valid while it runs
   (pathprof-abi.h).  */

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
void
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
void
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

/* cfun keeps a segments root's r and q in locals (interproc-ppp,
   interproc-residual): GCC 12's -O2 would pair their adds into one vector
   add (SLP) and move both between vector and general registers at every
   add, so cfun is compiled with -fno-tree-slp-vectorize, set as an
   optimize attribute would set it.  make bench: zlib 1.99 -> 1.92
   (longest_match's loop, six instructions an iteration), xz 1.89 as it
   was; context and piecewise paths' A and B gain nothing (zlib 3.42 ->
   3.45), so they keep GCC's choice.  */
static void
no_register_pairs (void)
{
  tree decl = current_function_decl;
  tree opts = DECL_FUNCTION_SPECIFIC_OPTIMIZATION (decl);
  if (!opts)
    opts = optimization_default_node;
  if (!TREE_OPTIMIZATION (opts)->x_flag_tree_slp_vectorize)
    return;
  cl_optimization_restore (&global_options, &global_options_set, TREE_OPTIMIZATION (opts));
  global_options.x_flag_tree_slp_vectorize = 0;
  DECL_FUNCTION_SPECIFIC_OPTIMIZATION (decl)
    = build_optimization_node (&global_options, &global_options_set);
  optimization_current_node = DECL_FUNCTION_SPECIFIC_OPTIMIZATION (decl);
}

/* Can cfun keep the registers in locals?  Not where libprof moves them at
   places the code cannot follow: a landing (a longjmp, a computed goto, an
   exception: LAND), and not where every edge calls EDGE.  */
unsigned
ip_locals_fit (const pp_plan &plan, const probe_target &t)
{
  if (!t.ip_width || cfun->calls_setjmp || cfun->has_nonlocal_label)
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
  if (t.ip_width == 2 && t.calls_in_place)
    no_register_pairs ();
  return t.ip_width;
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
tree
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
  /* regs[0 .. 1] = next[0 .. 1]: r and q, maybe locals; regs[2] = next.  */
  for (unsigned k = 0; k < 2; k++)
    if (k == 0 || s.ip_width != 1)
      store_ip_reg (s, regs, k, emit_load (&seq, u64, next, 8 * k, "PP_ip_start"), &seq);
  gimple_seq_add_stmt (&seq, gimple_build_assign (
    build2 (MEM_REF, ptr, regs, build_int_cst (ptr, 16)), next));
  return seq;
}

/* The code that counts segment number N of the root whose registers are
   at REGS in its place (kseg-runtime.c, "In place"), after block FROM, into
   which it puts its first test: in the array of the segment's start
   (at regs[2]: first, size, array), in the preferential slot SLOT when its
   key is N (with SLOT, NULL_TREE but in the preferential modes, which
   SLOT_SEQ computes where the array has no place: regs[5 .. 7]), or in
   the hashed place ((N * PATHPROF_IP_HASH) >> 32) & regs[8] when its key
   is N (regs[9], regs[10]).  Where it counts, the code THEN () makes
   follows and goes to JOIN; where N has no place, to MISS (whose count it
   sets).  */
template <typename F>
static void
count_in_place (const probe_target &t, basic_block from, tree regs, tree n, tree slot,
		gimple_seq slot_seq, F then, basic_block join, basic_block miss)
{
  tree u64 = counter_type (), ptr = build_pointer_type (u64);
  profile_probability likely = profile_probability::very_likely ();
  auto hit = [&] (basic_block after, tree base, unsigned counts_at, tree index) {
    gimple_seq seq = NULL;
    tree count = emit_word_address (&seq, emit_load (&seq, u64, base, counts_at,
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
      seq = slot_seq;
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
  tree start = emit_value (&seq, ptr, NOP_EXPR, emit_load (&seq, u64, regs, 16, "PP_ip_start"),
			   NULL_TREE, "PP_ip_start");
  tree i = emit_value (&seq, u64, MINUS_EXPR, n,
		       emit_load (&seq, u64, start, 16, "PP_ip_first"), "PP_ip_index");
  tree size = emit_load (&seq, u64, start, 24, "PP_ip_size");
  gimple_stmt_iterator gsi = gsi_last_bb (from);
  gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);
  test (from, i, LT_EXPR, size, hit (from, start, 32, i), after_array);
  after_array->count = from->count - from->count.apply_probability (likely);
  if (slot)
    {
      test (keyed, slot, LT_EXPR, span, check, hashed);
      test (check, key, EQ_EXPR, n, hit (check, regs, 56, slot), hashed);
      hashed->count = keyed->count - check->count.apply_probability (likely);
    }
  test (hashed, hkey, EQ_EXPR, n, hit (hashed, regs, 80, h), miss);
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

/* A backedge's cut in place for context and piecewise paths
   (pathprof-abi.h, "Context and piecewise paths"), in block CUT, where the
   edge's first value V (in the function's row VALUES, the edge's words at
   byte AT; F the frame) has its top bit set (regs[0] is the local where
   the function keeps it, site_state::ip_width):
       regs = f->regs;
       a = regs[0] + (v & ~TOP);
       st = (struct __pathprof_ip_array *) regs[3];
       if ((i = a - st->lo) < st->size)
         { st->counts[i] += 1; regs[0] = values[1];
           regs[2] = regs[4]; regs[3] = regs[5]; }
       else
         SLOW (EDGE)
   then JOIN.  */
static void
context_cut (const probe_target &t, const site_state &s, tree f, tree values, tree v,
	     unsigned at, basic_block cut, basic_block slow, basic_block join)
{
  tree u64 = counter_type (), ptr = build_pointer_type (u64);
  profile_probability likely = profile_probability::very_likely ();
  gimple_seq seq = NULL;
  tree regs = s.ip_width ? emit_address (&seq, s.ip_regs, "PP_ip_regs")
	      : emit_load (&seq, ptr, f, FRAME_REGS, "PP_ip_regs");
  tree a = emit_value (&seq, u64, PLUS_EXPR, load_ip_reg (s, regs, 0, &seq),
		       emit_value (&seq, u64, BIT_AND_EXPR, v,
				   build_int_cstu (u64, ~((uint64_t) 1 << 63)), "PP_ip_out"),
		       "PP_ip_a");
  tree st = emit_value (&seq, ptr, NOP_EXPR, emit_load (&seq, u64, regs, 24, "PP_ip_array"),
			NULL_TREE, "PP_ip_array");
  tree i = emit_value (&seq, u64, MINUS_EXPR, a, emit_load (&seq, u64, st, 0, "PP_ip_lo"),
		       "PP_ip_index");
  tree size = emit_load (&seq, u64, st, 8, "PP_ip_size");
  gimple_stmt_iterator gsi = gsi_start_bb (cut);
  gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);

  seq = NULL;
  tree count = emit_word_address (&seq, emit_load (&seq, u64, st, 16, "PP_ip_counts"), i);
  emit_increment (t, build2 (MEM_REF, u64, count, build_int_cst (ptr, 0)), &seq);
  store_ip_reg (s, regs, 0, emit_load (&seq, u64, values, at + 8, "PP_ip_in"), &seq);
  for (unsigned k = 2; k < 4; k++)
    gimple_seq_add_stmt (&seq, gimple_build_assign (
      build2 (MEM_REF, u64, regs, build_int_cst (ptr, 8 * k)),
      emit_load (&seq, u64, regs, 8 * (k + 2), "PP_ip_next")));
  basic_block hit = new_block_of (cut, seq, join);

  branch (cut, make_single_succ_edge (cut, hit, EDGE_FALLTHRU),
	  gimple_build_cond (LT_EXPR, i, size, NULL_TREE, NULL_TREE), hit, slow, likely);
  hit->count = cut->count.apply_probability (likely);
  slow->count = cut->count - hit->count;
}

/* Replaces the call EDGE (frame, e) of an interprocedural function
   (__pathprof_ip_edge, or __pathprof_seg_edge in the segments modes) by
   __pathprof_ip_step of pathprof-abi.h for its probe's operand2 ARG
   (probes.h: the WIDTH registers the activations add, and whether the edge
   CUTS), the call staying on the unlikely path (w = 2 WIDTH words per
   edge):
       f = (struct __pathprof_ip_frame *) frame; regs = f->regs;
       v = f->values[w e];
       if ((int64_t) v >= 0)
         { regs[0] += v;  (WIDTH 2: regs[1] += f->values[w e + 2]) }
       else
         EDGE (frame, e);
   On an edge that CUTS (a loop's backedge, where segments end: below) the
   segment, number n = (regs[0] + v) & ~TOP, ends in place where it can
   (kseg-runtime.c, "In place"), next = f->values[w e + 1], with no test
   of v in the segments modes (the else below is then the code's start):
       else if ((i = n - st[2]) < st[3], st = (uint64_t *) regs[2])
         end: ((uint64_t *) st[4])[i] += 1
       else if (WIDTH 2 and (k = regs[1] + f->values[w e + 2]) < regs[5]
                and ((uint64_t *) regs[6])[k] == n)
         end: ((uint64_t *) regs[7])[k] += 1
       else if (((uint64_t *) regs[9])[h] == n,
                h = ((n * PATHPROF_IP_HASH) >> 32) & regs[8])
         end: ((uint64_t *) regs[10])[h] += 1
       else if (next)
         __pathprof_seg_cut (frame, e, n, next);
       else
         __pathprof_seg_edge (frame, e);
   (end: regs[0 .. 1] = next[0 .. 1], regs[2] = next).  The registers are the
   calling thread's; a count is atomic when the program is built for
   threads (emit_increment).  Where the function keeps r and q in locals
   (site_state::ip_width), regs[0] and regs[1] above are those, and the
   calls of libprof store them before and load them after.  */
void
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
  bool cuts = arg & PP_PROBE_IP_CUTS, tested = !cuts || !t.calls_in_place;
  tree sv = tested ? emit_value (&seq, s64, NOP_EXPR, v, NULL_TREE, "PP_ip_value") : NULL_TREE;
  gsi = gsi_last_bb (bb);
  gsi_insert_seq_after (&gsi, seq, GSI_NEW_STMT);

  /* An edge that CUTS has its value's top bit set in every numbering: a
     segments supergraph ends its segments there in each copy of the
     function (the notes' roles make it a path end), and context and
     piecewise paths end there or take the edge by EDGE (UINT64_MAX).
     What has no numbering reads zeros (the dummy of an untracked
     activation, a segments root without S).  In the segments modes the
     edge is then a cut with no test: zeros find no place (their
     registers name none, kseg-runtime.c lose) and no next start, so EDGE
     takes the edge as it took the add of 0.  Context and piecewise paths
     test the top bit, the cut the way GCC lays out in line.  */
  basic_block slow, cut;
  if (tested)
    {
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
      slow = new_block_of (add, seq, join);
      cut = cuts ? new_block (slow) : slow;
      profile_probability adds = cuts ? likely.invert () : likely;
      branch (bb, to_add, gimple_build_cond (GE_EXPR, sv, build_int_cst (s64, 0),
					     NULL_TREE, NULL_TREE), add, cut, adds);
      add->count = bb->count.apply_probability (adds);
      cut->count = bb->count - add->count;
    }
  else
    {
      seq = NULL;
      emit_ip_slow (s, call, &seq);
      slow = new_block_of (bb, seq, join);
      cut = new_block (slow);
      redirect_edge_succ (to_add, cut);
      cut->count = bb->count;
    }
  if (cut == slow)
    return;
  if (!t.calls_in_place)
    {
      context_cut (t, s, f, values, v, at, cut, slow, join);
      return;
    }

  /* A cut: the number, its place.  */
  seq = NULL;
  tree regs = s.ip_width ? emit_address (&seq, s.ip_regs, "PP_ip_regs")
	      : emit_load (&seq, ptr, f, FRAME_REGS, "PP_ip_regs");
  tree n = emit_value (&seq, u64, BIT_AND_EXPR,
		       emit_value (&seq, u64, PLUS_EXPR, load_ip_reg (s, regs, 0, &seq),
				   v, "PP_ip_number"),
		       build_int_cstu (u64, ~((uint64_t) 1 << 63)), "PP_ip_number");
  tree next = emit_value (&seq, ptr, NOP_EXPR,
			  emit_load (&seq, u64, values, at + 8, "PP_ip_next"),
			  NULL_TREE, "PP_ip_next");
  gimple_seq slot_seq = NULL;
  tree slot = width == 2
	      ? emit_value (&slot_seq, u64, PLUS_EXPR, load_ip_reg (s, regs, 1, &slot_seq),
			    emit_load (&slot_seq, u64, values, at + 16, "PP_ip_value"),
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
  count_in_place (t, cut, regs, n, slot, slot_seq,
		  [&] () { return segment_end (s, regs, next); },
		  join, far);
  to_cut->count = far->count.apply_probability (likely);
  slow->count = far->count - to_cut->count;
}

/* __pathprof_ip_call_step of pathprof-abi.h (every interprocedural mode): the call INDEX of
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

/* Replaces the call __pathprof_ip_return (frame, k) of an interprocedural
   function by __pathprof_ip_return_step of pathprof-abi.h, the call staying on the
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
void
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
void
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
  gimple_seq slot_seq = NULL;
  tree slot = t.ip_width == 2 ? emit_load (&slot_seq, u64, rregs, 8, "PP_ip_q") : NULL_TREE;
  basic_block counts = zero_before_call (call, seq, root, then);
  count_in_place (t, counts, rregs, n, slot, slot_seq, pop, join, slow);
  slow->count = total - counts->count.apply_probability (profile_probability::likely ());
}

/* The interprocedural mode's probes around the calls of the notes (CALL
   before, RETURN after, on the block's normal edge, before that edge's
   probes, when the call ends its block; none around setjmp, whose block's
   LAND probe stands for its return) and before computed gotos (JUMP).
   CALLS was listed before any probe went in.  */
void
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
      /* The probes bracket the call (insert_at_call keeps it between
	 them).  */
      tree index = build_int_cst (unsigned_type_node, k);
      gimple_seq before = NULL, after = NULL;
      call_in_place (t, s, index, callee, &before);
      insert_at_call (call, false, before);
      if (gimple_call_flags (call) & ECF_NORETURN)
	continue;
      gimple *ret = emit_trace_call (t.ip_return, s, true, index, NULL_TREE, &after);
      s.returns.safe_push (ret);	/* expand_return */
      if (s.ip_width)
	ip_load_locals (s, NULL_TREE, &after);
      insert_at_call (call, true, after);
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
