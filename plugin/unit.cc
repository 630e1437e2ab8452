/* pathprof plugin, the unit's records: the value array every probe of the unit
   stores into, the hash-table descriptors of functions with too many paths for
   an array, the notes (corelib/format/notes.h) and the registration record that
   libprof reads (libprof/pathprof-abi.h), with the constructor that registers it
   and the destructor that writes the profile.  */

#include "pathprof-plugin.h"
#include "corelib/trace.h"
#include "corelib/ip-notes.h"

static tree
build_field (tree type, const char *name, tree *chain)
{
  tree f = build_decl (BUILTINS_LOCATION, FIELD_DECL, get_identifier (name), type);
  DECL_CHAIN (f) = *chain;
  *chain = f;
  return f;
}

static tree
static_var (const char *name, tree type, tree init, bool readonly)
{
  tree var = build_decl (BUILTINS_LOCATION, VAR_DECL, get_identifier (name), type);
  TREE_STATIC (var) = 1;
  TREE_PUBLIC (var) = 0;
  DECL_ARTIFICIAL (var) = 1;
  DECL_IGNORED_P (var) = 1;
  TREE_READONLY (var) = readonly;
  TREE_ADDRESSABLE (var) = 1;
  DECL_INITIAL (var) = init;
  return var;
}

int
compare_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a;
  uint64_t y = *(const uint64_t *) b;
  return (x > y) - (x < y);
}

/* struct __pathprof_path_table, as in libprof/pathprof-abi.h.  */
static tree
path_table_type (tree *f_function, tree *f_flags, tree *f_npaths, tree *f_table)
{
  tree record = make_node (RECORD_TYPE);
  tree fields = NULL_TREE;
  *f_function = build_field (unsigned_type_node, "function", &fields);
  *f_flags = build_field (unsigned_type_node, "flags", &fields);
  *f_npaths = build_field (long_long_unsigned_type_node, "npaths", &fields);
  *f_table = build_field (ptr_type_node, "table", &fields);
  finish_builtin_struct (record, "__pathprof_path_table", fields, NULL_TREE);
  return record;
}

/* struct __pathprof_unit, field for field as in libprof/pathprof-abi.h.  */
struct unit_fields
{
  tree type, abi, kind, sum, name, notes, notes_len, nvalues, values, ntables,
       tables, next, ip_first, trace_addrs, trace_info, trace_nfunctions, ncompiled,
       compiled, compiled_counts, ip_ok, ip_assumed, ip_clones, ip_program, ip_nfunctions,
       ip_nimports, ip_nexports,
       ip_names;
};

static unit_fields
unit_record_type (void)
{
  tree u32 = unsigned_type_node;
  tree u64 = long_long_unsigned_type_node;
  unit_fields f;
  f.type = make_node (RECORD_TYPE);
  tree fields = NULL_TREE;
  f.abi = build_field (u32, "abi_version", &fields);
  f.kind = build_field (u32, "value_kind", &fields);
  f.sum = build_field (u64, "checksum", &fields);
  f.name = build_field (const_ptr_type_node, "name", &fields);
  f.notes = build_field (const_ptr_type_node, "notes", &fields);
  f.notes_len = build_field (u32, "notes_len", &fields);
  f.nvalues = build_field (u32, "nvalues", &fields);
  f.values = build_field (ptr_type_node, "values", &fields);
  f.ntables = build_field (u32, "ntables", &fields);
  build_field (u32, "trace_id", &fields);
  f.tables = build_field (ptr_type_node, "tables", &fields);
  f.next = build_field (ptr_type_node, "next", &fields);
  f.ip_first = build_field (u64, "ip_first", &fields);
  f.trace_addrs = build_field (const_ptr_type_node, "trace_addrs", &fields);
  f.trace_info = build_field (const_ptr_type_node, "trace_info", &fields);
  f.trace_nfunctions = build_field (u32, "trace_nfunctions", &fields);
  f.ncompiled = build_field (u32, "ncompiled", &fields);
  f.compiled = build_field (const_ptr_type_node, "compiled", &fields);
  f.compiled_counts = build_field (ptr_type_node, "compiled_counts", &fields);
  f.ip_ok = build_field (ptr_type_node, "ip_ok", &fields);
  f.ip_assumed = build_field (const_ptr_type_node, "ip_assumed", &fields);
  f.ip_clones = build_field (const_ptr_type_node, "ip_clones", &fields);
  f.ip_program = build_field (u64, "ip_program", &fields);
  f.ip_nfunctions = build_field (u32, "ip_nfunctions", &fields);
  f.ip_nimports = build_field (u32, "ip_nimports", &fields);
  f.ip_nexports = build_field (u32, "ip_nexports", &fields);
  f.ip_names = build_field (const_ptr_type_node, "ip_names", &fields);
  finish_builtin_struct (f.type, "__pathprof_unit", fields, NULL_TREE);
  return f;
}

