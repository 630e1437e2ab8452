/* pathprof: reads the profiles written by programs built with the pathprof plugin
   and reports them.  This file holds the command table and what every command
   shares; each command lives in its own file (show.c, lcov.c, json.c, stats.c,
   paths.c, residual.c, dot.c, merge.c, modes.c).  */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"

static const struct command
{
  const char *name;
  const char *arguments;
  const char *summary;
  int (*run) (int argc, char **argv);
} commands[] = {
  { "show", "FILE [--function NAME] [--source-dir DIR]",
    "print the counts or coverage of every function, block and edge, then\n"
    "the source annotated with line counts or coverage as gcov does",
    show_command },
  { "lcov", "FILE", "print an lcov tracefile (for genhtml) on stdout",
    lcov_command },
  { "json", "FILE", "print the profile as a JSON document on stdout",
    json_command },
  { "stats", "FILE", "print the blocks, edges and probes or counters of every\n"
    "function and unit, and the probes per block and per edge",
    stats_command },
  { "paths", "FILE [--function NAME] [--top N] [--descriptors]",
    "print the executed paths of every function of the paths mode, hottest\n"
    "first, with their blocks and source lines; with --descriptors, the path\n"
    "descriptors pathprof-hw --software compares with its own",
    paths_command },
  { "residual", "FILE [--function NAME]",
    "print the paths a run of the residual mode took that the tests (the\n"
    "paths profile it was built from) never did, then how many",
    residual_command },
  { "dot", "FILE [--function NAME] [--paths N]",
    "print every function's control-flow graph with its counts or coverage\n"
    "as Graphviz input (render with dot -Tsvg); with --paths, the N hottest\n"
    "paths of the paths mode in colours",
    dot_command },
  { "trace", "FILE [--branches] [--summary] [--pack=OUT | --unpack=OUT]",
    "print the execution of every thread of a trace-mode run, block by block\n"
    "with source lines, calls, returns and longjmps; with --branches, the\n"
    "branch stream that pathprof-hw reads; with --summary, only the last line;\n"
    "with --pack or --unpack, write the trace packed (or unpacked) to OUT",
    trace_command },
  { "merge", "OUT IN...", "add up the profiles IN... into OUT (replaced)",
    merge_command },
  { "modes", "", "list the plugin's modes (-fplugin-arg-pathprof-mode=), one a\n"
    "line: the name and what a profile of the mode tells",
    modes_command },
};

#define NCOMMANDS (sizeof commands / sizeof *commands)

static void
print_usage (FILE *out)
{
  fprintf (out, "Usage: pathprof COMMAND ARGS...\n"
	   "       pathprof --help | --version\n\nCommands:\n");
  for (size_t i = 0; i < NCOMMANDS; i++)
    {
      fprintf (out, "  %s%s%s\n", commands[i].name, *commands[i].arguments ? " " : "",
	       commands[i].arguments);
      const char *s = commands[i].summary;
      while (*s)
	{
	  size_t n = strcspn (s, "\n");
	  fprintf (out, "      %.*s\n", (int) n, s);
	  s += n + (s[n] == '\n');
	}
    }
  fprintf (out, "\nEvery command also accepts --help.\n");
}

void
tool_error (const char *file, const char *fmt, ...)
{
  va_list ap;
  fflush (stdout);
  fputs ("pathprof: ", stderr);
  if (file)
    fprintf (stderr, "%s: ", file);
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fputc ('\n', stderr);
}

void
tool_note_unknown_edges (const char *file, const report *r)
{
  for (uint32_t u = 0; u < r->nunits; u++)
    {
      if (r->units[u].mode->calls && !r->units[u].numbered)
	{
	  tool_error (file, "note: unit '%s': no program record of the "
		      "interproc mode counts its paths (the runs said why on "
		      "stderr): its counts are unknown, shown as 0",
		      r->units[u].data->name);
	  continue;
	}
      for (uint32_t i = 0; i < r->units[u].notes.nfunctions; i++)
	{
	  const report_function *f = &r->units[u].functions[i];
	  if (f->unknown_edges)
	    tool_error (file, "note: unit '%s': function '%s': %" PRIu32 " edge "
			"count%s cannot be recovered (abnormal control flow); "
			"counted as 0", r->units[u].data->name, f->notes->name,
			f->unknown_edges, f->unknown_edges == 1 ? "" : "s");
	}
    }
}

