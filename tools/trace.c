/* pathprof trace: the regenerated execution of every thread of a trace file,
   block by block with source lines, calls, returns and longjmps; or, with
   --branches, the branch stream that pathprof-hw reads (hw/): one record per
   retired branch of the machine of branch-layout.h.  The last line says what the trace cost
   against recording every branch outcome (Ball-Larus 1994, table 3).  */

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "branch-layout.h"
#include "commands.h"
#include "trace-file.h"

struct printer
{
  trace_file *t;
  bool branches, summary;
  uint32_t **rpo;		/* per function number: branch_layout_order */
  uint64_t *base;		/* per function number: its first block's address */
  uint32_t *at;			/* per depth: the current block */
  uint32_t *fn_at;		/* per depth: the function */
  size_t cap;
  uint64_t blocks, calls, outcome_bits;
  const char *file;
};

static uint64_t
address (struct printer *p, uint32_t id, uint32_t block)
{
  return p->base[id] + ((uint64_t) p->rpo[id][block] << 4);
}

static const pp_function_notes *
notes_of (const struct printer *p, uint32_t id, const trace_unit **unit)
{
  uint32_t u, f;
  trace_file_function (p->t, id, &u, &f);
  *unit = &p->t->units[u];
  return &p->t->units[u].notes.functions[f];
}

static void
print_block (struct printer *p, size_t depth, uint32_t id, uint32_t block)
{
  const trace_unit *u;
  const pp_function_notes *fn = notes_of (p, id, &u);
  printf ("%*s%s block %u", (int) (2 * depth), "", fn->name, block);
  const pp_block_notes *b = &fn->blocks[block];
  for (uint32_t i = 0; i < b->nlines; i++)
    {
      const char *file = u->notes.files[b->lines[i].file];
      const char *base = strrchr (file, '/');
      if (i == 0 || b->lines[i].file != b->lines[i - 1].file)
	printf ("%s%s:%u", i ? ", " : "  ", base ? base + 1 : file, b->lines[i].line);
      else
	printf (",%u", b->lines[i].line);
    }
  putchar ('\n');
}

static void
branch (uint64_t src, uint64_t dst, const char *kind)
{
  printf ("%s 0x%" PRIx64 " 0x%" PRIx64 "\n", kind, src, dst);
}

static void
on_event (void *ctx, enum pp_trace_ev ev, size_t depth, uint32_t id, uint32_t x)
{
  struct printer *p = ctx;
  if (depth + 1 > p->cap)
    {
      size_t cap = p->cap ? 2 * p->cap : 64;
      while (cap < depth + 1)
	cap *= 2;
      p->at = realloc (p->at, cap * sizeof *p->at);
      p->fn_at = realloc (p->fn_at, cap * sizeof *p->fn_at);
      if (!p->at || !p->fn_at)
	{
	  tool_error (p->file, "out of memory");
	  exit (1);
	}
      p->cap = cap;
    }
  const trace_unit *u;
  const pp_function_notes *fn = notes_of (p, id, &u);
  uint32_t caller = depth > 1 ? p->at[depth - 1] : UINT32_MAX;
  switch (ev)
    {
    case PP_TRACE_EV_ENTER:
      p->calls++;
      p->fn_at[depth] = id;
      if (p->summary)
	break;
      if (!p->branches)
	printf ("%*scall %s\n", (int) (2 * depth - 2), "", fn->name);
      else if (depth > 1)
	{
	  uint32_t first = 0;
	  uint32_t unit, f;
	  trace_file_function (p->t, id, &unit, &f);
	  const pp_graph *g = &p->t->units[unit].graphs[f];
	  const pp_trace_function *tf = &p->t->units[unit].functions[f];
	  first = g->edges[tf->entry_edge].dst;
	  branch (address (p, p->fn_at[depth - 1], caller) + 8, address (p, id, first),
		  "c");
	}
      break;
    case PP_TRACE_EV_BLOCK:
      p->blocks++;
      p->at[depth] = x;
      p->fn_at[depth] = id;
      if (!p->branches && !p->summary)
	print_block (p, depth, id, x);
      break;
    case PP_TRACE_EV_EDGE:
      {
	uint32_t unit, f;
	trace_file_function (p->t, id, &unit, &f);
	const pp_graph *g = &p->t->units[unit].graphs[f];
	uint32_t src = g->edges[x].src, dst = g->edges[x].dst;
	uint32_t n = pp_trace_real_out_degree (g, src);
	unsigned bits = 0;
	while (n > 1 && ((uint32_t) 1 << bits) < n)
	  bits++;
	p->outcome_bits += bits;
	enum branch_kind k = branch_layout_kind (g, p->rpo[id], x);
	if (p->branches && !p->summary && k != BRANCH_NONE)
	  branch (address (p, id, src) + 12, address (p, id, dst),
		  branch_kind_name (k));
	break;
      }
    case PP_TRACE_EV_RETURN:
    case PP_TRACE_EV_UNWIND:
      if (p->summary)
	break;
      if (!p->branches)
	printf ("%*s%s %s\n", (int) (2 * depth - 2), "",
		ev == PP_TRACE_EV_RETURN ? "return from" : "left by longjmp:",
		fn->name);
      else if (depth > 1)
	branch (address (p, id, p->at[depth]) + 12,
		address (p, p->fn_at[depth - 1], caller) + 9, "r");
      break;
    case PP_TRACE_EV_LAND:
      if (p->summary)
	break;
      if (!p->branches)
	printf ("%*slongjmp to %s block %u\n", (int) (2 * depth), "", fn->name, x);
      else
	branch (address (p, id, p->at[depth]) + 12, address (p, id, x), "ij");
      break;
    }
}

