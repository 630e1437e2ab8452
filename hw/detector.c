/* The path detector: the PPCR, the path stacks and the branch queue (hw.h has
   the model).  */

#include <stdlib.h>
#include <string.h>

#include "hw.h"

int
hw_ppcr_preset (hw_ppcr *p, const char *name, uint32_t max_extension)
{
  enum { U = HW_OP_UPDATE, C = HW_OP_UPDATE_COUNT, O = HW_OP_POP, P = HW_OP_PUSH };
  /* Table 5.1 (Ball-Larus paths) and table 5.2 (WPP elements).  */
  static const uint8_t ball_larus[HW_NTYPES] = { C | P, C | O, U | O | P, U, U | O | P };
  static const uint8_t wpp[HW_NTYPES] = { C | O | P, C | O | P, U | O | P, U, U | O | P };
  memset (p, 0, sizeof *p);
  p->max_extension = max_extension;
  if (strcmp (name, "ball-larus") == 0 || strcmp (name, "extended-loop") == 0
      || strcmp (name, "extended-interproc") == 0)
    memcpy (p->ops, ball_larus, sizeof p->ops);
  else if (strcmp (name, "wpp") == 0)
    memcpy (p->ops, wpp, sizeof p->ops);
  else
    return -1;
  if (strcmp (name, "extended-loop") == 0)
    p->extend = HW_EXTEND_LOOP;
  else if (strcmp (name, "extended-interproc") == 0)
    p->extend = HW_EXTEND_INTERPROC;
  return 0;
}

int
hw_ppcr_parse (hw_ppcr *p, const char *spec, char *err, size_t errlen)
{
  static const char *const types[HW_NTYPES] = { "call", "return", "indirect",
						"forward", "backward" };
  static const struct { const char *name; uint8_t op; } ops[] = {
    { "update", HW_OP_UPDATE }, { "update-count", HW_OP_UPDATE_COUNT },
    { "pop", HW_OP_POP }, { "push", HW_OP_PUSH },
  };
  memset (p, 0, sizeof *p);
  char *copy = strdup (spec), *save = NULL;
  if (!copy)
    return snprintf (err, errlen, "out of memory"), -1;
  int status = 0;
  for (char *item = strtok_r (copy, ";", &save); item && !status;
       item = strtok_r (NULL, ";", &save))
    {
      char *eq = strchr (item, '=');
      int t = -1;
      for (int i = 0; eq && i < HW_NTYPES; i++)
	if ((size_t) (eq - item) == strlen (types[i])
	    && strncmp (item, types[i], strlen (types[i])) == 0)
	  t = i;
      if (t < 0)
	{
	  snprintf (err, errlen, "'%s': expected TYPE=OPS with TYPE call, return, "
		    "indirect, forward or backward", item);
	  status = -1;
	  break;
	}
      char *save2 = NULL;
      for (char *op = strtok_r (eq + 1, ",", &save2); op && !status;
	   op = strtok_r (NULL, ",", &save2))
	{
	  size_t k = 0;
	  while (k < sizeof ops / sizeof *ops && strcmp (ops[k].name, op) != 0)
	    k++;
	  if (k == sizeof ops / sizeof *ops)
	    {
	      snprintf (err, errlen, "'%s': an operation is update, update-count, "
			"pop or push", op);
	      status = -1;
	    }
	  else
	    p->ops[t] |= ops[k].op;
	}
      if (!status && (p->ops[t] & HW_OP_UPDATE) && (p->ops[t] & HW_OP_UPDATE_COUNT))
	{
	  snprintf (err, errlen, "%s: update and update-count exclude each other",
		    types[t]);
	  status = -1;
	}
    }
  free (copy);
  return status;
}

/* ---- Stacks.  */

/* The stack of a thread other than the last one's, made when new.  */
static __attribute__ ((noinline)) hw_stack *
other_stack (hw_model *m, uint32_t thread)
{
  for (uint32_t i = 0; i < m->nstacks; i++)
    if (m->stacks[i].thread == thread)
      {
	m->last_stack = i;
	return &m->stacks[i];
      }
  hw_stack *s = realloc (m->stacks, (m->nstacks + 1) * sizeof *s);
  if (!s)
    {
      m->failed = true;
      return NULL;
    }
  m->stacks = s;
  m->last_stack = m->nstacks;
  s = &m->stacks[m->nstacks++];
  memset (s, 0, sizeof *s);
  s->thread = thread;
  return s;
}

static inline hw_stack *
stack_of (hw_model *m, uint32_t thread)
{
  if (m->last_stack < m->nstacks && m->stacks[m->last_stack].thread == thread)
    return &m->stacks[m->last_stack];
  return other_stack (m, thread);
}

/* An entry's target buffer stays with its slot of the stack, reused by the
   paths pushed there after it; this frees it for good.  */
static void
free_entry (hw_entry *e)
{
  free (e->targets);
  e->targets = NULL;
  e->cap = 0;
}

static __attribute__ ((noinline)) bool
grow_targets (hw_model *m, hw_entry *e)
{
  uint32_t cap = e->cap ? 2 * e->cap : 8;
  uint64_t *t = realloc (e->targets, cap * sizeof *t);
  if (!t)
    {
      m->failed = true;
      return false;
    }
  e->targets = t;
  e->cap = cap;
  return true;
}

static inline bool
note_target (hw_model *m, hw_entry *e, uint64_t addr)
{
  if (__builtin_expect (e->ntargets == e->cap, 0) && !grow_targets (m, e))
    return false;
  e->targets[e->ntargets++] = addr;
  return true;
}

