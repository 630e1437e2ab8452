/* pathprof GCC plugin: what its files share.  The plugin only translates; every
   algorithm is in corelib/ (pure C).  Its files, in the order a unit goes through
   them:

     options.cc  the plugin's options, and the previous profile they name
     plugin.cc   the pass and its driver (instrument_unit)
     cfg.cc      CFG normalisation, GIMPLE CFG -> core graph, source lines (notes)
     probes.cc   the inserter: a plan's probes -> GIMPLE, and the flushes
     unit.cc     the unit's records: value array, path tables, notes, registration
     inliner.cc  GCC's function summaries without the probes, for the inliner
     use.cc      the use build: a profile's counts given to GCC's optimiser

   See DESIGN.md and GCC-PLUGIN-NOTES.md.  */

#ifndef PATHPROF_PLUGIN_H
#define PATHPROF_PLUGIN_H

#include "gcc-plugin.h"
#include "tree.h"
#include "gimple.h"
#include "tree-pass.h"
#include "context.h"
#include "basic-block.h"
#include "cfg.h"
#include "cfganal.h"
#include "cfghooks.h"
#include "cfgloop.h"
#include "gimple-iterator.h"
#include "tree-cfg.h"
#include "tree-cfgcleanup.h"
#include "cgraph.h"
#include "ssa.h"
#include "tree-into-ssa.h"
#include "stringpool.h"
#include "attribs.h"
#include "stor-layout.h"
#include "varasm.h"
#include "fold-const.h"
#include "diagnostic-core.h"
#include "langhooks.h"
#include "memmodel.h"
#include "function.h"
#include "hash-set.h"
#include "hash-map.h"
#include "calls.h"
#include "gimplify.h"
#include "opts.h"
#include "toplev.h"

#include "corelib/format/modes.h"
#include "corelib/format/notes.h"
#include "corelib/plan.h"
#include "corelib/prior.h"
#include "libprof/pathprof-abi.h"