int
tool_usage_error (const char *fmt, ...)
{
  va_list ap;
  fputs ("pathprof: ", stderr);
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fputs ("\n\n", stderr);
  print_usage (stderr);
  return EXIT_FAILURE;
}

int
tool_number_of_paths (const char *command, const char *option, const char *arg,
		      uint64_t *n)
{
  char *end;
  errno = 0;
  *n = strtoull (arg, &end, 10);
  if (!*arg || *end || errno || arg[0] == '-')
    return tool_usage_error ("%s: %s expects a number of paths, not '%s'",
			     command, option, arg);
  return -1;
}

int
tool_option_error (const char *command, int c, char **argv)
{
  const char *option = argv[optind - 1];
  if (c == ':')
    return tool_usage_error ("%s: option '%s' needs an argument", command,
			     option);
  return tool_usage_error ("%s: unknown option '%s'", command, option);
}

int
tool_load_report (report *r, const char *path, bool note_unknown)
{
  char err[512];
  if (report_load (r, path, err, sizeof err))
    {
      tool_error (path, "%s", err);
      return -1;
    }
  if (note_unknown)
    tool_note_unknown_edges (path, r);
  return 0;
}

int
tool_parse_options (int argc, char **argv, const tool_option *opts)
{
  /* getopt_long's table: the command's options, each returning 256 + its
     index, then --help.  */
  size_t n = 0;
  while (opts && opts[n].name)
    n++;
  struct option *table = calloc (n + 2, sizeof *table);
  if (!table)
    {
      tool_error (NULL, "out of memory");
      return EXIT_FAILURE;
    }
  for (size_t i = 0; i < n; i++)
    table[i] = (struct option) {
      opts[i].name, opts[i].text || opts[i].paths ? required_argument
						  : no_argument, NULL, 256 + (int) i };
  table[n] = (struct option) { "help", no_argument, NULL, 'h' };
  int c, status = -1;
  opterr = 0;
  while (status < 0 && (c = getopt_long (argc, argv, ":", table, NULL)) != -1)
    {
      const tool_option *o = c >= 256 ? &opts[c - 256] : NULL;
      if (c == 'h')
	status = tool_help ();
      else if (!o)
	status = tool_option_error (argv[0], c, argv);
      else if (o->paths)
	{
	  char option[64];
	  snprintf (option, sizeof option, "--%s", o->name);
	  status = tool_number_of_paths (argv[0], option, optarg, o->paths);
	}
      else if (o->text)
	*o->text = optarg;
      if (o && o->on)
	*o->on = true;
    }
  free (table);
  return status;
}

int
tool_file_arguments (int argc, char **argv, const tool_option *opts,
		     const char *what, const char **path)
{
  int parsed = tool_parse_options (argc, argv, opts);
  if (parsed >= 0)
    return parsed;
  if (argc - optind != 1)
    return tool_usage_error ("%s: expected one %s", argv[0], what);
  *path = argv[optind];
  return -1;
}

int
tool_open_report (int argc, char **argv, const tool_option *opts,
		  bool note_unknown, const char **path, report *r)
{
  int parsed = tool_file_arguments (argc, argv, opts, "profile file", path);
  if (parsed >= 0)
    return parsed;
  return tool_load_report (r, *path, note_unknown) ? EXIT_FAILURE : -1;
}

int
tool_help (void)
{
  print_usage (stdout);
  return fflush (stdout) ? EXIT_FAILURE : EXIT_SUCCESS;
}

int
main (int argc, char **argv)
{
  if (argc < 2)
    return tool_usage_error ("no command given");
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0)
    return tool_help ();
  if (strcmp (argv[1], "--version") == 0)
    {
      printf ("pathprof (pathprof) %s\n", PATHPROF_VERSION);
      return fflush (stdout) ? EXIT_FAILURE : EXIT_SUCCESS;
    }
  for (size_t i = 0; i < NCOMMANDS; i++)
    if (strcmp (argv[1], commands[i].name) == 0)
      {
	int status = commands[i].run (argc - 1, argv + 1);
	if (fflush (stdout) || ferror (stdout))
	  {
	    tool_error (NULL, "error writing the output");
	    return EXIT_FAILURE;
	  }
	return status;
      }
  return tool_usage_error ("unknown command '%s'", argv[1]);
}