static unit_fields unit_type;

/* libprof's thread-local word NAME of TYPE (the whole of libprof's
   variable).  In code for a shared object, or where the unit's mode does
   not use it (WANTED false), extern and initial-exec (libprof is loaded
   with the program).  In code for an executable (not -fPIC without
   -fPIE, GCC's own rule for its TLS models), a weak definition of this
   unit's (zeros, or INITIAL, as libprof's) reached local-exec, one instruction an
   access with no thread offset to load first, which the program's other
   units and libprof share: a linked libprof.a brings the strong one, and
   a libprof.so takes the executable's, its accesses going through its GOT
   (pathprof-abi.h PP_TLS_MODEL).  Units whose mode does not use a word
   add nothing to a thread's storage.  */
static tree
libprof_tls (const char *name, tree type, bool wanted, tree initial = NULL_TREE)
{
  tree v = build_decl (BUILTINS_LOCATION, VAR_DECL, get_identifier (name), type);
  TREE_PUBLIC (v) = 1;
  DECL_ARTIFICIAL (v) = 1;
  if (flag_shlib || !wanted)
    {
      DECL_EXTERNAL (v) = 1;
      set_decl_tls_model (v, TLS_MODEL_INITIAL_EXEC);
      return v;
    }
  TREE_STATIC (v) = 1;
  DECL_INITIAL (v) = initial;	/* libprof's definition has the same */
  declare_weak (v);
  set_decl_tls_model (v, TLS_MODEL_LOCAL_EXEC);
  /* Kept even where only the trace markers stand for its uses until
     the late pass expands them.  */
  varpool_node::get_create (v)->force_output = true;
  varpool_node::finalize_decl (v);
  return v;
}

/* libprof's trace-mode functions and the thread's trace state,
   __thread struct __pathprof_trace_thread __pathprof_trace_tls
   (libprof_tls).  */
static void
declare_trace_runtime (probe_target &t)
{
  tree u32 = unsigned_type_node;
  tree u64 = long_long_unsigned_type_node;
  /* Leaf (calls no code of the unit, so in a function that calls setjmp a
     call of it needs no abnormal edge: the pass after the inliner adds
     them to such functions' blocks), as the markers the records stand as
     until GCC has inlined (trace-probes.cc, "Markers"), which are never
     defined, so that one left over fails the link.  */
  auto leaf = [] (const char *name, tree type) {
    tree fn = build_fn_decl (name, type);
    DECL_ATTRIBUTES (fn) = tree_cons (get_identifier ("leaf"), NULL_TREE,
				      DECL_ATTRIBUTES (fn));
    return fn;
  };
  t.trace_enter = leaf ("__pathprof_trace_enter",
			build_function_type_list (u64, ptr_type_node, u32, u32, NULL_TREE));
  t.trace_witness = leaf ("__pathprof_trace_witness",
			  build_function_type_list (void_type_node, u64, u32, NULL_TREE));
  t.trace_last = leaf ("__pathprof_trace_last",
		       build_function_type_list (void_type_node, u64, u64, u32,
						 NULL_TREE));
  t.trace_m_enter = leaf ("__pathprof_trace_m_enter",
			  build_function_type_list (u64, ptr_type_node, u32, u32,
						    ptr_type_node, u32, NULL_TREE));
  t.trace_m_witness = leaf ("__pathprof_trace_m_witness",
			    build_function_type_list (void_type_node, u64, u32, u32,
						      NULL_TREE));
  t.trace_m_last = leaf ("__pathprof_trace_m_last",
			 build_function_type_list (void_type_node, u64, u32, u32,
						   NULL_TREE));
  t.trace_m_flush = leaf ("__pathprof_trace_m_flush",
			  build_function_type_list (void_type_node, u64, NULL_TREE));
  t.trace_m_direct = leaf ("__pathprof_trace_m_direct",
			   build_function_type_list (void_type_node, u64, ptr_type_node,
						     NULL_TREE));
  tree thread_type = make_node (RECORD_TYPE);
  tree fields = NULL_TREE;
  t.tls_buf = build_field (build_pointer_type (u64), "buf", &fields);
  t.tls_cursor = build_field (u64, "cursor", &fields);
  t.tls_limit = build_field (u64, "limit", &fields);
  build_field (u32, "busy", &fields);
  build_field (u32, "spare", &fields);
  t.tls_state = build_field (u64, "state", &fields);
  t.tls_expect = build_field (u64, "expect", &fields);
  t.tls_gen = build_field (u64, "gen", &fields);
  build_field (build_array_type_nelts (u64, PATHPROF_TRACE_PRIVATE_WORDS), "libprof", &fields);
  finish_builtin_struct (thread_type, "__pathprof_trace_thread", fields, NULL_TREE);
  t.trace_tls = libprof_tls ("__pathprof_trace_tls", thread_type,
				    option_mode->traced);
  t.trace_land = build_fn_decl ("__pathprof_trace_land",
				build_function_type_list (void_type_node, u64, u32,
							  u32, NULL_TREE));
  t.trace_site = build_fn_decl ("__pathprof_trace_site",
				build_function_type_list (void_type_node,
							  build_pointer_type (u64),
							  u64, u32, NULL_TREE));
}