/* One instrumented function, from planning to instrumenting.  */
struct function_record
{
  cgraph_node *node;
  auto_vec<edge> gcc_edge;	/* per core edge: its GCC edge, NULL if fake */
  auto_vec<uint32_t> edge_src;	/* per core edge: its source block */
  pp_plan plan = {};
  uint32_t value_offset = 0;	/* the function's first value in the unit's */
  int32_t path_table = -1;	/* its path table in the unit's, if hashed */
  uint32_t key_offset = 0;	/* its first slot key's index in the values */
  uint32_t index = 0;		/* its number in the unit's notes */
  /* The trace mode's direct calls (corelib/trace.h): its calls that enter
     a function of the unit without a record, and their callees' indices;
     and whether a call of another function enters it so.  */
  auto_vec<gcall *> direct_calls;
  auto_vec<uint32_t> direct_callees;
  bool called_directly = false;
  /* Its call sites ("Announced calls"): the calls, and their words
     (PP_TRACE_SITE, the site's number in the unit, its flags).  */
  auto_vec<gcall *> site_calls;
  auto_vec<uint32_t> site_words;
  /* Code of other units or a pointer may call it: its key is its address.  */
  bool by_address = false;
  /* Its entry takes an announcement (pathprof-abi.h): called directly, or
     by its address and at most PP_TRACE_DIRECT_WIDTH wide.  */
  bool entered_in_place = false;
  /* Compiled roots (compiled.cc): the plan of the function's own code where
     the plugin numbered its root, its counts' first index in the unit's
     compiled counts, and the clone that runs where a caller's segment
     continues into it (dyn: its record, with the plan the notes record),
     whose ENTER names the function (self; NULL_TREE: the record's own).  */
  pp_plan compiled = {};
  uint64_t compiled_first = 0;
  /* A compiled root of the learning modes that counts in a path table:
     the front of its interesting segments (corelib/ppp.h pp_front_place;
     compiled.cc "Fronts"), its slots' keys (none: empty) from index
     front_at of the unit's front keys, their counts from compiled_first.
     A body of the root (its own code, a copy) points at the root's record
     in front_of.  */
  auto_vec<uint64_t> front_keys;
  uint64_t front_mul = 0;
  uint32_t front_log2 = 0;
  uint64_t front_at = 0;
  const function_record *front_of = nullptr;
  /* The learning modes of segments: the function's interesting segments
     as a root, hottest first, and their counts in the training run.  */
  auto_vec<uint64_t> learnt, learnt_counts;
  /* A body of a compiled root with a front, per probe of the plan it
     inserts: the segments its count compares with first, in order, and
     their slots in the front (compiled.cc "Hints"), those of probe i
     from hint_first[i] to hint_first[i + 1].  */
  auto_vec<uint32_t> hint_first;
  auto_vec<uint64_t> hint_number;
  auto_vec<uint32_t> hint_slot;
  /* The compiled root calls functions its unit does not define, which it
     takes for code not instrumented: their indices among the unit's
     imports (corelib/ip-notes.h pp_ip_unit_names); it runs compiled where
     libprof says none of them is another unit's (the unit's ip_ok).  */
  bool compiled_assumes = false;
  auto_vec<uint32_t> assumed_imports;
  uint32_t assumed_at = 0;	/* 1 + where the unit's ip_assumed lists them */
  /* Compiled roots across units (compiled.cc): a root's calls of other
     units' clones (weak declarations, which libprof checks), and the name
     of the address of its counts, which it exports for them.  A clone
     this unit makes for another unit's root: that address (a weak
     declaration, where the clone counts segments or the root keeps a
     record: probes.cc emit_path_count counts through it) and the root's
     segments for the record it may push.  */
  auto_vec<tree> foreign_clones;
  /* A root: one of its clones keeps its record; a clone for another
     unit's root: the root keeps a record.  */
  bool foreign_record = false;
  tree xroot = NULL_TREE;
  /* The same for the counts of the root's front, where the root has one
     (its name) and the clone hints (its declaration: compiled.cc "Hints").  */
  tree xfront = NULL_TREE;
  uint64_t xnpaths = 0;
  function_record *dyn = nullptr;
  tree self = NULL_TREE;
  /* A compiled root's copies below it (clones with their compiled plans),
     and per call of a body of a compiled root's (notes order) the clone it
     calls.  */
  auto_delete_vec<function_record> copies;
  auto_vec<tree> call_target;
  /* A body of a compiled root that keeps a record (pathprof-abi.h): the
     local with the record's address (the root's push sets it, a copy's
     entry takes it), which PP_PROBE_PATH_LEAVE stores into and a call's
     pass passes on.  */
  tree record = NULL_TREE;
  /* The body of a compiled root with copies: the local that says whether
     it has saved the thread's pass words, which its first
     PP_PROBE_PATH_PASS does (compiled.cc keep_pass).  */
  tree passed = NULL_TREE;
  ~function_record () { pp_plan_free (&plan); pp_plan_free (&compiled); delete dyn; }
};

/* plugin.cc.  */

/* Does the trace mode's function of this plan write no record at all
   (its ENTER has PP_TRACE_LAST)?  */
bool trace_leaf (const pp_plan &plan);

/* options.cc.  */

/* Reads the options (-fplugin-arg-pathprof-KEY=VALUE) into the variables
   below, and the profile they name; false after an error (said).  */
bool parse_options (struct plugin_name_args *info);
/* The --help text (PLUGIN_INFO), the modes from the mode table.  */
char *help_text (void);
/* The mode (the interprocedural kind resolved to its row) and its
   parameters.  */
extern const pp_mode_info *option_mode;
extern int option_weights;		/* enum pp_weights */
extern int option_all_witnesses;	/* trace: a witness on every edge */
extern uint64_t option_depth;		/* segments: k */
extern int option_compiled_roots;	/* segments: roots=compiled */
extern uint64_t option_path_array_max;
/* The previous profile the preferential modes learn from and weights=profile
   weighs by (read into prior, and for the segments modes into seg_prior),
   and which of its paths are interesting (option_hot_percent of each
   function's path executions).  */
