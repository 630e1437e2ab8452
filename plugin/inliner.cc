/* pathprof plugin, what GCC's inliner sees: each function's size and time
   without its probes.

   The probes go in at gcov's position, before the IPA inliner, so GCC's
   function summaries (ipa-fnsummary) count them: a counter increment is three
   statements, a coverage store one, a path end a compare and a call.  Small
   functions then miss --param max-inline-insns-auto, large ones the unit's
   growth limit, and the instrumented program is a different program.  Code
   that is not inlined runs a call, a return and the spills around them that
   the plain program does not, on every execution, which no probe placement
   can win back.

   So after GCC has summarised the unit ("fnsummary", an IPA pass whose
   summaries the inliner reads), this pass has it summarise each function
   again without its probes, known by the names of what they touch
   (pathprof-plugin.h, "Names": the inserter's registers, still memory
   variables here, and temporaries, the unit's value array (slot keys
   included), libprof's thread state), or of the pointer they store
   through (a record's, a frame's), and a record's barrier by the probe
   it follows:

   - the probe statements that can leave the body for a while (hold_probes:
     not calls, not the conditions that end the keyed checks' blocks, and
     only those whose results are used by held statements alone) are taken
     out, their stores unlinked from the virtual operand chain, so that
     GCC's own analysis (compute_fn_summary: sizes, predicates over the
     parameters, which loads the parameters' memory may change) sees the
     plain body; then they go back where they were and the virtual operands
     are renamed;
   - calls to libprof and calls whose arguments are probes (atomic
     increments) keep their place: their call summaries are set to zero;
   - the functions that were const or pure before their probes (plugin.cc
     drops the flags) have them back while GCC summarises, so that a call
     of one is summarised by its arguments as in the plain build;
   - what else is left (the keyed checks' conditions, values passed to
     libprof calls) has its size and time (GCC's estimate_num_insns and its
     extra unit for a register array index, time weighted by the block's
     frequency) taken out of the function's size/time table, in proportion
     over the entries that can hold it (never constant, kept when inlined):
     which entry holds a statement is ipa-fnsummary's private state.  That share was the whole
     method before, and missed where a function's probes run only for some
     argument values (SQLite, edge-counts: 144 of the plain build's IPA
     inlines not made, 53 made that it does not).

   Only decisions change, never code: the probes are still in every copy an
   inlining makes.  On SQLite, GCC -O2 inlines 3,322 calls at IPA time in the
   plain build (without partial inlining, which the plugin turns off as gcov
   does), 1,747 with block-cover's probes counted, 3,247 with the share
   alone and 3,310 in every mode now (DESIGN.md, "What the inliner sees").
   With -flto the pass runs at compile time, before the summaries are
   streamed.  */

#include "pathprof-plugin.h"
#include "alloc-pool.h"
#include "symbol-summary.h"
#include "tree-vrp.h"
#include "sreal.h"
#include "ipa-prop.h"
#include "ipa-fnsummary.h"
#include "tree-inline.h"

/* NAME is one of pathprof's (pathprof-plugin.h, "Names").  */
static bool
pathprof_name_p (tree name)
{
  const char *s = name ? IDENTIFIER_POINTER (name) : "";
  return !strncmp (s, "PP_", 3) || !strncmp (s, "__pathprof_", 11);
}

/* OP is, or is in, an object of pathprof's: a register or temporary of the
   inserter (an artificial variable, or an SSA name with a bare identifier),
   the unit's value array (slot keys included), libprof's thread state; or the address of
   one.  A user's variable is never artificial.  */
static bool
probe_operand_p (tree op)
{
  if (!op)
    return false;
  if (TREE_CODE (op) == SSA_NAME)
    {
      tree var = SSA_NAME_VAR (op);
      return (!var || !DECL_P (var) || DECL_ARTIFICIAL (var))
	     && pathprof_name_p (SSA_NAME_IDENTIFIER (op));
    }
  if (TREE_CODE (op) == ADDR_EXPR)
    op = TREE_OPERAND (op, 0);
  tree base = get_base_address (op);
  /* Memory a probe reaches through its own pointer (a record's or a
     frame's fields: *PP_record = 1).  */
  if (base && TREE_CODE (base) == MEM_REF)
    return probe_operand_p (TREE_OPERAND (base, 0));
  return base && VAR_P (base) && DECL_ARTIFICIAL (base)
	 && pathprof_name_p (DECL_NAME (base));
}

