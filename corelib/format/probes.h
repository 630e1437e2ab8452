/* The instrumentation plan of one function, the same shape for every mode: a list
   of probes, each attached to a block or an edge of the core graph, with an action,
   an operand and the index of the value it stores into.  A mode's planner
   (corelib/plan.h; modes.h's row names it) makes it from the graph; the
   plugin's inserter walks it and emits one GIMPLE sequence per probe site,
   knowing nothing about modes; the notes record it (pp_plan_to_notes) and
   the tool reads it back (pp_plan_from_notes).

   Runtime model.  Each function's values are a slice of its unit's value array
   (uint8_t coverage bytes or uint64_t counters, modes.h says which), starting at
   the function's value offset; paths modes also have one 64-bit path register r
   per activation, arithmetic modulo 2^64, and count paths either in the slice
   (value k counts path k) or, when the plan says path_table, in a libprof hash
   table keyed by the path number.  The actions:

     PP_PROBE_MARK              values[index] = 1       (a coverage byte; racing
                                                         stores of 1 are harmless)
     PP_PROBE_COUNT             values[index] += 1      (atomic under threads)
     PP_PROBE_PATH_SET          r = operand
     PP_PROBE_PATH_ADD          r += operand
     PP_PROBE_PATH_COUNT        count path r + operand  (array or table)
     PP_PROBE_PATH_COUNT_CONST  count path operand
     PP_PROBE_PPP_SET           q = operand
     PP_PROBE_PPP_ADD           q += operand
     PP_PROBE_PATH_COUNT_KEYED  k = q + operand2; if k < nkeys (always, when the
                                plan's keys_cover_all) and keys[k] == r +
                                operand, values[k] += 1, else count path r +
                                operand in the table
     PP_PROBE_PATH_COUNT_SLOT   values[index] += 1  (interesting path operand,
                                known at compile time)
     PP_PROBE_TRACE_ENTER       the activation starts: record ENTER (unit,
                                function) and make operand the width of its
                                records (trace.h); with PP_TRACE_LAST in
                                operand it has none, and the width stays
     PP_PROBE_TRACE_WITNESS     record witness index (= operand); with
                                PP_TRACE_LAST in operand2, the activation's
                                last record: back to the caller's width
     PP_PROBE_TRACE_LAND        record LAND (the activation's depth, block
                                operand), width operand2 (with
                                PP_TRACE_LAST: the last record)
     PP_PROBE_IP_ENTER          the activation starts (libprof/ctx-runtime.c:
                                it continues the caller's path or starts one)
     PP_PROBE_IP_EDGE           edge operand is taken: the path number grows
                                by its value, or a path ends and one starts
     PP_PROBE_IP_EXIT           the activation returns
     PP_PROBE_IP_LAND           block operand may be entered by a longjmp or
                                a computed goto; operand2: the setjmp call
                                (notes index) that starts it, or UINT32_MAX
     PP_PROBE_PATH_PASS         pass = r + operand  (pass: the thread's word
                                that carries r across a call, below)
     PP_PROBE_PATH_TAKE         r = pass + operand
     PP_PROBE_PATH_LEAVE        the record's leave = r + operand, or 1 with
                                operand2 PP_LEAVE_NONE (below)
     PP_PROBE_IP_ADD            interprocedural modes: edge operand is
                                taken, in place (pathprof-abi.h
                                __pathprof_ip_step): the activation's
                                registers (operand2 & PP_PROBE_IP_WIDTH of
                                them) add the edge's values from its frame,
                                or EDGE runs; with PP_PROBE_IP_CUTS in
                                operand2 (a backedge of the function), a
                                segment or a context path that ends there
                                is counted in place too where it can be
   The interprocedural mode's calls (notes' calls) are probed around the call
   statements by the plugin (plugin/ip-probes.cc, insert_call_probes).

   Compiled roots with copies (the segments modes, plan.h
   pp_plan_compiled_copy): a segment's register goes on through the calls
   its root's supergraph inlines, in the thread's word pass
   (__pathprof_seg_pass, libprof's): the caller passes r before the call
   (site PP_SITE_CALL_BEFORE), the callee's copy takes it on its entry
   edge and passes it back on its edges into EXIT, and the caller takes
   it after the call (PP_SITE_CALL_AFTER).  Where S does not inline a call
   (a summary call, a call through a pointer), the root's activation keeps a
   record in libprof's thread stack (pathprof-abi.h __pathprof_seg_records,
   pushed before the first such call and popped by the root, its address
   passed to the copies with the register in __pathprof_seg_pass.record):
   before the call, PP_PROBE_PATH_LEAVE stores the number the segment ends
   with if the call never returns (the process ends in it, a longjmp passes
   it; libprof counts it then), after it a 1 (no call under way: such a
   segment is lost, as libprof's would be), then the call's edge adds.

   Preferential modes (ppp.h) keep a second register q per activation, the
   path's preferential number, and a key per slot: the Ball-Larus number of
   the path the slot counts.

   Packed registers.  Where the slots cover every path's number (the plan's
   keys_cover_all) and the numbers fit, the two registers share one machine
   register: r holds (Ball-Larus << pack_bits) + slot, so that each chord
   updates one register with one constant and a path end extracts its slot with
   one zero-extending move (pack_bits is 8, 16 or 32).  Such a plan has no PPP_
   probes; its PATH_SET and PATH_ADD operands are packed the same way, and
   two actions read r differently:
     PP_PROBE_PATH_COUNT        count path (r + operand) >> pack_bits
     PP_PROBE_PATH_COUNT_KEYED  n = r + operand, k = n mod 2^pack_bits; if
                                keys[k] == n (pp_plan_key_word: the slot's
                                path packed with k, its low bits never k in a
                                hole), values[k] += 1, else count path
                                n >> pack_bits in the table
   The sum is exact modulo 2^64 whatever the order of the chords, since a path
   ends with 0 <= slot < 2^pack_bits and its number below 2^(64 - pack_bits):
   borrows between the halves on the way cancel.

   Sites.  PP_SITE_EDGE: on the edge (the inserter splits it if needed);
   PP_SITE_BLOCK: first thing in the block, after its labels (after a leading
   setjmp-like call, which nothing may precede); PP_SITE_SOURCE_END: just before
   the last statement of the edge's source block, for an edge that can carry no
   code (a fake leave that is its block's only successor: the block ends in a call
   that does not return); PP_SITE_CALL_BEFORE and PP_SITE_CALL_AFTER: just
   before and just after call `where` (the notes' call index).  `where` is
   the edge or block id, or the call's index.

   Order.  Probes are sorted by site: edge-attached probes (EDGE and SOURCE_END) in
   edge order, then block probes in block order, then call probes in call
   order (before, then after, each call); probes of one site are consecutive
   and run in list order (a path count before the register update on the same
   edge: the count reads the register first).

   New modes add actions here with their meaning above and their GIMPLE in the
   plugin's inserter: one line each, not a branch per mode.  */