extern const char *option_profile;
extern double option_hot_percent;
extern pp_prior prior;
extern pp_seg_prior seg_prior;
/* Root ASM_NAME of unit UNIT_NAME as seg_prior has it: its interesting
   segments, hottest first, with their training counts, and its
   supergraph's checksum (pp_seg_prior_learn's 1, 0 and -1).  */
int learn_root_segments (const char *unit_name, const char *asm_name,
			 auto_vec<uint64_t> &numbers, auto_vec<uint64_t> &counts,
			 uint64_t *checksum, char *err, size_t errlen);
/* The use build's profile ("" for the default), NULL when instrumenting.  */
extern const char *option_use;

/* plugin.cc.  */

/* Whether the plugin takes NODE's function (it has a body of its own, is
   not a builtin, not marked no_profile_instrument_function or naked).  */
inline bool
want_function (cgraph_node *node)
{
  tree decl = node->decl;
  if (!gimple_has_body_p (decl) || node->thunk || DECL_EXTERNAL (decl))
    return false;
  if (DECL_SOURCE_LOCATION (decl) == BUILTINS_LOCATION)
    return false;
  if (lookup_attribute ("no_profile_instrument_function", DECL_ATTRIBUTES (decl))
      || lookup_attribute ("naked", DECL_ATTRIBUTES (decl)))
    return false;
  return true;
}

/* cfg.cc.  */

/* The unit's file table: absolute paths, indexed by first appearance.  */
struct file_table
{
  hash_map<nofree_string_hash, unsigned> index;
  auto_vec<char *> names;
  unsigned number_of (const char *file);	/* its index, added if new */
};

/* Makes flow conservation hold for every execution of cfun (DESIGN.md, "CFG
   normalisation").  Leaves GCC's fake edges in the CFG; remove_fake_edges ()
   after planning.  */
void normalise_cfg (void);
/* Each function the plugin takes, as cfun, fixed up and normalised
   (normalise_cfg): BODY (node) with GCC's fake edges in its CFG, then
   without them and without dominance information AFTER (node).  */
template <typename Body, typename After>
void
for_each_taken_function (Body body, After after)
{
  cgraph_node *node;
  FOR_EACH_DEFINED_FUNCTION (node)
    {
      if (!want_function (node))
	continue;
      push_cfun (DECL_STRUCT_FUNCTION (node->decl));
      if (execute_fixup_cfg () & TODO_cleanup_cfg)
	cleanup_tree_cfg ();
      normalise_cfg ();
      body (node);
      remove_fake_edges ();
      free_dominance_info (CDI_DOMINATORS);
      free_dominance_info (CDI_POST_DOMINATORS);
      after (node);
      pop_cfun ();
    }
}
/* The core graph of the normalised cfun, filling rec's gcc_edge and edge_src.
   *gcc_weight gets GCC's static estimate per edge, or stays empty when GCC has
   none (-O0).  */
void build_core_graph (pp_graph *g, function_record &rec,
		       auto_vec<double> &gcc_weight);
/* The notes of cfun: names, blocks with their gcov-style source lines, the
   graph's edges.  Values and probe flags come from the plan (pp_plan_to_notes).  */
void describe_function (pp_function_notes &fn, const pp_graph &g,
			file_table &files, bool calls);
/* Frees what describe_function allocated in FN (and the trace mode's direct
   calls, which the driver adds).  */
void free_function_notes (pp_function_notes &fn);
/* Is BB the block that dispatches setjmp's and nonlocal gotos' returns?
   (Not user code: the core graph leaves it out.)  */
bool is_abnormal_dispatcher (basic_block bb);
/* The calls of cfun that the notes list (modes with calls), in their order.  */
void function_calls (auto_vec<gcall *> &calls);
/* Does the call go to code that may be instrumented: not an internal
   function, not a GCC builtin?  (A block with one is a call block.)  */
bool user_call_p (const gcall *call);

/* probes.cc.  */