/* libprof's probes of the interprocedural mode (pathprof-abi.h).  */
static void
declare_ip_runtime (probe_target &t)
{
  tree u32 = unsigned_type_node;
  tree u64 = long_long_unsigned_type_node;
  tree cptr = build_pointer_type (build_qualified_type (void_type_node,
							TYPE_QUAL_CONST));
  /* The segments modes' probes are libprof's __pathprof_seg_*, the
     context and piecewise paths' __pathprof_ip_* (pathprof-abi.h): the
     unit's mode chooses.  */
  auto name = [&] (const char *probe) {
    static char buf[64];
    snprintf (buf, sizeof buf, "__pathprof_%s_%s", t.calls_in_place ? "seg" : "ip", probe);
    return buf;
  };
  t.ip_enter = build_fn_decl (name ("enter"),
			      build_function_type_list (u64, ptr_type_node, u32,
							cptr, NULL_TREE));
  t.ip_edge = build_fn_decl (name ("edge"),
			     build_function_type_list (void_type_node, u64, u32,
						       NULL_TREE));
  t.ip_cut = t.calls_in_place
	     ? build_fn_decl (name ("cut"),
			      build_function_type_list (void_type_node, u64, u32,
							u64, cptr, NULL_TREE))
	     : NULL_TREE;
  t.ip_return = build_fn_decl (name ("return"),
			       build_function_type_list (void_type_node, u64, u32,
							 NULL_TREE));
  t.ip_exit = build_fn_decl (name ("exit"),
			     build_function_type_list (void_type_node, u64,
						       NULL_TREE));
  t.ip_jump = build_fn_decl (name ("jump"),
			     build_function_type_list (void_type_node, u64, u32,
						       NULL_TREE));
  t.ip_land = build_fn_decl (name ("land"),
			     build_function_type_list (void_type_node, u64, u32,
						       u32, NULL_TREE));
  t.seg_continues = build_fn_decl ("__pathprof_seg_continues",
				   build_function_type_list (integer_type_node,
							     ptr_type_node, u32, cptr,
							     NULL_TREE));
  bool calls = option_mode->calls;
  t.ip_caller = libprof_tls ("__pathprof_ip_caller", u64, calls);
  tree pass_type = make_node (RECORD_TYPE);
  tree pass_fields = NULL_TREE;
  t.seg_pass_r = build_field (u64, "r", &pass_fields);
  t.seg_pass_record = build_field (u64, "record", &pass_fields);
  finish_builtin_struct (pass_type, "__pathprof_seg_pass_words", pass_fields, NULL_TREE);
  t.seg_pass = libprof_tls ("__pathprof_seg_pass", pass_type, calls);
  t.seg_records = libprof_tls ("__pathprof_seg_records",
				      build_array_type_nelts (u64, sizeof (struct __pathprof_seg_record)
							      / 8 * PATHPROF_SEG_RECORDS),
				      calls);
  t.seg_top = libprof_tls ("__pathprof_seg_top", u32, calls,
			   build_int_cst (u32, PATHPROF_SEG_UNSET));
  t.seg_unwind = build_fn_decl ("__pathprof_seg_unwind",
				build_function_type_list (void_type_node, u32, NULL_TREE));
  t.ip_depth = libprof_tls ("__pathprof_ip_depth", u32, calls);
}