#ifndef PATHPROF_CORE_PROBES_H
#define PATHPROF_CORE_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>


#ifdef __cplusplus
extern "C" {
#endif

enum pp_probe_action
{
  PP_PROBE_MARK = 0,
  PP_PROBE_COUNT = 1,
  PP_PROBE_PATH_SET = 2,
  PP_PROBE_PATH_ADD = 3,
  PP_PROBE_PATH_COUNT = 4,
  PP_PROBE_PATH_COUNT_CONST = 5,
  PP_PROBE_PPP_SET = 6,
  PP_PROBE_PPP_ADD = 7,
  PP_PROBE_PATH_COUNT_KEYED = 8,
  PP_PROBE_PATH_COUNT_SLOT = 9,
  PP_PROBE_TRACE_ENTER = 10,
  PP_PROBE_TRACE_WITNESS = 11,
  /* 12: unused (RETURN, until trace files of version 3) */
  PP_PROBE_TRACE_LAND = 13,
  PP_PROBE_IP_ENTER = 14,
  PP_PROBE_IP_EDGE = 15,
  PP_PROBE_IP_EXIT = 16,
  PP_PROBE_IP_LAND = 17,
  PP_PROBE_IP_ADD = 18,
  PP_PROBE_PATH_PASS = 19,
  PP_PROBE_PATH_TAKE = 20,
  PP_PROBE_PATH_LEAVE = 21,
};

/* PP_PROBE_PATH_LEAVE's operand2: no segment ends here (the record's
   leave is 1, which no packed number is).  */
#define PP_LEAVE_NONE 1u

/* PP_PROBE_PATH_TAKE's operand2: a second take, on a way out of the
   copy's first block that leads to calls (plan.c take_block), which must
   stay there: the plugin loads the thread's words with volatile loads,
   which GCC neither merges with the entry's take nor hoists.  */
#define PP_TAKE_APART 1u

/* PP_PROBE_IP_ADD's operand2: the registers, and whether the edge is a
   backedge of the function (where segments and context paths end).  */
#define PP_PROBE_IP_WIDTH 0xffu
#define PP_PROBE_IP_CUTS 0x100u

/* Interprocedural modes: functions with at most this many edges take them in place
   (PP_PROBE_IP_ADD); libprof's values of an untracked activation are this
   many pairs of zeros.  */
#define PP_PLAN_IP_INLINE_EDGES 65536u

enum pp_probe_site
{
  PP_SITE_EDGE = 0,
  PP_SITE_BLOCK = 1,
  PP_SITE_SOURCE_END = 2,
  PP_SITE_CALL_BEFORE = 3,
  PP_SITE_CALL_AFTER = 4,
};

typedef struct pp_probe
{
  uint8_t action;		/* enum pp_probe_action */
  uint8_t site;			/* enum pp_probe_site */
  uint32_t where;		/* edge id (EDGE, SOURCE_END) or block id (BLOCK) */
  uint32_t index;		/* MARK, COUNT, PATH_COUNT_SLOT: the value, from
				   the function's first */
  uint64_t operand;		/* PATH_*, PPP_*: as in the table above, modulo 2^64 */
  uint64_t operand2;		/* PATH_COUNT_KEYED: the slot's offset from q;
				   TRACE_LAND: the width */
} pp_probe;

/* Does the action store into the function's values at `index`?  */
static inline bool pp_probe_stores_value (uint8_t action)
{ return action == PP_PROBE_MARK || action == PP_PROBE_COUNT; }
/* Is `index` the value index the notes record for the probe's site (a stored
   value, or a witness number)?  */
static inline bool pp_probe_has_value_index (uint8_t action)
{ return pp_probe_stores_value (action) || action == PP_PROBE_TRACE_WITNESS; }
static inline bool pp_probe_counts_path (uint8_t action)
{ return action == PP_PROBE_PATH_COUNT || action == PP_PROBE_PATH_COUNT_CONST
	 || action == PP_PROBE_PATH_COUNT_KEYED || action == PP_PROBE_PATH_COUNT_SLOT; }
/* Is the path counted at a number known at compile time?  */
static inline bool pp_probe_counts_constant (uint8_t action)
{ return action == PP_PROBE_PATH_COUNT_CONST || action == PP_PROBE_PATH_COUNT_SLOT; }
static inline bool pp_probe_sets_register (uint8_t action)
{ return action == PP_PROBE_PATH_SET || action == PP_PROBE_PATH_ADD
	 || action == PP_PROBE_PPP_SET || action == PP_PROBE_PPP_ADD; }

typedef struct pp_plan
{
  uint32_t nprobes;
  pp_probe *probes;		/* sorted as above */
  uint32_t nvalues;		/* values this function takes in its unit's array */
  /* Flags to add to the notes' edges besides those describing the probes
     (PP_EDGE_PATH_END: the path cuts); NULL when none.  Per edge.  */
  uint32_t *edge_flags;
  /* Paths modes.  */
  uint64_t npaths;		/* path numbers are 0 .. npaths-1 */
  bool path_table;		/* counted in a libprof hash table: all paths
				   (nvalues = 0), or those no slot counts */
  /* Preferential modes: the interesting paths (increasing) and, when the
     function counts them in slots, each slot's path (UINT64_MAX: a hole);
     nkeys = nvalues then.  */
  uint32_t ninteresting;
  uint64_t *interesting;
  uint32_t nkeys;
  uint64_t *keys;
  uint64_t ppp_span;		/* the preferential numbers' span (uncapped) */
  uint64_t slot_shift;		/* preferential number n has slot n + slot_shift */
  bool keys_cover_all;		/* every path's slot is below nkeys: the keyed
				   count needs no range test */
  uint8_t pack_bits;		/* 0: two registers; else packed, as above */
  /* What the plugin reports as warnings.  */
  int pinned_chords;		/* abnormal edges that could not be counted */
  uint32_t ninexact;		/* blocks a report shows whose coverage the
				   probes cannot tell (the plugin warns) */
} pp_plan;

/* Slot K's key as the path end compares it with the register: the Ball-Larus
   number of the slot's path, packed with K in a packed plan; a hole's key no
   path's register holds.  */
static inline uint64_t pp_plan_key_word (const pp_plan *plan, uint32_t k)
{
  if (!plan->pack_bits)
    return plan->keys[k];
  return plan->keys[k] == UINT64_MAX ? ~(uint64_t) k
	 : (plan->keys[k] << plan->pack_bits) + k;
}

#ifdef __cplusplus
}
#endif

#endif
