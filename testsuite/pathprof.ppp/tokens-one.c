/* tokens.c and its other unit as one unit, so that main's supergraph is
   the same in every program and the plugin numbers it (a compiled root):
   with path-array-max=2 its segments count in a path table behind a front
   of its interesting ones (plugin/compiled.cc "Fronts").  */
#include "tokens-part.c"
#include "tokens.c"