int
trace_command (int argc, char **argv)
{
  static const struct option options[] = {
    { "branches", no_argument, NULL, 'b' },
    { "summary", no_argument, NULL, 's' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  struct printer p = { 0 };
  int c;
  opterr = 0;
  while ((c = getopt_long (argc, argv, ":", options, NULL)) != -1)
    switch (c)
      {
      case 'b':
	p.branches = true;
	break;
      case 's':
	p.summary = true;
	break;
      case 'h':
	return tool_help ();
      default:
	return tool_option_error ("trace", c, argv);
      }
  if (optind + 1 != argc)
    return tool_usage_error ("trace: give one trace file");
  p.file = argv[optind];
  trace_file t;
  char err[600];
  if (trace_file_read (p.file, &t, err, sizeof err))
    {
      tool_error (NULL, "%s", err);
      return 1;
    }
  p.t = &t;
  int status = 0;
  p.rpo = calloc (t.nfunctions + 1, sizeof *p.rpo);
  for (uint32_t u = 0; p.rpo && u < t.nunits; u++)
    for (uint32_t f = 0; f < t.units[u].notes.nfunctions; f++)
      if (!(p.rpo[t.units[u].first + f] = branch_layout_order (&t.units[u].graphs[f])))
	status = 1;
  p.base = calloc (t.nfunctions + 1, sizeof *p.base);
  uint64_t next = BRANCH_TEXT_START;
  for (uint32_t u = 0; p.base && u < t.nunits; u++)
    for (uint32_t f = 0; f < t.units[u].notes.nfunctions; f++)
      {
	p.base[t.units[u].first + f] = next;
	next += (uint64_t) t.units[u].notes.functions[f].nblocks << 4;
      }
  if (!p.rpo || !p.base || status)
    {
      tool_error (p.file, "out of memory");
      status = 1;
      goto out;
    }
  if (p.branches && !p.summary)
    {
      printf ("# pathprof-branches 1\n# from %s\n", p.file);
      const char **names = malloc ((t.nfunctions + 1) * sizeof *names);
      branch_names bn = { 0 };
      size_t n = 0;
      for (uint32_t u = 0; names && u < t.nunits; u++)
	for (uint32_t f = 0; f < t.units[u].notes.nfunctions; f++)
	  names[n++] = t.units[u].notes.functions[f].name;
      if (!names || branch_names_init (&bn, names, n))
	{
	  free (names);
	  tool_error (p.file, "out of memory");
	  status = 1;
	  goto out;
	}
      free (names);
      for (uint32_t u = 0; u < t.nunits; u++)
	for (uint32_t f = 0; f < t.units[u].notes.nfunctions; f++)
	  {
	    const pp_function_notes *fn = &t.units[u].notes.functions[f];
	    char name[512];
	    branch_function_name (&bn, fn->name, t.units[u].notes.unit_name, name,
				  sizeof name);
	    for (uint32_t b = 2; b < fn->nblocks; b++)
	      {
		printf ("label 0x%" PRIx64 " %s bb%u", address (&p, t.units[u].first + f,
								 b), name, b);
		for (uint32_t i = 0; i < fn->blocks[b].nlines; i++)
		  printf ("%s%u", i ? "," : " line ", fn->blocks[b].lines[i].line);
		putchar ('\n');
	      }
	  }
      branch_names_free (&bn);
    }
  uint64_t bits = 0;
  for (uint32_t i = 0; i < t.nthreads && status == 0; i++)
    {
      if (!p.summary)
	printf (p.branches ? "thread %u\n" : "thread %u:\n", t.threads[i].id);
      bits += t.threads[i].nbits;
      if (trace_file_regen (&t, i, on_event, &p, err, sizeof err))
	{
	  tool_error (p.file, "%s", err);
	  status = 1;
	}
    }
  if (status == 0)
    {
      double per = p.blocks ? 1000.0 / (double) p.blocks : 0;
      printf ("%s%" PRIu64 " blocks, %" PRIu64 " calls in %u thread(s): %.1f trace "
	      "bytes per 1000 blocks, %.1f to record every branch outcome\n",
	      p.branches && !p.summary ? "# " : "", p.blocks, p.calls, t.nthreads,
	      (double) bits / 8 * per, (double) p.outcome_bits / 8 * per);
    }
out:
  for (uint32_t i = 0; p.rpo && i < t.nfunctions; i++)
    free (p.rpo[i]);
  free (p.rpo);
  free (p.base);
  free (p.at);
  free (p.fn_at);
  trace_file_free (&t);
  return status;
}
