/* A compiled root whose supergraph has more segments than 2^32 (72
   decisions in a row, each calling a leaf its copy inlines): its chords
   add constants wider than an instruction's 32-bit immediate, which the
   plugin reads from words after the unit's counters (probes.cc emit_sum,
   unit.cc create_unit_values).  A constant read from the wrong word
   counts the wrong segment, and the derived edge counts differ from
   edge-counts'.  */
#include <stdio.h>

__attribute__ ((noinline)) static unsigned long long
step (unsigned long long s, int i)
{
  return s % 7 == 3 ? s + (unsigned) i : s * 3 + 1;
}

__attribute__ ((noinline)) static unsigned long long
wide (unsigned long long v)
{
  unsigned long long s = v;
  if (v & (1ull << 0)) s = step (s, 0); else s ^= 1;
  if (v & (1ull << 1)) s = step (s, 1); else s ^= 2;
  if (v & (1ull << 2)) s = step (s, 2); else s ^= 3;
  if (v & (1ull << 3)) s = step (s, 3); else s ^= 4;
  if (v & (1ull << 4)) s = step (s, 4); else s ^= 5;
  if (v & (1ull << 5)) s = step (s, 5); else s ^= 6;
  if (v & (1ull << 6)) s = step (s, 6); else s ^= 7;
  if (v & (1ull << 7)) s = step (s, 7); else s ^= 8;
  if (v & (1ull << 8)) s = step (s, 8); else s ^= 9;
  if (v & (1ull << 9)) s = step (s, 9); else s ^= 10;
  if (v & (1ull << 10)) s = step (s, 10); else s ^= 11;
  if (v & (1ull << 11)) s = step (s, 11); else s ^= 12;
  if (v & (1ull << 12)) s = step (s, 12); else s ^= 13;
  if (v & (1ull << 13)) s = step (s, 13); else s ^= 14;
  if (v & (1ull << 14)) s = step (s, 14); else s ^= 15;
  if (v & (1ull << 15)) s = step (s, 15); else s ^= 16;
  if (v & (1ull << 16)) s = step (s, 16); else s ^= 17;
  if (v & (1ull << 17)) s = step (s, 17); else s ^= 18;
  if (v & (1ull << 18)) s = step (s, 18); else s ^= 19;
  if (v & (1ull << 19)) s = step (s, 19); else s ^= 20;
  if (v & (1ull << 20)) s = step (s, 20); else s ^= 21;
  if (v & (1ull << 21)) s = step (s, 21); else s ^= 22;
  if (v & (1ull << 22)) s = step (s, 22); else s ^= 23;
  if (v & (1ull << 23)) s = step (s, 23); else s ^= 24;
  if (v & (1ull << 24)) s = step (s, 24); else s ^= 25;
  if (v & (1ull << 25)) s = step (s, 25); else s ^= 26;
  if (v & (1ull << 26)) s = step (s, 26); else s ^= 27;
  if (v & (1ull << 27)) s = step (s, 27); else s ^= 28;
  if (v & (1ull << 28)) s = step (s, 28); else s ^= 29;
  if (v & (1ull << 29)) s = step (s, 29); else s ^= 30;
  if (v & (1ull << 30)) s = step (s, 30); else s ^= 31;
  if (v & (1ull << 31)) s = step (s, 31); else s ^= 32;
  if (v & (1ull << 32)) s = step (s, 32); else s ^= 33;
  if (v & (1ull << 33)) s = step (s, 33); else s ^= 34;
  if (v & (1ull << 34)) s = step (s, 34); else s ^= 35;
  if (v & (1ull << 35)) s = step (s, 35); else s ^= 36;
  if (v & (1ull << 36)) s = step (s, 36); else s ^= 37;
  if (v & (1ull << 37)) s = step (s, 37); else s ^= 38;
  if (v & (1ull << 38)) s = step (s, 38); else s ^= 39;
  if (v & (1ull << 39)) s = step (s, 39); else s ^= 40;
  if (v & (1ull << 40)) s = step (s, 40); else s ^= 41;
  if (v & (1ull << 41)) s = step (s, 41); else s ^= 42;
  if (v & (1ull << 42)) s = step (s, 42); else s ^= 43;
  if (v & (1ull << 43)) s = step (s, 43); else s ^= 44;
  if (v & (1ull << 44)) s = step (s, 44); else s ^= 45;
  if (v & (1ull << 45)) s = step (s, 45); else s ^= 46;
  if (v & (1ull << 46)) s = step (s, 46); else s ^= 47;
  if (v & (1ull << 47)) s = step (s, 47); else s ^= 48;
  if (v & (1ull << 48)) s = step (s, 48); else s ^= 49;
  if (v & (1ull << 49)) s = step (s, 49); else s ^= 50;
  if (v & (1ull << 50)) s = step (s, 50); else s ^= 51;
  if (v & (1ull << 51)) s = step (s, 51); else s ^= 52;
  if (v & (1ull << 52)) s = step (s, 52); else s ^= 53;
  if (v & (1ull << 53)) s = step (s, 53); else s ^= 54;
  if (v & (1ull << 54)) s = step (s, 54); else s ^= 55;
  if (v & (1ull << 55)) s = step (s, 55); else s ^= 56;
  if (v & (1ull << 56)) s = step (s, 56); else s ^= 57;
  if (v & (1ull << 57)) s = step (s, 57); else s ^= 58;
  if (v & (1ull << 58)) s = step (s, 58); else s ^= 59;
  if (v & (1ull << 59)) s = step (s, 59); else s ^= 60;
  if (v & (1ull << 60)) s = step (s, 60); else s ^= 61;
  if (v & (1ull << 61)) s = step (s, 61); else s ^= 62;
  if (v & (1ull << 62)) s = step (s, 62); else s ^= 63;
  if (v & (1ull << 63)) s = step (s, 63); else s ^= 64;
  if (v & (1ull << 0)) s = step (s, 64); else s ^= 65;
  if (v & (1ull << 1)) s = step (s, 65); else s ^= 66;
  if (v & (1ull << 2)) s = step (s, 66); else s ^= 67;
  if (v & (1ull << 3)) s = step (s, 67); else s ^= 68;
  if (v & (1ull << 4)) s = step (s, 68); else s ^= 69;
  if (v & (1ull << 5)) s = step (s, 69); else s ^= 70;
  if (v & (1ull << 6)) s = step (s, 70); else s ^= 71;
  if (v & (1ull << 7)) s = step (s, 71); else s ^= 72;
  return s;
}

int
main (void)
{
  unsigned long long v = 88172645463325252ull, sum = 0;
  for (int k = 0; k < 2000; k++)
    {
      v ^= v << 13;
      v ^= v >> 7;
      v ^= v << 17;
      sum += wide (v);
    }
  printf ("%llu\n", sum);
  return 0;
}
