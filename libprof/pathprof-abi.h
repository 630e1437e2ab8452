/* The contract between the plugin and libprof: the plugin emits one
   struct __pathprof_unit per instrumented translation unit and a constructor that
   passes it to __pathprof_register_unit, plus a destructor that passes it to
   __pathprof_unit_exit.  The plugin builds these record types field by field in
   GCC trees (plugin/unit.cc: emit_unit_record, path_table_type), so any change
   here must be made there too and PATHPROF_ABI_VERSION bumped; libprof refuses
   units of another version.  */

#ifndef PATHPROF_ABI_H
#define PATHPROF_ABI_H

#include <stdint.h>

#define PATHPROF_ABI_VERSION 26u

/* What libprof exports: this ABI and pathprof.h (it is built with
   -fvisibility=hidden).  */
#define PP_EXPORT __attribute__ ((visibility ("default")))

/* libprof's thread-local variables: initial-exec TLS (no call of
   __tls_get_addr per access in the shared library: libprof is loaded with
   the program, never by dlopen), also in the static library, which may be
   linked into a shared object (gcc -shared -specs=pathprof.specs), where
   local-exec TLS cannot go.  The instrumented code of an executable
   defines those it uses weakly and reaches them local-exec (plugin/unit.cc
   libprof_tls): libprof.a's definitions then win at the link, and
   libprof.so's accesses, through its GOT, bind to the executable's, so
   each variable here is the whole of libprof's, size for size.  */
#define PP_TLS_MODEL __attribute__ ((tls_model ("initial-exec")))

/* The paths of one function with more paths than fit a counter array (paths
   mode), or the segments of a compiled root with more segments than that
   (segments modes, flags PATHPROF_TABLE_COMPILED): counted by
   __pathprof_count_path in a hash table that libprof allocates on first
   use.  A compiled root's table is not the unit's data: libprof moves its
   counts into the program record, keyed by the root, as it does the
   compiled counts (kseg-runtime.c, "Compiled roots").  */
struct __pathprof_path_table
{
  uint32_t function;		/* index in the unit's notes */
  uint32_t flags;		/* PATHPROF_TABLE_* */
  uint64_t npaths;		/* path numbers are 0 .. npaths-1 */
  void *table;			/* libprof's; in the object file, the unit's
				   empty table (below) */
};
#define PATHPROF_TABLE_COMPILED 1u

/* What the code reads of a path table's hash table (table;
   libprof/path-tables.c) to count a number N that is already in its home
   slot without a call (plugin/probes.cc expand_table_count): at offset 0
   a u64, the shift; from offset PATHPROF_PATH_HASH_SLOTS its slots of two
   u64, key (N + 1, 0 when empty) and count; N's home slot is ((N + 1) *
   PATHPROF_PATH_HASH_MUL) >> shift.  Where the key is there, the code adds
   1 to the count (an atomic add, as libprof's); anything else calls
   __pathprof_count_path.  The code counts only numbers below npaths, so
   the key is never 0.  Until its first count a table is an empty one the
   unit defines, read-only, PATHPROF_PATH_HASH_NONE_WORDS u64 of which the
   first is PATHPROF_PATH_HASH_NONE_SHIFT and the rest 0 (two empty home
   slots), so that the code needs no test for a table not there yet;
   libprof knows it by its shift, which no table of its own has.  */
#define PATHPROF_PATH_HASH_SLOTS 64
#define PATHPROF_PATH_HASH_MUL 0x9e3779b97f4a7c15ull
#define PATHPROF_PATH_HASH_NONE_SHIFT 63
#define PATHPROF_PATH_HASH_NONE_WORDS (PATHPROF_PATH_HASH_SLOTS / 8 + 4)

/* Segments modes: a root the plugin numbered when it compiled the unit
   (libprof/kseg-runtime.c, "Compiled roots"): function `function` (its
   notes index) counts segment n of its S (n < npaths) in the unit's
   compiled_counts[first + n] when it runs as a root, or, where table is
   not 0, in the unit's tables[table - 1] (more segments than fit an
   array).  Such a root of the learning modes may have a front of its
   interesting segments (corelib/ppp.h pp_front_place): where keys is not
   0, its code counts segment keys[i] (PP_FRONT_HOLE: none) in
   compiled_counts[first + i], i < 2^keys_log2, and the rest in the
   table.  A root whose S calls functions its unit does not define, which
   the plugin took for code not instrumented, lists them: where assumed is
   not 0, the unit's ip_assumed[assumed - 1] is their number and the words
   after it their indices among the unit's ip_names imports, then the
   number of other units' clones it calls (compiled across units) and
   their indices in the unit's ip_clones; the root runs compiled only
   where the unit's ip_ok[function] is 1 (none of those functions is
   another unit's in the program, each clone is linked, and where there
   are clones the program is the unit's ip_program).  */