void
create_unit_values (probe_target &t, uint32_t nvalues,
		    auto_delete_vec<function_record> &records)
{
  unit_type = unit_record_type ();
  t.unit = static_var ("__pathprof_unit", unit_type.type, NULL_TREE, false);
  t.unit_ip_first = unit_type.ip_first;
  declare_trace_runtime (t);
  declare_ip_runtime (t);
  tree u64 = long_long_unsigned_type_node;
  t.flush = build_fn_decl ("__pathprof_flush",
			   build_function_type_list (void_type_node, NULL_TREE));
  t.count_path = build_fn_decl ("__pathprof_count_path",
				build_function_type_list (void_type_node,
							  ptr_type_node, u64,
							  NULL_TREE));

  t.keyed_marker = build_fn_decl ("__pathprof_keyed_count",
				  build_function_type_list (void_type_node, u64, u64,
							    NULL_TREE));
  t.record_marker = build_fn_decl ("__pathprof_record_push",
				   build_function_type_list (void_type_node, NULL_TREE));
  t.pass_marker = build_fn_decl ("__pathprof_pass_save",
				 build_function_type_list (void_type_node, NULL_TREE));

  /* The value array, and after its values the preferential slots' keys, one
     run per keyed function, then the wide constants (below): a keyed path
     end reads the key and bumps the slot's count from one base address (one
     `lea` under PIE instead of two: SQLite ppp 2,214.5M -> 2,174.0M
     instructions).  Keys make the object
     initialised data, so a keyed unit's values take their size in the file;
     libprof reads and writes the first NVALUES only.  */
  vec<constructor_elt, va_gc> *keys = NULL;
  uint32_t nkeys = 0;
  for (function_record *rec : records)
    {
      rec->key_offset = nvalues + nkeys;
      for (uint32_t k = 0; k < rec->plan.nkeys; k++)
	CONSTRUCTOR_APPEND_ELT (keys, size_int (nvalues + nkeys + k),
				build_int_cstu (u64, pp_plan_key_word (&rec->plan, k)));
      nkeys += rec->plan.nkeys;
    }
  gcc_assert (!nkeys || TYPE_PRECISION (t.value_type) == 64);
  /* Then the wide constants the path registers add (probe_target.wide),
     sorted, each once: read from the array, which the probes write, GCC
     cannot fold them back into the code.  */
  static auto_vec<uint64_t> wide;
  wide.truncate (0);
  if (TYPE_PRECISION (t.value_type) == 64)
    for (function_record *rec : records)
      {
	wide_operands (rec->plan, wide);
	wide_operands (rec->compiled, wide);
	for (function_record *copy : rec->copies)
	  wide_operands (copy->plan, wide);
      }
  wide.qsort (compare_u64);
  uint32_t nwide = 0;
  for (uint32_t i = 0; i < wide.length (); i++)
    if (i == 0 || wide[i] != wide[nwide - 1])
      wide[nwide++] = wide[i];
  wide.truncate (nwide);
  t.wide = wide.address ();
  t.nwide = nwide;
  t.wide_offset = nvalues + nkeys;
  for (uint32_t i = 0; i < nwide; i++)
    CONSTRUCTOR_APPEND_ELT (keys, size_int (t.wide_offset + i),
			    build_int_cstu (u64, wide[i]));
  tree array_type = build_array_type_nelts (t.value_type,
					    MAX (nvalues + nkeys + nwide, 1u));
  t.values = static_var ("__pathprof_counters", array_type,
			 nkeys + nwide ? build_constructor (array_type, keys) : NULL_TREE,
			 false);
  t.wide_values = t.values;
  varpool_node::finalize_decl (t.values);

  /* The trace mode's keys, a byte per function that says what libprof's
     call sites need to know of it (its width, PP_TRACE_INFO_LEAF), its
     address where code may call it by its address, and the unit's call
     sites, per thread (pathprof-abi.h).  */
  t.trace_keys = t.trace_addrs = t.trace_sites = NULL_TREE;
  t.trace_key_fn = vNULL;
  if (option_mode->traced)
    {
      unsigned n = records.length ();
      vec<constructor_elt, va_gc> *info = NULL, *addrs = NULL;
      uint32_t nsites = 0;
      for (function_record *rec : records)
	{
	  unsigned width = pp_trace_width (rec->plan.nvalues);
	  CONSTRUCTOR_APPEND_ELT (info, size_int (rec->index),
				  build_int_cst (unsigned_char_type_node,
						 width | (trace_leaf (rec->plan)
							  ? PP_TRACE_INFO_LEAF : 0)));
	  tree decl = rec->by_address ? rec->node->decl : NULL_TREE;
	  t.trace_key_fn.safe_push (decl);
	  CONSTRUCTOR_APPEND_ELT (addrs, size_int (rec->index),
				  decl ? fold_convert (const_ptr_type_node,
						       build_fold_addr_expr (decl))
				  : null_pointer_node);
	  nsites += rec->site_calls.length ();
	}
      tree info_type = build_array_type_nelts (unsigned_char_type_node, n);
      t.trace_keys = static_var ("__pathprof_trace_keys", info_type,
				 build_constructor (info_type, info), false);
      varpool_node::finalize_decl (t.trace_keys);
      tree addrs_type = build_array_type_nelts (const_ptr_type_node, n);
      t.trace_addrs = static_var ("__pathprof_trace_addrs", addrs_type,
				  build_constructor (addrs_type, addrs), true);
      varpool_node::finalize_decl (t.trace_addrs);
      if (nsites)
	{
	  t.trace_sites = static_var ("__pathprof_trace_sites",
				      build_array_type_nelts (u64, 2 * nsites),
				      NULL_TREE, false);
	  set_decl_tls_model (t.trace_sites, decl_default_tls_model (t.trace_sites));
	  varpool_node::finalize_decl (t.trace_sites);
	}
    }

  /* One hash-table descriptor per function with more paths than fit an
     array, and per compiled root with more segments than that (its copies
     count in the root's).  */
  t.path_tables = NULL_TREE;
  tree f_function, f_flags, f_npaths;
  tree type = path_table_type (&f_function, &f_flags, &f_npaths, &t.path_table_hash);
  vec<constructor_elt, va_gc> *tables = NULL;
  unsigned ntables = 0;
  for (unsigned i = 0; i < records.length (); i++)
    if (records[i]->plan.path_table || records[i]->compiled.path_table)
      {
	bool compiled = records[i]->compiled.path_table;
	records[i]->path_table = ntables++;
	for (function_record *copy : records[i]->copies)
	  copy->path_table = records[i]->path_table;
	vec<constructor_elt, va_gc> *fields = NULL;
	CONSTRUCTOR_APPEND_ELT (fields, f_function,
				build_int_cst (unsigned_type_node, i));
	CONSTRUCTOR_APPEND_ELT (fields, f_flags,
				build_int_cst (unsigned_type_node,
					       compiled ? PATHPROF_TABLE_COMPILED : 0));
	CONSTRUCTOR_APPEND_ELT (fields, f_npaths,
				build_int_cstu (u64, compiled ? records[i]->compiled.npaths
							       : records[i]->plan.npaths));
	CONSTRUCTOR_APPEND_ELT (tables, NULL_TREE, build_constructor (type, fields));
      }
  if (ntables == 0)
    return;
  /* Each table is the unit's empty one until libprof makes it its own.  */
  tree words = build_array_type_nelts (u64, PATHPROF_PATH_HASH_NONE_WORDS);
  vec<constructor_elt, va_gc> *none = NULL;
  CONSTRUCTOR_APPEND_ELT (none, size_int (0),
			  build_int_cst (u64, PATHPROF_PATH_HASH_NONE_SHIFT));
  tree empty = static_var ("__pathprof_no_table", words, build_constructor (words, none),
			   true);
  varpool_node::finalize_decl (empty);
  tree empty_address = fold_convert (ptr_type_node, build_fold_addr_expr (empty));
  for (constructor_elt &table : *tables)
    CONSTRUCTOR_APPEND_ELT (CONSTRUCTOR_ELTS (table.value), t.path_table_hash,
			    empty_address);
  tree array = build_array_type_nelts (type, ntables);
  t.path_tables = static_var ("__pathprof_path_tables", array,
			      build_constructor (array, tables), false);
  varpool_node::finalize_decl (t.path_tables);
}