/* A finished path: to the complete profile and the HPT.  */
static void
emit (hw_model *m, hw_entry *e)
{
  m->paths++;
  uint64_t count = m->c.metric == HW_METRIC_FREQUENCY ? 1 : e->events;
  hw_profile_entry *pe = hw_profile_add (&m->complete, &e->path, count);
  if (!pe)
    m->failed = true;
  else if (!pe->targets && e->ntargets)
    {
      /* The first occurrence, for reports.  */
      pe->targets = malloc (e->ntargets * sizeof *pe->targets);
      if (!pe->targets)
	m->failed = true;
      else
	{
	  memcpy (pe->targets, e->targets, e->ntargets * sizeof *pe->targets);
	  pe->nbranches = e->ntargets;
	}
    }
  if (m->hpt)
    hw_hpt_add (m->hpt, &e->path, count > UINT32_MAX ? UINT32_MAX : (uint32_t) count);
}

static hw_entry *
push (hw_model *m, hw_stack *s, uint64_t start)
{
  if (s->depth == m->c.stack_depth && m->c.overflow == HW_OVERFLOW_DROP_OLDEST)
    {
      /* Full: the oldest entry is forgotten (never counted).  */
      m->overflows++;
      hw_entry oldest = s->e[0];
      memmove (s->e, s->e + 1, (s->depth - 1) * sizeof *s->e);
      s->e[--s->depth] = oldest;	/* its buffer, for the next push */
    }
  else if (s->depth >= m->c.stack_depth)
    m->overflows++;
  if (s->depth == s->cap)
    {
      uint32_t cap = s->cap ? 2 * s->cap : 16;
      hw_entry *e = realloc (s->e, cap * sizeof *e);
      if (!e)
	{
	  m->failed = true;
	  return NULL;
	}
      memset (e + s->cap, 0, (cap - s->cap) * sizeof *e);
      s->e = e;
      s->cap = cap;
    }
  hw_entry *e = &s->e[s->depth++];
  uint64_t *targets = e->targets;
  uint32_t tcap = e->cap;
  memset (e, 0, sizeof *e);
  e->targets = targets;
  e->cap = tcap;
  e->path.start = start;
  note_target (m, e, start);
  return e;
}

static void
pop (hw_model *m, hw_stack *s)
{
  if (s->depth == 0)
    {
      m->underflows++;
      return;
    }
  emit (m, &s->e[--s->depth]);
}

/* One branch (hw_model_branch's, out of its way).  */
void
hw_model_detect (hw_model *m, const hw_branch *b)
{
  hw_stack *s = stack_of (m, b->thread);
  if (!s)
    return;
  m->branches++;
  enum hw_type t = hw_branch_type (b);
  uint8_t ops = m->c.ppcr.ops[t];
  hw_entry *top = s->depth ? &s->e[s->depth - 1] : NULL;
  /* Extended paths go on through a backward branch or a call.  */
  const hw_ppcr *p = &m->c.ppcr;
  if (top && ((p->extend == HW_EXTEND_LOOP && t == HW_TYPE_BACKWARD)
	      || (p->extend == HW_EXTEND_INTERPROC && t == HW_TYPE_CALL))
      && top->extension < p->max_extension)
    {
      top->extension++;
      ops = HW_OP_UPDATE;
    }
  else if (top && p->extend == HW_EXTEND_INTERPROC && t == HW_TYPE_RETURN
	   && top->extension > 0)
    {
      top->extension--;
      ops = HW_OP_UPDATE;
    }
  if (ops & (HW_OP_UPDATE | HW_OP_UPDATE_COUNT))
    {
      /* A stream starts inside a function: its first path starts at the
	 first branch.  */
      if (!top && !(top = push (m, s, b->src)))
	return;
      hw_entry_count (top, b);
      if (ops & HW_OP_UPDATE)
	{
	  hw_entry_extend (top, b);
	  note_target (m, top, b->dst);
	  if (top->path.length >= m->c.max_length && !(ops & HW_OP_POP))
	    {
	      m->splits++;
	      pop (m, s);
	      push (m, s, b->dst);
	    }
	}
    }
  if (ops & HW_OP_POP)
    pop (m, s);
  if (ops & HW_OP_PUSH)
    push (m, s, b->dst);
}

/* ---- The model.  */

int
hw_model_init (hw_model *m, const hw_config *c, hw_hpt *hpt)
{
  memset (m, 0, sizeof *m);
  m->c = *c;
  if (m->c.max_length < 1 || m->c.max_length > 64 || m->c.stack_depth < 1
      || m->c.queue < 1)
    return -1;
  m->hpt = hpt;
  hw_profile_init (&m->complete);
  return 0;
}

void
hw_model_free (hw_model *m)
{
  for (uint32_t i = 0; i < m->nstacks; i++)
    {
      for (uint32_t j = 0; j < m->stacks[i].cap; j++)
	free_entry (&m->stacks[i].e[j]);
      free (m->stacks[i].e);
    }
  free (m->stacks);
  hw_profile_free (&m->complete);
  memset (m, 0, sizeof *m);
}

void
hw_model_end_thread (hw_model *m, uint32_t thread)
{
  hw_stack *s = stack_of (m, thread);
  while (s && s->depth)
    pop (m, s);
}

void
hw_model_flush (hw_model *m)
{
  for (uint32_t i = 0; i < m->nstacks; i++)
    while (m->stacks[i].depth)
      pop (m, &m->stacks[i]);
}