struct __pathprof_compiled_root
{
  uint32_t function;
  uint32_t table;
  uint64_t first;
  uint64_t npaths;
  const uint64_t *keys;
  uint32_t keys_log2;
  uint32_t assumed;
};

struct __pathprof_unit
{
  uint32_t abi_version;		/* PATHPROF_ABI_VERSION */
  uint32_t value_kind;		/* enum pp_value_kind (corelib/format/profile.h) */
  uint64_t checksum;		/* pp_hash64 (notes, notes_len, PP_HASH_SEED) */
  const char *name;		/* absolute path of the main source file */
  const unsigned char *notes;	/* corelib/format/notes.h encoding */
  uint32_t notes_len;
  uint32_t nvalues;
  void *values;			/* uint64_t[nvalues] or uint8_t[nvalues] */
  uint32_t ntables;
  uint32_t trace_id;		/* libprof's (trace mode: 1 + the unit's number
				   in trace files); 0 in the object file */
  struct __pathprof_path_table *tables;	/* ntables */
  struct __pathprof_unit *next;	/* owned by libprof; 0 in the object file */
  uint64_t ip_first;		/* libprof's (interprocedural modes: 1 + the
				   procedure of the unit's function 0, once the
				   program is numbered); 0 in the object file */
  /* Trace mode (else 0): per function, its address where code may call it
     by its address (else 0), and a byte: its width, with
     PP_TRACE_INFO_LEAF when it writes no record at all.  */
  const void *const *trace_addrs;
  const unsigned char *trace_info;
  uint32_t trace_nfunctions;	/* of both */
  /* Segments modes (else 0): the roots the plugin numbered (compiled
     roots, above), and their counts.  */
  uint32_t ncompiled;
  const struct __pathprof_compiled_root *compiled;
  uint64_t *compiled_counts;
  /* Segments modes, where a compiled root lists functions it assumes
     are not instrumented (else 0): per function of the unit, libprof's
     byte, 1 once the program is set up where none of the function's
     root's assumed callees is another unit's (0 in the object file); and
     the lists (struct __pathprof_compiled_root, assumed).  */
  unsigned char *ip_ok;
  const uint32_t *ip_assumed;
  /* Compiled roots across units (learning modes, else 0): the other
     units' clones the unit's roots call (weak references, 0 where no unit
     made one), which ip_assumed's lists name by index; and the signature
     of the training program they were planned in (corelib/ip-notes.h
     pp_ip_program_signature), which the program must have.  */
  const void *const *ip_clones;
  uint64_t ip_program;
  /* Interprocedural modes (else 0): the unit's functions (its notes'), and
     the names libprof tells ip_ok from without decoding any notes
     (corelib/ip-notes.h pp_ip_unit_names): ip_nimports imports, then
     ip_nexports exports.  */
  uint32_t ip_nfunctions;
  uint32_t ip_nimports;
  uint32_t ip_nexports;
  const uint64_t *ip_names;
};
#define PP_TRACE_INFO_LEAF 0x80u

