/* pathprof plugin, the inserter's own header: what probes.cc (the plan's
   probes, site by site), ip-probes.cc (the interprocedural modes' code in
   place) and trace-probes.cc (the trace mode's records in place) share,
   and the GIMPLE building blocks they use (emit.cc).
   The rest of the plugin sees insert_probes only (pathprof-plugin.h).  */

#ifndef PATHPROF_PLUGIN_PROBES_H
#define PATHPROF_PLUGIN_PROBES_H

#include "pathprof-plugin.h"

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
  /* The site's probes take the segment's register and pass it back
     (probes.cc takes_to_pass): the record's word stays as it is.  */
  bool take_to_pass = false;
  auto_vec<gimple *> keyed;	/* the keyed counts' markers (expand_keyed) */
  /* Table counts whose probe has a hint (compiled.cc "Hints"): the
     calls and their probes' indices in the plan.  */
  auto_vec<gimple *> hinted;
  auto_vec<uint32_t> hinted_probe;
  /* The trace mode's pending bits: a traced function gathers its witnesses
     (and those of the callees GCC inlined into it, trace-probes.cc) in a
     local: n bits of trace_acc, with trace_bit = 1 << n, written out
     before a call, a LAND, with the activation's last record or when they
     would pass PP_TRACE_PENDING_MAX bits.  */
  tree trace_acc = NULL_TREE, trace_bit = NULL_TREE;
  auto_vec<gimple *> steps;	/* segments' EDGE calls (expand_step) */
  auto_vec<gimple *> returns;	/* segments' RETURN calls (expand_return) */
  auto_vec<gimple *> exits;	/* segments' EXIT calls (expand_exit) */
  auto_vec<uint32_t> step_args;	/* and their probes' operand2 */
  /* Interprocedural functions whose registers are locals (ip_locals_fit):
     how many (segments' r, and q in the preferential modes; context
     paths' A and B; 0: the code adds to the registers in memory), the
     locals, and the activation's values and registers (addresses, as
     words), loaded after ENTER.  */
  unsigned ip_width = 0;
  tree ip_reg[2] = {};
  tree ip_values = NULL_TREE, ip_regs = NULL_TREE;
};

/* GIMPLE building blocks (emit.cc).  */

/* The type of the unit's counters and of libprof's words.  */
tree counter_type (void);
/* Emits v = a CODE b (or v = (TYPE) a) into SEQ and returns v, or the
   constant when a and b are.  */
tree emit_value (gimple_seq *seq, tree type, enum tree_code code, tree a, tree b,
		 const char *name);
/* A load of the TYPE at byte OFFSET from pointer BASE into SEQ.  */
tree emit_load (gimple_seq *seq, tree type, tree base, unsigned offset,
		const char *name);
/* *REF += 1, atomic when the program is built for threads.  */
void emit_increment (const probe_target &t, tree ref, gimple_seq *seq);
/* An atomic add of 1 to the u64 at ADDR (a register or an invariant), into
   SEQ.  */
void emit_atomic_increment (tree addr, gimple_seq *seq);
/* T's value at INDEX (a tree), and its path table number TABLE.  */
tree value_ref (const probe_target &t, tree index);
tree path_table_ref (const probe_target &t, int32_t table);
/* &BASE[INDEX] of 64-bit words into SEQ, BASE a u64 holding the address.  */
tree emit_word_address (gimple_seq *seq, tree base, tree index);
/* The local *REG, made (named NAME) on first use.  */
tree make_register (tree *reg, const char *name);
/* The frame word's local (trace and interprocedural modes).  */
tree trace_frame (site_state &s);
/* The frame word, loaded into SEQ.  */
tree load_frame (site_state &s, gimple_seq *seq);
/* A call of libprof's FN with ARGS into SEQ (the frame word first when
   FRAME_FIRST).  */
gimple *emit_trace_call (tree fn, site_state &s, bool frame_first, tree a, tree b,
			 gimple_seq *seq);
/* SEQ on edge E, before what is already pending there.  */
void insert_on_edge_first (edge e, gimple_seq seq);
/* SEQ on BB's first normal outgoing edge (not abnormal, EH or fake),
   before what is pending there; false when BB has none.  */
bool insert_on_normal_edge (basic_block bb, gimple_seq seq);
/* A new block after AFTER, in AFTER's loop.  */
basic_block new_block (basic_block after);
/* A new reference to __pathprof_seg_pass's register word, or its record's
   word where RECORD.  */
tree seg_pass_word (const probe_target &t, bool record);
/* A conditional jump at the end of FROM: COND true to YES, else NO.  */
void branch (basic_block from, edge e, gimple *cond, basic_block yes, basic_block no,
	     profile_probability likely);
/* A block after AFTER whose code is SEQ, falling through to JOIN.  */
basic_block new_block_of (basic_block after, gimple_seq seq, basic_block join);
/* SEQ just before CALL, or AFTER it (on its block's normal edge, before
   what is pending there, where the call ends its block; false when there
   is none), the call kept between its probes (probes.cc).  */
bool insert_at_call (gcall *call, bool after, gimple_seq seq);
/* Takes CALL out of its block (split after it): the edge to the rest.  */
edge take_out (gimple *call);

/* The interprocedural modes (ip-probes.cc).  */

/* Whether cfun keeps the root's registers in locals: how many.  */
unsigned ip_locals_fit (const pp_plan &plan, const probe_target &t);
/* The root's registers := the locals, into SEQ.  */
void ip_store_locals (site_state &s, gimple_seq *seq);
/* The locals := the root's registers (after ENTER, with its FRAME word).  */
void ip_load_locals (site_state &s, tree frame, gimple_seq *seq);
/* EDGE call -> __pathprof_ip_step in place, for its probe's operand2 ARG.  */
void expand_step (const probe_target &t, site_state &s, gimple *call, uint32_t arg);
/* RETURN and EXIT calls -> their steps in place (segments).  */
void expand_return (const probe_target &t, gimple *call);
void expand_exit (const probe_target &t, gimple *call);
/* CALL and RETURN around each of cfun's CALLS (modes with calls).  */
void insert_call_probes (const probe_target &t, site_state &s,
			 const auto_vec<gcall *> &calls);

/* The trace mode (trace-probes.cc).  Its records are markers, calls of
   probe_target's trace_m_*, from the plan's probes until GCC has inlined,
   then expanded into their code in place ("Markers" there).  */

/* The marker of a flush of the pending bits, into SEQ.  */
gimple *emit_trace_flush (const probe_target &t, site_state &s, gimple_seq *seq);
/* A flush's marker before every call of cfun that may enter traced code,
   leave the function or not return.  */
void mark_trace_flushes (const probe_target &t, site_state &s);
/* A direct call's marker before each direct call of rec: it tells the
   callee's ENTER who calls.  */
void announce_direct_calls (const function_record &rec, const probe_target &t,
			    site_state &s);
/* Before each call site of rec: its record and announcement, in place.  */
void expand_sites (const function_record &rec, const probe_target &t);
/* The address that is function INDEX's key (pathprof-abi.h): its own where
   code may call it by its address, else its byte's in the key array.  */
tree trace_key_address (const probe_target &t, uint32_t index);
/* cfun's markers into their code (the whole function's, and of every
   callee GCC inlined into it).  */
void expand_trace_markers (const probe_target &t);
/* The most pending bits: with the cursor's offset in its byte (< 8), one
   unaligned 8-byte OR puts them in place.  */
#define PP_TRACE_PENDING_MAX 57

#endif
