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
   summaries the inliner reads), this pass takes the probes out again:

   - the statements that are probes: those that read or write the unit's
     value or key array, or a register or temporary the inserter made (all
     of probes.cc's are named PP_...: artificial variables, which the path
     registers still are here, or SSA names with a bare identifier);
   - calls to libprof (__pathprof_...) and calls whose arguments are probes
     (atomic increments): their own call summaries, set to zero;
   - the other probe statements' size and time (GCC's own estimate_num_insns
     and its extra unit for a register array index; time weighted by the
     block's frequency, as ipa-fnsummary weighs it) come out of the
     function's size/time table.  That table splits the body by predicates
     over the parameters (which code an inlined copy keeps with which
     arguments); which entry holds a statement is ipa-fnsummary's private
     state, but a probe is never constant and never removed by inlining, so
     its entry is one whose code always runs when its predicate holds and
     that an inlined copy keeps.  The probes' share comes out of those
     entries, in proportion to their sizes: exact when the probes' blocks
     share one predicate (most functions: (true)), an estimate otherwise.

   Only decisions change, never code: the probes are still in every copy an
   inlining makes.  On SQLite, GCC -O2 inlines 3,322 calls at IPA time in the
   plain build (without partial inlining, which the plugin turns off as gcov
   does), 1,747 with block-cover's probes counted and 3,247 with this pass
   (DESIGN.md, "What the inliner sees").  With -flto the pass runs at compile
   time, before the summaries are streamed.  */

#include "pathprof-plugin.h"
#include "alloc-pool.h"
#include "symbol-summary.h"
#include "tree-vrp.h"
#include "sreal.h"
#include "ipa-prop.h"
#include "ipa-fnsummary.h"
#include "tree-inline.h"

/* The unit's value and key arrays (instrument_unit), GC-reachable through
   the varpool.  */
static tree probe_arrays[2];

void
note_probe_arrays (tree values, tree keys)
{
  probe_arrays[0] = values;
  probe_arrays[1] = keys;
}

/* The inserter's registers and temporaries: artificial variables or bare
   identifiers named PP_..., never a user's variable.  */
static bool
probe_name_p (tree var, tree id)
{
  if (var && DECL_P (var) && !DECL_ARTIFICIAL (var))
    return false;
  return id && !strncmp (IDENTIFIER_POINTER (id), "PP_", 3);
}

/* OP is the unit's arrays, an element of one, its address, or a register or
   temporary of the inserter's.  */
static bool
probe_operand_p (tree op)
{
  if (!op)
    return false;
  if (TREE_CODE (op) == SSA_NAME)
    return probe_name_p (SSA_NAME_VAR (op), SSA_NAME_IDENTIFIER (op));
  if (TREE_CODE (op) == ADDR_EXPR)
    op = TREE_OPERAND (op, 0);
  tree base = get_base_address (op);
  if (!base)
    return false;
  if (base == probe_arrays[0] || base == probe_arrays[1])
    return true;
  return VAR_P (base) && probe_name_p (base, DECL_NAME (base));
}

static bool
probe_stmt_p (gimple *stmt)
{
  if (gcall *call = dyn_cast <gcall *> (stmt))
    {
      tree fn = gimple_call_fndecl (call);
      if (fn && DECL_NAME (fn)
	  && !strncmp (IDENTIFIER_POINTER (DECL_NAME (fn)), "__pathprof_", 11))
	return true;
      for (unsigned i = 0; i < gimple_call_num_args (call); i++)
	if (probe_operand_p (gimple_call_arg (call, i)))
	  return true;
      return false;
    }
  for (unsigned i = 0; i < gimple_num_ops (stmt); i++)
    if (probe_operand_p (gimple_op (stmt, i)))
      return true;
  return false;
}

/* Takes NODE's probes out of its summary.  */
static void
unsummarise (cgraph_node *node)
{
  ipa_fn_summary *info = ipa_fn_summaries->get (node);
  ipa_size_summary *size_info = ipa_size_summaries->get (node);
  function *fn = DECL_STRUCT_FUNCTION (node->decl);
  if (!info || !size_info || !fn || !fn->cfg || info->size_time_table.is_empty ())
    return;
  int size = 0;
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

  /* The entries that can hold probes: exec == nonconst (never constant),
     and kept by an inlined copy (not "not inlined").  Sizes are in units of
     1 / size_scale.  */
  const clause_t inlined = ~(clause_t) ((1 << ipa_predicate::not_inlined_condition)
					 | (1 << ipa_predicate::false_condition));
  int total = 0;
  sreal total_time = 0;
  size_time_entry *e;
  unsigned i;
  FOR_EACH_VEC_ELT (info->size_time_table, i, e)
    if (e->exec_predicate == e->nonconst_predicate
	&& e->exec_predicate.evaluate (inlined))
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
    if (e->exec_predicate == e->nonconst_predicate
	&& e->exec_predicate.evaluate (inlined))
      {
	int part = total > 0 ? (int) (e->size * probes / total) : 0;
	e->size -= part;
	removed += part;
	e->time -= e->time * time_share;
      }
  size_info->self_size -= RDIV (removed, ipa_fn_summary::size_scale);
  ipa_update_overall_fn_summary (node);
}

static void
unsummarise_unit (void)
{
  /* No probes, or no summaries (GCC has none when it will not inline).  */
  if (!probe_arrays[0] || !ipa_fn_summaries || !ipa_size_summaries
      || !ipa_call_summaries)
    return;
  cgraph_node *node;
  FOR_EACH_DEFINED_FUNCTION (node)
    if (node->has_gimple_body_p () && !node->inlined_to)
      unsummarise (node);
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