void
create_compiled_counts (probe_target &t, uint64_t ncounts,
			const auto_delete_vec<function_record> &records)
{
  t.compiled_counts = t.compiled_roots = t.front_keys = NULL_TREE;
  t.ip_ok = t.ip_assumed = t.ip_clones = NULL_TREE;
  t.ncompiled = 0;
  bool any = false;
  for (const function_record *rec : records)
    any |= rec->dyn != NULL;
  if (!any)
    return;
  tree u32 = unsigned_type_node;
  tree u64 = long_long_unsigned_type_node;
  if (ncounts)
    {
      t.compiled_counts = static_var ("__pathprof_compiled_counts",
				      build_array_type_nelts (u64, ncounts), NULL_TREE,
				      false);
      varpool_node::finalize_decl (t.compiled_counts);
    }
  /* The fronts' keys (compiled.cc "Fronts"), read-only, root after root.  */
  uint64_t nkeys = 0;
  vec<constructor_elt, va_gc> *keys = NULL;
  for (function_record *rec : records)
    if (rec->dyn && !rec->front_keys.is_empty ())
      {
	rec->front_at = nkeys;
	for (uint64_t key : rec->front_keys)
	  CONSTRUCTOR_APPEND_ELT (keys, size_int (nkeys++), build_int_cstu (u64, key));
      }
  if (nkeys)
    {
      tree type = build_array_type_nelts (u64, nkeys);
      t.front_keys = static_var ("__pathprof_front_keys", type, build_constructor (type, keys),
				 true);
      varpool_node::finalize_decl (t.front_keys);
    }
  /* The roots' assumed callees (pathprof-abi.h ip_assumed), and the bytes
     in which libprof says whether they are code not instrumented.  */
  vec<constructor_elt, va_gc> *assumed = NULL, *clones = NULL;
  uint32_t nassumed = 0, nclones = 0;
  for (function_record *rec : records)
    if (rec->dyn && rec->compiled_assumes)
      {
	rec->assumed_at = nassumed + 1;
	CONSTRUCTOR_APPEND_ELT (assumed, size_int (nassumed++),
				build_int_cst (u32, rec->assumed_imports.length ()));
	for (uint32_t i : rec->assumed_imports)
	  CONSTRUCTOR_APPEND_ELT (assumed, size_int (nassumed++), build_int_cst (u32, i));
	CONSTRUCTOR_APPEND_ELT (assumed, size_int (nassumed++),
				build_int_cst (u32, rec->foreign_clones.length ()));
	for (tree clone : rec->foreign_clones)
	  {
	    CONSTRUCTOR_APPEND_ELT (assumed, size_int (nassumed++), build_int_cst (u32, nclones));
	    CONSTRUCTOR_APPEND_ELT (clones, size_int (nclones++),
				    fold_convert (const_ptr_type_node,
						  build_fold_addr_expr (clone)));
	  }
      }
  if (nclones)
    {
      tree type = build_array_type_nelts (const_ptr_type_node, nclones);
      t.ip_clones = static_var ("__pathprof_ip_clones", type,
				build_constructor (type, clones), true);
      varpool_node::finalize_decl (t.ip_clones);
    }
  if (nassumed)
    {
      tree type = build_array_type_nelts (u32, nassumed);
      t.ip_assumed = static_var ("__pathprof_ip_assumed", type,
				 build_constructor (type, assumed), true);
      varpool_node::finalize_decl (t.ip_assumed);
      t.ip_ok = static_var ("__pathprof_ip_ok",
			    build_array_type_nelts (unsigned_char_type_node,
						    records.length ()),
			    NULL_TREE, false);
      varpool_node::finalize_decl (t.ip_ok);
    }
  /* struct __pathprof_compiled_root, as in libprof/pathprof-abi.h.  */
  tree type = make_node (RECORD_TYPE);
  tree fields = NULL_TREE;
  tree f_function = build_field (u32, "function", &fields);
  tree f_table = build_field (u32, "table", &fields);
  tree f_first = build_field (u64, "first", &fields);
  tree f_npaths = build_field (u64, "npaths", &fields);
  tree f_keys = build_field (build_pointer_type (build_qualified_type (u64, TYPE_QUAL_CONST)),
			     "keys", &fields);
  tree f_keys_log2 = build_field (u32, "keys_log2", &fields);
  tree f_assumed = build_field (u32, "assumed", &fields);
  finish_builtin_struct (type, "__pathprof_compiled_root", fields, NULL_TREE);
  vec<constructor_elt, va_gc> *roots = NULL;
  for (const function_record *rec : records)
    if (rec->dyn)
      {
	vec<constructor_elt, va_gc> *row = NULL;
	CONSTRUCTOR_APPEND_ELT (row, f_function, build_int_cst (u32, rec->index));
	CONSTRUCTOR_APPEND_ELT (row, f_table,
				build_int_cst (u32, rec->compiled.path_table
						    ? rec->path_table + 1 : 0));
	CONSTRUCTOR_APPEND_ELT (row, f_first, build_int_cstu (u64, rec->compiled_first));
	CONSTRUCTOR_APPEND_ELT (row, f_npaths, build_int_cstu (u64, rec->compiled.npaths));
	if (!rec->front_keys.is_empty ())
	  {
	    tree first = build4 (ARRAY_REF, u64, t.front_keys, size_int (rec->front_at),
				 NULL_TREE, NULL_TREE);
	    CONSTRUCTOR_APPEND_ELT (row, f_keys,
				    fold_convert (TREE_TYPE (f_keys), build_fold_addr_expr (first)));
	    CONSTRUCTOR_APPEND_ELT (row, f_keys_log2, build_int_cst (u32, rec->front_log2));
	  }
	if (rec->compiled_assumes)
	  {
	    if (rec->front_keys.is_empty ())
	      {
		CONSTRUCTOR_APPEND_ELT (row, f_keys, fold_convert (TREE_TYPE (f_keys), null_pointer_node));
		CONSTRUCTOR_APPEND_ELT (row, f_keys_log2, build_int_cst (u32, 0));
	      }
	    CONSTRUCTOR_APPEND_ELT (row, f_assumed, build_int_cst (u32, rec->assumed_at));
	  }
	CONSTRUCTOR_APPEND_ELT (roots, NULL_TREE, build_constructor (type, row));
	t.ncompiled++;
      }
  /* The address of each root's counts that other units' clones of it
     may push a record with (compiled.cc "Across units"), and of its
     front's counts, where their hints add (compiled.cc "Hints").  */
  for (const function_record *rec : records)
    for (tree name : { rec->xroot, rec->xfront })
      {
	if (!rec->dyn || !name)
	  continue;
	/* The front's counts are the root's first compiled counts.  */
	tree counts = rec->compiled.path_table && name == rec->xroot
		      ? build4 (ARRAY_REF, TREE_TYPE (TREE_TYPE (t.path_tables)), t.path_tables,
				size_int (rec->path_table), NULL_TREE, NULL_TREE)
		      : build4 (ARRAY_REF, u64, t.compiled_counts,
				size_int (rec->compiled_first), NULL_TREE, NULL_TREE);
	tree var = build_decl (BUILTINS_LOCATION, VAR_DECL, name, ptr_type_node);
	TREE_STATIC (var) = 1;
	TREE_PUBLIC (var) = 1;
	TREE_READONLY (var) = 1;
	DECL_ARTIFICIAL (var) = 1;
	DECL_INITIAL (var) = fold_convert (ptr_type_node, build_fold_addr_expr (counts));
	varpool_node::finalize_decl (var);
	/* Made after GCC's visibility pass: kept though nothing here uses it.  */
	varpool_node *node = varpool_node::get_create (var);
	node->externally_visible = true;
	node->force_output = true;
      }
  tree array = build_array_type_nelts (type, t.ncompiled);
  t.compiled_roots = static_var ("__pathprof_compiled_roots", array,
				 build_constructor (array, roots), true);
  varpool_node::finalize_decl (t.compiled_roots);
}