#ifdef __cplusplus
extern "C" {
#endif
/* From each unit's constructor.  Units of another abi_version are refused (one
   message on stderr) and never profiled.  */
void __pathprof_register_unit (struct __pathprof_unit *unit);
/* From each unit's destructor, after user destructors: the first call of a process
   dumps every registered unit; later calls dump again only if the unit's values are
   not all zero (code ran since).  Then the unit is forgotten, as its memory may go
   away (dlclose).  */
void __pathprof_unit_exit (struct __pathprof_unit *unit);
/* Counts one execution of path number path of t's function, exactly even when
   threads count concurrently.  A path >= t->npaths is ignored.  */
void __pathprof_count_path (struct __pathprof_path_table *t, uint64_t path);
/* Trace mode (corelib/trace.h, libprof/trace-buffers.c): a thread's record
   buffer, thread-local in libprof (__pathprof_trace_tls, initial-exec TLS).
   A traced function gathers its witnesses in a local, n bits (at most 57)
   of acc, and the plugin's code puts them in place (plugin/trace-probes.cc,
   expand_flush, emit_in_place) before a call that may enter traced code,
   leave the function or end the process, before a LAND, and when the next
   witness would not fit (then through __pathprof_trace_witness):
       lim = limit; limit = 0; pos = cursor;
       if (pos + n <= lim)
         { OR acc << (pos % 8) into the 8 bytes of buf from byte pos / 8,
           unaligned (libprof keeps the bits above the cursor 0, and a
           spare word after the buffer's bits);
           cursor = pos + n; limit = lim; }
       else
         { limit = lim; __pathprof_trace_witness (acc, n); }
   Claiming by limit = 0 first makes a signal handler that interrupts it
   take the slow path, which drops its records (libprof counts them).  A
   handler that runs while bits are pending writes its records before them:
   regeneration reads it at the interrupted activation's next decision, as
   for any handler.  The activation's last witness (corelib/trace.h
   "Returns") goes out with the pending bits, in place the same way when the
   frame word has neither flag (bits 63, 62) and the buffer has room, and
   then also does state = frame - 256 (the caller's) before limit = lim;
   else __pathprof_trace_last (frame, acc, n).
   A direct call (corelib/trace.h) of a callee whose key (the address of its
   byte in the unit's key array) is K: the caller sets expect = K just before
   the call; the callee's entry is
       if (expect == K)
         { expect = 0; s = state; frame = s + 256;
           state = (frame & ~255) | w; }
       else
         frame = __pathprof_trace_enter (u, f, w);
   where a function that writes no record at all leaves state alone
   (w | PP_TRACE_LAST to libprof).  state is depth << 8 | width of the
   innermost traced activation that has records still to write.  A function
   that code may call by its address (another unit's, or through a pointer)
   has its address as its key.
   A call site (corelib/trace.h "Announced calls") number i of a unit, in
   a function of width w, through the pointer fp, just before the call:
       key = fp ^ gen; slot = &sites[2 * i];
       lim = limit; limit = 0; pos = cursor; end = pos + hit_bits (w);
       if (slot[0] == key && end <= lim)
         { a = slot[1]; cursor = end; limit = lim; expect = a; }
       else
         { limit = lim; __pathprof_trace_site (slot, fp, w | flags); }
   where sites is the unit's thread-local u64[2 * nsites] (0 at a thread's
   start), a HIT is zeros (the cursor moves), and libprof writes a MISS,
   sets slot[0] to the key and slot[1] to the callee's key when it is
   announced (else 0), and expect to slot[1].  The thread's gen changes
   when a traced unit goes (dlclose), so that no slot names a function by an
   address another may take.  The struct ends in
   PATHPROF_TRACE_PRIVATE_WORDS words of libprof's own state.  */
#define PATHPROF_TRACE_PRIVATE_WORDS 40
struct __pathprof_trace_thread
{
  uint64_t *buf;
  uint64_t cursor;		/* bits written */
  uint64_t limit;		/* 0, or the bits buf holds (one spare word
				   after them) */
  uint32_t busy;		/* libprof's */
  uint32_t spare;
  uint64_t state;		/* depth << 8 | width */
  uint64_t expect;		/* the key of a direct call's callee, or 0 */
  uint64_t gen;			/* traced units gone (call sites' keys) */
  /* libprof's own, so that the variable's size is the ABI's: code for an
     executable defines it (weakly) as the program's.  */
  uint64_t libprof[PATHPROF_TRACE_PRIVATE_WORDS];
};

/* Trace mode (corelib/trace.h, libprof/trace-buffers.c).  The entry of function
   `function` of u, whose records take `width` bits (with PP_TRACE_LAST: it
   has none): returns the activation's frame word, which its code passes to
   the probes of its last record and of LAND (width with PP_TRACE_LAST: the
   activation's last record).  */
uint64_t __pathprof_trace_enter (struct __pathprof_unit *u, uint32_t function,
				 uint32_t width);
void __pathprof_trace_witness (uint64_t bits, uint32_t n);
void __pathprof_trace_last (uint64_t frame, uint64_t bits, uint32_t n);
void __pathprof_trace_land (uint64_t frame, uint32_t block, uint32_t width);
/* flags: PP_TRACE_SITE_ENTER_AFTER (corelib/trace.h).  */
void __pathprof_trace_site (uint64_t *slot, uint64_t fp, uint32_t width_flags);
/* Interprocedural mode (libprof/ctx-runtime.c, on the program of ip-program.c).  ENTER at the entry of
   function `function` of u, whose address is self: returns the activation's
   frame word, which every other probe of the activation takes: the address
   of a struct __pathprof_ip_frame, never 0 (an untracked activation's is
   the thread's dummy, whose values are zeros).  EDGE when edge `edge` (notes
   index) is taken; RETURN after call `call` (notes index) returned, where
   the code's __pathprof_ip_return_step (below) says, the call named before
   it by __pathprof_ip_call_step; EXIT before the activation returns; JUMP
   before the computed goto that ends block `block`; LAND at the start of a block a
   longjmp or computed goto may enter (after the setjmp call `call` that
   starts it, or UINT32_MAX).  */
uint64_t __pathprof_ip_enter (struct __pathprof_unit *u, uint32_t function,
			      const void *self);
void __pathprof_ip_edge (uint64_t frame, uint32_t edge);
void __pathprof_ip_return (uint64_t frame, uint32_t call);
void __pathprof_ip_exit (uint64_t frame);
void __pathprof_ip_jump (uint64_t frame, uint32_t block);
void __pathprof_ip_land (uint64_t frame, uint32_t block, uint32_t call);
/* The same probes of the segments modes (interproc-segments, interproc-ppp,
   interproc-residual: libprof/kseg-runtime.c), which a unit's mode chooses
   when it is compiled.  */
uint64_t __pathprof_seg_enter (struct __pathprof_unit *u, uint32_t function,
			       const void *self);
void __pathprof_seg_edge (uint64_t frame, uint32_t edge);
void __pathprof_seg_return (uint64_t frame, uint32_t call);
void __pathprof_seg_exit (uint64_t frame);
void __pathprof_seg_jump (uint64_t frame, uint32_t block);
void __pathprof_seg_land (uint64_t frame, uint32_t block, uint32_t call);
/* Segments: edge `edge`, a cut, ends the segment under way, whose number is
   `number`, where the code found no place for it (below); the next starts
   as the five words at `next` say.  */
void __pathprof_seg_cut (uint64_t frame, uint32_t edge, uint64_t number,
			 const void *next);
/* Compiled roots, asked by the root's clone (which the root runs with
   the caller word marked PATHPROF_IP_ASK, below; the clone takes the mark
   off first): where __pathprof_ip_caller is not 0 when compiled root
   `function` of unit u (at address self) starts (or the unit's ip_first is
   0; its ip_ok[function] is, with PATHPROF_COMPILED_ASSUMES in `function`:
   the root calls functions its unit does not define, assumed not
   instrumented), whether
   the call under way continues its caller's segment into it (or the root
   may not run compiled: that assumption is false in the program): 1, and
   then the function
   runs as the code that calls ENTER (the caller's copy of S inlines it,
   or the thread's stack of records below is full); else 0, the call taken
   as a root's, and it counts its own segments.  */
int __pathprof_seg_continues (struct __pathprof_unit *u, uint32_t function,
			      const void *self);
#define PATHPROF_COMPILED_ASSUMES 0x80000000u
/* Compiled roots: a mark in __pathprof_ip_caller's low bit (frames are
   aligned) between a compiled root's entry and its clone's (the function
   asks libprof through its clone: plugin/compiled.cc insert_asked), and
   back where libprof says the function runs compiled; libprof reads the
   caller word without it.  */
#define PATHPROF_IP_ASK 1u
/* Every interprocedural mode takes an edge in place (probes.h
   PP_PROBE_IP_ADD), as __pathprof_ip_step says, from the frame ENTER
   returned: context and piecewise paths add to the activation's sum A
   (libprof/ctx-runtime.c, "In place"), segments (modes
   interproc-segments, interproc-ppp, interproc-residual) to their root's
   registers on the chords of pp_plan_ip_roles' forest
   (libprof/kseg-runtime.c, "In place" and "Chords").  values holds 2 *
   width words per edge of the function (its notes index): v, w, and with
   width 2 (the preferential modes) v2 and one unused.  For context and
   piecewise paths (width 1), regs are A, B (which the code leaves alone),
   the key and the array of the path under way, the key and the array of
   the next (below), and the top bit of v is set only at a backedge (w is
   then a_in, "Context and piecewise paths" below) and where v is
   UINT64_MAX.  For segments,
   regs are the registers of the activation's root, of the calling thread:
   r, q; the address of the segment's start (five words: its r and q, its
   first number, its array's size and the array's address; a start whose
   size is 0 where the segment is lost), two unused; the root's number of
   slots, their keys' address and their counts' address; its hashed
   places' mask, their keys' address and their counts' address.  On an
   edge that does not cut, r adds v (and q adds v2) where v's top bit is
   clear.  On an edge that cuts (a backedge of the function, whose v has
   its top bit set in every numbering; the code does not test it) and on
   another whose v has its top bit set, the
   segment, whose number is n = (r + v) without its top bit (r counts
   modulo 2^63), ends in place where n has a place in its start's array,
   or (width 2) in the slot q + v2, whose key is n, or in the hashed place
   h = ((n * PATHPROF_IP_HASH) >> 32) & mask, whose key is n: that count
   goes up by one (atomically when the program is built for threads) and the next
   segment starts at w (the start whose five words are there: regs[0] and
   regs[1] its r and q, regs[2] w); where n has
   no such place, libprof's CUT counts it and starts the next.  Else (v is
   UINT64_MAX, w 0, where nothing else would do) libprof's EDGE takes the
   edge.  values and regs stay valid while the activation runs; an
   untracked activation's values are all 0 and its registers name no
   place (a start of size 0, no slots, no hashed place), so that at a cut
   n has none and w is 0: EDGE.  Functions with more edges
   than corelib/format/probes.h's PP_PLAN_IP_INLINE_EDGES call EDGE on every edge.  */
struct __pathprof_ip_frame
{
  const uint64_t *values;
  uint64_t *regs;
  /* The call under way (__pathprof_ip_call_step): the callee it names,
     its index among the function's calls (UINT32_MAX: none), and whether
     the callee continued the segment (its ENTER sets it).  */
  const void *tag;
  uint32_t site;
  uint32_t entered;
  /* The activation's depth on the thread's stack (1 for the first), and
     what its EXIT is: 1, the add of ret[0] (r) and ret[1] (q) (an
     activation that continued its caller's segment, whose return edge
     adds); 2, the count of its segment (a root's activation); else 0.  */
  uint32_t depth;
  uint32_t exit_adds;
  uint64_t ret[2];
  /* Two words per call of the function (its notes index): what the
     registers r and q add when the call returns and the callee did not
     continue the segment (a summary or a leaf edge's add), the first
     UINT64_MAX where libprof's RETURN must say (pathprof-abi.h
     __pathprof_ip_return_step).  */
  const uint64_t *calls;
};

/* Context and piecewise paths: a path that a backedge ends in activation
   of frame f (the edge's values have v's top bit set: v = a_out | TOP,
   w = a_in) is counted in place where the array at f->regs[3] (of the
   start of the path under way, libprof/ctx-runtime.c "In place") has a
   place for its number a = regs[0] + a_out: a - lo < size, then
   counts[a - lo] goes up by one (atomically when the program is built for
   threads) and the next path starts: regs[0] = a_in, regs[2] = regs[4]
   (its start's key), regs[3] = regs[5] (its start's array).  Else EDGE.
   regs[3] and regs[5] always hold an array (of size 0 where the start has
   none).  */
struct __pathprof_ip_array
{
  uint64_t lo, size;
  uint64_t *counts;
};

/* Segments: the multiplier of the hashed places' index (above).  */
#define PATHPROF_IP_HASH 0x9e3779b97f4a7c15u

/* The frame of the activation whose call is under way, which the
   callee's ENTER reads (and clears); thread-local in libprof, initial-exec
   TLS (libprof is loaded with the program).  */
extern __thread uint64_t __pathprof_ip_caller;
/* The depth of the thread's stack of activations (libprof's,
   initial-exec TLS, as __pathprof_ip_caller).  */
extern __thread uint32_t __pathprof_ip_depth;
/* Compiled roots with copies: the segment's register on its way into a
   call's copy and back (corelib/format/probes.h, PP_PROBE_PATH_PASS), and
   the address of the root's record with it (below); one variable, so that
   the code finds both words from one thread offset (initial-exec TLS, as
   __pathprof_ip_caller).  */
struct __pathprof_seg_pass_words
{
  uint64_t r;
  uint64_t record;		/* struct __pathprof_seg_record *, or 0 */
};
extern __thread struct __pathprof_seg_pass_words __pathprof_seg_pass;

/* Compiled roots whose supergraph does not inline every call (a summary
   call, a call through a pointer): the activation keeps a record in the
   thread's stack of them, so that libprof can count the segment under way
   where the process ends in such a call or a longjmp passes it
   (kseg-runtime.c, "Records").  The activation's code pushes it before
   its first such call, in the root's body or a copy's (claims
   __pathprof_seg_top, then fills it: counts, depth and npaths, leave 1),
   passes its address (0 until pushed) into its copies and back with the
   register (__pathprof_seg_pass.record), stores the leave before each
   call S does not inline (corelib/format/probes.h PP_PROBE_PATH_LEAVE)
   and 1 after, and where it was pushed pops it before the root returns,
   calling __pathprof_seg_unwind first where records above its own are
   left (their frames gone by a longjmp).
   With the stack full, a compiled root runs as its clone (the test at its
   entry asks __pathprof_seg_continues, which says so).
   Every thread's __pathprof_seg_top starts at PATHPROF_SEG_UNSET (ABI 23),
   which the test takes for a full stack: so a thread's first compiled root
   with a record asks libprof, which starts the thread there (its end, in
   pthread_exit, then ends its records, as the process's exit does) and
   makes the stack empty.  A thread whose every activation is a compiled
   root's made no other call of libprof.  */
#define PATHPROF_SEG_RECORDS 256u
#define PATHPROF_SEG_UNSET UINT32_MAX
struct __pathprof_seg_record
{
  uint64_t leave;		/* twice the segment's number if it ended at the
				   call under way, or 1: no call, lost */
  void *counts;			/* the root's compiled counts (npaths of
				   them), or its struct __pathprof_path_table
				   where npaths is 0 */
  uint32_t depth;		/* __pathprof_ip_depth when pushed */
  uint32_t npaths;		/* the root's segments in an array, or 0 */
  uint64_t spare;		/* a power of two in all, so that the code
				   finds a record's slot from its address with
				   a shift, not a multiplication */
};
extern __thread struct __pathprof_seg_record
  __pathprof_seg_records[PATHPROF_SEG_RECORDS];
extern __thread uint32_t __pathprof_seg_top;
/* Ends (counts) the thread's records at TOP and above, and makes TOP the
   stack's top.  */
void __pathprof_seg_unwind (uint32_t top);

/* Segments: where segment number N of the root whose registers are REGS
   counts in place (above): its start's array, the preferential slot SLOT
   (WIDTH 2) or its hashed place, when their keys are N; NULL where it has
   none.  */
static inline uint64_t *
__pathprof_ip_place (const uint64_t *regs, uint64_t n, uint64_t slot,
		     uint32_t width)
{
  uint64_t h = ((n * PATHPROF_IP_HASH) >> 32) & regs[8];
  const uint64_t *start = (const uint64_t *) (uintptr_t) regs[2];
  if (n - start[2] < start[3])
    return (uint64_t *) (uintptr_t) start[4] + (n - start[2]);
  if (width == 2 && slot < regs[5]
      && ((const uint64_t *) (uintptr_t) regs[6])[slot] == n)
    return (uint64_t *) (uintptr_t) regs[7] + slot;
  if (((const uint64_t *) (uintptr_t) regs[9])[h] == n)
    return (uint64_t *) (uintptr_t) regs[10] + h;
  return 0;
}

static inline void
__pathprof_ip_count (uint64_t *count, int atomic)
{
  if (atomic)
    __atomic_fetch_add (count, 1, __ATOMIC_RELAXED);
  else
    *count += 1;
}

/* Every interprocedural mode: what the code does around call `call` (its
   notes index) of callee `callee` (its address; 0 for an indirect call)
   instead of calling CALL and RETURN: before, it names the call in its
   frame; after, where the callee continued the path or segment (and its
   EXIT did what the return means), it only ends the call; where the callee
   did not, and the frame is the top of the thread's stack, it adds the
   call's words (a summary or leaf edge's add) and ends the call; else
   libprof's RETURN does what the return means (a callee that should have
   continued and did not, activations above the frame: ctx-runtime.c,
   kseg-runtime.c).  */
static inline void
__pathprof_ip_call_step (uint64_t frame, uint32_t call, const void *callee)
{
  struct __pathprof_ip_frame *f = (struct __pathprof_ip_frame *) (uintptr_t) frame;
  f->tag = callee;
  f->site = call;
  f->entered = 0;
  __pathprof_ip_caller = frame;
}

/* Segments: what the code does instead of calling EXIT: where the
   activation is the top of its thread's stack and its EXIT adds, the add
   and the pop; where it is a root's, whose EXIT counts its segment r (q
   its slot), the count in place and the pop; else libprof's EXIT.  */
static inline void
__pathprof_ip_exit_step (uint64_t frame, uint32_t width, int atomic)
{
  struct __pathprof_ip_frame *f = (struct __pathprof_ip_frame *) (uintptr_t) frame;
  uint64_t *count;
  if (((f->depth ^ __pathprof_ip_depth) | (f->exit_adds ^ 1)) == 0)
    {
      f->regs[0] += f->ret[0];
      f->regs[1] += f->ret[1];
      __pathprof_ip_depth = f->depth - 1;
    }
  else if (((f->depth ^ __pathprof_ip_depth) | (f->exit_adds ^ 2)) == 0
	   && (count = __pathprof_ip_place (f->regs, f->regs[0] & ~((uint64_t) 1 << 63),
					    f->regs[1], width)))
    {
      __pathprof_ip_count (count, atomic);
      __pathprof_ip_depth = f->depth - 1;
    }
  else
    __pathprof_seg_exit (frame);
}

static inline void
__pathprof_ip_return_step (uint64_t frame, uint32_t call)
{
  struct __pathprof_ip_frame *f = (struct __pathprof_ip_frame *) (uintptr_t) frame;
  const uint64_t *v;
  if (((f->site ^ call) | (f->entered ^ 1)) == 0)
    f->site = UINT32_MAX;
  else if (((f->site ^ call) | (f->depth ^ __pathprof_ip_depth)) == 0
	   && (int64_t) *(v = &f->calls[2 * (uint64_t) call]) >= 0)
    {
      f->regs[0] += v[0];
      f->regs[1] += v[1];
      f->site = UINT32_MAX;
    }
  else
    __pathprof_seg_return (frame, call);
}

static inline void
__pathprof_ip_step (uint64_t frame, uint32_t edge, uint32_t width, int cuts,
		    int atomic)
{
  const struct __pathprof_ip_frame *f = (const struct __pathprof_ip_frame *)
					  (uintptr_t) frame;
  const uint64_t *v = &f->values[(uint64_t) edge * 2 * width];
  uint64_t *regs = f->regs, *count;
  if (__builtin_expect (!cuts && (int64_t) v[0] >= 0, 1))
    {
      regs[0] += v[0];
      if (width == 2)
	regs[1] += v[2];
      return;
    }
  uint64_t n = (regs[0] + v[0]) & ~((uint64_t) 1 << 63);
  if (!cuts || !(count = __pathprof_ip_place (regs, n,
					       width == 2 ? regs[1] + v[2] : 0, width)))
    {
      if (cuts && v[1])
	__pathprof_seg_cut (frame, edge, n, (const void *) (uintptr_t) v[1]);
      else
	__pathprof_seg_edge (frame, edge);
      return;
    }
  __pathprof_ip_count (count, atomic);
  const uint64_t *next = (const uint64_t *) (uintptr_t) v[1];
  regs[0] = next[0];
  regs[1] = next[1];
  regs[2] = v[1];
}

/* Same as pathprof_dump; the plugin calls it before calls that end the process or
   replace its image without running exit handlers (abort, _exit, exec...).  Not
   async-signal-safe.  */
void __pathprof_flush (void);
#ifdef __cplusplus
}
#endif

#endif