static bool probe_stmt_p (gimple *stmt);

/* STMT is the compiler barrier of a record's push (compiled.cc
   expand_record_pushes: asm volatile ("" ::: "memory") right after the
   claim, a probe's store of the records' top), which names nothing.  */
static bool
probe_barrier_p (gasm *a)
{
  if (!gimple_asm_volatile_p (a) || *gimple_asm_string (a)
      || gimple_asm_ninputs (a) || gimple_asm_noutputs (a) || gimple_asm_nlabels (a)
      || !gimple_bb (a))
    return false;
  gimple_stmt_iterator gsi = gsi_for_stmt (a);
  gsi_prev_nondebug (&gsi);
  return !gsi_end_p (gsi) && probe_stmt_p (gsi_stmt (gsi));
}

/* STMT is a probe: it touches an object of pathprof's, or calls libprof
   or a compiled root's clone for ENTER (which runs in the function's place
   where a caller's segment continues into it: compiled.cc).  */
static bool
probe_stmt_p (gimple *stmt)
{
  if (gcall *call = dyn_cast <gcall *> (stmt))
    {
      tree fn = gimple_call_fndecl (call);
      if (fn && (pathprof_name_p (DECL_NAME (fn))
		 || (DECL_NAME (fn)
		     && strstr (IDENTIFIER_POINTER (DECL_NAME (fn)), ".pathprof."))))
	return true;
      for (unsigned i = 0; i < gimple_call_num_args (call); i++)
	if (probe_operand_p (gimple_call_arg (call, i)))
	  return true;
      return false;
    }
  if (gasm *a = dyn_cast <gasm *> (stmt))
    return probe_barrier_p (a);
  for (unsigned i = 0; i < gimple_num_ops (stmt); i++)
    if (probe_operand_p (gimple_op (stmt, i)))
      return true;
  return false;
}

/* An entry of a size/time table that can hold probes: exec == nonconst
   (never constant) and kept by an inlined copy (not "not inlined").  */
static bool
may_hold_probes (const size_time_entry *e)
{
  const clause_t inlined = ~(clause_t) ((1 << ipa_predicate::not_inlined_condition)
					 | (1 << ipa_predicate::false_condition));
  return e->exec_predicate == e->nonconst_predicate
	 && e->exec_predicate.evaluate (inlined);
}

/* Takes the probes still in NODE's body (FN) out of its summary: libprof
   calls, whose call summaries go to zero, and the rest (the keyed checks'
   conditions, values passed to libprof calls), whose size and time come out
   of the table in proportion.  */
static void
unsummarise_rest (cgraph_node *node, function *fn)
{
  ipa_fn_summary *info = ipa_fn_summaries->get (node);
  ipa_size_summary *size_info = ipa_size_summaries->get (node);
  if (!info || !size_info || info->size_time_table.is_empty ())
    return;
  int size = 0, call_size = 0;
  sreal time = 0;
  bool calls = false;
  basic_block bb;
  FOR_EACH_BB_FN (bb, fn)
    {
      sreal freq = bb->count.to_sreal_scale (ENTRY_BLOCK_PTR_FOR_FN (fn)->count);
      for (gimple_stmt_iterator gsi = gsi_start_nondebug_bb (bb); !gsi_end_p (gsi);
	   gsi_next_nondebug (&gsi))
	{
	  gimple *stmt = gsi_stmt (gsi);
	  if (!probe_stmt_p (stmt))
	    continue;
	  if (is_gimple_call (stmt))
	    {
	      cgraph_edge *e = node->get_edge (stmt);
	      ipa_call_summary *es = e ? ipa_call_summaries->get (e) : NULL;
	      if (es)
		{
		  call_size += es->call_stmt_size;
		  es->call_stmt_size = 0;
		  es->call_stmt_time = 0;
		  calls = true;
		}
	      continue;
	    }
	  size += estimate_num_insns (stmt, &eni_size_weights);
	  time += freq * estimate_num_insns (stmt, &eni_time_weights);
	  /* ipa-fnsummary adds one for each array index in a register (a
	     path count's slot).  */
	  for (unsigned i = 0; i < gimple_num_ops (stmt); i++)
	    for (tree op = gimple_op (stmt, i); op && handled_component_p (op);
		 op = TREE_OPERAND (op, 0))
	      if (TREE_CODE (op) == ARRAY_REF
		  && TREE_CODE (TREE_OPERAND (op, 1)) == SSA_NAME)
		{
		  size += 1;
		  time += freq;
		}
	}
    }
  if (size == 0 && !calls)
    return;

  /* Sizes are in units of 1 / size_scale.  */
  int total = 0;
  sreal total_time = 0;
  size_time_entry *e;
  unsigned i;
  FOR_EACH_VEC_ELT (info->size_time_table, i, e)
    if (may_hold_probes (e))
      {
	total += e->size;
	total_time += e->time;
      }
  int64_t probes = MIN ((int64_t) size * ipa_fn_summary::size_scale, total);
  sreal time_share = 1;
  if (time < total_time)
    time_share = time / total_time;
  int removed = 0;
  FOR_EACH_VEC_ELT (info->size_time_table, i, e)
    if (may_hold_probes (e))
      {
	int part = total > 0 ? (int) (e->size * probes / total) : 0;
	e->size -= part;
	removed += part;
	e->time -= e->time * time_share;
      }
  /* The self size counts the calls too (the table does not).  */
  size_info->self_size -= RDIV (removed, ipa_fn_summary::size_scale) + call_size;
  ipa_update_overall_fn_summary (node);
}