/* The interprocedural modes' fields of the registration record: the
   unit's functions and its names (corelib/ip-notes.h pp_ip_unit_names),
   from which libprof tells whether the unit calls another unit's function
   before it decodes any notes.  */
static void
emit_ip_names (const pp_unit_notes &unit_notes, vec<constructor_elt, va_gc> *&elts)
{
  const pp_mode_info *mode = pp_mode_lookup (unit_notes.mode);
  if (!mode || !mode->calls)
    return;
  uint64_t *names;
  uint32_t nimports, nexports;
  if (pp_ip_unit_names (&unit_notes, &names, &nimports, &nexports))
    fatal_error (UNKNOWN_LOCATION, "pathprof: out of memory");
  tree u32 = unsigned_type_node;
  tree u64 = long_long_unsigned_type_node;
  const unit_fields &f = unit_type;
  uint32_t n = nimports + nexports;
  tree address = null_pointer_node;
  if (n)
    {
      vec<constructor_elt, va_gc> *words = NULL;
      for (uint32_t i = 0; i < n; i++)
	CONSTRUCTOR_APPEND_ELT (words, NULL_TREE, build_int_cstu (u64, names[i]));
      tree type = build_array_type_nelts (u64, n);
      tree var = static_var ("__pathprof_ip_names", type, build_constructor (type, words),
			     true);
      varpool_node::finalize_decl (var);
      address = fold_convert (const_ptr_type_node, build_fold_addr_expr (var));
    }
  free (names);
  CONSTRUCTOR_APPEND_ELT (elts, f.ip_nfunctions, build_int_cst (u32, unit_notes.nfunctions));
  CONSTRUCTOR_APPEND_ELT (elts, f.ip_nimports, build_int_cst (u32, nimports));
  CONSTRUCTOR_APPEND_ELT (elts, f.ip_nexports, build_int_cst (u32, nexports));
  CONSTRUCTOR_APPEND_ELT (elts, f.ip_names, address);
}