/* What the inserter emits into: built once per unit (unit.cc).  */
struct probe_target
{
  tree value_type;		/* a value of the unit's array */
  tree values;			/* the unit's value array (slot keys after it) */
  /* The path registers' adds of constants that do not fit an instruction's
     32-bit immediate, sorted: each is read from WIDE_VALUES (the unit's
     value array, also where a compiled root's target has its compiled
     counts as VALUES) at wide_offset + its index, after the keys (unit.cc
     create_unit_values, probes.cc emit_sum).  */
  tree wide_values;
  const uint64_t *wide;
  uint32_t nwide, wide_offset;
  tree path_tables;		/* the unit's path tables, or NULL_TREE */
  tree path_table_hash;		/* their field `table' (libprof's hash table) */
  tree count_path;		/* libprof's __pathprof_count_path */
  tree flush;			/* libprof's __pathprof_flush */
  tree keyed_marker;		/* stands for a keyed count until expanded */
  tree record_marker;		/* a compiled root's record pushed here if
				   it is not yet (compiled.cc) */
  tree pass_marker;		/* a compiled root's pass words saved here
				   if they are not yet (compiled.cc) */
  tree unit;			/* the unit's registration record */
  tree trace_enter, trace_witness, trace_last, trace_land;	/* libprof's */
  /* The trace mode's markers (trace-probes.cc, "Markers").  */
  tree trace_m_enter, trace_m_witness, trace_m_last, trace_m_flush, trace_m_direct;
  tree trace_tls;		/* libprof's struct __pathprof_trace_thread */
  tree ip_enter, ip_edge, ip_cut, ip_return, ip_exit, ip_jump, ip_land;
  bool calls;			/* the mode probes calls (interprocedural) */
  bool calls_in_place;		/* segments: cuts, EXIT and the probes'
				   names (__pathprof_seg_*) */
  unsigned ip_width;		/* the registers the activations add:
				   segments' r (and q in the preferential
				   modes), context paths' A and B */
  tree ip_caller, ip_depth;	/* libprof's __pathprof_ip_caller and
				   __pathprof_ip_depth (TLS) */
  /* Compiled roots (compiled.cc): the unit record's ip_first field,
     libprof's __pathprof_seg_continues, the unit's compiled counts (the
     values of their probe_target) and its table of compiled roots.  */
  tree unit_ip_first, seg_continues, compiled_counts, compiled_roots;
  /* The unit's ip_ok bytes and ip_assumed lists (pathprof-abi.h), where
     a compiled root assumes; else NULL_TREE.  */
  tree ip_ok, ip_assumed, ip_clones;
  tree front_keys;		/* the unit's fronts' keys, or NULL_TREE */
  /* libprof's __pathprof_seg_pass (TLS) and its fields r and record
     (seg_pass_word builds each access).  */
  tree seg_pass, seg_pass_r, seg_pass_record;
  /* Compiled roots' records (pathprof-abi.h): libprof's TLS
     __pathprof_seg_records (as words), __pathprof_seg_top and
     __pathprof_seg_unwind.  */
  tree seg_records, seg_top, seg_unwind;
  unsigned ncompiled;
  tree tls_buf, tls_cursor, tls_limit;	/* its fields */
  tree tls_state, tls_expect, tls_gen;
  tree trace_keys;		/* the unit's key array: a direct call's callee
				   is the address of its byte, unless
				   trace_key_fn names it (its address) */
  vec<tree> trace_key_fn;	/* per function record: its decl when its key
				   is its address, else NULL_TREE */
  tree trace_addrs;		/* the unit's functions' addresses */
  tree trace_sites;		/* the unit's thread-local call sites */
  tree trace_site;		/* libprof's __pathprof_trace_site */
  bool atomic;			/* atomic counter updates (threads) */
};

/* Emits rec's plan into cfun, then a flush before each call that ends the
   process without exit handlers, and commits the edge insertions.  */
void insert_probes (const function_record &rec, const probe_target &t);

/* Appends to OUT the constants PLAN's probes add to a path register that
   do not fit a 32-bit immediate (probe_target.wide; probes.cc).  */