/* A probe statement taken out of the body while GCC summarises it: its
   block and the statement it followed (NULL: the block's first).  */
struct held_probe
{
  gimple *stmt;
  basic_block bb;
  gimple *after;
};

/* Whether STMT can leave the body for a while: a probe statement that is not a
   call (calls keep their place; their call summaries are zeroed), does not
   end its block (the keyed checks' conditions) and, by the fixpoint in
   hold_probes, whose result only held statements use (GCC looks up the
   block of a call argument's definition).  */
static bool
holdable_p (gimple *stmt)
{
  return !is_gimple_debug (stmt) && !is_gimple_call (stmt) && !stmt_ends_bb_p (stmt)
	 && gimple_code (stmt) != GIMPLE_LABEL && probe_stmt_p (stmt);
}

/* Takes out of FN's body (cfun) the probe statements that can go without
   changing the CFG or stranding a use (holdable_p).  A store's virtual
   definition is unlinked, so GCC's alias walks see the plain program's
   memory chain.  */
static void
hold_probes (auto_vec<held_probe> &held)
{
  hash_set<gimple *> out;
  basic_block bb;
  FOR_EACH_BB_FN (bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi); gsi_next (&gsi))
      if (holdable_p (gsi_stmt (gsi)))
	out.add (gsi_stmt (gsi));
  for (bool changed = true; changed;)
    {
      auto_vec<gimple *> keep;
      for (gimple *stmt : out)
	{
	  tree def = gimple_get_lhs (stmt);
	  if (!def || TREE_CODE (def) != SSA_NAME)
	    continue;
	  imm_use_iterator it;
	  gimple *use;
	  FOR_EACH_IMM_USE_STMT (use, it, def)
	    if (!is_gimple_debug (use) && !out.contains (use))
	      {
		keep.safe_push (stmt);
		break;
	      }
	}
      for (gimple *stmt : keep)
	out.remove (stmt);
      changed = !keep.is_empty ();
    }
  if (out.is_empty ())
    return;
  FOR_EACH_BB_FN (bb, cfun)
    {
      gimple *prev = NULL;
      for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);)
	{
	  gimple *stmt = gsi_stmt (gsi);
	  if (!out.contains (stmt))
	    {
	      prev = stmt;
	      gsi_next (&gsi);
	      continue;
	    }
	  held.safe_push ({ stmt, bb, prev });
	  prev = stmt;
	  if (gimple_vdef (stmt))
	    unlink_stmt_vdef (stmt);
	  gsi_remove (&gsi, false);
	}
    }
}

/* Puts the held probes back where they were, in their order, and renames
   the virtual operands.  */
static void
restore_probes (const auto_vec<held_probe> &held)
{
  for (const held_probe &h : held)
    {
      gimple_stmt_iterator gsi;
      if (h.after)
	{
	  gsi = gsi_for_stmt (h.after);
	  gsi_insert_after (&gsi, h.stmt, GSI_NEW_STMT);
	}
      else
	{
	  gsi = gsi_after_labels (h.bb);
	  gsi_insert_before (&gsi, h.stmt, GSI_NEW_STMT);
	}
    }
  mark_virtual_operands_for_renaming (cfun);
  update_ssa (TODO_update_ssa_only_virtuals);
}