/* The registration record's contents.  */
void
emit_unit_record (const pp_unit_notes &unit_notes, const probe_target &t,
		  uint32_t value_kind, uint32_t nvalues)
{
  unsigned char *notes;
  size_t notes_len;
  if (pp_notes_encode (&unit_notes, &notes, &notes_len) != 0)
    fatal_error (UNKNOWN_LOCATION, "pathprof: out of memory");
  uint64_t checksum = pp_hash64 (notes, notes_len, PP_HASH_SEED);
  const char *unit_name = unit_notes.unit_name;
  tree u32 = unsigned_type_node;
  tree u64 = long_long_unsigned_type_node;
  const unit_fields &f = unit_type;

  tree notes_type = build_array_type_nelts (unsigned_char_type_node, notes_len);
  tree notes_str = build_string (notes_len, (const char *) notes);
  TREE_TYPE (notes_str) = notes_type;
  tree notes_var = static_var ("__pathprof_notes", notes_type, notes_str, true);
  varpool_node::finalize_decl (notes_var);

  vec<constructor_elt, va_gc> *elts = NULL;
  CONSTRUCTOR_APPEND_ELT (elts, f.abi, build_int_cst (u32, PATHPROF_ABI_VERSION));
  CONSTRUCTOR_APPEND_ELT (elts, f.kind, build_int_cst (u32, value_kind));
  CONSTRUCTOR_APPEND_ELT (elts, f.sum, build_int_cstu (u64, checksum));
  CONSTRUCTOR_APPEND_ELT (elts, f.name,
			  fold_convert (const_ptr_type_node,
					build_string_literal (strlen (unit_name) + 1,
							      unit_name)));
  CONSTRUCTOR_APPEND_ELT (elts, f.notes,
			  fold_convert (const_ptr_type_node,
					build_fold_addr_expr (notes_var)));
  CONSTRUCTOR_APPEND_ELT (elts, f.notes_len, build_int_cst (u32, notes_len));
  CONSTRUCTOR_APPEND_ELT (elts, f.nvalues, build_int_cst (u32, nvalues));
  CONSTRUCTOR_APPEND_ELT (elts, f.values,
			  fold_convert (ptr_type_node,
					build_fold_addr_expr (t.values)));
  unsigned ntables = 0;
  tree tables = null_pointer_node;
  if (t.path_tables)
    {
      ntables = tree_to_uhwi (array_type_nelts (TREE_TYPE (t.path_tables))) + 1;
      tables = fold_convert (ptr_type_node, build_fold_addr_expr (t.path_tables));
    }
  CONSTRUCTOR_APPEND_ELT (elts, f.ntables, build_int_cst (u32, ntables));
  CONSTRUCTOR_APPEND_ELT (elts, f.tables, tables);
  CONSTRUCTOR_APPEND_ELT (elts, f.next, null_pointer_node);
  auto address = [] (tree var) {
    return var ? fold_convert (const_ptr_type_node, build_fold_addr_expr (var))
	       : null_pointer_node;
  };
  CONSTRUCTOR_APPEND_ELT (elts, f.trace_addrs, address (t.trace_addrs));
  CONSTRUCTOR_APPEND_ELT (elts, f.trace_info, address (t.trace_keys));
  CONSTRUCTOR_APPEND_ELT (elts, f.trace_nfunctions,
			  build_int_cst (u32, t.trace_keys ? unit_notes.nfunctions : 0));
  CONSTRUCTOR_APPEND_ELT (elts, f.ncompiled, build_int_cst (u32, t.ncompiled));
  CONSTRUCTOR_APPEND_ELT (elts, f.compiled, address (t.compiled_roots));
  CONSTRUCTOR_APPEND_ELT (elts, f.compiled_counts,
			  t.compiled_counts
			  ? fold_convert (ptr_type_node, build_fold_addr_expr (t.compiled_counts))
			  : null_pointer_node);
  CONSTRUCTOR_APPEND_ELT (elts, f.ip_ok,
			  t.ip_ok ? fold_convert (ptr_type_node, build_fold_addr_expr (t.ip_ok))
			  : null_pointer_node);
  CONSTRUCTOR_APPEND_ELT (elts, f.ip_assumed, address (t.ip_assumed));
  CONSTRUCTOR_APPEND_ELT (elts, f.ip_clones, address (t.ip_clones));
  CONSTRUCTOR_APPEND_ELT (elts, f.ip_program,
			  build_int_cstu (u64, t.ip_clones ? compiled_program_signature : 0));
  emit_ip_names (unit_notes, elts);
  tree unit_var = t.unit;
  DECL_INITIAL (unit_var) = build_constructor (f.type, elts);
  varpool_node::finalize_decl (unit_var);

  tree fntype = build_function_type_list (void_type_node, ptr_type_node, NULL_TREE);
  tree reg = build_fn_decl ("__pathprof_register_unit", fntype);
  tree done = build_fn_decl ("__pathprof_unit_exit", fntype);
  /* Register before user constructors run; write the profile after user
     destructors and atexit handlers (smaller destructor priorities run later).  */
  cgraph_build_static_cdtor ('I',
			     build_call_expr (reg, 1, build_fold_addr_expr (unit_var)),
			     MAX_RESERVED_INIT_PRIORITY + 1);
  cgraph_build_static_cdtor ('D',
			     build_call_expr (done, 1, build_fold_addr_expr (unit_var)),
			     MAX_RESERVED_INIT_PRIORITY + 1);
  free (notes);
}

char *
absolute_unit_name (void)
{
  const char *name = main_input_filename ? main_input_filename : "<stdin>";
  if (IS_ABSOLUTE_PATH (name))
    return xstrdup (name);
  return concat (getpwd (), "/", name + (strncmp (name, "./", 2) == 0 ? 2 : 0),
		 NULL);
}