void wide_operands (const pp_plan &plan, vec<uint64_t> &out);

/* unit.cc.  */

/* The unit's value array (nvalues of t.value_type), its path tables (one
   per function record with plan.path_table or compiled.path_table; sets
   their path_table and their copies'), the
   trace mode's key array (when a record is called_directly), the
   declaration of its registration record and libprof's probe functions.  */
void create_unit_values (probe_target &t, uint32_t nvalues,
			 auto_delete_vec<function_record> &records);
/* The unit's compiled counts (NCOUNTS words; none where 0) and its table
   of compiled roots, RECORDS' with a clone for ENTER (compiled.cc), after
   create_unit_values.  */
void create_compiled_counts (probe_target &t, uint64_t ncounts,
			     const auto_delete_vec<function_record> &records);
/* The notes, the registration record and its constructor and destructor.  */
void emit_unit_record (const pp_unit_notes &notes, const probe_target &t,
		       uint32_t value_kind, uint32_t nvalues);
/* The main source file's absolute path (malloc'd).  */
char *absolute_unit_name (void);
/* qsort's order of uint64_t.  */
int compare_u64 (const void *a, const void *b);

/* compiled.cc.  */

/* The segments modes' compiled roots: which of RECORDS (FNS their notes)
   the plugin numbers, their compiled plans and their clones for ENTER;
   *NCOUNTS gets the counts they take in all.  */
void plan_compiled_roots (auto_delete_vec<function_record> &records,
			  const auto_vec<pp_function_notes> &fns, uint64_t *ncounts,
			  auto_delete_vec<function_record> &for_others);
/* Instruments a clone plan_compiled_roots made for another unit's root
   (cfun, COPY), counting nothing.  */
/* The training program's signature (corelib pp_ip_program_signature),
   where plan_compiled_roots found this unit in it; else 0.  */
extern uint64_t compiled_program_signature;
void insert_clone_for_other (function_record &copy, const probe_target &t,
			     const probe_target &compiled);
/* Instruments a compiled root (cfun, REC) and its clone: the compiled plan
   into the function, counting in COMPILED's values, the test that runs the
   clone in its place, and the clone's probes (T's).  */
void insert_compiled_root (function_record &rec, const probe_target &t,
			   const probe_target &compiled);

/* inliner.cc.  */

/* Names: every register and temporary the inserter makes is named PP_...
   (an artificial variable or an SSA name's bare identifier), every object
   and function of the unit's records and of libprof __pathprof_...
   (artificial, or libprof's own), and a compiled root's clone for ENTER
   FUNCTION.pathprof.N (compiled.cc; GCC's clone naming, which no C name
   can take).  inliner.cc tells probes by these names.  */
/* Registers the pass that takes the probes out of GCC's function summaries
   before the IPA inliner reads them.  */
void register_inliner_view (const char *plugin_name);
/* Takes NODE's const and pure flags away (its probes write memory), noting
   them so that GCC's summaries see it as it was (inliner.cc).  */
void take_purity (cgraph_node *node);

/* trace-probes.cc.  */

/* Registers the pass after GCC's inliner that expands the trace mode's
   markers (trace-probes.cc, "Markers").  */
void register_trace_pass (const char *plugin_name);
/* Keeps what that pass needs of the unit's T.  */
void keep_trace_target (const probe_target &t);
/* Whether the markers wait for that pass: not when the unit goes out as
   LTO bytecode, whose bodies it does not see.  */
bool trace_markers_late (void);

/* use.cc.  */

/* The use build (-fplugin-arg-pathprof-use): reads FILE (NULL or empty:
   $PATHPROF_FILE, else pathprof.data), refusing a profile without every
   edge's count, and enables what -fprofile-use enables that the command line
   leaves alone.  Returns false after an error.  */
bool use_profile_init (const char *file, bool verbose);
/* The use build's pass over the unit (at gcov's position, as the
   instrumenting one): every function gets its counts.  */
unsigned int annotate_unit (void);

#endif