/* The functions that were const or pure before their probes, by DECL_UID
   (a node may go before the inliner view runs; its uid is never reused).
   GCC summarises a call of a const function by its arguments ("op2
   changed" for a result computed from op2 alone): with the probes' writes,
   every such call of an instrumented function was a statement of no known
   value, and a caller of a few of them grew past the inliner's limits (xz's
   match(), whose get_dist_slot (distance) feeds 16 of its 75 size units).  */
struct purity
{
  unsigned uid;
  bool is_const, looping;
};
static vec<purity> purities;

static void
drop_purity (cgraph_node *node)
{
  node->set_const_flag (false, false);
  node->set_pure_flag (false, false);
}

void
take_purity (cgraph_node *node)
{
  tree decl = node->decl;
  if (TREE_READONLY (decl) || DECL_PURE_P (decl))
    purities.safe_push ({ DECL_UID (decl), (bool) TREE_READONLY (decl),
			  (bool) DECL_LOOPING_CONST_OR_PURE_P (decl) });
  drop_purity (node);
}

/* Gives the functions take_purity noted their flags back; NOTED gets
   their nodes.  */
static void
give_purity_back (hash_set<cgraph_node *> &noted)
{
  cgraph_node *node;
  FOR_EACH_DEFINED_FUNCTION (node)
    for (const purity &p : purities)
      if (p.uid == DECL_UID (node->decl))
	{
	  if (p.is_const)
	    node->set_const_flag (true, p.looping);
	  else
	    node->set_pure_flag (true, p.looping);
	  noted.add (node);
	  break;
	}
}

/* Does NODE call one of NOTED, whose summary sees it as it was?  */
static bool
calls_noted_p (cgraph_node *node, hash_set<cgraph_node *> &noted)
{
  for (cgraph_edge *e = node->callees; e; e = e->next_callee)
    if (noted.contains (e->callee->ultimate_alias_target ()))
      return true;
  return false;
}

/* Takes NODE's probes out of its summary.  */
static void
unsummarise (cgraph_node *node, hash_set<cgraph_node *> &noted)
{
  function *fn = DECL_STRUCT_FUNCTION (node->decl);
  ipa_fn_summary *info = ipa_fn_summaries->get (node);
  if (!fn || !fn->cfg || !info || info->size_time_table.is_empty ())
    return;
  push_cfun (fn);
  auto_vec<held_probe> held;
  hold_probes (held);
  if (!held.is_empty () || calls_noted_p (node, noted))
    compute_fn_summary (node, false);
  unsummarise_rest (node, fn);
  if (!held.is_empty ())
    restore_probes (held);
  pop_cfun ();
}

static void
unsummarise_unit (void)
{
  /* No summaries: GCC will not inline.  */
  if (!ipa_fn_summaries || !ipa_size_summaries || !ipa_call_summaries)
    {
      purities.release ();
      return;
    }
  /* With the noted functions' flags back (nothing here rescans a call's
     operands, so their calls keep their virtual operands).  */
  hash_set<cgraph_node *> noted;
  give_purity_back (noted);
  cgraph_node *node;
  FOR_EACH_DEFINED_FUNCTION (node)
    if (node->has_gimple_body_p () && !node->inlined_to)
      unsummarise (node, noted);
  for (cgraph_node *n : noted)
    drop_purity (n);
  purities.release ();
}

namespace {

const pass_data inliner_view_pass_data = {
  IPA_PASS,
  "pathprof-inliner-view",	/* name */
  OPTGROUP_NONE,
  TV_NONE,
  0, 0, 0, 0, 0
};

/* An IPA pass so that it can follow "fnsummary": its summary step runs after
   fnsummary's and before any IPA pass decides.  */
class inliner_view_pass : public ipa_opt_pass_d
{
public:
  inliner_view_pass (gcc::context *ctxt)
    : ipa_opt_pass_d (inliner_view_pass_data, ctxt, unsummarise_unit,
		      NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL)
  {}
  bool gate (function *) final override { return !in_lto_p && !seen_error (); }
};

}

void
register_inliner_view (const char *plugin_name)
{
  static struct register_pass_info pass;
  pass.pass = new inliner_view_pass (g);
  pass.reference_pass_name = "fnsummary";
  pass.ref_pass_instance_number = 1;
  pass.pos_op = PASS_POS_INSERT_AFTER;
  register_callback (plugin_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &pass);
}
