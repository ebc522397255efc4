/* Asks the object quant-compile made of Tools/Inputs/qmatmul_exec.mlir (its
 * header given with -include) which CPU feature it lacks here, as a
 * program would before choosing a code path, then calls it: the entry
 * point checks the CPU itself and aborts with a message if one is missing. */
#include <stdint.h>
#include <stdio.h>

int main(void) {
  const char *missing = odd_u8_missing_cpu_feature();
  printf("missing: %s\n", missing ? missing : "none");
  fflush(stdout);
  int8_t input[5 * 7] = {0}, output[5 * 3];
  odd_u8_run(input, output);
  printf("ran\n");
  return 0;
}
